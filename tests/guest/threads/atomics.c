// Tests that guest atomics lose nothing when threads contend: kThreads threads each do kIters increments of
// shared counters with every atomic form, written in inline assembly so the instruction is exactly the one
// named: LDXR/STXR (64 and 32 bit), LDAXR/STLXR, LDXP/STXP and LDAXP/STLXP (128-bit pair), and with LSE
// (built with -march=armv8.1-a) LDADD, LDADDAL, CAS, CASAL, CASP, CASPAL, SWP (an exchange whose values must
// all be accounted for) and SWPA as a spin lock; then all forms at once on one counter, and C11
// atomic_fetch_add/atomic_exchange as the compiler emits them for the -march of the build (registered as
// variants: armv8-a with -mno-outline-atomics gives LL/SC loops, armv8.1-a gives LSE, and -moutline-atomics
// picks at run time from HWCAP_ATOMICS). Every total must be exact, and the old values that LDADD and
// atomic_fetch_add return must be each value from 0 to N-1 exactly once.
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "check.h"

#ifndef HWCAP_ATOMICS
#define HWCAP_ATOMICS (1 << 8)
#endif

enum { kThreads = 4, kIters = 200000, kTotal = kThreads * kIters };

typedef struct {
  uint64_t lo, hi;
} __attribute__((aligned(16))) Pair;

static uint64_t counter64;
static uint32_t counter32;
static Pair pair;
static uint64_t olds[kThreads][kIters];  // the old values returned by a fetch-and-add, per thread
static pthread_barrier_t start_barrier;

static inline void inc_ldxr64(uint64_t* p) {
  uint64_t v;
  uint32_t fail;
  __asm__ volatile(
      "1: ldxr %0, %2\n"
      "   add %0, %0, #1\n"
      "   stxr %w1, %0, %2\n"
      "   cbnz %w1, 1b"
      : "=&r"(v), "=&r"(fail), "+Q"(*p)
      :
      : "memory");
}

static inline void inc_ldxr32(uint32_t* p) {
  uint32_t v, fail;
  __asm__ volatile(
      "1: ldxr %w0, %2\n"
      "   add %w0, %w0, #1\n"
      "   stxr %w1, %w0, %2\n"
      "   cbnz %w1, 1b"
      : "=&r"(v), "=&r"(fail), "+Q"(*p)
      :
      : "memory");
}

static inline void inc_ldaxr64(uint64_t* p) {
  uint64_t v;
  uint32_t fail;
  __asm__ volatile(
      "1: ldaxr %0, %2\n"
      "   add %0, %0, #1\n"
      "   stlxr %w1, %0, %2\n"
      "   cbnz %w1, 1b"
      : "=&r"(v), "=&r"(fail), "+Q"(*p)
      :
      : "memory");
}

// Adds 1 to the low half and 2 to the high half of the pair in one exclusive pair access.
static inline void inc_ldxp(Pair* p) {
  uint64_t lo, hi;
  uint32_t fail;
  __asm__ volatile(
      "1: ldxp %0, %1, %3\n"
      "   add %0, %0, #1\n"
      "   add %1, %1, #2\n"
      "   stxp %w2, %0, %1, %3\n"
      "   cbnz %w2, 1b"
      : "=&r"(lo), "=&r"(hi), "=&r"(fail), "+Q"(*p)
      :
      : "memory");
}

static inline void inc_ldaxp(Pair* p) {
  uint64_t lo, hi;
  uint32_t fail;
  __asm__ volatile(
      "1: ldaxp %0, %1, %3\n"
      "   add %0, %0, #1\n"
      "   add %1, %1, #2\n"
      "   stlxp %w2, %0, %1, %3\n"
      "   cbnz %w2, 1b"
      : "=&r"(lo), "=&r"(hi), "=&r"(fail), "+Q"(*p)
      :
      : "memory");
}

