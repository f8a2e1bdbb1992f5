// Tests scalar FADD, FSUB, FMUL, FDIV, FSQRT, FMAX/FMIN/FMAXNM/FMINNM, FRINT*, FCMP/FCMPE, the fused
// multiply-adds (FMADD, FMSUB, FNMADD, FNMSUB, and vector FMLA) and the conversions (FCVTZS, FCVTZU, FCVTNS,
// SCVTF, UCVTF, FCVT) against Arm's rules, bit for bit, result and FPSR: every rounding mode, FPCR.FZ and
// FPCR.DN, NaN propagation (a signalling NaN first, then the first operand's NaN, quietened; the default NaN
// for an invalid operation), and the cumulative flags (IOC, DZC, OFC, UFC, IXC, IDC), starting from a clear
// FPSR and from one with IXC already set (the case a host-FPU fast path takes).
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

// INSN r, a, b, c: FMADD is c + a * b, rounded once.
#define FP_TERNARY(NAME, INSN, BITS, FLOAT, REG)                                                     \
  static BITS NAME(BITS a, BITS b, BITS c, uint64_t fpcr, uint64_t* fpsr) {                          \
    FLOAT fa, fb, fc, fr;                                                                            \
    memcpy(&fa, &a, sizeof a);                                                                       \
    memcpy(&fb, &b, sizeof b);                                                                       \
    memcpy(&fc, &c, sizeof c);                                                                       \
    uint64_t s = *fpsr;                                                                              \
    __asm__ volatile("msr fpcr, %[cr]\n\tmsr fpsr, %[s]\n\t" INSN " %" REG "[r], %" REG "[a], %" REG \
                     "[b], %" REG "[c]\n\tmrs %[s], fpsr\n\tmsr fpcr, xzr"                           \
                     : [r] "=&w"(fr), [s] "+r"(s)                                                    \
                     : [a] "w"(fa), [b] "w"(fb), [c] "w"(fc), [cr] "r"(fpcr));                       \
    *fpsr = s;                                                                                       \
    BITS r;                                                                                          \
    memcpy(&r, &fr, sizeof r);                                                                       \
    return r;                                                                                        \
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
FP_BINARY(fmax_d, "fmax", uint64_t, double, "d")
FP_BINARY(fmin_d, "fmin", uint64_t, double, "d")
FP_BINARY(fmaxnm_d, "fmaxnm", uint64_t, double, "d")
FP_BINARY(fminnm_s, "fminnm", uint32_t, float, "s")
FP_UNARY(frinta_d, "frinta", uint64_t, double, "d")
FP_UNARY(frintn_d, "frintn", uint64_t, double, "d")
FP_UNARY(frintm_d, "frintm", uint64_t, double, "d")
FP_UNARY(frintp_d, "frintp", uint64_t, double, "d")
FP_UNARY(frintz_d, "frintz", uint64_t, double, "d")
FP_UNARY(frintx_d, "frintx", uint64_t, double, "d")
FP_UNARY(frinti_d, "frinti", uint64_t, double, "d")
FP_UNARY(frinta_s, "frinta", uint32_t, float, "s")
FP_TERNARY(fmadd_s, "fmadd", uint32_t, float, "s")
FP_TERNARY(fmadd_d, "fmadd", uint64_t, double, "d")
FP_TERNARY(fmsub_d, "fmsub", uint64_t, double, "d")
FP_TERNARY(fnmadd_d, "fnmadd", uint64_t, double, "d")
FP_TERNARY(fnmsub_d, "fnmsub", uint64_t, double, "d")

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
    {fminnm_s, 0x7fc00000u, 0xbf800000u, kRN, 0, 0xbf800000u, 0, __LINE__},
    {frinta_s, 0x4b7fffffu, 0, kRN, 0, 0x4b7fffffu, 0, __LINE__},  // 2^24 - 1: integral already
    {frinta_s, 0x4affffffu, 0, kRN, 0, 0x4b000000u, 0, __LINE__},  // 2^23 - 0.5: 2^23
    {frinta_s, 0xbf000000u, 0, kRN, 0, 0xbf800000u, 0, __LINE__},  // -0.5: -1
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
    // Max and min: of two zeros, +0 and -0; a NaN propagates (quietened, IOC for a signalling one) except
    // in the NM forms, which take the number over a quiet NaN.
    {fmax_d, 0, 0x8000000000000000ull, kRN, 0, 0, 0, __LINE__},
    {fmax_d, 0x8000000000000000ull, 0, kRN, 0, 0, 0, __LINE__},
    {fmin_d, 0, 0x8000000000000000ull, kRN, kIXC, 0x8000000000000000ull, kIXC, __LINE__},
    {fmax_d, ONE_D, 0x7ff0000000000000ull, kRN, 0, 0x7ff0000000000000ull, 0, __LINE__},
    {fmin_d, 0xfff0000000000000ull, ONE_D, kRN, 0, 0xfff0000000000000ull, 0, __LINE__},
    {fmax_d, 0x7ff8000000000001ull, ONE_D, kRN, 0, 0x7ff8000000000001ull, 0, __LINE__},
    {fmaxnm_d, 0x7ff8000000000001ull, ONE_D, kRN, 0, ONE_D, 0, __LINE__},
    {fmaxnm_d, 0x8000000000000000ull, 0, kRN, 0, 0, 0, __LINE__},
    {fmin_d, 0x7ff0000000000001ull, ONE_D, kRN, 0, 0x7ff8000000000001ull, kIOC, __LINE__},
    {fmax_d, 1, 2, kFZ, 0, 0, kIDC, __LINE__},  // denormals flushed: the max of +0 and +0 (IDC)
    // Rounding to an integral value: the instruction's mode (FRINTI and FRINTX: FPCR's); only FRINTX raises
    // inexact; the sign of a zero result is the operand's.
    {frinta_d, 0x4004000000000000ull, 0, kRN, 0, 0x4008000000000000ull, 0, __LINE__},  // 2.5: 3
    {frinta_d, 0xc004000000000000ull, 0, kRN, 0, 0xc008000000000000ull, 0, __LINE__},  // -2.5: -3
    {frinta_d, 0xbfd999999999999aull, 0, kRN, 0, 0x8000000000000000ull, 0, __LINE__},  // -0.4: -0
    {frinta_d, 0x432fffffffffffffull, 0, kRN, 0, 0x4330000000000000ull, 0, __LINE__},  // 2^52 - 0.5: 2^52
    {frintn_d, 0x4004000000000000ull, 0, kRP, 0, 0x4000000000000000ull, 0, __LINE__},  // 2.5: 2
    {frintn_d, 0x400c000000000000ull, 0, kRN, 0, 0x4010000000000000ull, 0, __LINE__},  // 3.5: 4
    {frintm_d, 0xbfe0000000000000ull, 0, kRN, 0, 0xbff0000000000000ull, 0, __LINE__},  // -0.5: -1
    {frintp_d, 0xbfe0000000000000ull, 0, kRN, 0, 0x8000000000000000ull, 0, __LINE__},  // -0.5: -0
    {frintz_d, 0xbffb333333333333ull, 0, kRN, 0, 0xbff0000000000000ull, 0, __LINE__},  // -1.7: -1
    {frintx_d, 0x4004000000000000ull, 0, kRN, 0, 0x4000000000000000ull, kIXC, __LINE__},
    {frintx_d, 0x4008000000000000ull, 0, kRN, 0, 0x4008000000000000ull, 0, __LINE__},  // 3: exact
    {frinti_d, 0x4004000000000000ull, 0, kRP, 0, 0x4008000000000000ull, 0, __LINE__},
    {frinti_d, 0x4004000000000000ull, 0, kRM, 0, 0x4000000000000000ull, 0, __LINE__},
    {frintx_d, 0x7ff0000000000001ull, 0, kRN, 0, 0x7ff8000000000001ull, kIOC, __LINE__},
    {frintx_d, 0xfff0000000000000ull, 0, kRN, 0, 0xfff0000000000000ull, 0, __LINE__},
};

