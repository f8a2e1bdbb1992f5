// This file owns the host-FPU fast path of the guest's scalar floating point: the link wraps Unicorn's
// helpers for FADD, FSUB, FMUL, FDIV, FSQRT and the fused multiply-add (single and double precision;
// translate-a64.c calls them for the scalar instructions and for each element of the vector ones, they are
// defined in vfp_helper.c) and computes the common case with one SSE instruction (FMA3's for the fused one,
// on a host that has it).
//
// Each helper normally goes through softfloat's float32_/float64_ entry points, whose hardfloat path tests
// its operands and result with a chain of dependent floating-point compares: the two helpers were half of the
// time of a double-precision matrix multiply. The fast path here gives the same bits with a few integer
// tests. Most operations take its first form, the plain path (about a dozen host instructions), when:
//   - the rounding mode is round-to-nearest-even (the host's: a64run never changes MXCSR, checked once), the
//     guest's cumulative inexact flag is already set (the one flag a finite normal result can raise) and
//     input flushing is off (FPCR.FZ clear: a denormal operand is then exact, in softfloat as on the host,
//     and raises nothing), all three read with one 8-byte load of the float_status;
//   - the host's result has a biased exponent from 2 to the largest finite one: finite and normal, so no
//     overflow, no NaN (a NaN or infinite operand gives a NaN or an infinity) and no division by zero (an
//     infinity), and at least twice the smallest normal, so the exact result was not tiny before rounding
//     (Arm detects tininess before rounding) and FZ's output flushing and DN make no difference.
// Anything else takes the second form, which covers FPCR.FZ and exact zeros; its conditions, all of them:
//   - round-to-nearest-even and the cumulative inexact flag set, as above;
//   - every operand is zero or normal (no NaN, infinity or denormal: no invalid-operation, input-denormal or
//     flush-to-zero case, and no NaN to propagate by Arm's rules);
//   - the result is zero or normal and larger than the smallest normal, so it neither overflowed nor was tiny
//     before rounding (Arm detects tininess before rounding); a zero is exact (an exact cancellation, or a
//     zero operand; a product or quotient that became zero from nonzero operands underflowed);
//   - a divisor is not zero (division by zero raises its flag); a square root's operand is not negative;
//   - a fused multiply-add's result is never taken when it is zero (a product can be tiny and exact while
//     its sum with the addend rounds to zero or to a denormal: an underflow the operands do not show).
// Then the IEEE result of the host's SSE instruction is the result softfloat computes, bit for bit, and the
// status flags are unchanged, FZ and DN make no difference (no denormal, no NaN). Everything else takes the
// original helper.
//
// Conversions (FCVT between single and double, SCVTF/UCVTF from a 64-bit or 32-bit integer,
// FCVTZS/FCVTZU/FCVTNS/FCVTNU to an integer of either size, scalar and each vector element) take the host's
// instruction when it gives softfloat's answer with no flag but inexact, which the wrapper then raises
// itself:
//   - no fixed-point fraction bits (shift 0);
//   - integer to floating point: the integer fits the format's significand (exact, any rounding mode), or
//     the mode is round-to-nearest-even (the host's), inexact raised when bits were lost; never a NaN, an
//     infinity or a denormal;
//   - floating point to integer: the operand is zero or normal, the mode round-to-zero or nearest-even, and
//     the operand within the integer's range (its bounds are integers, so the rounded value is too); no NaN
//     or overflow (invalid), no denormal (IDC under FZ); inexact raised when the operand was not integral;
//   - single to double: a zero or normal operand (exact, no flag); double to single: the plain path's status
//     and a roomy result, or an exact, normal result in any mode.
// FMAX, FMIN, FMAXNM and FMINNM of operands that are zeros, normals or infinities are a compare (no flag; of
// two zeros, max gives +0 and min -0 unless both have the sign). FRINTN/M/P/Z/A/I/X of such an operand is
// SSE4.1's ROUNDSD/ROUNDSS in the mode (ties-away from the truncation), FRINTX raising inexact when the
// value changed; round-to-odd, NaNs and denormals keep softfloat. FCMP and FCMPE of such operands are a
// host compare giving NZCV (less N, equal ZC, greater C); a NaN (unordered, IOC) keeps softfloat.
// tests/unit/emu/fp_fast_test compares both on a generated corpus in every rounding mode,
// with FZ and DN on and off.
#include "emu/fp_fast.h"

#include <cpuid.h>
#include <immintrin.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#if A64RUN_WRAP_TRANSLATOR