#if defined(__ARM_FEATURE_ATOMICS)
static inline uint64_t fetch_inc_ldadd(uint64_t* p) {
  uint64_t old;
  __asm__ volatile("ldadd %1, %0, %2" : "=&r"(old) : "r"((uint64_t)1), "Q"(*p) : "memory");
  return old;
}

static inline uint64_t fetch_inc_ldaddal(uint64_t* p) {
  uint64_t old;
  __asm__ volatile("ldaddal %1, %0, %2" : "=&r"(old) : "r"((uint64_t)1), "Q"(*p) : "memory");
  return old;
}

static inline void inc_cas(uint64_t* p) {
  uint64_t expected = __atomic_load_n(p, __ATOMIC_RELAXED);
  for (;;) {
    uint64_t seen = expected;
    __asm__ volatile("cas %0, %2, %1" : "+&r"(seen), "+Q"(*p) : "r"(expected + 1) : "memory");
    if (seen == expected) return;
    expected = seen;
  }
}

static inline void inc_casal(uint64_t* p) {
  uint64_t expected = __atomic_load_n(p, __ATOMIC_RELAXED);
  for (;;) {
    uint64_t seen = expected;
    __asm__ volatile("casal %0, %2, %1" : "+&r"(seen), "+Q"(*p) : "r"(expected + 1) : "memory");
    if (seen == expected) return;
    expected = seen;
  }
}

// CASP needs even/odd register pairs, hence the fixed registers. The first read may tear; CASP then fails
// and returns the real pair.
#define DEFINE_INC_CASP(name, insn)                   \
  static inline void name(Pair* p) {                  \
    uint64_t lo = p->lo, hi = p->hi;                  \
    for (;;) {                                        \
      register uint64_t c0 __asm__("x4") = lo;        \
      register uint64_t c1 __asm__("x5") = hi;        \
      register uint64_t n0 __asm__("x6") = lo + 1;    \
      register uint64_t n1 __asm__("x7") = hi + 2;    \
      __asm__ volatile(insn " %0, %1, %3, %4, %2"     \
                       : "+r"(c0), "+r"(c1), "+Q"(*p) \
                       : "r"(n0), "r"(n1)             \
                       : "memory");                   \
      if (c0 == lo && c1 == hi) return;               \
      lo = c0;                                        \
      hi = c1;                                        \
    }                                                 \
  }
DEFINE_INC_CASP(inc_casp, "casp")
DEFINE_INC_CASP(inc_caspal, "caspal")

static inline uint64_t swap_swp(uint64_t* p, uint64_t value) {
  uint64_t old;
  __asm__ volatile("swp %1, %0, %2" : "=&r"(old) : "r"(value), "Q"(*p) : "memory");
  return old;
}

static uint32_t swp_lock_word;
static uint64_t swp_locked_counter;  // plain increments, protected by the SWPA lock

static inline void swpa_lock(uint32_t* lock) {
  uint32_t old;
  do {
    __asm__ volatile("swpa %w1, %w0, %2" : "=&r"(old) : "r"(1u), "Q"(*lock) : "memory");
  } while (old != 0);
}

static inline void stlr_unlock(uint32_t* lock) {
  __asm__ volatile("stlr wzr, %0" : "=Q"(*lock) : : "memory");
}