struct case_fma {
  uint64_t (*op)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t*);
  uint64_t a, b, c;
  uint32_t fpcr, fpsr_in;
  uint64_t want;
  uint32_t want_fpsr;
  int line;
};

static uint64_t fmadd_s64(uint64_t a, uint64_t b, uint64_t c, uint64_t fpcr, uint64_t* fpsr) {
  return fmadd_s((uint32_t)a, (uint32_t)b, (uint32_t)c, fpcr, fpsr);
}

#define NEG_ONE_D 0xbff0000000000000ull
#define MIN_D 0x0010000000000000ull
#define QNAN_D 0x7ff8000000000001ull

// One rounding: (1 + 2^-30)(1 - 2^-30) - 1 is -2^-60 exactly (unfused, the product rounds to 1 and the
// result is 0); with the flags in and without. The fused path must also raise what the operands do not
// show: a product of moderate numbers whose sum with the addend is tiny (2^-1126: zero and UFC, or the
// smallest denormal rounding up), and a denormal result.
static const struct case_fma kFused[] = {
    {fmadd_d, 0x3ff0000000400000ull, 0x3fefffffff800000ull, NEG_ONE_D, kRN, 0, 0xbc30000000000000ull, 0,
     __LINE__},
    {fmadd_d, 0x3ff0000000400000ull, 0x3fefffffff800000ull, NEG_ONE_D, kRN, kIXC, 0xbc30000000000000ull, kIXC,
     __LINE__},
    {fmadd_d, 0x4008000000000000ull, THIRD_D, NEG_ONE_D, kRN, kIXC, 0xbc90000000000000ull, kIXC, __LINE__},
    {fmadd_d, ONE_D + 1, ONE_D + 1, 0, kRN, kIXC, ONE_D + 2, kIXC, __LINE__},  // 1 + 2^-51 + 2^-104
    {fmadd_d, ONE_D + 1, ONE_D + 1, 0, kRP, kIXC, ONE_D + 3, kIXC, __LINE__},
    {fmadd_d, ONE_D + 1, ONE_D + 1, 0, kRN, 0, ONE_D + 2, kIXC, __LINE__},
    {fmadd_d, MIN_D + 1, ONE_D + 1, 0x8010000000000002ull, kRN, kIXC, 0, kUFC | kIXC, __LINE__},
    {fmadd_d, MIN_D + 1, ONE_D + 1, 0x8010000000000002ull, kRP, kIXC, 1, kUFC | kIXC, __LINE__},
    {fmadd_d, MIN_D, THIRD_D, 0, kRN, kIXC, 0x0005555555555555ull, kUFC | kIXC, __LINE__},
    {fmadd_d, MIN_D, 0x3fe0000000000000ull, 0, kRN, kIXC, 0x0008000000000000ull, kIXC, __LINE__},  // exact
    // The sign of an exact zero: +0 unless rounding down, or both terms -0.
    {fmadd_d, ONE_D, ONE_D, NEG_ONE_D, kRN, kIXC, 0, kIXC, __LINE__},
    {fmadd_d, ONE_D, ONE_D, NEG_ONE_D, kRM, kIXC, 0x8000000000000000ull, kIXC, __LINE__},
    {fmadd_d, 0x8000000000000000ull, ONE_D, 0x8000000000000000ull, kRN, kIXC, 0x8000000000000000ull, kIXC,
     __LINE__},
    // NaNs: 0 * inf with a quiet NaN addend is the default NaN and IOC (Arm's rule, not x86's); a signalling
    // NaN wins; FNMADD's negated addend comes out with its sign flipped.
    {fmadd_d, 0, 0x7ff0000000000000ull, QNAN_D, kRN, kIXC, 0x7ff8000000000000ull, kIXC | kIOC, __LINE__},
    {fmadd_d, QNAN_D, ONE_D, 0x7ff0000000000002ull, kRN, 0, 0x7ff8000000000002ull, kIOC, __LINE__},
    {fmadd_d, ONE_D, ONE_D, QNAN_D, kRN, kIXC, QNAN_D, kIXC, __LINE__},
    {fnmadd_d, ONE_D, ONE_D, QNAN_D, kRN, kIXC, 0xfff8000000000001ull, kIXC, __LINE__},
    {fmadd_d, 0x7ff0000000000000ull, ONE_D, 0xfff0000000000000ull, kRN, kIXC, 0x7ff8000000000000ull,
     kIXC | kIOC, __LINE__},
    // FMSUB is c - a * b, FNMADD -c - a * b, FNMSUB -c + a * b.
    {fmsub_d, 0x3ff0000000400000ull, 0x3fefffffff800000ull, ONE_D, kRN, kIXC, 0x3c30000000000000ull, kIXC,
     __LINE__},
    {fnmadd_d, 0x3ff0000000400000ull, 0x3fefffffff800000ull, NEG_ONE_D, kRN, kIXC, 0x3c30000000000000ull,
     kIXC, __LINE__},
    {fnmsub_d, 0x3ff0000000400000ull, 0x3fefffffff800000ull, ONE_D, kRN, kIXC, 0xbc30000000000000ull, kIXC,
     __LINE__},
    // Single precision: (1 + 2^-13)(1 - 2^-13) - 1 = -2^-26; FZ flushes a denormal input (IDC).
    {fmadd_s64, 0x3f800400u, 0x3f7ff800u, 0xbf800000u, kRN, kIXC, 0xb2800000u, kIXC, __LINE__},
    {fmadd_s64, 0x3f800400u, 0x3f7ff800u, 0xbf800000u, kRN, 0, 0xb2800000u, 0, __LINE__},
    {fmadd_s64, 0x00000001u, ONE_S, ONE_S, kFZ, kIXC, ONE_S, kIXC | kIDC, __LINE__},
    {fmadd_s64, MIN_S, THIRD_S, 0, kRN, kIXC, 0x002aaaabu, kUFC | kIXC, __LINE__},
};

