// Tests that NZCV is exact wherever the guest can see it, for every kind of flag-setting instruction a
// translation may leave lazy (SUBS, ADDS, ANDS in both widths) and after one it computes in full (FCMP):
// in a signal frame taken at the start of a
// block (a thread hammers the looping thread with tgkill), in the frame of a fault right after the setter
// and one block later, after a handler rewrites NZCV and returns, and read by the program itself (MRS NZCV,
// CSET, CSINC, B.cond: inside the setter's block, at the start of the next one, after a return), and every
// condition of B.cond after every kind, where the branch taken is the answer. The expected
// NZCV comes from the Arm pseudocode (AddWithCarry), computed here in C.
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/ucontext.h>
#include <unistd.h>

#include "check.h"
#include "nzcv.h"

enum Kind { kSub64, kAdd32, kLogic64, kSub32, kAdd64, kLogic32, kFcmp };

static uint32_t nzcv_of(enum Kind k, uint64_t a, uint64_t b) {
  uint64_t n = 0, z = 0, c = 0, v = 0;
  const uint32_t a32 = (uint32_t)a, b32 = (uint32_t)b;
  switch (k) {
    case kSub64: {  // AddWithCarry(a, NOT(b), 1)
      uint64_t r = a - b;
      n = r >> 63, z = r == 0, c = a >= b, v = ((a ^ b) & (a ^ r)) >> 63;
      break;
    }
    case kSub32: {
      uint32_t r = a32 - b32;
      n = r >> 31, z = r == 0, c = a32 >= b32, v = ((a32 ^ b32) & (a32 ^ r)) >> 31;
      break;
    }
    case kAdd64: {
      uint64_t r = a + b;
      n = r >> 63, z = r == 0, c = r < a, v = (~(a ^ b) & (a ^ r)) >> 63;
      break;
    }
    case kAdd32: {
      uint32_t r = a32 + b32;
      n = r >> 31, z = r == 0, c = r < a32, v = (~(a32 ^ b32) & (a32 ^ r)) >> 31;
      break;
    }
    case kLogic64:
      n = (a & b) >> 63, z = (a & b) == 0;
      break;
    case kLogic32:
      n = (a32 & b32) >> 31, z = (a32 & b32) == 0;
      break;
    case kFcmp: {  // FCMP of the two as unsigned integers converted to double (UCVTF)
      const double da = (double)a, db = (double)b;
      return da == db ? 0x60000000u : da < db ? 0x80000000u : 0x20000000u;
    }
  }
  return (uint32_t)(n << 31 | z << 30 | c << 29 | v << 28);
}

// lf_run(iterations, seed, &sum): each block begins with NZCV from the setter before it (the comments say
// which), reads it there (MRS, CSET: flags the block reads before writing) or after its own setter (CSINC),
// and folds what it read into x8, stored to *sum at the end.
void lf_run(uint64_t iterations, uint64_t seed, uint64_t* sum);
extern const char lf_head[], lf_a[], lf_b[], lf_c[], lf_d[], lf_e[], lf_f[], lf_g[];
__asm__(
    ".text\n"
    ".global lf_run, lf_head, lf_a, lf_b, lf_c, lf_d, lf_e, lf_f, lf_g\n"
    "lf_run:\n"
    "  mov x9, x2\n"
    "  mov x3, x1\n"
    "  mov x5, #0\n"
    "  mov x6, x0\n"
    "  mov x8, #0\n"
    "  cmp x5, x6\n"
    "  b lf_head\n"
    "lf_head:\n"  // SUB64(x5, x6)
    "  mrs x7, nzcv\n"
    "  eor x8, x8, x7\n"
    "  eor x3, x3, x3, lsl #13\n"
    "  eor x3, x3, x3, lsr #7\n"
    "  eor x3, x3, x3, lsl #17\n"
    "  mov x1, x3\n"
    "  ror x2, x3, #29\n"
    "  and x10, x5, #7\n"
    "  lsl x10, x10, #3\n"
    "  lsr x2, x2, x10\n"  // small operands sometimes: zero results, equal halves
    "  tbz x5, #3, 1f\n"
    "  mov x2, x1\n"  // equal operands every other eight iterations
    "1:\n"
    "  subs x4, x1, x2\n"
    "  b.eq lf_a\n"
    "lf_a:\n"  // SUB64(x1, x2)
    "  cset x7, hi\n"
    "  eor x8, x8, x7, lsl #1\n"
    "  adds w4, w1, w2\n"
    "  b.vs lf_b\n"
    "lf_b:\n"  // ADD32(w1, w2)
    "  cset x7, ge\n"
    "  eor x8, x8, x7, lsl #2\n"
    "  ands x4, x1, x2\n"
    "  b.mi lf_c\n"
    "lf_c:\n"  // LOGIC64(x1 & x2)
    "  subs w4, w1, w2\n"
    "  b.lt lf_d\n"
    "lf_d:\n"  // SUB32(w1, w2)
    "  mrs x7, nzcv\n"
    "  eor x8, x8, x7, ror #3\n"
    "  adds x4, x1, x2\n"
    "  csinc x7, x5, x6, cs\n"
    "  eor x8, x8, x7, ror #5\n"
    "  b.ge lf_e\n"
    "lf_e:\n"  // ADD64(x1, x2)
    "  tst w1, w2\n"
    "  b.ne lf_f\n"
    "lf_f:\n"  // LOGIC32(w1 & w2); a flag setter a translation computes in full (it must clear the record)
    "  ucvtf d0, x1\n"
    "  ucvtf d1, x2\n"
    "  fcmp d0, d1\n"
    "  b.gt lf_g\n"
    "lf_g:\n"  // FCMP
    "  mrs x7, nzcv\n"
    "  eor x8, x8, x7, ror #7\n"
    "  add x5, x5, #1\n"
    "  cmp x5, x6\n"
    "  b.lo lf_head\n"
    "  str x8, [x9]\n"
    "  ret\n");

