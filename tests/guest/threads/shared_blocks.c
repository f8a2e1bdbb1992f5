// Tests threads that run code another thread translated first (a64run shares translated blocks between
// the threads of a process, emu/tb_share.cpp; qemu-user has one translation cache for all its threads).
//  - faults: the main thread runs a function once, then four threads run it with addresses in a PROT_NONE
//    page. Each fault must name the faulting instruction (the handler's PC, exactly), its address and the
//    registers the function set before it, whichever thread's translation it ran: through a plain load
//    (straight to the guest window) and through an exclusive load (the softmmu helper).
//  - a full translation buffer: one thread runs 3 MiB of straight-line code, more than a translation
//    buffer holds, while three others run a function whose translation is in that thread's buffer. Every
//    call must return what the code computes.
//  - colliding blocks: 16 functions whose addresses share one slot of a vCPU's jump cache (QEMU's
//    tb_jmp_cache_hash_func), translated by the main thread, called in turn by three threads, so that
//    every call misses the jump cache and the thread finds the block in its own table (a64run puts a
//    block it takes from another thread there). Then the main thread rewrites them: the next calls must
//    return the new values, from no table.
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "check.h"

#define kPage 4096L
enum { kThreads = 4, kFaultsPerThread = 200 };

// probe_plain(p, k): x9 = 0x1234, x10 = k + 7, then x0 = *p + k. probe_excl: the same with ldxr.
uint64_t probe_plain(const uint64_t* p, uint64_t k);
uint64_t probe_excl(const uint64_t* p, uint64_t k);
extern const char probe_plain_load[], probe_excl_load[];
__asm__(
    ".text\n"
    ".global probe_plain\n.global probe_plain_load\n"
    "probe_plain:\n"
    "  mov x9, #0x1234\n"
    "  add x10, x1, #7\n"
    "probe_plain_load:\n"
    "  ldr x0, [x0]\n"
    "  add x0, x0, x1\n"
    "  ret\n"
    ".global probe_excl\n.global probe_excl_load\n"
    "probe_excl:\n"
    "  mov x9, #0x1234\n"
    "  add x10, x1, #7\n"
    "probe_excl_load:\n"
    "  ldxr x0, [x0]\n"
    "  clrex\n"
    "  add x0, x0, x1\n"
    "  ret\n");

static char* bad_page;
static _Thread_local const char* expect_pc;
static _Thread_local uintptr_t expect_addr;
static _Thread_local uint64_t expect_k;
static atomic_int wrong_pc, wrong_addr, wrong_regs, faults;

// Checks the fault and skips the load: the probe then returns 42 + k.
static void on_segv(int sig, siginfo_t* si, void* uc_void) {
  (void)sig;
  ucontext_t* uc = uc_void;
  mcontext_t* mc = &uc->uc_mcontext;
  atomic_fetch_add(&faults, 1);
  if ((const char*)mc->pc != expect_pc) atomic_fetch_add(&wrong_pc, 1);
  if ((uintptr_t)si->si_addr != expect_addr) atomic_fetch_add(&wrong_addr, 1);
  if (mc->regs[9] != 0x1234 || mc->regs[10] != expect_k + 7) atomic_fetch_add(&wrong_regs, 1);
  mc->regs[0] = 42;
  mc->pc += 4;
}

static int fault_once(int excl, unsigned i) {
  const uintptr_t addr = (uintptr_t)bad_page + (i * 8u) % kPage;
  expect_pc = excl ? probe_excl_load : probe_plain_load;
  expect_addr = addr;
  expect_k = i;
  const uint64_t got = excl ? probe_excl((const uint64_t*)addr, i) : probe_plain((const uint64_t*)addr, i);
  return got == 42 + (uint64_t)i;
}

static atomic_int wrong_results;

static void* fault_thread(void* arg) {
  const unsigned seed = (unsigned)(uintptr_t)arg;
  static const uint64_t good = 1000;
  for (unsigned i = 0; i < kFaultsPerThread; i++) {
    const unsigned n = seed * 1000 + i;
    if (!fault_once(i & 1, n)) atomic_fetch_add(&wrong_results, 1);
    // A good address between the faults: the same blocks, no signal.
    if (probe_plain(&good, n) != good + n || probe_excl(&good, n) != good + n)
      atomic_fetch_add(&wrong_results, 1);
  }
  return NULL;
}