// Vector FMLA, two double lanes: the exact -2^-60 and the tiny 2^-1126 (UFC) in one instruction.
static void test_fmla_vector(void) {
  const uint64_t n[2] = {0x3ff0000000400000ull, MIN_D + 1};
  const uint64_t m[2] = {0x3fefffffff800000ull, ONE_D + 1};
  uint64_t acc[2] = {NEG_ONE_D, 0x8010000000000002ull};
  uint64_t fpsr = kIXC;
  __asm__ volatile(
      "ldr q0, [%[acc]]\n\tldr q1, [%[n]]\n\tldr q2, [%[m]]\n\tmsr fpsr, %[s]\n\t"
      "fmla v0.2d, v1.2d, v2.2d\n\tmrs %[s], fpsr\n\tstr q0, [%[acc]]"
      : [s] "+r"(fpsr)
      : [acc] "r"(acc), [n] "r"(n), [m] "r"(m)
      : "v0", "v1", "v2", "memory");
  CHECK_EQ(acc[0], 0xbc30000000000000ull);
  CHECK_EQ(acc[1], 0);
  CHECK_EQ(fpsr, kUFC | kIXC);
}

// One conversion from `in` (a general or FP register's bits) under FPCR `fpcr`; FPSR in and out.
#define FP_CONVERT(NAME, INSN, OUT_CONSTRAINT, IN_CONSTRAINT)                                          \
  static uint64_t NAME(uint64_t in, uint64_t fpcr, uint64_t* fpsr) {                                   \
    uint64_t out = 0, s = *fpsr;                                                                       \
    __asm__ volatile("msr fpcr, %[c]\n\tmsr fpsr, %[s]\n\t" INSN "\n\tmrs %[s], fpsr\n\tmsr fpcr, xzr" \
                     : [o] OUT_CONSTRAINT(out), [s] "+r"(s)                                            \
                     : [i] IN_CONSTRAINT(in), [c] "r"(fpcr));                                          \
    *fpsr = s;                                                                                         \
    return out;                                                                                        \
  }
