// Tests scalar FADD, FSUB, FMUL, FDIV and FSQRT against Arm's rules, bit for bit, result and FPSR: every
// rounding mode, FPCR.FZ and FPCR.DN, NaN propagation (a signalling NaN first, then the first operand's NaN,
// quietened; the default NaN for an invalid operation), and the cumulative flags (IOC, DZC, OFC, UFC, IXC,
// IDC), starting from a clear FPSR and from one with IXC already set (the case a host-FPU fast path takes).
#include <stdint.h>
#include <string.h>

#include "check.h"

enum { kRN = 0, kRP = 1 << 22, kRM = 2 << 22, kRZ = 3 << 22, kFZ = 1 << 24, kDN = 1 << 25 };
enum { kIOC = 1, kDZC = 2, kOFC = 4, kUFC = 8, kIXC = 0x10, kIDC = 0x80 };

// One instruction under FPCR `fpcr` from FPSR `*fpsr`; *fpsr receives the FPSR after it.
#define FP_BINARY(NAME, INSN, BITS, FLOAT, REG)                                                     \
  static BITS NAME(BITS a, BITS b, uint64_t fpcr, uint64_t* fpsr) {                                 \
    FLOAT fa, fb, fr;                                                                               \
    memcpy(&fa, &a, sizeof a);                                                                      \
    memcpy(&fb, &b, sizeof b);                                                                      \
    uint64_t s = *fpsr;                                                                             \
    __asm__ volatile("msr fpcr, %[c]\n\tmsr fpsr, %[s]\n\t" INSN " %" REG "[r], %" REG "[a], %" REG \
                     "[b]\n\tmrs %[s], fpsr\n\tmsr fpcr, xzr"                                       \
                     : [r] "=&w"(fr), [s] "+r"(s)                                                   \
                     : [a] "w"(fa), [b] "w"(fb), [c] "r"(fpcr));                                    \
    *fpsr = s;                                                                                      \
    BITS r;                                                                                         \
    memcpy(&r, &fr, sizeof r);                                                                      \
    return r;                                                                                       \
  }
#define FP_UNARY(NAME, INSN, BITS, FLOAT, REG)                                         \
  static BITS NAME(BITS a, BITS unused, uint64_t fpcr, uint64_t* fpsr) {               \
    (void)unused;                                                                      \
    FLOAT fa, fr;                                                                      \
    memcpy(&fa, &a, sizeof a);                                                         \
    uint64_t s = *fpsr;                                                                \
    __asm__ volatile("msr fpcr, %[c]\n\tmsr fpsr, %[s]\n\t" INSN " %" REG "[r], %" REG \
                     "[a]\n\tmrs %[s], fpsr\n\tmsr fpcr, xzr"                          \
                     : [r] "=&w"(fr), [s] "+r"(s)                                      \
                     : [a] "w"(fa), [c] "r"(fpcr));                                    \
    *fpsr = s;                                                                         \
    BITS r;                                                                            \
    memcpy(&r, &fr, sizeof r);                                                         \
    return r;                                                                          \
  }

FP_BINARY(fadd_s, "fadd", uint32_t, float, "s")
FP_BINARY(fsub_s, "fsub", uint32_t, float, "s")
FP_BINARY(fmul_s, "fmul", uint32_t, float, "s")
FP_BINARY(fdiv_s, "fdiv", uint32_t, float, "s")
FP_UNARY(fsqrt_s, "fsqrt", uint32_t, float, "s")
FP_BINARY(fadd_d, "fadd", uint64_t, double, "d")
FP_BINARY(fsub_d, "fsub", uint64_t, double, "d")
FP_BINARY(fmul_d, "fmul", uint64_t, double, "d")
FP_BINARY(fdiv_d, "fdiv", uint64_t, double, "d")
FP_UNARY(fsqrt_d, "fsqrt", uint64_t, double, "d")

struct case_s {
  uint32_t (*op)(uint32_t, uint32_t, uint64_t, uint64_t*);
  uint32_t a, b;
  uint32_t fpcr, fpsr_in;
  uint32_t want, want_fpsr;
  int line;
};

struct case_d {
  uint64_t (*op)(uint64_t, uint64_t, uint64_t, uint64_t*);
  uint64_t a, b;
  uint32_t fpcr, fpsr_in;
  uint64_t want;
  uint32_t want_fpsr;
  int line;
};

#define ONE_S 0x3f800000u
#define TINY_S 0x30800000u  // 2^-30
#define THIRD_S 0x3eaaaaabu
#define MAX_S 0x7f7fffffu
#define MIN_S 0x00800000u
#define INF_S 0x7f800000u