extern "C" {
uint32_t __real_helper_vfp_adds_aarch64(uint32_t a, uint32_t b, void* st);
uint64_t __real_helper_vfp_addd_aarch64(uint64_t a, uint64_t b, void* st);
uint32_t __real_helper_vfp_subs_aarch64(uint32_t a, uint32_t b, void* st);
uint64_t __real_helper_vfp_subd_aarch64(uint64_t a, uint64_t b, void* st);
uint32_t __real_helper_vfp_muls_aarch64(uint32_t a, uint32_t b, void* st);
uint64_t __real_helper_vfp_muld_aarch64(uint64_t a, uint64_t b, void* st);
uint32_t __real_helper_vfp_divs_aarch64(uint32_t a, uint32_t b, void* st);
uint64_t __real_helper_vfp_divd_aarch64(uint64_t a, uint64_t b, void* st);
uint32_t __real_helper_vfp_sqrts_aarch64(uint32_t a, void* env);
uint64_t __real_helper_vfp_sqrtd_aarch64(uint64_t a, void* env);
uint32_t __real_helper_vfp_muladds_aarch64(uint32_t a, uint32_t b, uint32_t c, void* st);
uint64_t __real_helper_vfp_muladdd_aarch64(uint64_t a, uint64_t b, uint64_t c, void* st);
uint64_t float64_mul_aarch64(uint64_t a, uint64_t b, void* st);
uint64_t __real_helper_vfp_sqtod_aarch64(uint64_t x, uint32_t shift, void* st);
uint64_t __real_helper_vfp_uqtod_aarch64(uint64_t x, uint32_t shift, void* st);
uint32_t __real_helper_vfp_sqtos_aarch64(uint64_t x, uint32_t shift, void* st);
uint32_t __real_helper_vfp_uqtos_aarch64(uint64_t x, uint32_t shift, void* st);
uint64_t __real_helper_vfp_tosqd_aarch64(uint64_t x, uint32_t shift, void* st);
uint64_t __real_helper_vfp_touqd_aarch64(uint64_t x, uint32_t shift, void* st);
uint32_t __real_helper_vfp_tosld_aarch64(uint64_t x, uint32_t shift, void* st);
uint32_t __real_helper_vfp_tould_aarch64(uint64_t x, uint32_t shift, void* st);
uint64_t __real_helper_vfp_tosqs_aarch64(uint32_t x, uint32_t shift, void* st);
uint64_t __real_helper_vfp_touqs_aarch64(uint32_t x, uint32_t shift, void* st);
uint32_t __real_helper_vfp_tosls_aarch64(uint32_t x, uint32_t shift, void* st);
uint32_t __real_helper_vfp_touls_aarch64(uint32_t x, uint32_t shift, void* st);
uint32_t __real_helper_vfp_sltos_aarch64(uint32_t x, uint32_t shift, void* st);
uint32_t __real_helper_vfp_ultos_aarch64(uint32_t x, uint32_t shift, void* st);
uint32_t __real_helper_vfp_sitos_aarch64(uint32_t x, void* st);
uint32_t __real_helper_vfp_uitos_aarch64(uint32_t x, void* st);
uint64_t __real_helper_vfp_fcvtds_aarch64(uint32_t x, void* env);
uint32_t __real_helper_vfp_maxs_aarch64(uint32_t a, uint32_t b, void* st);
uint64_t __real_helper_vfp_maxd_aarch64(uint64_t a, uint64_t b, void* st);
uint32_t __real_helper_vfp_mins_aarch64(uint32_t a, uint32_t b, void* st);
uint64_t __real_helper_vfp_mind_aarch64(uint64_t a, uint64_t b, void* st);
uint32_t __real_helper_vfp_maxnums_aarch64(uint32_t a, uint32_t b, void* st);
uint64_t __real_helper_vfp_maxnumd_aarch64(uint64_t a, uint64_t b, void* st);
uint32_t __real_helper_vfp_minnums_aarch64(uint32_t a, uint32_t b, void* st);
uint64_t __real_helper_vfp_minnumd_aarch64(uint64_t a, uint64_t b, void* st);
uint64_t __real_helper_vfp_cmps_a64_aarch64(uint32_t a, uint32_t b, void* st);
uint64_t __real_helper_vfp_cmpes_a64_aarch64(uint32_t a, uint32_t b, void* st);
uint64_t __real_helper_vfp_cmpd_a64_aarch64(uint64_t a, uint64_t b, void* st);
uint64_t __real_helper_vfp_cmped_a64_aarch64(uint64_t a, uint64_t b, void* st);
uint32_t __real_helper_rints_aarch64(uint32_t x, void* st);
uint64_t __real_helper_rintd_aarch64(uint64_t x, void* st);
uint32_t __real_helper_rints_exact_aarch64(uint32_t x, void* st);
uint64_t __real_helper_rintd_exact_aarch64(uint64_t x, void* st);
uint32_t __real_helper_vfp_fcvtsd_aarch64(uint64_t x, void* env);
}