FP_CONVERT(fcvtzs_xd, "fcvtzs %x[o], %d[i]", "=r", "w")
FP_CONVERT(fcvtzu_xd, "fcvtzu %x[o], %d[i]", "=r", "w")
FP_CONVERT(fcvtzs_wd, "fcvtzs %w[o], %d[i]", "=r", "w")
FP_CONVERT(fcvtzu_ws, "fcvtzu %w[o], %s[i]", "=r", "w")
FP_CONVERT(fcvtns_xd, "fcvtns %x[o], %d[i]", "=r", "w")
FP_CONVERT(fcvtas_xd, "fcvtas %x[o], %d[i]", "=r", "w")
FP_CONVERT(scvtf_dx, "scvtf %d[o], %x[i]", "=w", "r")
FP_CONVERT(ucvtf_sx, "ucvtf %s[o], %x[i]", "=w", "r")
FP_CONVERT(scvtf_sw, "scvtf %s[o], %w[i]", "=w", "r")
FP_CONVERT(fcvt_sd, "fcvt %s[o], %d[i]", "=w", "w")
FP_CONVERT(fcvt_ds, "fcvt %d[o], %s[i]", "=w", "w")

struct case_conv {
  uint64_t (*op)(uint64_t, uint64_t, uint64_t*);
  uint64_t in;
  uint32_t fpcr, fpsr_in;
  uint64_t want;
  uint32_t want_fpsr;
  int line;
};