static const struct case_s kSingle[] = {
    // Rounding of an inexact result in each mode.
    {fadd_s, ONE_S, TINY_S, kRN, 0, ONE_S, kIXC, __LINE__},
    {fadd_s, ONE_S, TINY_S, kRP, 0, ONE_S + 1, kIXC, __LINE__},
    {fadd_s, ONE_S, TINY_S, kRM, 0, ONE_S, kIXC, __LINE__},
    {fadd_s, ONE_S, TINY_S, kRZ, 0, ONE_S, kIXC, __LINE__},
    {fsub_s, 0xbf800000u, TINY_S, kRM, kIXC, 0xbf800001u, kIXC, __LINE__},
    {fsub_s, 0xbf800000u, TINY_S, kRP, kIXC, 0xbf800000u, kIXC, __LINE__},
    {fmul_s, 0x40400000u, THIRD_S, kRN, kIXC, ONE_S, kIXC, __LINE__},
    {fmul_s, 0x40400000u, THIRD_S, kRP, kIXC, ONE_S + 1, kIXC, __LINE__},
    {fdiv_s, ONE_S, 0x40400000u, kRN, 0, THIRD_S, kIXC, __LINE__},
    {fdiv_s, ONE_S, 0x40400000u, kRZ, kIXC, THIRD_S - 1, kIXC, __LINE__},
    {fdiv_s, ONE_S, 0x40400000u, kRM, kIXC, THIRD_S - 1, kIXC, __LINE__},
    {fsqrt_s, 0x40000000u, 0, kRN, 0, 0x3fb504f3u, kIXC, __LINE__},
    {fsqrt_s, 0x40000000u, 0, kRP, kIXC, 0x3fb504f4u, kIXC, __LINE__},
    {fsqrt_s, 0x80000000u, 0, kRN, kIXC, 0x80000000u, kIXC, __LINE__},  // sqrt(-0) = -0
    // Exact results keep FPSR as it was; an exact cancellation is -0 only when rounding down.
    {fmul_s, 0x3fc00000u, 0x40000000u, kRN, 0, 0x40400000u, 0, __LINE__},
    {fadd_s, ONE_S, 0xbf800000u, kRN, kIXC, 0, kIXC, __LINE__},
    {fadd_s, ONE_S, 0xbf800000u, kRM, kIXC, 0x80000000u, kIXC, __LINE__},
    {fadd_s, 0x80000000u, 0, kRN, kIXC, 0, kIXC, __LINE__},
    // NaNs: a signalling NaN wins and is quietened (IOC), else the first NaN; DN gives the default NaN.
    {fadd_s, 0x7fc00001u, 0x7f800002u, kRN, kIXC, 0x7fc00002u, kIXC | kIOC, __LINE__},
    {fadd_s, 0x7fc00001u, 0x7fc00002u, kRN, 0, 0x7fc00001u, 0, __LINE__},
    {fmul_s, ONE_S, 0x7f800003u, kRN, 0, 0x7fc00003u, kIOC, __LINE__},
    {fsub_s, 0xffc00005u, ONE_S, kRN, kIXC, 0xffc00005u, kIXC, __LINE__},
    {fdiv_s, ONE_S, 0xffc00005u, kRN, 0, 0xffc00005u, 0, __LINE__},
    {fadd_s, 0x7fc00001u, 0x7f800002u, kDN, 0, 0x7fc00000u, kIOC, __LINE__},
    {fadd_s, 0xffc00001u, ONE_S, kDN, 0, 0x7fc00000u, 0, __LINE__},
    {fsqrt_s, 0x7f800004u, 0, kRN, 0, 0x7fc00004u, kIOC, __LINE__},
    // Invalid operations: the default NaN (positive, unlike x86's).
    {fsub_s, INF_S, INF_S, kRN, kIXC, 0x7fc00000u, kIXC | kIOC, __LINE__},
    {fmul_s, 0, INF_S, kRN, 0, 0x7fc00000u, kIOC, __LINE__},
    {fdiv_s, 0, 0x80000000u, kRN, 0, 0x7fc00000u, kIOC, __LINE__},
    {fsqrt_s, 0xbf800000u, 0, kRN, kIXC, 0x7fc00000u, kIXC | kIOC, __LINE__},
    // Division by zero, overflow, underflow.
    {fdiv_s, ONE_S, 0, kRN, kIXC, INF_S, kIXC | kDZC, __LINE__},
    {fdiv_s, 0xbf800000u, 0, kRN, 0, 0xff800000u, kDZC, __LINE__},
    {fmul_s, MAX_S, 0x40000000u, kRN, kIXC, INF_S, kOFC | kIXC, __LINE__},
    {fmul_s, MAX_S, 0x40000000u, kRZ, 0, MAX_S, kOFC | kIXC, __LINE__},
    {fadd_s, MAX_S, 0x73800000u, kRN, kIXC, INF_S, kOFC | kIXC, __LINE__},  // 2^104: rounds to infinity
    {fmul_s, MIN_S, 0x3f000000u, kRN, kIXC, 0x00400000u, kIXC, __LINE__},   // exact denormal: no UFC
    {fmul_s, MIN_S, THIRD_S, kRN, kIXC, 0x002aaaabu, kUFC | kIXC, __LINE__},
    {fmul_s, MIN_S, THIRD_S, kRN, 0, 0x002aaaabu, kUFC | kIXC, __LINE__},
    // FZ: denormal inputs count as zero (IDC), denormal results become zero (UFC).
    {fadd_s, 0x00000001u, 0, kFZ, kIXC, 0, kIXC | kIDC, __LINE__},
    {fmul_s, 0x00400000u, 0x40000000u, kFZ, 0, 0, kIDC, __LINE__},
    {fmul_s, MIN_S, 0x3f000000u, kFZ, kIXC, 0, kIXC | kUFC, __LINE__},
    {fadd_s, 0x00000001u, 0, kRN, kIXC, 0x00000001u, kIXC, __LINE__},
};