namespace emu {
namespace {

// float_status (include/fpu/softfloat-types.h): float_rounding_mode at +1, float_exception_flags at +2.
constexpr int kRoundingOffset = 1;
constexpr uint16_t kModeMask = 0x20ff;     // the rounding mode byte, and float_flag_inexact in the flags byte
constexpr uint16_t kModeFast = 0x2000;     // float_round_nearest_even, inexact already raised
constexpr intptr_t kEnvFpStatus = 0x2ec8;  // CPUARMState.vfp.fp_status (helper_vfp_sqrt*: add $0x2ec8,%rsi)

// IEEE binary32 and binary64 by their bits.
template <typename Bits>
struct Format;
template <>
struct Format<uint32_t> {
  using Float = float;
  static constexpr int kFraction = 23;
  static constexpr uint32_t kExpMax = 0xff;
};
template <>
struct Format<uint64_t> {
  using Float = double;
  static constexpr int kFraction = 52;
  static constexpr uint64_t kExpMax = 0x7ff;
};

template <typename Bits>
constexpr Bits magnitude(Bits x) {
  return x & (~Bits{0} >> 1);
}
template <typename Bits>
constexpr Bits exponent(Bits x) {
  return magnitude(x) >> Format<Bits>::kFraction;
}
// Zero or normal: no NaN, infinity or denormal.
template <typename Bits>
constexpr bool zero_or_normal(Bits x) {
  return exponent(x) - 1 < Format<Bits>::kExpMax - 1 || magnitude(x) == 0;
}
// Normal, and larger than the smallest normal number (no result that was tiny before rounding).
template <typename Bits>
constexpr bool safe_result(Bits x) {
  return magnitude(x) > (Bits{1} << Format<Bits>::kFraction) && exponent(x) < Format<Bits>::kExpMax;
}

template <typename Bits>
typename Format<Bits>::Float to_float(Bits x) {
  typename Format<Bits>::Float f;
  std::memcpy(&f, &x, sizeof f);
  return f;
}
template <typename Bits, typename Float>
Bits to_bits(Float f) {
  Bits x;
  std::memcpy(&x, &f, sizeof x);
  return x;
}

bool layout_ok() {
  static const bool ok = [] {
    if (std::getenv("A64RUN_SOFTFLOAT") != nullptr && std::strcmp(std::getenv("A64RUN_SOFTFLOAT"), "0") != 0)
      return false;  // diagnostics: every operation in softfloat
    // float64_mul's own hardfloat test: movzbl 0x2(%rdx),%eax; test $0x20,%al (inexact); cmpb $0x0,0x1(%rdx)
    // (round to nearest even).
    static const unsigned char kFlags[] = {0x0f, 0xb6, 0x42, 0x02, 0xa8, 0x20};
    static const unsigned char kMode[] = {0x80, 0x7a, 0x01, 0x00};
    static const unsigned char kSqrt[] = {0x48, 0x81, 0xc6, 0xc8, 0x2e, 0x00, 0x00};
    const auto* mul = reinterpret_cast<const unsigned char*>(&float64_mul_aarch64);
    const auto* sqrt = reinterpret_cast<const unsigned char*>(&__real_helper_vfp_sqrtd_aarch64);
    const auto has = [](const unsigned char* code, size_t span, const unsigned char* want, size_t n) {
      for (size_t i = 0; i + n <= span; ++i) {
        if (std::memcmp(code + i, want, n) == 0) return true;
      }
      return false;
    };
    // The host rounds to nearest even and neither flushes nor treats denormals as zero (MXCSR's control
    // bits as the ABI leaves them; its exception flags are sticky status, ignored).
    constexpr unsigned kMxcsrControl = 0xffc0;
    constexpr unsigned kMxcsrDefault = 0x1f80;
    return has(mul, 0x20, kFlags, sizeof kFlags) && has(mul, 0x20, kMode, sizeof kMode) &&
           has(sqrt, 0x10, kSqrt, sizeof kSqrt) && (_mm_getcsr() & kMxcsrControl) == kMxcsrDefault;
  }();
  return ok;
}

// The fused multiply-add helpers pass a * b + c to softfloat's muladd with no negation flags: mov %rcx,%r8;
// xor %ecx,%ecx; jmp (float32_muladd / float64_muladd). FNMADD, FMSUB and FNMSUB flip the operands' signs
// before the call (translate-a64.c), so one host FMA covers all four.
// The host's FMA3 (with the YMM state the OS saves, which its VEX encoding needs) and SSE4.1: one cpuid,
// read once. libgcc's __builtin_cpu_supports would add a constructor of a dozen cpuid instructions to every
// start of a64run, and in a virtual machine each is a trap to the hypervisor (3.5 us on the bench's host).
struct HostFeatures {
  bool fma = false;
  bool sse41 = false;
};
const HostFeatures& host_features() {
  static const HostFeatures f = [] {
    HostFeatures h;
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (__get_cpuid(1, &a, &b, &c, &d) == 0) return h;
    h.sse41 = (c & bit_SSE4_1) != 0;
    if ((c & bit_FMA) != 0 && (c & bit_OSXSAVE) != 0) {
      unsigned lo = 0, hi = 0;
      __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
      h.fma = (lo & 0x6) == 0x6;  // XCR0: SSE and AVX state
    }
    return h;
  }();
  return f;
}

bool muladd_layout_ok() {
  static const unsigned char kMulAdd[] = {0x49, 0x89, 0xc8, 0x31, 0xc9, 0xe9};
  const auto starts_with = [](const void* fn) {
    const auto* code = static_cast<const unsigned char*>(fn);
    for (size_t i = 0; i + sizeof kMulAdd <= 0x10; ++i) {
      if (std::memcmp(code + i, kMulAdd, sizeof kMulAdd) == 0) return true;
    }
    return false;
  };
  return starts_with(reinterpret_cast<const void*>(&__real_helper_vfp_muladds_aarch64)) &&
         starts_with(reinterpret_cast<const void*>(&__real_helper_vfp_muladdd_aarch64)) &&
         host_features().fma;
}

// The conversion helpers, as the wrappers below take them: integer to floating point negates the shift and
// jumps to softfloat's scalbn conversion (neg %esi; jmp); floating point to integer reads the rounding mode
// from the float_status in its third argument (movsbl 0x1(%rcx) or 0x1(%rdx)); FCVT takes the CPU state and
// adds the float_status's offset (add $0x2ec8,%rsi).
bool conversion_layout_ok() {
  static const unsigned char kNegShift[] = {0xf7, 0xde, 0xe9};
  static const unsigned char kModeRcx[] = {0x0f, 0xbe, 0x41, 0x01};
  static const unsigned char kModeRdx[] = {0x0f, 0xbe, 0x42, 0x01};
  static const unsigned char kEnvStatus[] = {0x48, 0x81, 0xc6, 0xc8, 0x2e, 0x00, 0x00};
  static const unsigned char kStraightJump[] = {0xf3, 0x0f, 0x1e, 0xfa, 0xe9};  // endbr64; jmp
  const auto has = [](auto fn, size_t span, const unsigned char* want, size_t n) {
    const auto* code = reinterpret_cast<const unsigned char*>(fn);
    for (size_t i = 0; i + n <= span; ++i) {
      if (std::memcmp(code + i, want, n) == 0) return true;
    }
    return false;
  };
  return has(&__real_helper_vfp_sqtod_aarch64, 0x10, kNegShift, sizeof kNegShift) &&
         has(&__real_helper_vfp_uqtod_aarch64, 0x10, kNegShift, sizeof kNegShift) &&
         has(&__real_helper_vfp_sqtos_aarch64, 0x10, kNegShift, sizeof kNegShift) &&
         has(&__real_helper_vfp_uqtos_aarch64, 0x10, kNegShift, sizeof kNegShift) &&
         has(&__real_helper_vfp_sltos_aarch64, 0x10, kNegShift, sizeof kNegShift) &&
         has(&__real_helper_vfp_ultos_aarch64, 0x10, kNegShift, sizeof kNegShift) &&
         has(&__real_helper_vfp_sitos_aarch64, sizeof kStraightJump, kStraightJump, sizeof kStraightJump) &&
         has(&__real_helper_vfp_uitos_aarch64, sizeof kStraightJump, kStraightJump, sizeof kStraightJump) &&
         has(&__real_helper_vfp_tosqd_aarch64, 0x30, kModeRcx, sizeof kModeRcx) &&
         has(&__real_helper_vfp_touqd_aarch64, 0x30, kModeRcx, sizeof kModeRcx) &&
         has(&__real_helper_vfp_tosld_aarch64, 0x30, kModeRcx, sizeof kModeRcx) &&
         has(&__real_helper_vfp_tould_aarch64, 0x30, kModeRcx, sizeof kModeRcx) &&
         has(&__real_helper_vfp_tosqs_aarch64, 0x30, kModeRdx, sizeof kModeRdx) &&
         has(&__real_helper_vfp_touqs_aarch64, 0x30, kModeRdx, sizeof kModeRdx) &&
         has(&__real_helper_vfp_tosls_aarch64, 0x30, kModeRdx, sizeof kModeRdx) &&
         has(&__real_helper_vfp_touls_aarch64, 0x30, kModeRdx, sizeof kModeRdx) &&
         has(&__real_helper_vfp_fcvtds_aarch64, 0x10, kEnvStatus, sizeof kEnvStatus) &&
         has(&__real_helper_vfp_fcvtsd_aarch64, 0x10, kEnvStatus, sizeof kEnvStatus);
}

// The min/max helpers and FRINTX's pass their arguments straight to softfloat (endbr64; jmp); the other
// FRINT helper reads the flags from its second argument (movzbl 0x2(%rsi),%ebp) to keep inexact out. The
// rounding takes SSE4.1.
bool minmax_round_layout_ok() {
  static const unsigned char kStraightJump[] = {0xf3, 0x0f, 0x1e, 0xfa, 0xe9};
  static const unsigned char kFlags[] = {0x0f, 0xb6, 0x6e, 0x02};
  const auto has = [](auto fn, size_t span, const unsigned char* want, size_t n) {
    const auto* code = reinterpret_cast<const unsigned char*>(fn);
    for (size_t i = 0; i + n <= span; ++i) {
      if (std::memcmp(code + i, want, n) == 0) return true;
    }
    return false;
  };
  const auto straight = [&](auto fn) {
    return has(fn, sizeof kStraightJump, kStraightJump, sizeof kStraightJump);
  };
  return straight(&__real_helper_vfp_maxs_aarch64) && straight(&__real_helper_vfp_maxd_aarch64) &&
         straight(&__real_helper_vfp_mins_aarch64) && straight(&__real_helper_vfp_mind_aarch64) &&
         straight(&__real_helper_vfp_maxnums_aarch64) && straight(&__real_helper_vfp_maxnumd_aarch64) &&
         straight(&__real_helper_vfp_minnums_aarch64) && straight(&__real_helper_vfp_minnumd_aarch64) &&
         straight(&__real_helper_rints_exact_aarch64) && straight(&__real_helper_rintd_exact_aarch64) &&
         has(&__real_helper_rints_aarch64, 0x20, kFlags, sizeof kFlags) &&
         has(&__real_helper_rintd_aarch64, 0x20, kFlags, sizeof kFlags) && host_features().sse41;
}

// PSTATE's NZCV as the compare helpers return them (float_rel_to_flags in helper-a64.c).
constexpr uint64_t kFlagsLess = 0x80000000;     // N
constexpr uint64_t kFlagsEqual = 0x60000000;    // Z, C
constexpr uint64_t kFlagsGreater = 0x20000000;  // C

// The compare helpers map softfloat's relation to NZCV through a table (mov $0x30000000,%edx: unordered;
// add $0x1,%eax; cmp $0x2,%eax); the table's entries are checked by asking each helper.
bool compare_layout_ok() {
  static const unsigned char kMap[] = {0xba, 0x00, 0x00, 0x00, 0x30, 0x83, 0xc0, 0x01, 0x83, 0xf8, 0x02};
  const auto has_map = [](auto fn) {
    const auto* code = reinterpret_cast<const unsigned char*>(fn);
    for (size_t i = 0; i + sizeof kMap <= 0x20; ++i) {
      if (std::memcmp(code + i, kMap, sizeof kMap) == 0) return true;
    }
    return false;
  };
  if (!has_map(&__real_helper_vfp_cmps_a64_aarch64) || !has_map(&__real_helper_vfp_cmpes_a64_aarch64) ||
      !has_map(&__real_helper_vfp_cmpd_a64_aarch64) || !has_map(&__real_helper_vfp_cmped_a64_aarch64))
    return false;
  uint64_t status = 0;  // round-to-nearest, no flag, no flushing
  constexpr uint64_t kOne = 0x3ff0000000000000;
  constexpr uint64_t kTwo = 0x4000000000000000;
  constexpr uint32_t kOneS = 0x3f800000;
  constexpr uint32_t kTwoS = 0x40000000;
  return __real_helper_vfp_cmpd_a64_aarch64(kOne, kTwo, &status) == kFlagsLess &&
         __real_helper_vfp_cmped_a64_aarch64(kTwo, kTwo, &status) == kFlagsEqual &&
         __real_helper_vfp_cmpd_a64_aarch64(kTwo, kOne, &status) == kFlagsGreater &&
         __real_helper_vfp_cmps_a64_aarch64(kOneS, kTwoS, &status) == kFlagsLess &&
         __real_helper_vfp_cmpes_a64_aarch64(kTwoS, kTwoS, &status) == kFlagsEqual &&
         __real_helper_vfp_cmps_a64_aarch64(kTwoS, kOneS, &status) == kFlagsGreater && status == 0;
}

// Set by prepare_fp_fast before the first translation; read by every operation.
std::atomic<bool> g_enabled{false};
std::atomic<bool> g_fma_enabled{false};           // and the host has FMA3
std::atomic<bool> g_conv_enabled{false};          // and the conversion helpers are as above
std::atomic<bool> g_minmax_round_enabled{false};  // and the min/max and FRINT helpers, and SSE4.1
std::atomic<bool> g_compare_enabled{false};       // and the compare helpers

// The plain path's test of the whole float_status (8 bytes, little-endian): float_rounding_mode (byte 1) 0,
// float_flag_inexact (0x20 in byte 2) set, flush_inputs_to_zero (byte 5) 0. g_plain_mask is 0 until
// prepare_fp_fast has checked the layout, so no status matches before (0 is not kPlainWant).
constexpr uint64_t kPlainMask = 0x0000ff000020ff00;
constexpr uint64_t kPlainWant = 0x0000000000200000;
std::atomic<uint64_t> g_plain_mask{0};
std::atomic<uint64_t> g_fma_plain_mask{0};  // the same for the fused multiply-add, 0 without FMA3

bool plain_mode(const void* st, const std::atomic<uint64_t>& mask = g_plain_mask) {
  uint64_t w;
  std::memcpy(&w, st, sizeof w);
  return (w & mask.load(std::memory_order_relaxed)) == kPlainWant;
}

// A finite normal number of at least twice the smallest normal: biased exponent 2 to the largest finite.
template <typename Bits>
constexpr bool roomy(Bits x) {
  return static_cast<Bits>(static_cast<Bits>(x << 1) >> (Format<Bits>::kFraction + 1)) - 2 <
         Format<Bits>::kExpMax - 2;
}

bool fast_mode(const void* st) {
  uint16_t w;
  std::memcpy(&w, static_cast<const char*>(st) + kRoundingOffset, sizeof w);
  return (w & kModeMask) == kModeFast && g_enabled.load(std::memory_order_relaxed);
}

template <typename Bits>
bool add_fast(Bits a, Bits b, const void* st, Bits* r) {
  if (!fast_mode(st) || !zero_or_normal(a) || !zero_or_normal(b)) return false;
  *r = to_bits<Bits>(to_float(a) + to_float(b));
  return safe_result(*r) || magnitude(*r) == 0;
}

template <typename Bits>
bool sub_fast(Bits a, Bits b, const void* st, Bits* r) {
  if (!fast_mode(st) || !zero_or_normal(a) || !zero_or_normal(b)) return false;
  *r = to_bits<Bits>(to_float(a) - to_float(b));
  return safe_result(*r) || magnitude(*r) == 0;
}

template <typename Bits>
bool mul_fast(Bits a, Bits b, const void* st, Bits* r) {
  if (!fast_mode(st) || !zero_or_normal(a) || !zero_or_normal(b)) return false;
  *r = to_bits<Bits>(to_float(a) * to_float(b));
  return safe_result(*r) || (magnitude(*r) == 0 && (magnitude(a) == 0 || magnitude(b) == 0));
}

template <typename Bits>
bool div_fast(Bits a, Bits b, const void* st, Bits* r) {
  if (!fast_mode(st) || !zero_or_normal(a) || !zero_or_normal(b) || magnitude(b) == 0) return false;
  *r = to_bits<Bits>(to_float(a) / to_float(b));
  return safe_result(*r) || (magnitude(*r) == 0 && magnitude(a) == 0);
}

template <typename Bits>
bool sqrt_fast(Bits a, const void* st, Bits* r) {
  if (!fast_mode(st) || !zero_or_normal(a) || (a != magnitude(a) && magnitude(a) != 0)) return false;
  *r = to_bits<Bits>(std::sqrt(to_float(a)));
  return true;  // the root of a normal number is normal; of a zero, that zero
}

// The host's fused multiply-add, one rounding (compiled for FMA3; called only when the host has it).
__attribute__((target("fma"))) float host_fma(float a, float b, float c) {
  return _mm_cvtss_f32(_mm_fmadd_ss(_mm_set_ss(a), _mm_set_ss(b), _mm_set_ss(c)));
}
__attribute__((target("fma"))) double host_fma(double a, double b, double c) {
  return _mm_cvtsd_f64(_mm_fmadd_sd(_mm_set_sd(a), _mm_set_sd(b), _mm_set_sd(c)));
}

template <typename Bits>
bool muladd_fast(Bits a, Bits b, Bits c, const void* st, Bits* r) {
  if (!fast_mode(st) || !g_fma_enabled.load(std::memory_order_relaxed) || !zero_or_normal(a) ||
      !zero_or_normal(b) || !zero_or_normal(c))
    return false;
  *r = to_bits<Bits>(host_fma(to_float(a), to_float(b), to_float(c)));
  return safe_result(*r);
}

// softfloat's FloatRoundMode (include/fpu/softfloat-types.h), byte 1 of float_status; its inexact flag.
constexpr int8_t kRoundNearestEven = 0;
constexpr int8_t kRoundToZero = 3;
constexpr uint8_t kFlagInexact = 0x20;

int8_t rounding_mode(const void* st) {
  int8_t mode;
  std::memcpy(&mode, static_cast<const char*>(st) + kRoundingOffset, sizeof mode);
  return mode;
}

void raise_inexact(void* st) {
  static_cast<uint8_t*>(st)[2] |= kFlagInexact;  // float_exception_flags, as float_raise sets it
}

// Integer to floating point: true with *r when the host's conversion is softfloat's (see the top).
template <typename Bits, typename Int>
bool int_to_float(Int x, uint32_t shift, void* st, Bits* r) {
  if (shift != 0 || !g_conv_enabled.load(std::memory_order_relaxed)) return false;
  using Unsigned = uint64_t;
  const Unsigned mag = x < 0 ? Unsigned{0} - static_cast<Unsigned>(x) : static_cast<Unsigned>(x);
  const bool exact =
      mag == 0 || 64 - __builtin_clzll(mag) - __builtin_ctzll(mag) <= Format<Bits>::kFraction + 1;
  if (!exact && rounding_mode(st) != kRoundNearestEven) return false;
  *r = to_bits<Bits>(static_cast<typename Format<Bits>::Float>(x));
  if (!exact) raise_inexact(st);
  return true;
}

// Floating point (as a double: a single operand converts exactly) to an integer of [lo, hi], both
// integral doubles. True with *r when the host's conversion is softfloat's.
template <typename Int>
bool float_to_int(double x, bool zero_or_normal_operand, uint32_t shift, void* st, double lo, double hi,
                  Int* r) {
  if (shift != 0 || !zero_or_normal_operand || !g_conv_enabled.load(std::memory_order_relaxed)) return false;
  if (!(x >= lo && x <= hi)) return false;
  if (x >= 9223372036854775808.0) {  // the unsigned 64-bit range's top half: integral doubles only
    *r = static_cast<Int>(static_cast<uint64_t>(x));
    return true;
  }
  const int8_t mode = rounding_mode(st);
  int64_t i;
  if (mode == kRoundToZero) {
    i = _mm_cvttsd_si64(_mm_set_sd(x));
  } else if (mode == kRoundNearestEven) {
    i = _mm_cvtsd_si64(_mm_set_sd(x));  // MXCSR's rounding, round-to-nearest-even (checked at start)
  } else {
    return false;
  }
  *r = static_cast<Int>(i);  // within the range: lo and hi are integers
  if (static_cast<double>(i) != x) raise_inexact(st);
  return true;
}

// A zero, a normal number or an infinity: no NaN, no denormal.
template <typename Bits>
constexpr bool ordinary(Bits x) {
  return zero_or_normal(x) || magnitude(x) == (Bits{Format<Bits>::kExpMax} << Format<Bits>::kFraction);
}

template <typename Bits>
bool max_fast(Bits a, Bits b, Bits* r) {
  if (!ordinary(a) || !ordinary(b) || !g_minmax_round_enabled.load(std::memory_order_relaxed)) return false;
  const auto fa = to_float(a);
  const auto fb = to_float(b);
  *r = fa > fb ? a : fb > fa ? b : static_cast<Bits>(a & b);  // equal: the same bits, or +0 of two zeros
  return true;
}

template <typename Bits>
bool min_fast(Bits a, Bits b, Bits* r) {
  if (!ordinary(a) || !ordinary(b) || !g_minmax_round_enabled.load(std::memory_order_relaxed)) return false;
  const auto fa = to_float(a);
  const auto fb = to_float(b);
  *r = fa < fb ? a : fb < fa ? b : static_cast<Bits>(a | b);  // equal: the same bits, or -0 of two zeros
  return true;
}

// x rounded to an integral value in softfloat's mode `mode` (SSE4.1, no exception); false for round-to-odd.
__attribute__((target("sse4.1"))) bool round_integral(double x, int8_t mode, double* r) {
  const __m128d v = _mm_set_sd(x);
  switch (mode) {
    case 0:
      *r = _mm_cvtsd_f64(_mm_round_sd(v, v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
      return true;
    case 1:
      *r = _mm_cvtsd_f64(_mm_round_sd(v, v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC));
      return true;
    case 2:
      *r = _mm_cvtsd_f64(_mm_round_sd(v, v, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC));
      return true;
    case 3:
      *r = _mm_cvtsd_f64(_mm_round_sd(v, v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC));
      return true;
    case 4: {  // ties away from zero: the truncation, one further when the dropped part is at least a half
      double t = _mm_cvtsd_f64(_mm_round_sd(v, v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC));
      if (std::fabs(x - t) >= 0.5) t += std::copysign(1.0, x);  // exact: |t| < 2^52 when x is not integral
      *r = t;
      return true;
    }
    default:
      return false;
  }
}
__attribute__((target("sse4.1"))) bool round_integral(float x, int8_t mode, float* r) {
  const __m128 v = _mm_set_ss(x);
  switch (mode) {
    case 0:
      *r = _mm_cvtss_f32(_mm_round_ss(v, v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
      return true;
    case 1:
      *r = _mm_cvtss_f32(_mm_round_ss(v, v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC));
      return true;
    case 2:
      *r = _mm_cvtss_f32(_mm_round_ss(v, v, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC));
      return true;
    case 3:
      *r = _mm_cvtss_f32(_mm_round_ss(v, v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC));
      return true;
    case 4: {
      float t = _mm_cvtss_f32(_mm_round_ss(v, v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC));
      if (std::fabs(x - t) >= 0.5f) t += std::copysign(1.0f, x);  // exact: |t| < 2^23 when x is not integral
      *r = t;
      return true;
    }
    default:
      return false;
  }
}

// FCMP, FCMPE: NZCV of two ordered operands (no NaN: no flag, quiet or signalling compare alike).
template <typename Bits>
bool compare_fast(Bits a, Bits b, uint64_t* r) {
  if (!ordinary(a) || !ordinary(b) || !g_compare_enabled.load(std::memory_order_relaxed)) return false;
  const auto fa = to_float(a);
  const auto fb = to_float(b);
  *r = fa < fb ? kFlagsLess : fa == fb ? kFlagsEqual : kFlagsGreater;
  return true;
}

// FRINT*: x rounded in the status's mode; with `exact` (FRINTX), inexact raised when the value changed.
template <typename Bits>
bool rint_fast(Bits x, void* st, bool exact, Bits* r) {
  if (!ordinary(x) || !g_minmax_round_enabled.load(std::memory_order_relaxed)) return false;
  typename Format<Bits>::Float rounded;
  if (!round_integral(to_float(x), rounding_mode(st), &rounded)) return false;
  *r = to_bits<Bits>(rounded);
  if (exact && *r != x) raise_inexact(st);
  return true;
}

}  // namespace

bool prepare_fp_fast() {
  // The checks run once (the first vCPU); later vCPUs find the flags set.
  static const bool ok = [] {
    const bool base = layout_ok();
    const bool fma = base && muladd_layout_ok();
    g_enabled.store(base, std::memory_order_relaxed);
    g_fma_enabled.store(fma, std::memory_order_relaxed);
    g_conv_enabled.store(base && conversion_layout_ok(), std::memory_order_relaxed);
    g_minmax_round_enabled.store(base && minmax_round_layout_ok(), std::memory_order_relaxed);
    g_compare_enabled.store(base && compare_layout_ok(), std::memory_order_relaxed);
    g_plain_mask.store(base ? kPlainMask : 0, std::memory_order_relaxed);
    g_fma_plain_mask.store(fma ? kPlainMask : 0, std::memory_order_relaxed);
    return base;
  }();
  return ok;
}

bool fp_fast_fma() {
  return g_fma_enabled.load(std::memory_order_relaxed);
}

bool fp_fast_conversions() {
  return g_conv_enabled.load(std::memory_order_relaxed);
}

bool fp_fast_minmax_round() {
  return g_minmax_round_enabled.load(std::memory_order_relaxed);
}

bool fp_fast_compare() {
  return g_compare_enabled.load(std::memory_order_relaxed);
}

}  // namespace emu

// The wrapped helpers: the plain path, the second form, or the original (out of line: the plain path is
// the whole of the hot code).
#define A64RUN_FP_BINOP(OP, SYM, SUFFIX, BITS)                                         \
  namespace {                                                                          \
  __attribute__((noinline)) BITS OP##SUFFIX##_careful(BITS a, BITS b, void* st) {      \
    BITS r;                                                                            \
    if (emu::OP##_fast<BITS>(a, b, st, &r)) return r;                                  \
    return __real_helper_vfp_##OP##SUFFIX##_aarch64(a, b, st);                         \
  }                                                                                    \
  }                                                                                    \
  extern "C" BITS __wrap_helper_vfp_##OP##SUFFIX##_aarch64(BITS a, BITS b, void* st) { \
    if (emu::plain_mode(st)) {                                                         \
      const auto r = emu::to_bits<BITS>(emu::to_float(a) SYM emu::to_float(b));        \
      if (emu::roomy(r)) return r;                                                     \
    }                                                                                  \
    return OP##SUFFIX##_careful(a, b, st);                                             \
  }
A64RUN_FP_BINOP(add, +, s, uint32_t)
A64RUN_FP_BINOP(add, +, d, uint64_t)
A64RUN_FP_BINOP(sub, -, s, uint32_t)
A64RUN_FP_BINOP(sub, -, d, uint64_t)
A64RUN_FP_BINOP(mul, *, s, uint32_t)
A64RUN_FP_BINOP(mul, *, d, uint64_t)
A64RUN_FP_BINOP(div, /, s, uint32_t)
A64RUN_FP_BINOP(div, /, d, uint64_t)
#undef A64RUN_FP_BINOP

// FMUL and an FADD or FSUB of its product in one call (emu/fp_pairs.cpp): the two wrapped helpers in order
// with one float_status, and between them the product stored to the V register slot FMUL writes (at `delta`
// from the float_status, both in the CPU state), as the translator's store would (a single zero-extended to
// 8 bytes). _px computes product OP x, _xp x OP product. The plain path of both is one straight line; when
// either misses it, the careful function does both again from the start (a plain product raised no flag, so
// computing it twice is as computing it once).
#define A64RUN_FP_PAIR(OP, SYM, SUFFIX, BITS, NAME, FIRST, SECOND)                                  \
  namespace {                                                                                       \
  __attribute__((noinline)) BITS NAME##_careful(BITS a, BITS b, BITS x, void* st, intptr_t delta) { \
    const BITS p = mul##SUFFIX##_careful(a, b, st);                                                 \
    const uint64_t stored = p;                                                                      \
    std::memcpy(static_cast<char*>(st) + delta, &stored, sizeof stored);                            \
    return OP##SUFFIX##_careful(FIRST, SECOND, st);                                                 \
  }                                                                                                 \
  }                                                                                                 \
  extern "C" BITS NAME(BITS a, BITS b, BITS x, void* st, intptr_t delta) {                          \
    if (emu::plain_mode(st)) {                                                                      \
      const auto p = emu::to_bits<BITS>(emu::to_float(a) * emu::to_float(b));                       \
      const auto r = emu::to_bits<BITS>(emu::to_float(FIRST) SYM emu::to_float(SECOND));            \
      if (emu::roomy(p) && emu::roomy(r)) {                                                         \
        const uint64_t stored = p;                                                                  \
        std::memcpy(static_cast<char*>(st) + delta, &stored, sizeof stored);                        \
        return r;                                                                                   \
      }                                                                                             \
    }                                                                                               \
    return NAME##_careful(a, b, x, st, delta);                                                      \
  }
A64RUN_FP_PAIR(add, +, s, uint32_t, a64run_fp_mul_adds_px, p, x)
A64RUN_FP_PAIR(add, +, s, uint32_t, a64run_fp_mul_adds_xp, x, p)
A64RUN_FP_PAIR(add, +, d, uint64_t, a64run_fp_mul_addd_px, p, x)
A64RUN_FP_PAIR(add, +, d, uint64_t, a64run_fp_mul_addd_xp, x, p)
A64RUN_FP_PAIR(sub, -, s, uint32_t, a64run_fp_mul_subs_px, p, x)
A64RUN_FP_PAIR(sub, -, s, uint32_t, a64run_fp_mul_subs_xp, x, p)
A64RUN_FP_PAIR(sub, -, d, uint64_t, a64run_fp_mul_subd_px, p, x)
A64RUN_FP_PAIR(sub, -, d, uint64_t, a64run_fp_mul_subd_xp, x, p)
#undef A64RUN_FP_PAIR

namespace emu {
const void* fp_mul_pair_helper(bool single, bool sub, bool product_first) {
  static const void* const kHelpers[2][2][2] = {{{reinterpret_cast<const void*>(&a64run_fp_mul_addd_xp),
                                                  reinterpret_cast<const void*>(&a64run_fp_mul_addd_px)},
                                                 {reinterpret_cast<const void*>(&a64run_fp_mul_subd_xp),
                                                  reinterpret_cast<const void*>(&a64run_fp_mul_subd_px)}},
                                                {{reinterpret_cast<const void*>(&a64run_fp_mul_adds_xp),
                                                  reinterpret_cast<const void*>(&a64run_fp_mul_adds_px)},
                                                 {reinterpret_cast<const void*>(&a64run_fp_mul_subs_xp),
                                                  reinterpret_cast<const void*>(&a64run_fp_mul_subs_px)}}};
  return kHelpers[single ? 1 : 0][sub ? 1 : 0][product_first ? 1 : 0];
}
}  // namespace emu

namespace {

template <typename Bits>
__attribute__((noinline)) Bits sqrt_careful(Bits a, void* env, Bits (*real)(Bits, void*)) {
  Bits r;
  if (emu::sqrt_fast<Bits>(a, static_cast<char*>(env) + emu::kEnvFpStatus, &r)) return r;
  return real(a, env);
}

template <typename Bits>
Bits sqrt_wrapped(Bits a, void* env, Bits (*real)(Bits, void*)) {
  if (emu::plain_mode(static_cast<char*>(env) + emu::kEnvFpStatus)) {
    const auto r = emu::to_bits<Bits>(std::sqrt(emu::to_float(a)));
    if (emu::roomy(r)) return r;  // a negative operand gives a NaN, a zero a zero: neither is roomy
  }
  return sqrt_careful<Bits>(a, env, real);
}

}  // namespace

extern "C" uint32_t __wrap_helper_vfp_sqrts_aarch64(uint32_t a, void* env) {
  return sqrt_wrapped<uint32_t>(a, env, __real_helper_vfp_sqrts_aarch64);
}

extern "C" uint64_t __wrap_helper_vfp_sqrtd_aarch64(uint64_t a, void* env) {
  return sqrt_wrapped<uint64_t>(a, env, __real_helper_vfp_sqrtd_aarch64);
}

namespace {

template <typename Bits>
__attribute__((noinline)) Bits muladd_careful(Bits a, Bits b, Bits c, void* st,
                                              Bits (*real)(Bits, Bits, Bits, void*)) {
  Bits r;
  if (emu::muladd_fast<Bits>(a, b, c, st, &r)) return r;
  return real(a, b, c, st);
}

// a * b + c, rounded once. The plain path's mask is nonzero only on a host with FMA3.
template <typename Bits>
Bits muladd_wrapped(Bits a, Bits b, Bits c, void* st, Bits (*real)(Bits, Bits, Bits, void*)) {
  if (emu::plain_mode(st, emu::g_fma_plain_mask)) {
    const auto r = emu::to_bits<Bits>(emu::host_fma(emu::to_float(a), emu::to_float(b), emu::to_float(c)));
    if (emu::roomy(r)) return r;
  }
  return muladd_careful<Bits>(a, b, c, st, real);
}

}  // namespace

extern "C" uint32_t __wrap_helper_vfp_muladds_aarch64(uint32_t a, uint32_t b, uint32_t c, void* st) {
  return muladd_wrapped<uint32_t>(a, b, c, st, __real_helper_vfp_muladds_aarch64);
}

extern "C" uint64_t __wrap_helper_vfp_muladdd_aarch64(uint64_t a, uint64_t b, uint64_t c, void* st) {
  return muladd_wrapped<uint64_t>(a, b, c, st, __real_helper_vfp_muladdd_aarch64);
}

// Conversions. Each falls back to the original helper whenever the fast form does not apply.
#define A64RUN_INT_TO_FP(NAME, BITS, INT)                                                    \
  extern "C" BITS __wrap_helper_vfp_##NAME##_aarch64(uint64_t x, uint32_t shift, void* st) { \
    BITS r;                                                                                  \
    if (emu::int_to_float<BITS, INT>(static_cast<INT>(x), shift, st, &r)) return r;          \
    return __real_helper_vfp_##NAME##_aarch64(x, shift, st);                                 \
  }
A64RUN_INT_TO_FP(sqtod, uint64_t, int64_t)
A64RUN_INT_TO_FP(uqtod, uint64_t, uint64_t)
A64RUN_INT_TO_FP(sqtos, uint32_t, int64_t)
A64RUN_INT_TO_FP(uqtos, uint32_t, uint64_t)
#undef A64RUN_INT_TO_FP

// 32-bit integers to single precision (vector SCVTF/UCVTF of 32-bit elements), with a shift and without.
extern "C" uint32_t __wrap_helper_vfp_sltos_aarch64(uint32_t x, uint32_t shift, void* st) {
  uint32_t r;
  if (emu::int_to_float<uint32_t, int32_t>(static_cast<int32_t>(x), shift, st, &r)) return r;
  return __real_helper_vfp_sltos_aarch64(x, shift, st);
}
extern "C" uint32_t __wrap_helper_vfp_ultos_aarch64(uint32_t x, uint32_t shift, void* st) {
  uint32_t r;
  if (emu::int_to_float<uint32_t, uint32_t>(x, shift, st, &r)) return r;
  return __real_helper_vfp_ultos_aarch64(x, shift, st);
}
extern "C" uint32_t __wrap_helper_vfp_sitos_aarch64(uint32_t x, void* st) {
  uint32_t r;
  if (emu::int_to_float<uint32_t, int32_t>(static_cast<int32_t>(x), 0, st, &r)) return r;
  return __real_helper_vfp_sitos_aarch64(x, st);
}
extern "C" uint32_t __wrap_helper_vfp_uitos_aarch64(uint32_t x, void* st) {
  uint32_t r;
  if (emu::int_to_float<uint32_t, uint32_t>(x, 0, st, &r)) return r;
  return __real_helper_vfp_uitos_aarch64(x, st);
}

// The ranges: [-2^63, 2^63 - 1024], [0, 2^64 - 2048], [-2^31, 2^31 - 1], [0, 2^32 - 1] (the largest
// doubles within each integer type).
#define A64RUN_FP_TO_INT(NAME, RET, BITS, INT, LO, HI)                                           \
  extern "C" RET __wrap_helper_vfp_##NAME##_aarch64(BITS x, uint32_t shift, void* st) {          \
    INT r;                                                                                       \
    if (emu::float_to_int<INT>(emu::to_float(x), emu::zero_or_normal(x), shift, st, LO, HI, &r)) \
      return static_cast<RET>(r);                                                                \
    return __real_helper_vfp_##NAME##_aarch64(x, shift, st);                                     \
  }