// The narrow and signed forms return the old value as Arm defines it: zero-extended into the W register
// (LDSMAX and friends compare signed but also return the old value zero-extended), whatever path the
// emulator takes for them; the memory gets the operation's result; a CAS whose comparison fails leaves
// memory alone and returns what it found.
static void narrow_forms(void) {
  static volatile uint8_t b;
  static volatile uint16_t h;
  static volatile uint32_t w;
  uint32_t old;
  b = 0x80;
  __asm__ volatile("ldsetalb %w1, %w0, %2" : "=&r"(old) : "r"(0x01u), "Q"(b) : "memory");
  CHECK_EQ(old, 0x80u);
  CHECK_EQ(b, 0x81);
  __asm__ volatile("ldclralb %w1, %w0, %2" : "=&r"(old) : "r"(0x80u), "Q"(b) : "memory");
  CHECK_EQ(old, 0x81u);
  CHECK_EQ(b, 0x01);
  __asm__ volatile("ldeoralb %w1, %w0, %2" : "=&r"(old) : "r"(0xffu), "Q"(b) : "memory");
  CHECK_EQ(old, 0x01u);
  CHECK_EQ(b, 0xfe);
  __asm__ volatile("ldaddalb %w1, %w0, %2" : "=&r"(old) : "r"(0x03u), "Q"(b) : "memory");
  CHECK_EQ(old, 0xfeu);
  CHECK_EQ(b, 0x01);  // wraps at 8 bits
  h = 0xfff0;
  __asm__ volatile("ldaddalh %w1, %w0, %2" : "=&r"(old) : "r"(0x20u), "Q"(h) : "memory");
  CHECK_EQ(old, 0xfff0u);
  CHECK_EQ(h, 0x0010);
  __asm__ volatile("ldsmaxalh %w1, %w0, %2" : "=&r"(old) : "r"(0x8000u), "Q"(h) : "memory");
  CHECK_EQ(old, 0x0010u);  // 0x8000 is -32768: the maximum stays 0x10
  CHECK_EQ(h, 0x0010);
  __asm__ volatile("ldsminalh %w1, %w0, %2" : "=&r"(old) : "r"(0x8000u), "Q"(h) : "memory");
  CHECK_EQ(old, 0x0010u);
  CHECK_EQ(h, 0x8000);
  __asm__ volatile("ldsmaxalh %w1, %w0, %2" : "=&r"(old) : "r"(0x0001u), "Q"(h) : "memory");
  CHECK_EQ(old, 0x8000u);  // zero-extended, not 0xffff8000
  CHECK_EQ(h, 0x0001);
  uint32_t seen = 0x7f;
  b = 0x90;
  __asm__ volatile("casalb %w0, %w2, %1" : "+&r"(seen), "+Q"(b) : "r"(0x11u) : "memory");
  CHECK_EQ(seen, 0x90u);  // the comparison failed: memory as it was
  CHECK_EQ(b, 0x90);
  seen = 0x90;
  __asm__ volatile("casalb %w0, %w2, %1" : "+&r"(seen), "+Q"(b) : "r"(0x11u) : "memory");
  CHECK_EQ(seen, 0x90u);
  CHECK_EQ(b, 0x11);
  seen = 0xffff;
  h = 0xfffe;
  __asm__ volatile("casalh %w0, %w2, %1" : "+&r"(seen), "+Q"(h) : "r"(0x1u) : "memory");
  CHECK_EQ(seen, 0xfffeu);
  CHECK_EQ(h, 0xfffe);
  static volatile uint32_t sw;
  uint64_t old64;
  sw = 0x80000000u;
  __asm__ volatile("ldsmaxal %w1, %w0, %2" : "=&r"(old64) : "r"(0x1u), "Q"(sw) : "memory");
  CHECK_EQ(old64, 0x80000000u);  // the whole X register: zero above bit 31
  CHECK_EQ(sw, 0x1u);
  b = 0xff;
  __asm__ volatile("ldsminalb %w1, %w0, %2" : "=&r"(old64) : "r"(0x7fu), "Q"(b) : "memory");
  CHECK_EQ(old64, 0xffu);  // -1 is the minimum; the register holds it zero-extended
  CHECK_EQ(b, 0xff);
  w = 0xfffffff0u;
  __asm__ volatile("ldumaxal %w1, %w0, %2" : "=&r"(old) : "r"(0x10u), "Q"(w) : "memory");
  CHECK_EQ(old, 0xfffffff0u);
  CHECK_EQ(w, 0xfffffff0u);
}
#endif  // __ARM_FEATURE_ATOMICS

static _Atomic uint64_t c11_counter;

enum Form {
  kLdxr64,
  kLdxr32,
  kLdaxr64,
  kLdxp,
  kLdaxp,
  kLdadd,
  kLdaddal,
  kCas,
  kCasal,
  kCasp,
  kCaspal,
  kSwp,
  kSwpaLock,
  kMixed,
  kC11FetchAdd,
  kC11Exchange,
};

