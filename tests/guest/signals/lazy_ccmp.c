// Tests that NZCV is exact after conditional compares (CCMP, CCMN, register and immediate, both widths),
// which a translation may leave lazy, and after a compare that feeds one in the same block: every condition
// of the B.cond after them, whether the compare's condition held or not; NZCV read in the same block, in
// the next one and after a return; in the frame of a fault just before and just after the conditional
// compare (whose condition then reads the flags the handler wrote); and in the frames of signals at the
// start of the block after one, while another thread signals the looping thread. The expected NZCV comes
// from the Arm pseudocode (AddWithCarry, ConditionHolds), computed here in C.
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/ucontext.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "nzcv.h"

// AddWithCarry(a, b or NOT(b), sub) on 64 or 32 bits, as NZCV in bits 31..28.
static uint32_t add_with_carry(uint64_t a, uint64_t b, int sub, int wide) {
  uint64_t n, z, c, v;
  if (wide) {
    const uint64_t y = sub ? ~b : b;
    const uint64_t r = a + y + (uint64_t)sub;
    n = r >> 63, z = r == 0, c = sub ? a >= b : r < a, v = (~(a ^ y) & (a ^ r)) >> 63;
  } else {
    const uint32_t a32 = (uint32_t)a, y = sub ? ~(uint32_t)b : (uint32_t)b;
    const uint32_t r = a32 + y + (uint32_t)sub;
    n = r >> 31, z = r == 0, c = sub ? a32 >= (uint32_t)b : r < a32, v = (~(a32 ^ y) & (a32 ^ r)) >> 31;
  }
  return (uint32_t)(n << 31 | z << 30 | c << 29 | v << 28);
}

// CCMP/CCMN Rn, Rm-or-imm, #nzcv, cond with NZCV `flags` before it.
static uint32_t ccmp(uint32_t flags, int cond, uint64_t rn, uint64_t y, uint32_t nzcv, int sub, int wide) {
  return condition_holds(cond, flags) ? add_with_carry(rn, y, sub, wide) : nzcv << 28;
}

enum { kEq, kNe, kCs, kCc, kMi, kPl, kVs, kVc, kHi, kLs, kGe, kLt, kGt, kLe };

// The setters: each leaves NZCV from a, b and c (x0, x1, x2) before the B.cond, and setter_nzcv models it.
// "sep": a load between the compare and the CCMP (nothing lets them share temps); "next": the CCMP begins
// the next block (it settles the compare's record); "chain": two CCMPs after the compare. x3 points to a
// readable word.
// clang-format off
#define FOR_SETTERS(F)                                                                           \
  F(x_ne, "cmp x0, x2\n  ccmp x0, x1, #4, ne")                                                   \
  F(w_ge, "cmp x0, x2\n  ccmp w0, w1, #9, ge")                                                   \
  F(cmn_x_hi, "cmp x0, x2\n  ccmn x0, x1, #2, hi")                                               \
  F(cmn_w_lt, "cmp w0, w2\n  ccmn w0, w1, #0, lt")                                               \
  F(imm_x_eq, "cmp x0, x2\n  ccmp x0, #31, #15, eq")                                             \
  F(imm_w_vs, "adds x9, x0, x2\n  ccmp w0, #7, #10, vs")                                         \
  F(cmn_imm_ls, "tst x0, x2\n  ccmn x1, #3, #6, ls")                                             \
  F(sep, "cmp x0, x2\n  ldr x9, [x3]\n  ccmp x0, x1, #1, gt")                                    \
  F(next, "cmp x0, x2\n  b 9f\n9:\n  ccmp x0, x1, #12, le")                                      \
  F(chain, "cmp x0, x2\n  ccmp x0, x1, #4, ne\n  ccmp x1, x2, #8, lt")
// clang-format on

static uint32_t setter_nzcv(int setter, uint64_t a, uint64_t b, uint64_t c) {
  switch (setter) {
    case 0:
      return ccmp(add_with_carry(a, c, 1, 1), kNe, a, b, 4, 1, 1);
    case 1:
      return ccmp(add_with_carry(a, c, 1, 1), kGe, a, b, 9, 1, 0);
    case 2:
      return ccmp(add_with_carry(a, c, 1, 1), kHi, a, b, 2, 0, 1);
    case 3:
      return ccmp(add_with_carry(a, c, 1, 0), kLt, a, b, 0, 0, 0);
    case 4:
      return ccmp(add_with_carry(a, c, 1, 1), kEq, a, 31, 15, 1, 1);
    case 5:
      return ccmp(add_with_carry(a, c, 0, 1), kVs, a, 7, 10, 1, 0);
    case 6: {
      const uint64_t r = a & c;
      return ccmp((uint32_t)((r >> 63) << 31 | (uint64_t)(r == 0) << 30), kLs, b, 3, 6, 0, 1);
    }
    case 7:
      return ccmp(add_with_carry(a, c, 1, 1), kGt, a, b, 1, 1, 1);
    case 8:
      return ccmp(add_with_carry(a, c, 1, 1), kLe, a, b, 12, 1, 1);
    default:
      return ccmp(ccmp(add_with_carry(a, c, 1, 1), kNe, a, b, 4, 1, 1), kLt, b, c, 8, 1, 1);
  }
}