A64RUN_FP_TO_INT(tosqd, uint64_t, uint64_t, int64_t, -9223372036854775808.0, 9223372036854774784.0)
A64RUN_FP_TO_INT(touqd, uint64_t, uint64_t, uint64_t, 0.0, 18446744073709549568.0)
A64RUN_FP_TO_INT(tosld, uint32_t, uint64_t, int32_t, -2147483648.0, 2147483647.0)
A64RUN_FP_TO_INT(tould, uint32_t, uint64_t, uint32_t, 0.0, 4294967295.0)
A64RUN_FP_TO_INT(tosqs, uint64_t, uint32_t, int64_t, -9223372036854775808.0, 9223372036854774784.0)
A64RUN_FP_TO_INT(touqs, uint64_t, uint32_t, uint64_t, 0.0, 18446744073709549568.0)
A64RUN_FP_TO_INT(tosls, uint32_t, uint32_t, int32_t, -2147483648.0, 2147483647.0)
A64RUN_FP_TO_INT(touls, uint32_t, uint32_t, uint32_t, 0.0, 4294967295.0)
#undef A64RUN_FP_TO_INT

// FCVT Dd, Sn: exact for a zero or normal operand (no flag, FZ and DN make no difference).
extern "C" uint64_t __wrap_helper_vfp_fcvtds_aarch64(uint32_t x, void* env) {
  if (emu::zero_or_normal(x) && emu::g_conv_enabled.load(std::memory_order_relaxed))
    return emu::to_bits<uint64_t>(static_cast<double>(emu::to_float(x)));
  return __real_helper_vfp_fcvtds_aarch64(x, env);
}