struct Job {
  enum Form form;
  int thread;
  uint64_t sum;  // kSwp, kC11Exchange: the sum of the values this thread swapped out
};

static void* worker(void* arg) {
  struct Job* job = arg;
  int t = job->thread;
  uint64_t sum = 0;
  pthread_barrier_wait(&start_barrier);
  for (int i = 0; i < kIters; i++) {
    switch (job->form) {
      case kLdxr64:
        inc_ldxr64(&counter64);
        break;
      case kLdxr32:
        inc_ldxr32(&counter32);
        break;
      case kLdaxr64:
        inc_ldaxr64(&counter64);
        break;
      case kLdxp:
        inc_ldxp(&pair);
        break;
      case kLdaxp:
        inc_ldaxp(&pair);
        break;
#if defined(__ARM_FEATURE_ATOMICS)
      case kLdadd:
        olds[t][i] = fetch_inc_ldadd(&counter64);
        break;
      case kLdaddal:
        olds[t][i] = fetch_inc_ldaddal(&counter64);
        break;
      case kCas:
        inc_cas(&counter64);
        break;
      case kCasal:
        inc_casal(&counter64);
        break;
      case kCasp:
        inc_casp(&pair);
        break;
      case kCaspal:
        inc_caspal(&pair);
        break;
      case kSwp:
        sum += swap_swp(&counter64, (uint64_t)t * kIters + i + 1);
        break;
      case kSwpaLock:
        swpa_lock(&swp_lock_word);
        swp_locked_counter = swp_locked_counter + 1;
        stlr_unlock(&swp_lock_word);
        break;
      case kMixed:  // each thread its own form, all on one counter
        switch (t % 4) {
          case 0:
            inc_ldxr64(&counter64);
            break;
          case 1:
            fetch_inc_ldadd(&counter64);
            break;
          case 2:
            inc_casal(&counter64);
            break;
          default:
            atomic_fetch_add((_Atomic uint64_t*)&counter64, 1);
            break;
        }
        break;
#else
      case kMixed:
        switch (t % 3) {
          case 0:
            inc_ldxr64(&counter64);
            break;
          case 1:
            inc_ldaxr64(&counter64);
            break;
          default:
            atomic_fetch_add((_Atomic uint64_t*)&counter64, 1);
            break;
        }
        break;
#endif
      case kC11FetchAdd:
        olds[t][i] = atomic_fetch_add(&c11_counter, 1);
        break;
      case kC11Exchange:
        sum += atomic_exchange(&c11_counter, (uint64_t)t * kIters + i + 1);
        break;
      default:
        break;
    }
  }
  job->sum = sum;
  return NULL;
}

static void run(enum Form form, struct Job jobs[kThreads]) {
  pthread_t threads[kThreads];
  REQUIRE(pthread_barrier_init(&start_barrier, NULL, kThreads) == 0);
  for (int t = 0; t < kThreads; t++) {
    jobs[t] = (struct Job){.form = form, .thread = t};
    REQUIRE(pthread_create(&threads[t], NULL, worker, &jobs[t]) == 0);
  }
  for (int t = 0; t < kThreads; t++) REQUIRE(pthread_join(threads[t], NULL) == 0);
  pthread_barrier_destroy(&start_barrier);
}

// The old values returned by kTotal fetch-and-adds from 0 must be 0..kTotal-1, each exactly once.
static int olds_are_a_permutation(void) {
  static unsigned char seen[kTotal];
  memset(seen, 0, sizeof seen);
  for (int t = 0; t < kThreads; t++)
    for (int i = 0; i < kIters; i++) {
      uint64_t v = olds[t][i];
      if (v >= kTotal || seen[v]) return 0;
      seen[v] = 1;
    }
  return 1;
}