// lcc_<setter>_<cond>(a, b, c, p): 1 when b.<cond> after the setter is taken.
// clang-format off
#define FOR_CONDS(F, tag, setter)                                                                        \
  F(tag, setter, eq, 0) F(tag, setter, ne, 1) F(tag, setter, cs, 2) F(tag, setter, cc, 3)                \
  F(tag, setter, mi, 4) F(tag, setter, pl, 5) F(tag, setter, vs, 6) F(tag, setter, vc, 7)                \
  F(tag, setter, hi, 8) F(tag, setter, ls, 9) F(tag, setter, ge, 10) F(tag, setter, lt, 11)              \
  F(tag, setter, gt, 12) F(tag, setter, le, 13)
// clang-format on
#define COND_FNS(tag, setter) FOR_CONDS(ASM_FN, tag, setter)
#define ASM_FN(tag, setter, cond, n)                                                  \
  ".global lcc_" #tag "_" #cond "\nlcc_" #tag "_" #cond ":\n  " setter "\n  b." #cond \
  " 1f\n"                                                                             \
  "  mov x0, #0\n  ret\n1:\n  mov x0, #1\n  ret\n"
__asm__(".text\n" FOR_SETTERS(COND_FNS));
#define DECL_FNS(tag, setter) FOR_CONDS(DECL_FN, tag, setter)
#define DECL_FN(tag, setter, cond, n) uint64_t lcc_##tag##_##cond(uint64_t, uint64_t, uint64_t, const void*);
FOR_SETTERS(DECL_FNS)
#define ENTRY_FNS(tag, setter) FOR_CONDS(ENTRY_FN, tag, setter)
#define ENTRY_FN(tag, setter, cond, n) {lcc_##tag##_##cond, n, #tag "." #cond},
static const struct {
  uint64_t (*fn)(uint64_t, uint64_t, uint64_t, const void*);
  int cond;
  const char* name;
} kCondFns[] = {FOR_SETTERS(ENTRY_FNS)};

// lcm_<setter>(a, b, c, p, out): NZCV read by MRS right after the setter (out[0]), at the start of the
// next block (out[1]), and by the caller after a return (the function's result).
#define MRS_FN(tag, setter)                                                          \
  ".global lcm_" #tag "\nlcm_" #tag ":\n  " setter                                   \
  "\n  mrs x9, nzcv\n  str x9, [x4]\n  b 8f\n8:\n"                                   \
  "  mrs x9, nzcv\n  str x9, [x4, #8]\n  ret\n"                                      \
  ".global lcr_" #tag "\nlcr_" #tag ":\n  stp x29, x30, [sp, #-16]!\n  bl lcm_" #tag \
  "\n"                                                                               \
  "  mrs x0, nzcv\n  ldp x29, x30, [sp], #16\n  ret\n"
__asm__(".text\n" FOR_SETTERS(MRS_FN));
#define DECL_MRS(tag, setter) uint64_t lcr_##tag(uint64_t, uint64_t, uint64_t, const void*, uint64_t*);
FOR_SETTERS(DECL_MRS)
#define ENTRY_MRS(tag, setter) {lcr_##tag, #tag},
static const struct {
  uint64_t (*fn)(uint64_t, uint64_t, uint64_t, const void*, uint64_t*);
  const char* name;
} kMrsFns[] = {FOR_SETTERS(ENTRY_MRS)};

static const uint64_t kValues[] = {0,
                                   1,
                                   2,
                                   3,
                                   7,
                                   31,
                                   0x7fffffff,
                                   0x80000000,
                                   0xffffffff,
                                   0x100000000,
                                   0x7fffffffffffffffull,
                                   0x8000000000000000ull,
                                   0xfffffffffffffff9ull,
                                   ~0ull};
#define NVALUES (sizeof kValues / sizeof kValues[0])