// FCVT Sd, Dn: the plain path (round-to-nearest-even, inexact already raised, no input flushing) with a
// roomy result; or, in any mode, a zero or normal operand that converts exactly to a zero or a result larger
// than the smallest normal.
extern "C" uint32_t __wrap_helper_vfp_fcvtsd_aarch64(uint64_t x, void* env) {
  if (emu::g_conv_enabled.load(std::memory_order_relaxed)) {
    const auto r = emu::to_bits<uint32_t>(static_cast<float>(emu::to_float(x)));
    if (emu::plain_mode(static_cast<char*>(env) + emu::kEnvFpStatus) && emu::roomy(r)) return r;
    if (emu::zero_or_normal(x) && static_cast<double>(emu::to_float(r)) == emu::to_float(x) &&
        (emu::safe_result(r) || emu::magnitude(r) == 0))
      return r;
  }
  return __real_helper_vfp_fcvtsd_aarch64(x, env);
}

// FMAX, FMIN, FMAXNM, FMINNM (no NaN operand: the NM forms are the plain ones then) and FRINT*.
#define A64RUN_MINMAX(NAME, OP, BITS)                                            \
  extern "C" BITS __wrap_helper_vfp_##NAME##_aarch64(BITS a, BITS b, void* st) { \
    BITS r;                                                                      \
    if (emu::OP##_fast<BITS>(a, b, &r)) return r;                                \
    return __real_helper_vfp_##NAME##_aarch64(a, b, st);                         \
  }