static void test_faults(void) {
  bad_page = mmap(NULL, kPage, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(bad_page != MAP_FAILED);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  REQUIRE(sigaction(SIGSEGV, &sa, NULL) == 0);
  // The main thread translates the probes first.
  static const uint64_t one = 1;
  CHECK_EQ(probe_plain(&one, 2), 3);
  CHECK_EQ(probe_excl(&one, 2), 3);
  CHECK(fault_once(0, 1));
  CHECK(fault_once(1, 2));
  pthread_t th[kThreads];
  for (int i = 0; i < kThreads; i++)
    REQUIRE(pthread_create(&th[i], NULL, fault_thread, (void*)(uintptr_t)(i + 1)) == 0);
  for (int i = 0; i < kThreads; i++) pthread_join(th[i], NULL);
  CHECK_EQ(atomic_load(&faults), 2 + kThreads * kFaultsPerThread);
  CHECK_EQ(atomic_load(&wrong_pc), 0);
  CHECK_EQ(atomic_load(&wrong_addr), 0);
  CHECK_EQ(atomic_load(&wrong_regs), 0);
  CHECK_EQ(atomic_load(&wrong_results), 0);
  signal(SIGSEGV, SIG_DFL);
  munmap(bad_page, kPage);
}

// --- a full translation buffer ---

enum {
  kInsnsPerChunk = 64,  // 31 x (ldr x9, [x1]; add x0, x0, x9), add x2, x2, #1, b .+4
  kPairsPerChunk = 31,
  kChunksPerPage = kPage / 4 / kInsnsPerChunk,
  kPages = 2048,  // past a 32 MiB buffer: 18-25 KiB of host code per page straight to the window, 52-70 KiB
                  // through the softmmu TLB
  kCalls = 2,
};

typedef uint64_t (*SumFn)(uint64_t acc, const uint64_t* word, uint64_t chunks);
static SumFn sum_code;
static atomic_int bad_sums;

static SumFn make_code(void) {
  const size_t words = (size_t)kPages * kPage / 4 + 2;
  const size_t bytes = (words * 4 + kPage - 1) & ~(size_t)(kPage - 1);
  uint32_t* buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(buf != MAP_FAILED);
  size_t n = 0;
  for (int c = 0; c < kPages * kChunksPerPage; c++) {
    for (int i = 0; i < kPairsPerChunk; i++) {
      buf[n++] = 0xf9400029u;  // ldr x9, [x1]
      buf[n++] = 0x8b090000u;  // add x0, x0, x9
    }
    buf[n++] = 0x91000442u;  // add x2, x2, #1
    buf[n++] = 0x14000001u;  // b .+4
  }
  buf[n++] = 0xd503201fu;  // nop
  buf[n++] = 0xd65f03c0u;  // ret
  REQUIRE(mprotect(buf, bytes, PROT_READ | PROT_EXEC) == 0);
  return (SumFn)(void*)buf;
}

// A function of a few dozen blocks, which the filler translates first and the readers then run.
static __attribute__((noinline)) uint64_t mix(uint64_t x) {
  for (int i = 0; i < 64; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    if (x & 1) x += (uint64_t)i;
  }
  return x;
}

static atomic_int readers_go, filler_done;
static _Atomic uint64_t mix_want;

static void* filler_thread(void* arg) {
  (void)arg;
  static const uint64_t kWord = 3;
  atomic_store(&mix_want, mix(5));  // the first run of mix: the readers run this thread's translation
  atomic_store(&readers_go, 1);
  const uint64_t want = 7 + (uint64_t)kPages * kChunksPerPage * kPairsPerChunk * kWord;
  for (int i = 0; i < kCalls; i++) {
    if (sum_code(7, &kWord, 0) != want) atomic_fetch_add(&bad_sums, 1);
  }
  atomic_store(&filler_done, 1);
  return NULL;
}

static void* reader_thread(void* arg) {
  (void)arg;
  while (atomic_load(&readers_go) == 0) sched_yield();
  const uint64_t want = atomic_load(&mix_want);
  do {
    if (mix(5) != want) atomic_fetch_add(&bad_sums, 1);
    sched_yield();  // two CPUs: the filler must get on
  } while (atomic_load(&filler_done) == 0);
  return NULL;
}

// The filler alone translates the 3 MiB of code (40-53 MiB of host code), so its buffer fills, flushes and
// fills again while the readers run its translation of mix.
static void test_full_buffer(void) {
  sum_code = make_code();
  pthread_t filler, readers[kThreads - 1];
  REQUIRE(pthread_create(&filler, NULL, filler_thread, NULL) == 0);
  for (int i = 0; i < kThreads - 1; i++) REQUIRE(pthread_create(&readers[i], NULL, reader_thread, NULL) == 0);
  pthread_join(filler, NULL);
  for (int i = 0; i < kThreads - 1; i++) pthread_join(readers[i], NULL);
  CHECK_EQ(atomic_load(&bad_sums), 0);
}

// --- colliding blocks ---

enum { kColliding = 16, kCollideRounds = 400 };
typedef uint64_t (*ConstFn)(void);
static uint32_t* collide_page;
static atomic_int collide_phase, collide_done, bad_consts;

// Function k at page offset k * 260 (bits 8-11 and 2-5 both k): QEMU's hash takes pc ^ (pc >> 6), so
// all 16 fall on one slot. movz x0, #(k + base); ret.
static void write_consts(uint64_t base) {
  REQUIRE(mprotect(collide_page, kPage, PROT_READ | PROT_WRITE) == 0);
  for (int k = 0; k < kColliding; k++) {
    uint32_t* f = collide_page + k * 65;
    f[0] = 0xd2800000u | (uint32_t)((k + base) << 5);
    f[1] = 0xd65f03c0u;
  }
  __builtin___clear_cache((char*)collide_page, (char*)collide_page + kPage);
  REQUIRE(mprotect(collide_page, kPage, PROT_READ | PROT_EXEC) == 0);
}

static uint64_t call_const(int k) {
  return ((ConstFn)(void*)(collide_page + k * 65))();
}

static void* collide_thread(void* arg) {
  (void)arg;
  for (int phase = 1; phase <= 2; phase++) {
    while (atomic_load(&collide_phase) < phase) sched_yield();
    __asm__ volatile("isb" ::: "memory");
    const uint64_t base = phase == 1 ? 100 : 2000;
    for (int r = 0; r < kCollideRounds; r++) {
      for (int k = 0; k < kColliding; k++) {
        if (call_const(k) != base + (uint64_t)k) atomic_fetch_add(&bad_consts, 1);
      }
    }
    atomic_fetch_add(&collide_done, 1);
  }
  return NULL;
}

static void test_colliding_blocks(void) {
  collide_page = mmap(NULL, kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(collide_page != MAP_FAILED);
  write_consts(100);
  for (int k = 0; k < kColliding; k++) CHECK_EQ(call_const(k), 100 + k);  // the main thread translates
  pthread_t th[kThreads - 1];
  for (int i = 0; i < kThreads - 1; i++) REQUIRE(pthread_create(&th[i], NULL, collide_thread, NULL) == 0);
  atomic_store(&collide_phase, 1);
  while (atomic_load(&collide_done) < kThreads - 1) sched_yield();
  write_consts(2000);
  for (int k = 0; k < kColliding; k++) CHECK_EQ(call_const(k), 2000 + k);
  atomic_store(&collide_phase, 2);
  for (int i = 0; i < kThreads - 1; i++) pthread_join(th[i], NULL);
  CHECK_EQ(atomic_load(&collide_done), 2 * (kThreads - 1));
  CHECK_EQ(atomic_load(&bad_consts), 0);
  munmap(collide_page, kPage);
}

int main(void) {
  test_faults();
  test_full_buffer();
  test_colliding_blocks();
  return check_done();
}