static const uint64_t kWord = 0x1234;

static void test_every_condition(void) {
  long wrong = 0, runs = 0;
  for (size_t f = 0; f < sizeof kCondFns / sizeof kCondFns[0]; f++) {
    const int setter = (int)(f / 14);
    for (size_t i = 0; i < NVALUES; i++) {
      for (size_t j = 0; j < NVALUES; j++) {
        for (size_t k = 0; k < NVALUES; k += 3) {
          const uint64_t a = kValues[i], b = kValues[j], c = kValues[(i + k) % NVALUES];
          const uint64_t want = (uint64_t)condition_holds(kCondFns[f].cond, setter_nzcv(setter, a, b, c));
          runs++;
          if (kCondFns[f].fn(a, b, c, &kWord) != want && wrong++ < 3)
            NOTE("%s(%#lx, %#lx, %#lx) is %lu", kCondFns[f].name, (unsigned long)a, (unsigned long)b,
                 (unsigned long)c, (unsigned long)!want);
        }
      }
    }
  }
  NOTE("%ld conditional branches after a conditional compare checked", runs);
  CHECK_EQ(wrong, 0);
}

static void test_nzcv_reads(void) {
  long wrong = 0, runs = 0;
  for (size_t f = 0; f < sizeof kMrsFns / sizeof kMrsFns[0]; f++) {
    for (size_t i = 0; i < NVALUES; i++) {
      for (size_t j = 0; j < NVALUES; j++) {
        const uint64_t a = kValues[i], b = kValues[j], c = kValues[(i * 5 + j) % NVALUES];
        const uint64_t want = setter_nzcv((int)f, a, b, c);
        uint64_t out[2] = {~0ull, ~0ull};
        const uint64_t after_return = kMrsFns[f].fn(a, b, c, &kWord, out);
        runs++;
        if ((out[0] != want || out[1] != want || after_return != want) && wrong++ < 3)
          NOTE("%s(%#lx, %#lx, %#lx): NZCV %#lx, next block %#lx, after return %#lx; want %#lx",
               kMrsFns[f].name, (unsigned long)a, (unsigned long)b, (unsigned long)c, (unsigned long)out[0],
               (unsigned long)out[1], (unsigned long)after_return, (unsigned long)want);
      }
    }
  }
  NOTE("%ld NZCV reads after a conditional compare checked", runs);
  CHECK_EQ(wrong, 0);
}

// Faults. lcf_before(a, b, c, p): `cmp x0, x2; ldr x9, [x3]; ccmp x0, x1, #4, ne` with the load faulting:
// the handler sees the compare's NZCV, writes its own, and the CCMP's condition reads that. lcf_after: the
// load right after `cmp x0, x2; ccmp x0, x1, #9, lt`: the handler sees the CCMP's NZCV. Both return NZCV.
uint64_t lcf_before(uint64_t a, uint64_t b, uint64_t c, const void* p);
uint64_t lcf_after(uint64_t a, uint64_t b, uint64_t c, const void* p);
extern const char lcf_before_load[], lcf_after_load[];
__asm__(
    ".text\n"
    ".global lcf_before, lcf_after, lcf_before_load, lcf_after_load\n"
    "lcf_before:\n"
    "  cmp x0, x2\n"
    "lcf_before_load:\n"
    "  ldr x9, [x3]\n"
    "  ccmp x0, x1, #4, ne\n"
    "  mrs x0, nzcv\n"
    "  ret\n"
    "lcf_after:\n"
    "  cmp x0, x2\n"
    "  ccmp x0, x1, #9, lt\n"
    "lcf_after_load:\n"
    "  ldr x9, [x3]\n"
    "  mrs x0, nzcv\n"
    "  ret\n");

static void test_faults(void) {
  struct sigaction sa = {0};
  sa.sa_sigaction = on_segv_nzcv;
  sa.sa_flags = SA_SIGINFO;
  CHECK(sigaction(SIGSEGV, &sa, NULL) == 0);
  const void* none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(none != MAP_FAILED);
  long wrong = 0;
  for (size_t i = 0; i < NVALUES; i++) {
    for (size_t j = 0; j < NVALUES; j += 2) {
      const uint64_t a = kValues[i], b = kValues[j], c = kValues[(i + j) % NVALUES];
      for (int w = 0; w < 4; w++) {
        fault_write = (uint32_t)(w * 5) << 28;  // 0000, 0101 (Z, V), 1010 (N, C), 1111
        fault_got = 0xffffffff;
        uint64_t got = lcf_before(a, b, c, none);
        if (fault_pc != (uint64_t)lcf_before_load || fault_got != add_with_carry(a, c, 1, 1) ||
            got != ccmp(fault_write, kNe, a, b, 4, 1, 1))
          wrong++;
        fault_got = 0xffffffff;
        got = lcf_after(a, b, c, none);
        if (fault_pc != (uint64_t)lcf_after_load ||
            fault_got != ccmp(add_with_carry(a, c, 1, 1), kLt, a, b, 9, 1, 1) || got != fault_write)
          wrong++;
      }
    }
  }
  CHECK_EQ(wrong, 0);
  signal(SIGSEGV, SIG_DFL);
}