#define D_2_5 0x4004000000000000ull    // 2.5
#define D_M2_5 0xc004000000000000ull   // -2.5
#define D_2P63 0x43e0000000000000ull   // 2^63
#define D_M2P63 0xc3e0000000000000ull  // -2^63
#define D_2P31 0x41e0000000000000ull   // 2^31
#define S_2P32 0x4f800000ull           // 2^32 as a single
#define D_0_1 0x3fb999999999999aull    // 0.1
#define S_0_1 0x3dcccccdull            // 0.1f

static const struct case_conv kConversions[] = {
    // To an integer: truncation or ties to even, IXC when inexact, saturation with IOC, NaN to 0 with IOC.
    {fcvtzs_xd, D_2_5, kRN, 0, 2, kIXC, __LINE__},
    {fcvtzs_xd, D_M2_5, kRN, kIXC, (uint64_t)-2, kIXC, __LINE__},
    {fcvtzs_xd, 0x4008000000000000ull, kRN, 0, 3, 0, __LINE__},  // 3.0: exact, no flag
    {fcvtzs_xd, D_M2P63, kRN, 0, 0x8000000000000000ull, 0, __LINE__},
    {fcvtzs_xd, D_2P63, kRN, kIXC, 0x7fffffffffffffffull, kIXC | kIOC, __LINE__},
    {fcvtzs_xd, 0x7ff8000000000000ull, kRN, 0, 0, kIOC, __LINE__},
    {fcvtzs_xd, 0x8000000000000000ull, kRN, 0, 0, 0, __LINE__},  // -0.0
    {fcvtzs_xd, 1, kRN, 0, 0, kIXC, __LINE__},                   // a denormal: 0, inexact
    {fcvtzs_xd, 1, kFZ, 0, 0, kIDC, __LINE__},                   // flushed: 0, input denormal
    {fcvtzu_xd, D_2P63, kRN, 0, 0x8000000000000000ull, 0, __LINE__},
    {fcvtzu_xd, D_M2_5, kRN, 0, 0, kIOC, __LINE__},
    {fcvtzu_xd, 0xbfe0000000000000ull, kRN, 0, 0, kIXC, __LINE__},  // -0.5: 0, inexact only
    {fcvtzs_wd, D_2P31, kRN, 0, 0x7fffffff, kIOC, __LINE__},
    {fcvtzs_wd, 0x41dfffffffe00000ull, kRN, 0, 0x7fffffff, kIXC, __LINE__},  // 2^31 - 0.5
    {fcvtzs_wd, D_M2_5, kRN, 0, 0xfffffffe, kIXC, __LINE__},
    {fcvtzu_ws, S_2P32, kRN, 0, 0xffffffff, kIOC, __LINE__},
    {fcvtzu_ws, 0x4f7fffffull, kRN, 0, 0xffffff00, 0, __LINE__},  // the largest single below 2^32
    {fcvtns_xd, D_2_5, kRN, 0, 2, kIXC, __LINE__},
    {fcvtns_xd, 0x400c000000000000ull, kRN, kIXC, 4, kIXC, __LINE__},  // 3.5: ties to even
    {fcvtas_xd, D_2_5, kRN, 0, 3, kIXC, __LINE__},                     // ties away from zero
    // From an integer: exact up to the significand's width, then rounded by FPCR's mode with IXC.
    {scvtf_dx, (1ull << 53) + 1, kRN, 0, 0x4340000000000000ull, kIXC, __LINE__},
    {scvtf_dx, (1ull << 53) + 1, kRP, 0, 0x4340000000000001ull, kIXC, __LINE__},
    {scvtf_dx, (1ull << 53) + 2, kRN, 0, 0x4340000000000001ull, 0, __LINE__},
    {scvtf_dx, (uint64_t)-3, kRN, kIXC, 0xc008000000000000ull, kIXC, __LINE__},
    {scvtf_dx, 0x8000000000000000ull, kRN, 0, 0xc3e0000000000000ull, 0, __LINE__},
    {ucvtf_sx, ~0ull, kRN, 0, 0x5f800000ull, kIXC, __LINE__},  // 2^64 - 1 rounds to 2^64
    {ucvtf_sx, ~0ull, kRZ, 0, 0x5f7fffffull, kIXC, __LINE__},
    {ucvtf_sx, (1ull << 24) + 1, kRN, kIXC, 0x4b800000ull, kIXC, __LINE__},
    {scvtf_sw, 0xffffffffull, kRN, 0, 0xbf800000ull, 0, __LINE__},  // w = -1
    // Between the formats: single to double is exact; double to single rounds, overflows, underflows.
    {fcvt_sd, D_0_1, kRN, 0, S_0_1, kIXC, __LINE__},
    {fcvt_sd, D_0_1, kRZ, kIXC, S_0_1 - 1, kIXC, __LINE__},
    {fcvt_sd, 0x3ff8000000000000ull, kRN, 0, 0x3fc00000ull, 0, __LINE__},               // 1.5: exact
    {fcvt_sd, 0x47f0000000000000ull, kRN, kIXC, 0x7f800000ull, kIXC | kOFC, __LINE__},  // 2^128
    {fcvt_sd, 0x3690000000000000ull, kRN, kIXC, 0x00000000ull, kIXC | kUFC, __LINE__},  // 2^-150: a tie, to 0
    {fcvt_sd, 0x36a0000000000000ull, kRN, 0, 0x00000001ull, 0, __LINE__},     // 2^-149: exact denormal
    {fcvt_sd, 0x36a0000000000000ull, kFZ, 0, 0x00000000ull, kUFC, __LINE__},  // flushed
    {fcvt_sd, 0x7ff0000000000001ull, kRN, 0, 0x7fc00000ull, kIOC, __LINE__},  // sNaN: quietened
    {fcvt_ds, S_0_1, kRN, 0, 0x3fb99999a0000000ull, 0, __LINE__},
    {fcvt_ds, 0x00000001ull, kRN, 0, 0x36a0000000000000ull, 0, __LINE__},
    {fcvt_ds, 0x00000001ull, kFZ, 0, 0, kIDC, __LINE__},
    {fcvt_ds, 0x7f800001ull, kRN, kIXC, 0x7ff8000020000000ull, kIXC | kIOC, __LINE__},
};