A64RUN_MINMAX(maxs, max, uint32_t)
A64RUN_MINMAX(maxd, max, uint64_t)
A64RUN_MINMAX(mins, min, uint32_t)
A64RUN_MINMAX(mind, min, uint64_t)
A64RUN_MINMAX(maxnums, max, uint32_t)
A64RUN_MINMAX(maxnumd, max, uint64_t)
A64RUN_MINMAX(minnums, min, uint32_t)
A64RUN_MINMAX(minnumd, min, uint64_t)
#undef A64RUN_MINMAX

#define A64RUN_COMPARE(NAME, BITS)                                                       \
  extern "C" uint64_t __wrap_helper_vfp_##NAME##_a64_aarch64(BITS a, BITS b, void* st) { \
    uint64_t r;                                                                          \
    if (emu::compare_fast<BITS>(a, b, &r)) return r;                                     \
    return __real_helper_vfp_##NAME##_a64_aarch64(a, b, st);                             \
  }
A64RUN_COMPARE(cmps, uint32_t)
A64RUN_COMPARE(cmpes, uint32_t)
A64RUN_COMPARE(cmpd, uint64_t)
A64RUN_COMPARE(cmped, uint64_t)
#undef A64RUN_COMPARE

#define A64RUN_RINT(NAME, BITS, EXACT)                               \
  extern "C" BITS __wrap_helper_##NAME##_aarch64(BITS x, void* st) { \
    BITS r;                                                          \
    if (emu::rint_fast<BITS>(x, st, EXACT, &r)) return r;            \
    return __real_helper_##NAME##_aarch64(x, st);                    \
  }
A64RUN_RINT(rints, uint32_t, false)
A64RUN_RINT(rintd, uint64_t, false)
A64RUN_RINT(rints_exact, uint32_t, true)
A64RUN_RINT(rintd_exact, uint64_t, true)
#undef A64RUN_RINT

#else

namespace emu {
bool prepare_fp_fast() {
  return false;  // Unicorn linked as a shared library: nothing to wrap
}
bool fp_fast_fma() {
  return false;
}
bool fp_fast_conversions() {
  return false;
}
bool fp_fast_minmax_round() {
  return false;
}
bool fp_fast_compare() {
  return false;
}
const void* fp_mul_pair_helper(bool, bool, bool) {
  return nullptr;
}
}  // namespace emu

#endif  // A64RUN_WRAP_TRANSLATOR