// Signals at block starts. lcc_loop(n, a, b, c): n times `cmp x1, x3; ccmp x1, x2, #5, hi` ending a block,
// then a block (lcc_mark) that folds NZCV into x4 (CSINC) and steps a, b and c (so the
// condition holds about half the time). The handler checks the
// frame's NZCV at lcc_mark against x1, x2 and x3 there. Returns x4.
uint64_t lcc_loop(uint64_t n, uint64_t a, uint64_t b, uint64_t c);
extern const char lcc_mark[];
__asm__(
    ".text\n"
    ".global lcc_loop, lcc_mark\n"
    "lcc_loop:\n"
    "  mov x4, #0\n"
    "1:\n"
    "  cmp x1, x3\n"
    "  ccmp x1, x2, #5, hi\n"
    "  b lcc_mark\n"
    "lcc_mark:\n"
    "  csinc x4, x4, x4, ne\n"
    "  add x1, x1, x1, lsl #2\n"
    "  eor x2, x2, x1, lsr #3\n"
    "  eor x3, x3, x1, lsr #7\n"
    "  subs x0, x0, #1\n"
    "  b.ne 1b\n"
    "  mov x0, x4\n"
    "  ret\n");

static uint64_t loop_expected(uint64_t n, uint64_t a, uint64_t b, uint64_t c) {
  uint64_t x4 = 0;
  for (uint64_t i = 0; i < n; i++) {
    const uint32_t nzcv = ccmp(add_with_carry(a, c, 1, 1), kHi, a, b, 5, 1, 1);
    if (!condition_holds(kNe, nzcv)) x4++;
    a += a << 2;
    b ^= a >> 3;
    c ^= a >> 7;
  }
  return x4;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static _Atomic long stops_checked, stops_elsewhere, stops_wrong;

static void on_usr1(int sig, siginfo_t* si, void* ucv) {
  (void)sig, (void)si;
  const mcontext_t* mc = &((ucontext_t*)ucv)->uc_mcontext;
  if (mc->pc != (uint64_t)lcc_mark) {
    stops_elsewhere++;
    return;
  }
  stops_checked++;
  const uint64_t* x = (const uint64_t*)mc->regs;
  const uint32_t want = ccmp(add_with_carry(x[1], x[3], 1, 1), kHi, x[1], x[2], 5, 1, 1);
  if (((uint32_t)mc->pstate & 0xf0000000u) != want) stops_wrong++;
}

static void test_signals_at_block_starts(void) {
  struct sigaction sa = {0};
  sa.sa_sigaction = on_usr1;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
  pid_t self = (pid_t)syscall(SYS_gettid);
  pthread_t t;
  CHECK(pthread_create(&t, NULL, sender, &self) == 0);
  const uint64_t kIterations = 1000000;
  // Four rounds at least, more while the sender has had too little time to land 20 signals here (on a busy
  // host it may hardly run), for up to 30 s.
  const double deadline = now_s() + 30;
  for (int round = 0; round < 4 || (stops_checked < 20 && now_s() < deadline); round++) {
    const uint64_t a = 0x9e3779b97f4a7c15ull + (uint64_t)round, b = 0x1234567ull << (round % 32), c = 0x4000;
    CHECK_EQ(lcc_loop(kIterations, a, b, c), loop_expected(kIterations, a, b, c));
  }
  stop_sender = 1;
  CHECK(pthread_join(t, NULL) == 0);
  signal(SIGUSR1, SIG_IGN);
  NOTE("%ld signals at the block after a CCMP checked, %ld elsewhere", (long)stops_checked,
       (long)stops_elsewhere);
  CHECK(stops_checked >= 20);
  CHECK_EQ(stops_wrong, 0);
}

int main(void) {
  test_every_condition();
  test_nzcv_reads();
  test_faults();
  test_signals_at_block_starts();
  return check_done();
}