// Vector conversions, each element on its own: SCVTF of four 32-bit integers (one inexact), FCVTZS of two
// doubles (one inexact), UCVTF of two 64-bit integers.
static void test_vector_conversions(void) {
  uint32_t w[4] = {1, (uint32_t)-3, (1u << 24) + 1, 0x80000000u};
  uint64_t d[2] = {D_2_5, D_M2P63};
  uint64_t u[2] = {~0ull, 1ull << 40};
  uint64_t fpsr = 0;
  __asm__ volatile(
      "ldr q0, [%[w]]\n\tldr q1, [%[d]]\n\tldr q2, [%[u]]\n\tmsr fpsr, %[s]\n\t"
      "scvtf v0.4s, v0.4s\n\tfcvtzs v1.2d, v1.2d\n\tucvtf v2.2d, v2.2d\n\tmrs %[s], fpsr\n\t"
      "str q0, [%[w]]\n\tstr q1, [%[d]]\n\tstr q2, [%[u]]"
      : [s] "+r"(fpsr)
      : [w] "r"(w), [d] "r"(d), [u] "r"(u)
      : "v0", "v1", "v2", "memory");
  CHECK_EQ(w[0], 0x3f800000u);
  CHECK_EQ(w[1], 0xc0400000u);
  CHECK_EQ(w[2], 0x4b800000u);  // 2^24 + 1 rounds to 2^24
  CHECK_EQ(w[3], 0xcf000000u);
  CHECK_EQ(d[0], 2);
  CHECK_EQ(d[1], 0x8000000000000000ull);
  CHECK_EQ(u[0], 0x43f0000000000000ull);  // 2^64 - 1 rounds to 2^64
  CHECK_EQ(u[1], 0x4270000000000000ull);
  CHECK_EQ(fpsr, kIXC);
}

// FCMP and FCMPE: NZCV and FPSR for ordered pairs (signed zeros equal, infinities), and the unordered
// result of a NaN, IOC for a signalling NaN (FCMP) or any NaN (FCMPE).
#define FP_COMPARE(NAME, INSN, FLOAT, REG)                           \
  static uint64_t NAME(uint64_t a, uint64_t b, uint64_t* fpsr) {     \
    FLOAT fa, fb;                                                    \
    memcpy(&fa, &a, sizeof fa);                                      \
    memcpy(&fb, &b, sizeof fb);                                      \
    uint64_t nzcv, s = *fpsr;                                        \
    __asm__ volatile("msr fpsr, %[s]\n\t" INSN " %" REG "[a], %" REG \
                     "[b]\n\tmrs %[n], nzcv\n\t"                     \
                     "mrs %[s], fpsr"                                \
                     : [n] "=r"(nzcv), [s] "+r"(s)                   \
                     : [a] "w"(fa), [b] "w"(fb)                      \
                     : "cc");                                        \
    *fpsr = s;                                                       \
    return nzcv;                                                     \
  }
