// Tests every instruction that reads or writes NZCV alone in a block of its own, between a block that ends
// with a CMP (which a translation may leave lazy: a record of its operands instead of the flags) and a
// block that reads NZCV (MRS). Each instruction's result and the NZCV after it must be the ones it gives
// when the flags before it were set by MSR NZCV (never lazy), and, for a few, the values the Arm
// pseudocode gives. a64run decides from a block's encodings whether its translation can touch the flags at
// all; an instruction it got wrong would read stale flags here, or leave the CMP's record to be read.
// A second part runs blocks of random words (each behind a load of address 0, so they are translated and
// never run): the translator takes any encoding without a crash, and each load faults with SIGSEGV at 0.
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "check.h"

#ifndef HWCAP_FLAGM
#define HWCAP_FLAGM (1ul << 35)
#endif
#ifndef HWCAP2_FLAGM2
#define HWCAP2_FLAGM2 (1ul << 7)
#endif

// One case: the instruction text (operands %[r] out, %[x] and %[y] in, %d[p] and %d[q] doubles in), run
// after a lazy CMP of a and b (`after_cmp`) and after MSR NZCV of that CMP's flags (`after_msr`).
typedef uint64_t (*CaseFn)(uint64_t a, uint64_t b, uint64_t x, uint64_t y, uint64_t* r);

#define INPUTS [a] "r"(a), [b] "r"(b), [x] "r"(x), [y] "r"(y), [p] "w"((double)x), [q] "w"((double)y)

// One function: `setup` (which sets the flags from a and b), a branch, `insn` alone in its block, a branch,
// and MRS NZCV.
#define FLAG_FN(fn, setup, insn)                                                      \
  static uint64_t fn(uint64_t a, uint64_t b, uint64_t x, uint64_t y, uint64_t* out) { \
    uint64_t nzcv = 0, r = 0;                                                         \
    __asm__ volatile(setup "\n\tb 1f\n1:\t" insn "\n\tb 2f\n2:\tmrs %[nzcv], nzcv"    \
                     : [nzcv] "=&r"(nzcv), [r] "+&r"(r)                               \
                     : INPUTS                                                         \
                     : "cc", "v2");                                                   \
    *out = r;                                                                         \
    return nzcv;                                                                      \
  }