static uint64_t ror64(uint64_t x, int n) {
  return n == 0 ? x : (x >> n) | (x << (64 - n));
}

// lf_run in C.
static uint64_t lf_expected(uint64_t iterations, uint64_t seed) {
  uint64_t s = seed, sum = 0, x5 = 0;
  uint32_t flags = nzcv_of(kSub64, 0, iterations);
  do {
    sum ^= flags;
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    uint64_t a = s, b = ror64(s, 29) >> ((x5 & 7) * 8);
    if (x5 & 8) b = a;
    flags = nzcv_of(kSub64, a, b);
    const int hi = (flags >> 29 & 1) && !(flags >> 30 & 1);
    sum ^= (uint64_t)hi << 1;
    flags = nzcv_of(kAdd32, a, b);
    const int ge = (flags >> 31 & 1) == (flags >> 28 & 1);
    sum ^= (uint64_t)ge << 2;
    flags = nzcv_of(kSub32, a, b);  // after LOGIC64, which nothing reads
    sum ^= ror64(flags, 3);
    flags = nzcv_of(kAdd64, a, b);
    sum ^= ror64((flags >> 29 & 1) ? x5 : iterations + 1, 5);
    flags = nzcv_of(kFcmp, a, b);
    sum ^= ror64(flags, 7);
    x5++;
    flags = nzcv_of(kSub64, x5, iterations);
  } while (x5 < iterations);
  return sum;
}

// Signals at block starts: the handler checks the frame's NZCV against the block's setter.
static _Atomic long stops_checked, stops_elsewhere, stops_wrong;
static uint64_t wrong_pc, wrong_got, wrong_want;

static int expected_at(uint64_t pc, const unsigned long long* x, uint32_t* want) {
  const struct {
    const char* label;
    enum Kind kind;
    int a, b;  // registers
  } kBlocks[] = {{lf_head, kSub64, 5, 6}, {lf_a, kSub64, 1, 2}, {lf_b, kAdd32, 1, 2},
                 {lf_c, kLogic64, 1, 2},  {lf_d, kSub32, 1, 2}, {lf_e, kAdd64, 1, 2},
                 {lf_f, kLogic32, 1, 2},  {lf_g, kFcmp, 1, 2}};
  for (size_t i = 0; i < sizeof kBlocks / sizeof kBlocks[0]; i++) {
    if (pc != (uint64_t)kBlocks[i].label) continue;
    *want = nzcv_of(kBlocks[i].kind, x[kBlocks[i].a], x[kBlocks[i].b]);
    return 1;
  }
  return 0;
}