FP_COMPARE(fcmp_d, "fcmp", double, "d")
FP_COMPARE(fcmpe_d, "fcmpe", double, "d")
FP_COMPARE(fcmp_s, "fcmp", float, "s")

static void test_compares(void) {
  static const struct {
    uint64_t (*op)(uint64_t, uint64_t, uint64_t*);
    uint64_t a, b, nzcv;
    uint32_t fpsr;
    int line;
  } kCases[] = {
      {fcmp_d, ONE_D, 0x4000000000000000ull, 0x80000000u, 0, __LINE__},
      {fcmp_d, 0x4000000000000000ull, ONE_D, 0x20000000u, 0, __LINE__},
      {fcmpe_d, ONE_D, ONE_D, 0x60000000u, 0, __LINE__},
      {fcmp_d, 0x8000000000000000ull, 0, 0x60000000u, 0, __LINE__},
      {fcmp_d, 0xfff0000000000000ull, ONE_D, 0x80000000u, 0, __LINE__},
      {fcmpe_d, 0x7ff0000000000000ull, 0x7ff0000000000000ull, 0x60000000u, 0, __LINE__},
      {fcmp_d, 0x7ff8000000000000ull, ONE_D, 0x30000000u, 0, __LINE__},
      {fcmpe_d, 0x7ff8000000000000ull, ONE_D, 0x30000000u, kIOC, __LINE__},
      {fcmp_d, ONE_D, 0x7ff0000000000001ull, 0x30000000u, kIOC, __LINE__},
      {fcmp_d, 1, 0, 0x20000000u, 0, __LINE__},  // a denormal, FZ off: greater than zero
      {fcmp_s, 0x3f800000u, 0xbf800000u, 0x20000000u, 0, __LINE__},
      {fcmp_s, 0x80000000u, 0x00000000u, 0x60000000u, 0, __LINE__},
  };
  for (size_t i = 0; i < sizeof kCases / sizeof kCases[0]; i++) {
    uint64_t fpsr = 0;
    const uint64_t nzcv = kCases[i].op(kCases[i].a, kCases[i].b, &fpsr);
    if (!CHECK_EQ(nzcv, kCases[i].nzcv) | !CHECK_EQ(fpsr, kCases[i].fpsr))
      NOTE("compare case at line %d", kCases[i].line);
  }
}