#define FLAG_CASE(name, insn)                       \
  FLAG_FN(name##_after_cmp, "cmp %[a], %[b]", insn) \
  FLAG_FN(name##_after_msr, "msr nzcv, %[a]", insn)

// Readers of the flags.
FLAG_CASE(cset, "cset %[r], eq")
FLAG_CASE(csel, "csel %[r], %[x], %[y], lo")
FLAG_CASE(csinv, "csinv %[r], %[x], %[y], gt")
FLAG_CASE(csneg, "csneg %[r], %[x], %[y], vs")
FLAG_CASE(adc, "adc %[r], %[x], %[y]")
FLAG_CASE(sbc32, "sbc %w[r], %w[x], %w[y]")
FLAG_CASE(mrs, "mrs %[r], nzcv")
FLAG_CASE(bcond, "b.mi 3f\n\tmov %[r], #1\n\tb 2f\n3:\tmov %[r], #2")
FLAG_CASE(fcsel, "fcsel d2, %d[p], %d[q], ge\n\tfmov %[r], d2")
// Readers and writers.
FLAG_CASE(adcs, "adcs %[r], %[x], %[y]")
FLAG_CASE(sbcs, "sbcs %[r], %[x], %[y]")
FLAG_CASE(ngcs32, "ngcs %w[r], %w[x]")
FLAG_CASE(ccmp, "ccmp %[x], %[y], #5, hi")
FLAG_CASE(ccmn_imm, "ccmn %w[x], #7, #10, le")
FLAG_CASE(fccmp, "fccmp %d[p], %d[q], #6, ne")
FLAG_CASE(fccmpe, "fccmpe %d[p], %d[q], #3, cs")
// Writers.
FLAG_CASE(adds_imm, "adds %[r], %[x], #4095")
FLAG_CASE(adds_shifted, "adds %w[r], %w[x], %w[y], lsl #3")
FLAG_CASE(adds_extended, "adds %[r], %[x], %w[y], sxtw")
FLAG_CASE(subs_imm, "subs %w[r], %w[x], #1, lsl #12")
FLAG_CASE(cmp_extended, "cmp %[x], %w[y], uxtb")
FLAG_CASE(negs, "negs %[r], %[x]")
FLAG_CASE(ands_imm, "ands %[r], %[x], #0xff00ff00ff00ff00")
FLAG_CASE(tst32, "tst %w[x], %w[y]")
FLAG_CASE(bics, "bics %[r], %[x], %[y], ror #7")
FLAG_CASE(fcmp, "fcmp %d[p], %d[q]")
FLAG_CASE(fcmpe, "fcmpe %d[p], %d[q]")
FLAG_CASE(fcmp_zero, "fcmp %d[p], #0.0")
FLAG_CASE(msr, "msr nzcv, %[x]")

// FEAT_FlagM and FEAT_FlagM2, when the CPU has them.
FLAG_CASE(cfinv, ".arch_extension flagm\n\tcfinv")
FLAG_CASE(setf8, ".arch_extension flagm\n\tsetf8 %w[x]")
FLAG_CASE(setf16, ".arch_extension flagm\n\tsetf16 %w[x]")
FLAG_CASE(rmif, ".arch_extension flagm\n\trmif %[x], #3, #5")
FLAG_CASE(axflag, ".inst 0xd500405f")  // AXFLAG and XAFLAG: this assembler lacks FEAT_FlagM2
FLAG_CASE(xaflag, ".inst 0xd500403f")
#undef FLAG_CASE

static const struct {
  const char* name;
  CaseFn after_cmp, after_msr;
  int feature;  // 0: every CPU; 1: FEAT_FlagM; 2: FEAT_FlagM2
} kCases[] = {
#define C(n, h) \
  { #n, n##_after_cmp, n##_after_msr, h }
    C(cset, 0),         C(csel, 0),     C(csinv, 0),        C(csneg, 0),         C(adc, 0),
    C(sbc32, 0),        C(mrs, 0),      C(bcond, 0),        C(fcsel, 0),         C(adcs, 0),
    C(sbcs, 0),         C(ngcs32, 0),   C(ccmp, 0),         C(ccmn_imm, 0),      C(fccmp, 0),
    C(fccmpe, 0),       C(adds_imm, 0), C(adds_shifted, 0), C(adds_extended, 0), C(subs_imm, 0),
    C(cmp_extended, 0), C(negs, 0),     C(ands_imm, 0),     C(tst32, 0),         C(bics, 0),
    C(fcmp, 0),         C(fcmpe, 0),    C(fcmp_zero, 0),    C(msr, 0),           C(cfinv, 1),
    C(setf8, 1),        C(setf16, 1),   C(rmif, 1),         C(axflag, 2),        C(xaflag, 2),
#undef C
};

// NZCV of CMP a, b (AddWithCarry(a, NOT(b), 1)).
static uint64_t cmp_nzcv(uint64_t a, uint64_t b) {
  const uint64_t r = a - b;
  const uint64_t n = r >> 63, z = r == 0, c = a >= b, v = ((a ^ b) & (a ^ r)) >> 63;
  return n << 31 | z << 30 | c << 29 | v << 28;
}

static const uint64_t kValues[] = {0,
                                   1,
                                   2,
                                   7,
                                   0xfff,
                                   0x7fffffff,
                                   0x80000000,
                                   0xffffffff,
                                   0x100000000,
                                   0x7fffffffffffffff,
                                   0x8000000000000000,
                                   0x8000000000000001,
                                   0xfffffffffffffffe,
                                   0xffffffffffffffff,
                                   0x5a5a5a5a00ff00ff,
                                   0xf0000000};
enum { kNumValues = sizeof kValues / sizeof kValues[0] };

static void flag_cases(int have_flagm, int have_flagm2) {
  int mismatches = 0;
  for (size_t c = 0; c < sizeof kCases / sizeof kCases[0]; ++c) {
    if ((kCases[c].feature == 1 && !have_flagm) || (kCases[c].feature == 2 && !have_flagm2)) continue;
    for (int i = 0; i < kNumValues; ++i) {
      for (int j = 0; j < kNumValues; j += 3) {
        const uint64_t a = kValues[i], b = kValues[j];
        const uint64_t x = kValues[(i + j) % kNumValues], y = kValues[(i * 7 + j + 1) % kNumValues];
        uint64_t r_lazy = 0, r_exact = 0;
        const uint64_t lazy = kCases[c].after_cmp(a, b, x, y, &r_lazy);
        const uint64_t exact = kCases[c].after_msr(cmp_nzcv(a, b), b, x, y, &r_exact);
        if ((lazy != exact || r_lazy != r_exact) && mismatches++ < 10) {
          NOTE("%s after cmp %#llx, %#llx (x %#llx, y %#llx): nzcv %#llx r %#llx, exact %#llx r %#llx",
               kCases[c].name, (unsigned long long)a, (unsigned long long)b, (unsigned long long)x,
               (unsigned long long)y, (unsigned long long)lazy, (unsigned long long)r_lazy,
               (unsigned long long)exact, (unsigned long long)r_exact);
        }
      }
    }
  }
  CHECK_EQ(mismatches, 0);
}

// A few against the pseudocode, so that the reference above is not wrong in the same way.
static void absolute_values(void) {
  uint64_t r = 0;
  CHECK_EQ(cset_after_cmp(5, 5, 0, 0, &r), 0x60000000);  // Z and C
  CHECK_EQ(r, 1);
  CHECK_EQ(cset_after_cmp(5, 6, 0, 0, &r), 0x80000000);  // N
  CHECK_EQ(r, 0);
  adc_after_cmp(6, 5, 10, 20, &r);  // C set: 31
  CHECK_EQ(r, 31);
  adc_after_cmp(5, 6, 10, 20, &r);  // C clear: 30
  CHECK_EQ(r, 30);
  CHECK_EQ(fcmp_after_cmp(1, 1, 3, 2, &r), 0x20000000);  // greater: C
  CHECK_EQ(fcmp_after_cmp(1, 2, 2, 2, &r), 0x60000000);  // equal: Z and C
  CHECK_EQ(msr_after_cmp(1, 2, 0x90000000, 0, &r), 0x90000000);
  CHECK_EQ(adds_imm_after_cmp(0, 0, 0xfffffffffffff001, 0, &r), 0x60000000);  // zero with a carry
  CHECK_EQ(r, 0);
  CHECK_EQ(bcond_after_cmp(1, 2, 0, 0, &r), 0x80000000);  // MI taken
  CHECK_EQ(r, 2);
  CHECK_EQ(bcond_after_cmp(2, 1, 0, 0, &r), 0x20000000);
  CHECK_EQ(r, 1);
}

static sigjmp_buf fault_jump;
static volatile uintptr_t fault_addr, fault_pc;

static void on_segv(int sig, siginfo_t* si, void* ctx) {
  (void)sig;
  fault_addr = (uintptr_t)si->si_addr;
  fault_pc = ((ucontext_t*)ctx)->uc_mcontext.pc;
  siglongjmp(fault_jump, 1);
}

// Blocks of `ldr x1, [x0]` (x0 = 0), one random word, `ret`, 16 bytes apart: each is translated whole (a
// load does not end a block) and faults at its first instruction.
static void random_words(void) {
  enum { kBlocks = 4096, kStride = 16 };
  uint32_t* code = mmap(NULL, kBlocks * kStride, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (!CHECK(code != MAP_FAILED)) return;
  uint64_t seed = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < kBlocks; ++i) {
    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
    uint32_t* b = code + i * (kStride / 4);
    b[0] = 0xf9400001;  // ldr x1, [x0]
    // Half the words anywhere, half with the top bits of each group of the encoding index.
    b[1] = (i & 1) ? (uint32_t)seed : (uint32_t)(((uint64_t)i << 20) ^ (seed >> 40));
    b[2] = 0xd65f03c0;  // ret
    b[3] = 0xd65f03c0;
  }
  CHECK_EQ(mprotect(code, kBlocks * kStride, PROT_READ | PROT_EXEC), 0);
  __builtin___clear_cache((char*)code, (char*)code + kBlocks * kStride);
  struct sigaction sa = {0}, old;
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  CHECK_EQ(sigaction(SIGSEGV, &sa, &old), 0);
  int wrong = 0;
  for (volatile int i = 0; i < kBlocks; ++i) {
    uint32_t* b = code + i * (kStride / 4);
    fault_addr = fault_pc = ~(uintptr_t)0;
    if (sigsetjmp(fault_jump, 1) == 0) {
      register uint64_t x0 __asm__("x0") = 0;
      __asm__ volatile("blr %[b]" : "+r"(x0) : [b] "r"(b) : "x1", "x30", "memory");
    }
    if ((fault_addr != 0 || fault_pc != (uintptr_t)b) && wrong++ < 5)
      NOTE("block %d (word %#x): fault at %#lx, pc %#lx", i, b[1], (unsigned long)fault_addr,
           (unsigned long)fault_pc);
  }
  CHECK_EQ(wrong, 0);
  CHECK_EQ(sigaction(SIGSEGV, &old, NULL), 0);
  munmap(code, kBlocks * kStride);
}

int main(void) {
  const int have_flagm = (getauxval(AT_HWCAP) & HWCAP_FLAGM) != 0;
  const int have_flagm2 = (getauxval(AT_HWCAP2) & HWCAP2_FLAGM2) != 0;
  NOTE("FEAT_FlagM %s, FEAT_FlagM2 %s", have_flagm ? "present" : "absent",
       have_flagm2 ? "present" : "absent");
  absolute_values();
  flag_cases(have_flagm, have_flagm2);
  random_words();
  return check_done();
}