static void on_usr1(int sig, siginfo_t* si, void* ucv) {
  (void)sig, (void)si;
  const mcontext_t* mc = &((ucontext_t*)ucv)->uc_mcontext;
  uint32_t want = 0;
  if (!expected_at(mc->pc, mc->regs, &want)) {
    stops_elsewhere++;
    return;
  }
  stops_checked++;
  const uint32_t got = (uint32_t)mc->pstate & 0xf0000000u;
  if (got != want && stops_wrong++ == 0) wrong_pc = mc->pc, wrong_got = got, wrong_want = want;
}

static void test_signals_at_block_starts(void) {
  struct sigaction sa = {0};
  sa.sa_sigaction = on_usr1;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
  pid_t self = (pid_t)syscall(SYS_gettid);
  pthread_t t;
  CHECK(pthread_create(&t, NULL, sender, &self) == 0);
  const uint64_t kIterations = 3000000, kSeed = 0x9e3779b97f4a7c15ull;
  uint64_t sum = 0;
  // Four rounds at least, more while the sender has had too little time to land 20 signals (a busy host).
  for (int round = 0; round < 4 || (stops_checked < 20 && round < 40); round++) {
    lf_run(kIterations / 4, kSeed + round, &sum);
    CHECK_EQ(sum, lf_expected(kIterations / 4, kSeed + round));
  }
  stop_sender = 1;
  CHECK(pthread_join(t, NULL) == 0);
  signal(SIGUSR1, SIG_IGN);
  NOTE("%ld signals at a block start checked, %ld elsewhere", (long)stops_checked, (long)stops_elsewhere);
  CHECK(stops_checked >= 20);
  if (!CHECK_EQ(stops_wrong, 0))
    NOTE("first wrong: pc %#lx nzcv %#lx, want %#lx", (unsigned long)wrong_pc, (unsigned long)wrong_got,
         (unsigned long)wrong_want);
}

// Faults: the load after a setter faults (in its block, and at the start of the next block); the handler
// checks NZCV, writes a new NZCV and steps over the load; the B.cond after it must see the new flags.
// uint64_t lf_fault_same(a, b, p) / lf_fault_next(a, b, p): 1 if the B.EQ after the load is taken.
uint64_t lf_fault_same(uint64_t a, uint64_t b, const uint64_t* p);
uint64_t lf_fault_next(uint64_t a, uint64_t b, const uint64_t* p);
extern const char lf_same_load[], lf_next_load[];
__asm__(
    ".text\n"
    ".global lf_fault_same, lf_fault_next, lf_same_load, lf_next_load\n"
    "lf_fault_same:\n"
    "  subs x4, x0, x1\n"
    "lf_same_load:\n"
    "  ldr x9, [x2]\n"
    "  b.eq 1f\n"
    "  mov x0, #0\n"
    "  ret\n"
    "1:\n"
    "  mov x0, #1\n"
    "  ret\n"
    "lf_fault_next:\n"
    "  adds w4, w0, w1\n"
    "  b.ne lf_next_load\n"
    "lf_next_load:\n"
    "  ldr x9, [x2]\n"
    "  b.eq 1f\n"
    "  mov x0, #0\n"
    "  ret\n"
    "1:\n"
    "  mov x0, #1\n"
    "  ret\n");

static void test_faults(void) {
  struct sigaction sa = {0};
  sa.sa_sigaction = on_segv_nzcv;
  sa.sa_flags = SA_SIGINFO;
  CHECK(sigaction(SIGSEGV, &sa, NULL) == 0);
  const uint64_t* none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(none != MAP_FAILED);
  const uint64_t pairs[][2] = {{5, 5}, {5, 7}, {0x8000000000000000ull, 1}, {0xffffffff, 1}, {0x7fffffff, 1}};
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
    const uint64_t a = pairs[i][0], b = pairs[i][1];
    for (int z = 0; z < 2; z++) {
      fault_write = z ? 0x40000000u : 0x90000000u;  // Z alone, or N and V
      fault_got = 0xffffffff;
      CHECK_EQ(lf_fault_same(a, b, none), (uint64_t)z);
      CHECK_EQ(fault_pc, (uint64_t)lf_same_load);
      CHECK_EQ(fault_got, nzcv_of(kSub64, a, b));
      fault_got = 0xffffffff;
      CHECK_EQ(lf_fault_next(a, b, none), (uint64_t)z);
      CHECK_EQ(fault_pc, (uint64_t)lf_next_load);
      CHECK_EQ(fault_got, nzcv_of(kAdd32, a, b));
    }
  }
  signal(SIGSEGV, SIG_DFL);
}