// Every general register and NZCV keep their values across floating-point instructions (helper calls in
// translated code), and FCMP sets NZCV: one block loads x0-x17 and x19-x27 from in[] (x28 is left to the
// compiler for the buffers' address), runs FP arithmetic, fused multiply-add, conversions and min/max on
// both sizes, stores the registers to out[], and reads NZCV before and after FCMP.
static void test_registers_across_fp(void) {
  uint64_t in[27], out[27], nzcv[2];
  for (int i = 0; i < 27; i++) in[i] = 0x0123456789abcdefull * (uint64_t)(i + 1) ^ (uint64_t)i << 56;
  in[5] = 12345;  // SCVTF's operand
  uint64_t buf[3] = {(uint64_t)in, (uint64_t)out, (uint64_t)nzcv};
  __asm__ volatile(
      "stp x29, %[buf], [sp, #-16]!\n\t"
      "ldr x29, [%[buf]]\n\t"
      "ldp x0, x1, [x29]\n\tldp x2, x3, [x29, #16]\n\tldp x4, x5, [x29, #32]\n\t"
      "ldp x6, x7, [x29, #48]\n\tldp x8, x9, [x29, #64]\n\tldp x10, x11, [x29, #80]\n\t"
      "ldp x12, x13, [x29, #96]\n\tldp x14, x15, [x29, #112]\n\tldp x16, x17, [x29, #128]\n\t"
      "ldp x19, x20, [x29, #144]\n\tldp x21, x22, [x29, #160]\n\tldp x23, x24, [x29, #176]\n\t"
      "ldp x25, x26, [x29, #192]\n\tldr x27, [x29, #208]\n\t"
      "msr nzcv, x1\n\t"
      "fmov d0, #1.5\n\tfmov d1, #-2.25\n\tfmov d2, #3.0\n\t"
      "fadd d3, d0, d1\n\tfmul d4, d3, d2\n\tfdiv d5, d4, d0\n\tfsub d6, d5, d2\n\tfsqrt d7, d2\n\t"
      "fmadd d3, d0, d1, d2\n\tfmax d4, d0, d1\n\tfminnm d5, d0, d1\n\tscvtf d6, x5\n\t"
      "fcvt s7, d7\n\tfadd s16, s7, s7\n\tfmul s17, s16, s7\n\tfdiv s18, s17, s16\n\t"
      "fmadd s19, s16, s17, s18\n\tfcvt d20, s19\n\tucvtf s21, w5\n\tfrintx d22, d5\n\t"
      "mrs x29, nzcv\n\t"
      "ldr x30, [sp, #8]\n\t"
      "ldr x30, [x30, #16]\n\t"
      "str x29, [x30]\n\t"
      "fcmp d0, d1\n\t"  // 1.5 > -2.25: NZCV 0010
      "mrs x29, nzcv\n\t"
      "str x29, [x30, #8]\n\t"
      "ldr x30, [sp, #8]\n\t"
      "ldr x30, [x30, #8]\n\t"
      "stp x0, x1, [x30]\n\tstp x2, x3, [x30, #16]\n\tstp x4, x5, [x30, #32]\n\t"
      "stp x6, x7, [x30, #48]\n\tstp x8, x9, [x30, #64]\n\tstp x10, x11, [x30, #80]\n\t"
      "stp x12, x13, [x30, #96]\n\tstp x14, x15, [x30, #112]\n\tstp x16, x17, [x30, #128]\n\t"
      "stp x19, x20, [x30, #144]\n\tstp x21, x22, [x30, #160]\n\tstp x23, x24, [x30, #176]\n\t"
      "stp x25, x26, [x30, #192]\n\tstr x27, [x30, #208]\n\t"
      "ldp x29, x30, [sp], #16"
      :
      : [buf] "r"(buf)
      : "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13", "x14", "x15",
        "x16", "x17", "x19", "x20", "x21", "x22", "x23", "x24", "x25", "x26", "x27", "x30", "v0", "v1", "v2",
        "v3", "v4", "v5", "v6", "v7", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "memory", "cc");
  for (int i = 0; i < 27; i++) {
    if (!CHECK_EQ(out[i], in[i])) NOTE("register %d", i < 18 ? i : i + 1);
  }
  CHECK_EQ(nzcv[0], (in[1] & 0xf0000000u));
  CHECK_EQ(nzcv[1], 0x20000000u);
}

int main(void) {
  test_registers_across_fp();
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
  for (size_t i = 0; i < sizeof kFused / sizeof kFused[0]; i++) {
    const struct case_fma* c = &kFused[i];
    uint64_t fpsr = c->fpsr_in;
    const uint64_t r = c->op(c->a, c->b, c->c, c->fpcr, &fpsr);
    if (!CHECK_EQ(r, c->want) | !CHECK_EQ(fpsr, c->want_fpsr)) NOTE("fused case at line %d", c->line);
  }
  test_fmla_vector();
  test_vector_conversions();
  test_compares();
  for (size_t i = 0; i < sizeof kConversions / sizeof kConversions[0]; i++) {
    const struct case_conv* c = &kConversions[i];
    uint64_t fpsr = c->fpsr_in;
    const uint64_t r = c->op(c->in, c->fpcr, &fpsr);
    if (!CHECK_EQ(r, c->want) | !CHECK_EQ(fpsr, c->want_fpsr)) NOTE("conversion case at line %d", c->line);
  }
  // A loop of dependent operations with IXC set, as compiled code runs them: the same bits as the table.
  uint64_t fpsr = kIXC;
  uint64_t x = ONE_D;
  for (int i = 0; i < 1000; i++) x = fadd_d(fmul_d(x, 0x3ff0000000000001ull, kRN, &fpsr), 1, kRN, &fpsr);
  CHECK_EQ(fpsr, kIXC);
  CHECK_EQ(x, 0x3ff00000000003e8ull);  // (1 + 2^-52)^1000 rounds once per step: 1 + 1000 ulp
  return check_done();
}