#define ONE_D 0x3ff0000000000000ull
#define THIRD_D 0x3fd5555555555555ull

static const struct case_d kDouble[] = {
    {fadd_d, ONE_D, 0x3c30000000000000ull, kRN, kIXC, ONE_D, kIXC, __LINE__},  // 1 + 2^-60
    {fadd_d, ONE_D, 0x3c30000000000000ull, kRP, kIXC, ONE_D + 1, kIXC, __LINE__},
    {fdiv_d, ONE_D, 0x4008000000000000ull, kRN, kIXC, THIRD_D, kIXC, __LINE__},
    {fdiv_d, ONE_D, 0x4008000000000000ull, kRP, kIXC, THIRD_D + 1, kIXC, __LINE__},
    {fdiv_d, ONE_D, 0x4008000000000000ull, kRN, 0, THIRD_D, kIXC, __LINE__},
    {fmul_d, 0x4008000000000000ull, THIRD_D, kRN, kIXC, ONE_D, kIXC, __LINE__},  // 1 - 2^-54: a tie, even
    {fsqrt_d, 0x4000000000000000ull, 0, kRN, kIXC, 0x3ff6a09e667f3bcdull, kIXC, __LINE__},
    {fsqrt_d, 0x4000000000000000ull, 0, kRZ, kIXC, 0x3ff6a09e667f3bccull, kIXC, __LINE__},
    {fsub_d, ONE_D, ONE_D, kRM, kIXC, 0x8000000000000000ull, kIXC, __LINE__},
    {fadd_d, 0x7ff8000000000001ull, 0x7ff0000000000002ull, kRN, kIXC, 0x7ff8000000000002ull, kIXC | kIOC,
     __LINE__},
    {fadd_d, 0x7ff8000000000001ull, 0x7ff0000000000002ull, kDN, 0, 0x7ff8000000000000ull, kIOC, __LINE__},
    {fmul_d, 0, 0xfff0000000000000ull, kRN, kIXC, 0x7ff8000000000000ull, kIXC | kIOC, __LINE__},
    {fdiv_d, ONE_D, 0, kRN, kIXC, 0x7ff0000000000000ull, kIXC | kDZC, __LINE__},
    {fmul_d, 0x7fefffffffffffffull, 0x4000000000000000ull, kRN, kIXC, 0x7ff0000000000000ull, kOFC | kIXC,
     __LINE__},
    {fmul_d, 0x0010000000000000ull, THIRD_D, kRN, kIXC, 0x0005555555555555ull, kUFC | kIXC, __LINE__},
    {fadd_d, 1, 0, kFZ, kIXC, 0, kIXC | kIDC, __LINE__},
    {fadd_d, 1, 1, kRN, kIXC, 2, kIXC, __LINE__},
};

int main(void) {
  for (size_t i = 0; i < sizeof kSingle / sizeof kSingle[0]; i++) {
    const struct case_s* c = &kSingle[i];
    uint64_t fpsr = c->fpsr_in;
    const uint32_t r = c->op(c->a, c->b, c->fpcr, &fpsr);
    if (!CHECK_EQ(r, c->want) | !CHECK_EQ(fpsr, c->want_fpsr))
      NOTE("single-precision case at line %d", c->line);
  }
  for (size_t i = 0; i < sizeof kDouble / sizeof kDouble[0]; i++) {
    const struct case_d* c = &kDouble[i];
    uint64_t fpsr = c->fpsr_in;
    const uint64_t r = c->op(c->a, c->b, c->fpcr, &fpsr);
    if (!CHECK_EQ(r, c->want) | !CHECK_EQ(fpsr, c->want_fpsr))
      NOTE("double-precision case at line %d", c->line);
  }
  // A loop of dependent operations with IXC set, as compiled code runs them: the same bits as the table.
  uint64_t fpsr = kIXC;
  uint64_t x = ONE_D;
  for (int i = 0; i < 1000; i++) x = fadd_d(fmul_d(x, 0x3ff0000000000001ull, kRN, &fpsr), 1, kRN, &fpsr);
  CHECK_EQ(fpsr, kIXC);
  CHECK_EQ(x, 0x3ff00000000003e8ull);  // (1 + 2^-52)^1000 rounds once per step: 1 + 1000 ulp
  return check_done();
}