// After an exchange storm starting from 0, the values swapped out plus the one left must be all those put in.
static uint64_t swapped_sum(struct Job jobs[kThreads], uint64_t left) {
  uint64_t sum = left;
  for (int t = 0; t < kThreads; t++) sum += jobs[t].sum;
  return sum;
}

static const uint64_t kSwappedInSum = (uint64_t)kTotal * (kTotal + 1) / 2;

int main(void) {
  struct Job jobs[kThreads];
  unsigned long hwcap = getauxval(AT_HWCAP);
#if defined(__ARM_FEATURE_ATOMICS)
  REQUIRE(hwcap & HWCAP_ATOMICS);  // the LSE forms below need it
  printf("LSE build; HWCAP_ATOMICS set\n");
#else
  printf("LL/SC build; HWCAP_ATOMICS %s\n", (hwcap & HWCAP_ATOMICS) ? "set" : "clear");
#endif

  counter64 = 0;
  run(kLdxr64, jobs);
  CHECK_EQ(counter64, kTotal);  // LDXR/STXR 64-bit
  counter32 = 0;
  run(kLdxr32, jobs);
  CHECK_EQ(counter32, kTotal);  // LDXR/STXR 32-bit
  counter64 = 0;
  run(kLdaxr64, jobs);
  CHECK_EQ(counter64, kTotal);  // LDAXR/STLXR
  pair = (Pair){0, 0};
  run(kLdxp, jobs);
  CHECK_EQ(pair.lo, kTotal);  // LDXP/STXP
  CHECK_EQ(pair.hi, 2 * (uint64_t)kTotal);
  pair = (Pair){0, 0};
  run(kLdaxp, jobs);
  CHECK_EQ(pair.lo, kTotal);  // LDAXP/STLXP
  CHECK_EQ(pair.hi, 2 * (uint64_t)kTotal);

#if defined(__ARM_FEATURE_ATOMICS)
  counter64 = 0;
  run(kLdadd, jobs);
  CHECK_EQ(counter64, kTotal);  // LDADD
  CHECK(olds_are_a_permutation());
  counter64 = 0;
  run(kLdaddal, jobs);
  CHECK_EQ(counter64, kTotal);  // LDADDAL
  CHECK(olds_are_a_permutation());
  counter64 = 0;
  run(kCas, jobs);
  CHECK_EQ(counter64, kTotal);  // CAS
  counter64 = 0;
  run(kCasal, jobs);
  CHECK_EQ(counter64, kTotal);  // CASAL
  pair = (Pair){0, 0};
  run(kCasp, jobs);
  CHECK_EQ(pair.lo, kTotal);  // CASP
  CHECK_EQ(pair.hi, 2 * (uint64_t)kTotal);
  pair = (Pair){0, 0};
  run(kCaspal, jobs);
  CHECK_EQ(pair.lo, kTotal);  // CASPAL
  CHECK_EQ(pair.hi, 2 * (uint64_t)kTotal);
  counter64 = 0;
  run(kSwp, jobs);
  CHECK_EQ(swapped_sum(jobs, counter64), kSwappedInSum);  // SWP: no value lost or duplicated
  swp_lock_word = 0;
  swp_locked_counter = 0;
  run(kSwpaLock, jobs);
  CHECK_EQ(swp_locked_counter, kTotal);  // SWPA as a lock: mutual exclusion
  CHECK_EQ(swp_lock_word, 0);
  narrow_forms();
#endif

  counter64 = 0;
  run(kMixed, jobs);
  CHECK_EQ(counter64, kTotal);  // several forms at once on one counter

  atomic_store(&c11_counter, 0);
  run(kC11FetchAdd, jobs);
  CHECK_EQ(atomic_load(&c11_counter), kTotal);  // C11 atomic_fetch_add
  CHECK(olds_are_a_permutation());
  atomic_store(&c11_counter, 0);
  run(kC11Exchange, jobs);
  CHECK_EQ(swapped_sum(jobs, atomic_load(&c11_counter)), kSwappedInSum);  // C11 atomic_exchange
  return check_done();
}