// A function that returns its answer in NZCV (the architecture allows it; hand-written code does it):
// lf_call(a, b) calls lf_compare, which ends with `cmp x0, x1; ret`, and reads NZCV after the return.
uint64_t lf_call(uint64_t a, uint64_t b);
__asm__(
    ".text\n"
    ".global lf_call\n"
    "lf_compare:\n"
    "  cmp x0, x1\n"
    "  ret\n"
    "lf_call:\n"
    "  mov x9, x30\n"
    "  bl lf_compare\n"
    "  mrs x0, nzcv\n"
    "  ret x9\n");

static void test_flags_across_a_return(void) {
  const uint64_t v[] = {0, 1, 5, 0x7fffffffffffffffull, 0x8000000000000000ull, ~0ull};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    for (size_t j = 0; j < sizeof v / sizeof v[0]; j++)
      CHECK_EQ(lf_call(v[i], v[j]), nzcv_of(kSub64, v[i], v[j]));
  }
}

// Every condition after every lazy setter, where the branch decides the answer: lfc_<setter>_<cond>(a, b)
// is 1 when `b.<cond>` after the setter is taken. subx overwrites its own first operand (subs x0, x0, x1).
// clang-format off
#define FOR_CONDS(F, tag, kind, setter)                                                        \
  F(tag, kind, setter, eq, 0) F(tag, kind, setter, ne, 1) F(tag, kind, setter, cs, 2)          \
  F(tag, kind, setter, cc, 3) F(tag, kind, setter, mi, 4) F(tag, kind, setter, pl, 5)          \
  F(tag, kind, setter, vs, 6) F(tag, kind, setter, vc, 7) F(tag, kind, setter, hi, 8)          \
  F(tag, kind, setter, ls, 9) F(tag, kind, setter, ge, 10) F(tag, kind, setter, lt, 11)        \
  F(tag, kind, setter, gt, 12) F(tag, kind, setter, le, 13)
#define FOR_SETTERS(F)                                                                         \
  FOR_CONDS(F, sub64, kSub64, "subs x2, x0, x1") FOR_CONDS(F, sub32, kSub32, "subs w2, w0, w1") \
  FOR_CONDS(F, add64, kAdd64, "adds x2, x0, x1") FOR_CONDS(F, add32, kAdd32, "adds w2, w0, w1") \
  FOR_CONDS(F, and64, kLogic64, "ands x2, x0, x1") FOR_CONDS(F, and32, kLogic32, "tst w0, w1") \
  FOR_CONDS(F, subx, kSub64, "subs x0, x0, x1") FOR_CONDS(F, cmpi, kSub64, "cmp x0, #4095")
// clang-format on
#define ASM_FN(tag, kind, setter, cond, n)                                            \
  ".global lfc_" #tag "_" #cond "\nlfc_" #tag "_" #cond ":\n  " setter "\n  b." #cond \
  " 1f\n"                                                                             \
  "  mov x0, #0\n  ret\n1:\n  mov x0, #1\n  ret\n"
__asm__(".text\n" FOR_SETTERS(ASM_FN));
#define DECL_FN(tag, kind, setter, cond, n) uint64_t lfc_##tag##_##cond(uint64_t, uint64_t);
FOR_SETTERS(DECL_FN)
#define ENTRY_FN(tag, kind, setter, cond, n) {lfc_##tag##_##cond, kind, n, #tag "." #cond, #tag[0] == 'c'},
static const struct {
  uint64_t (*fn)(uint64_t, uint64_t);
  enum Kind kind;
  int cond;
  const char* name;
  int immediate;  // cmp x0, #4095: b is the immediate
} kCondFns[] = {FOR_SETTERS(ENTRY_FN)};

static void test_every_condition(void) {
  const uint64_t v[] = {0,
                        1,
                        2,
                        4095,
                        4096,
                        0x7fffffff,
                        0x80000000,
                        0xffffffff,
                        0x100000000,
                        0x7fffffffffffffffull,
                        0x8000000000000000ull,
                        0x8000000000000001ull,
                        0xfffffffffffff001ull,
                        ~0ull};
  long wrong = 0, runs = 0;
  for (size_t f = 0; f < sizeof kCondFns / sizeof kCondFns[0]; f++) {
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
      for (size_t j = 0; j < sizeof v / sizeof v[0]; j++) {
        const uint64_t b = kCondFns[f].immediate ? 4095 : v[j];
        const uint64_t want = (uint64_t)condition_holds(kCondFns[f].cond, nzcv_of(kCondFns[f].kind, v[i], b));
        runs++;
        if (kCondFns[f].fn(v[i], b) != want && wrong++ == 0)
          NOTE("%s(%#lx, %#lx) is %lu", kCondFns[f].name, (unsigned long)v[i], (unsigned long)b,
               (unsigned long)!want);
      }
    }
  }
  NOTE("%ld conditional branches after a setter checked", runs);
  CHECK_EQ(wrong, 0);
}

// A system call in the block after a setter's (a block that ends in SVC computes its flags in full): NZCV
// after the call, and in the frame of a signal the call makes deliverable as it returns (tgkill to the
// thread itself), is the setter's.
// lfs_<setter>(a, b, x2, x3, x4, nr): the setter on a and b, then system call nr(x2, x3, x4); returns NZCV.
// clang-format off
#define LFS(name, setter)                                                                          \
  uint64_t lfs_##name(uint64_t a, uint64_t b, uint64_t x2, uint64_t x3, uint64_t x4, uint64_t nr); \
  __asm__(".text\n"                                                                                \
          ".global lfs_" #name "\n"                                                                \
          "lfs_" #name ":\n"                                                                       \
          "  mov x9, x0\n"                                                                         \
          "  mov x10, x1\n"                                                                        \
          "  mov x0, x2\n"                                                                         \
          "  mov x1, x3\n"                                                                         \
          "  mov x2, x4\n"                                                                         \
          "  mov x8, x5\n"                                                                         \
          "  " setter "\n"                                                                         \
          "  b 1f\n"                                                                               \
          "1:\n"                                                                                   \
          "  svc #0\n"                                                                             \
          "  mrs x0, nzcv\n"                                                                       \
          "  ret\n");
LFS(sub64, "subs x11, x9, x10")
LFS(add32, "adds w11, w9, w10")
LFS(logic64, "ands x11, x9, x10")
LFS(sub32, "subs w11, w9, w10")
LFS(add64, "adds x11, x9, x10")
LFS(logic32, "tst w9, w10")
// clang-format on

static uint32_t svc_frame_nzcv;
static long svc_signals;

static void on_usr2(int sig, siginfo_t* si, void* ucv) {
  (void)sig, (void)si;
  svc_frame_nzcv = (uint32_t)((ucontext_t*)ucv)->uc_mcontext.pstate & 0xf0000000u;
  svc_signals++;
}

static void test_flags_across_a_system_call(void) {
  struct sigaction sa = {0};
  sa.sa_sigaction = on_usr2;
  sa.sa_flags = SA_SIGINFO;
  CHECK(sigaction(SIGUSR2, &sa, NULL) == 0);
  const struct {
    uint64_t (*fn)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
    enum Kind kind;
  } kSetters[] = {{lfs_sub64, kSub64}, {lfs_add32, kAdd32}, {lfs_logic64, kLogic64},
                  {lfs_sub32, kSub32}, {lfs_add64, kAdd64}, {lfs_logic32, kLogic32}};
  const uint64_t v[] = {0, 1, 5, 0x7fffffff, 0x80000000, 0xffffffff, 0x7fffffffffffffffull, ~0ull};
  const uint64_t pid = (uint64_t)getpid(), tid = (uint64_t)syscall(SYS_gettid);
  for (size_t k = 0; k < sizeof kSetters / sizeof kSetters[0]; k++) {
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
      for (size_t j = 0; j < sizeof v / sizeof v[0]; j++) {
        const uint32_t want = nzcv_of(kSetters[k].kind, v[i], v[j]);
        CHECK_EQ(kSetters[k].fn(v[i], v[j], 0, 0, 0, SYS_getppid), (uint64_t)want);
        const long before = svc_signals;
        svc_frame_nzcv = 0xffffffff;
        CHECK_EQ(kSetters[k].fn(v[i], v[j], pid, tid, SIGUSR2, SYS_tgkill), (uint64_t)want);
        CHECK_EQ(svc_signals, before + 1);
        CHECK_EQ(svc_frame_nzcv, want);
      }
    }
  }
  signal(SIGUSR2, SIG_DFL);
}

int main(void) {
  test_every_condition();
  test_flags_across_a_system_call();
  test_flags_across_a_return();
  CHECK_EQ(lf_expected(1, 7) != 0, 1);
  test_faults();
  test_signals_at_block_starts();
  return check_done();
}
