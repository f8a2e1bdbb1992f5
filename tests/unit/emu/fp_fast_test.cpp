// Tests the host-FPU fast path of the scalar FP helpers (emu/fp_fast.cpp) against softfloat, bit for bit: on
// a generated corpus (zeros, denormals, normals near every boundary, infinities, quiet and signalling NaNs,
// random values), for FADD, FSUB, FMUL, FDIV and FSQRT in single and double precision, in every rounding
// mode, with flush-to-zero (of outputs, inputs, both) and default-NaN on and off, from no flags, only
// inexact, and every flag: the result and the whole float_status afterwards (the cumulative FPSR flags) must
// be the original helper's. Then 4000 random operand pairs of moderate exponent (the fast path's case), and
// 4000 with a denormal operand and a result of any size, under the same statuses. The fused multiply-add
// (FMADD, and FMLA's elements) on triples: the corpus's products with special addends, random triples of
// moderate, denormal and any exponent, and addends that cancel the product to its rounding error (exact
// zeros, tiny and denormal results). The conversions: integers at every significand boundary and the
// integer types' ends, and floating-point values at the integer types' ends, halves and ties, under every
// status and with fixed-point shifts 0, 1 and 33.
#include "emu/fp_fast.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

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
uint32_t __wrap_helper_vfp_adds_aarch64(uint32_t a, uint32_t b, void* st);
uint64_t __wrap_helper_vfp_addd_aarch64(uint64_t a, uint64_t b, void* st);
uint32_t __wrap_helper_vfp_subs_aarch64(uint32_t a, uint32_t b, void* st);
uint64_t __wrap_helper_vfp_subd_aarch64(uint64_t a, uint64_t b, void* st);
uint32_t __wrap_helper_vfp_muls_aarch64(uint32_t a, uint32_t b, void* st);
uint64_t __wrap_helper_vfp_muld_aarch64(uint64_t a, uint64_t b, void* st);
uint32_t __wrap_helper_vfp_divs_aarch64(uint32_t a, uint32_t b, void* st);
uint64_t __wrap_helper_vfp_divd_aarch64(uint64_t a, uint64_t b, void* st);
uint32_t __wrap_helper_vfp_sqrts_aarch64(uint32_t a, void* env);
uint64_t __wrap_helper_vfp_sqrtd_aarch64(uint64_t a, void* env);
uint32_t __real_helper_vfp_muladds_aarch64(uint32_t a, uint32_t b, uint32_t c, void* st);
uint64_t __real_helper_vfp_muladdd_aarch64(uint64_t a, uint64_t b, uint64_t c, void* st);
uint32_t __wrap_helper_vfp_muladds_aarch64(uint32_t a, uint32_t b, uint32_t c, void* st);
uint64_t __wrap_helper_vfp_muladdd_aarch64(uint64_t a, uint64_t b, uint64_t c, void* st);
#define A64RUN_PAIR(NAME, BITS) BITS a64run_fp_mul_##NAME(BITS a, BITS b, BITS x, void* st, intptr_t delta);
A64RUN_PAIR(adds_xp, uint32_t)
A64RUN_PAIR(adds_px, uint32_t)
A64RUN_PAIR(subs_xp, uint32_t)
A64RUN_PAIR(subs_px, uint32_t)
A64RUN_PAIR(addd_xp, uint64_t)
A64RUN_PAIR(addd_px, uint64_t)
A64RUN_PAIR(subd_xp, uint64_t)
A64RUN_PAIR(subd_px, uint64_t)
#undef A64RUN_PAIR
#define A64RUN_CONV(NAME, RET, ARG)                                        \
  RET __real_helper_vfp_##NAME##_aarch64(ARG x, uint32_t shift, void* st); \
  RET __wrap_helper_vfp_##NAME##_aarch64(ARG x, uint32_t shift, void* st);
A64RUN_CONV(sqtod, uint64_t, uint64_t)
A64RUN_CONV(uqtod, uint64_t, uint64_t)
A64RUN_CONV(sqtos, uint32_t, uint64_t)
A64RUN_CONV(uqtos, uint32_t, uint64_t)
A64RUN_CONV(tosqd, uint64_t, uint64_t)
A64RUN_CONV(touqd, uint64_t, uint64_t)
A64RUN_CONV(tosld, uint32_t, uint64_t)
A64RUN_CONV(tould, uint32_t, uint64_t)
A64RUN_CONV(tosqs, uint64_t, uint32_t)
A64RUN_CONV(touqs, uint64_t, uint32_t)
A64RUN_CONV(tosls, uint32_t, uint32_t)
A64RUN_CONV(touls, uint32_t, uint32_t)
A64RUN_CONV(sltos, uint32_t, uint32_t)
A64RUN_CONV(ultos, uint32_t, uint32_t)
#undef A64RUN_CONV
uint32_t __real_helper_vfp_sitos_aarch64(uint32_t x, void* st);
uint32_t __wrap_helper_vfp_sitos_aarch64(uint32_t x, void* st);
uint32_t __real_helper_vfp_uitos_aarch64(uint32_t x, void* st);
uint32_t __wrap_helper_vfp_uitos_aarch64(uint32_t x, void* st);
#define A64RUN_BIN(NAME, BITS)                                       \
  BITS __real_helper_vfp_##NAME##_aarch64(BITS a, BITS b, void* st); \
  BITS __wrap_helper_vfp_##NAME##_aarch64(BITS a, BITS b, void* st);
A64RUN_BIN(maxs, uint32_t)
A64RUN_BIN(maxd, uint64_t)
A64RUN_BIN(mins, uint32_t)
A64RUN_BIN(mind, uint64_t)
A64RUN_BIN(maxnums, uint32_t)
A64RUN_BIN(maxnumd, uint64_t)
A64RUN_BIN(minnums, uint32_t)
A64RUN_BIN(minnumd, uint64_t)
#undef A64RUN_BIN
#define A64RUN_RINT(NAME, BITS)                          \
  BITS __real_helper_##NAME##_aarch64(BITS x, void* st); \
  BITS __wrap_helper_##NAME##_aarch64(BITS x, void* st);
A64RUN_RINT(rints, uint32_t)
A64RUN_RINT(rintd, uint64_t)
A64RUN_RINT(rints_exact, uint32_t)
A64RUN_RINT(rintd_exact, uint64_t)
#undef A64RUN_RINT
uint64_t __real_helper_vfp_cmps_a64_aarch64(uint32_t a, uint32_t b, void* st);
uint64_t __wrap_helper_vfp_cmps_a64_aarch64(uint32_t a, uint32_t b, void* st);
uint64_t __real_helper_vfp_cmpes_a64_aarch64(uint32_t a, uint32_t b, void* st);
uint64_t __wrap_helper_vfp_cmpes_a64_aarch64(uint32_t a, uint32_t b, void* st);
uint64_t __real_helper_vfp_cmpd_a64_aarch64(uint64_t a, uint64_t b, void* st);
uint64_t __wrap_helper_vfp_cmpd_a64_aarch64(uint64_t a, uint64_t b, void* st);
uint64_t __real_helper_vfp_cmped_a64_aarch64(uint64_t a, uint64_t b, void* st);
uint64_t __wrap_helper_vfp_cmped_a64_aarch64(uint64_t a, uint64_t b, void* st);
uint64_t __real_helper_vfp_fcvtds_aarch64(uint32_t x, void* env);
uint64_t __wrap_helper_vfp_fcvtds_aarch64(uint32_t x, void* env);
uint32_t __real_helper_vfp_fcvtsd_aarch64(uint64_t x, void* env);
uint32_t __wrap_helper_vfp_fcvtsd_aarch64(uint64_t x, void* env);
}

namespace emu {
namespace {

// float_status (include/fpu/softfloat-types.h) as Arm's CPU state holds it.
struct Status {
  int8_t detect_tininess = 1;  // float_tininess_before_rounding, Arm's
  int8_t rounding_mode = 0;
  uint8_t exception_flags = 0;
  int8_t floatx80_precision = 0;
  uint8_t flush_to_zero = 0;
  uint8_t flush_inputs_to_zero = 0;
  uint8_t default_nan_mode = 0;
  uint8_t snan_bit_is_one = 0;
};
static_assert(sizeof(Status) == 8, "float_status is eight bytes");

constexpr intptr_t kEnvFpStatus = 0x2ec8;  // the square-root helpers take the CPU state
constexpr int kRoundingModes = 6;          // nearest even, down, up, to zero, ties away, to odd
constexpr uint8_t kInexact = 0x20;
constexpr uint8_t kAllFlags = 0xff;

// Values of one format: every class and the values next to each boundary the fast path tests, both signs,
// then random bit patterns.
template <typename Bits, typename Float>
std::vector<Bits> corpus(int fraction_bits) {
  const Bits exp_one = Bits{1} << fraction_bits;
  const Bits quiet = Bits{1} << (fraction_bits - 1);
  const Bits inf = (~Bits{0} >> 1) & ~(exp_one - 1);
  std::vector<Bits> v;
  const auto bits = [](Float f) {
    Bits b;
    std::memcpy(&b, &f, sizeof b);
    return b;
  };
  const Float tiny_root = std::sqrt(std::numeric_limits<Float>::min());
  const Float values[] = {1,
                          1.5,
                          3,
                          0.1f,
                          1 / Float{3},
                          static_cast<Float>(3.141592653589793),
                          std::numeric_limits<Float>::min(),
                          std::numeric_limits<Float>::min() * 2,
                          std::numeric_limits<Float>::min() * Float{1.5},
                          std::numeric_limits<Float>::max(),
                          std::numeric_limits<Float>::max() / 2,
                          std::sqrt(std::numeric_limits<Float>::max()),
                          tiny_root,
                          tiny_root * Float{0.75},
                          tiny_root * Float{1.25},
                          std::numeric_limits<Float>::epsilon(),
                          1 + std::numeric_limits<Float>::epsilon()};
  for (Float f : values) {
    const Bits b = bits(f);
    for (Bits d : {Bits{0}, Bits{1}, Bits{2}, static_cast<Bits>(-1), static_cast<Bits>(-2)})
      v.push_back(b + d);
  }
  for (Bits b : {Bits{0}, Bits{1}, Bits{2}, exp_one - 1, exp_one / 2, exp_one, exp_one + 1, inf, inf - 1,
                 inf | quiet, inf | quiet | 5, inf | 1, inf | (quiet - 1)})
    v.push_back(b);
  std::mt19937_64 rng(42);
  for (int i = 0; i < 40; ++i) v.push_back(static_cast<Bits>(rng()));
  const size_t n = v.size();
  const Bits sign = ~(~Bits{0} >> 1);
  for (size_t i = 0; i < n; ++i) v.push_back(v[i] ^ sign);
  return v;
}

template <typename Bits>
using Binary = Bits (*)(Bits, Bits, void*);
template <typename Bits>
using Unary = Bits (*)(Bits, void*);

std::vector<Status> statuses() {
  std::vector<Status> all;
  for (int mode = 0; mode < kRoundingModes; ++mode) {
    for (int fz = 0; fz < 4; ++fz) {  // FPCR.FZ sets both flush flags; each alone too, for the test's sake
      for (int dn = 0; dn < 2; ++dn) {
        for (uint8_t flags : {uint8_t{0}, kInexact, kAllFlags}) {
          Status s;
          s.rounding_mode = static_cast<int8_t>(mode);
          s.flush_to_zero = static_cast<uint8_t>(fz & 1);
          s.flush_inputs_to_zero = static_cast<uint8_t>(fz >> 1);
          s.default_nan_mode = static_cast<uint8_t>(dn);
          s.exception_flags = flags;
          all.push_back(s);
        }
      }
    }
  }
  return all;
}

std::string describe(const Status& s) {
  return "mode " + std::to_string(s.rounding_mode) + " fz " + std::to_string(s.flush_to_zero) + " fiz " +
         std::to_string(s.flush_inputs_to_zero) + " dn " + std::to_string(s.default_nan_mode) + " flags " +
         std::to_string(s.exception_flags);
}

// Every pair of the corpus under every status: the same result and the same status after.
template <typename Bits>
int compare_binary(const char* name, Binary<Bits> fast, Binary<Bits> real, const std::vector<Bits>& values) {
  int failures = 0;
  for (const Status& start : statuses()) {
    for (Bits a : values) {
      for (Bits b : values) {
        Status sf = start;
        Status sr = start;
        const Bits rf = fast(a, b, &sf);
        const Bits rr = real(a, b, &sr);
        if (rf == rr && std::memcmp(&sf, &sr, sizeof sf) == 0) continue;
        if (++failures <= 10)
          ADD_FAILURE() << name << "(" << std::hex << a << ", " << b << ") under " << describe(start)
                        << ": fast " << rf << " flags " << int{sf.exception_flags} << ", softfloat " << rr
                        << " flags " << int{sr.exception_flags};
      }
    }
  }
  return failures;
}

// A helper that takes the CPU state (FSQRT, FCVT), from `Arg` to `Ret` bits: every value under every
// status, the same result and the same status after.
template <typename Ret, typename Arg = Ret>
int compare_unary(const char* name, Ret (*fast)(Arg, void*), Ret (*real)(Arg, void*),
                  const std::vector<Arg>& values) {
  int failures = 0;
  std::vector<char> env_fast(kEnvFpStatus + sizeof(Status));
  std::vector<char> env_real(kEnvFpStatus + sizeof(Status));
  for (const Status& start : statuses()) {
    for (Arg a : values) {
      std::memcpy(env_fast.data() + kEnvFpStatus, &start, sizeof start);
      std::memcpy(env_real.data() + kEnvFpStatus, &start, sizeof start);
      const Ret rf = fast(a, env_fast.data());
      const Ret rr = real(a, env_real.data());
      if (rf == rr &&
          std::memcmp(env_fast.data() + kEnvFpStatus, env_real.data() + kEnvFpStatus, sizeof(Status)) == 0)
        continue;
      if (++failures <= 10)
        ADD_FAILURE() << name << "(" << std::hex << a << ") under " << describe(start) << ": fast " << rf
                      << ", softfloat " << rr;
    }
  }
  return failures;
}

// Random operands with exponents near one another and near 1 (so that sums, products, quotients and roots
// are mostly normal and inexact: the fast path's own case), mixed with the corpus's special values; every
// pair under every status, all five operations.
// With `denormal`, the first operand is a denormal (a random fraction) and the second has any exponent, so
// products and quotients land anywhere from zero to overflow and sums are normal or denormal: the plain
// path's case of FPCR.FZ clear, a denormal operand and a normal result, and its boundaries.
template <typename Bits, typename Float>
int compare_random(int fraction_bits, Binary<Bits> const (&fast)[4], Binary<Bits> const (&real)[4],
                   Unary<Bits> fast_sqrt, Unary<Bits> real_sqrt, bool denormal) {
  constexpr int kPairs = 4000;
  const Bits bias = (Bits{1} << (sizeof(Bits) * 8 - fraction_bits - 2)) - 1;
  const Bits exp_max = 2 * bias + 1;
  const Bits fraction_mask = (Bits{1} << fraction_bits) - 1;
  const std::vector<Bits> special = corpus<Bits, Float>(fraction_bits);
  std::mt19937_64 rng(denormal ? 11 : 7);
  const auto sign = [](uint64_t r) { return static_cast<Bits>((r & 1) << (sizeof(Bits) * 8 - 1)); };
  const auto draw = [&]() -> Bits {
    const uint64_t r = rng();
    if (r % 8 == 0) return special[(r >> 8) % special.size()];
    const Bits exp = bias + static_cast<Bits>(static_cast<int>((r >> 3) % 61) - 30);
    const Bits frac = static_cast<Bits>(rng()) & fraction_mask;
    return sign(r >> 2) | (exp << fraction_bits) | frac;
  };
  const auto draw_denormal = [&]() -> Bits {
    const uint64_t r = rng();
    return sign(r) | ((static_cast<Bits>(rng()) & fraction_mask) >> ((r >> 1) % fraction_bits));
  };
  const auto draw_any = [&]() -> Bits {
    const uint64_t r = rng();
    const Bits exp = static_cast<Bits>((r >> 1) % exp_max);
    return sign(r) | (exp << fraction_bits) | (static_cast<Bits>(rng()) & fraction_mask);
  };
  std::vector<Bits> a(kPairs);
  std::vector<Bits> b(kPairs);
  for (int i = 0; i < kPairs; ++i) {
    a[i] = denormal ? draw_denormal() : draw();
    b[i] = denormal ? draw_any() : draw();
  }
  int failures = 0;
  std::vector<char> env_fast(kEnvFpStatus + sizeof(Status));
  std::vector<char> env_real(kEnvFpStatus + sizeof(Status));
  for (const Status& start : statuses()) {
    for (int i = 0; i < kPairs; ++i) {
      for (int op = 0; op < 4; ++op) {
        Status sf = start;
        Status sr = start;
        const Bits rf = fast[op](a[i], b[i], &sf);
        const Bits rr = real[op](a[i], b[i], &sr);
        if (rf == rr && std::memcmp(&sf, &sr, sizeof sf) == 0) continue;
        if (++failures <= 10)
          ADD_FAILURE() << "op " << op << "(" << std::hex << a[i] << ", " << b[i] << ") under "
                        << describe(start) << ": fast " << rf << ", softfloat " << rr;
      }
      std::memcpy(env_fast.data() + kEnvFpStatus, &start, sizeof start);
      std::memcpy(env_real.data() + kEnvFpStatus, &start, sizeof start);
      const Bits rf = fast_sqrt(a[i], env_fast.data());
      const Bits rr = real_sqrt(a[i], env_real.data());
      if (rf == rr &&
          std::memcmp(env_fast.data() + kEnvFpStatus, env_real.data() + kEnvFpStatus, sizeof(Status)) == 0)
        continue;
      if (++failures <= 10)
        ADD_FAILURE() << "sqrt(" << std::hex << a[i] << ") under " << describe(start) << ": fast " << rf
                      << ", softfloat " << rr;
    }
  }
  return failures;
}

template <typename Bits>
using Ternary = Bits (*)(Bits, Bits, Bits, void*);

template <typename Bits>
struct Triple {
  Bits a, b, c;
};

// Each triple under each status: the same result and the same status after.
template <typename Bits>
int compare_ternary(const char* name, Ternary<Bits> fast, Ternary<Bits> real,
                    const std::vector<Triple<Bits>>& triples, const std::vector<Status>& all) {
  int failures = 0;
  for (const Status& start : all) {
    for (const Triple<Bits>& t : triples) {
      Status sf = start;
      Status sr = start;
      const Bits rf = fast(t.a, t.b, t.c, &sf);
      const Bits rr = real(t.a, t.b, t.c, &sr);
      if (rf == rr && std::memcmp(&sf, &sr, sizeof sf) == 0) continue;
      if (++failures <= 10)
        ADD_FAILURE() << name << "(" << std::hex << t.a << ", " << t.b << ", " << t.c << ") under "
                      << describe(start) << ": fast " << rf << " flags " << int{sf.exception_flags}
                      << ", softfloat " << rr << " flags " << int{sr.exception_flags};
    }
  }
  return failures;
}

// The cases of the operations on triples (the fused multiply-add, FMUL then FADD). Every product of two
// corpus values with addends of each class, under the statuses of round-to-nearest and round-to-zero (the
// rest of the grid as statuses() has it); then, under every status, random triples: moderate exponents (the
// plain path), one denormal operand, any exponents, and addends that cancel the product: c = -(a * b)
// rounded, plus or minus an ulp or two, so that the exact result is the product's rounding error (zero, tiny,
// denormal or normal, by the operands' size).
template <typename Bits>
struct TripleCases {
  std::vector<Triple<Bits>> products;  // under nearest_or_zero
  std::vector<Triple<Bits>> random;    // under every status
  std::vector<Status> nearest_or_zero;
};

template <typename Bits, typename Float>
TripleCases<Bits> triple_cases(int fraction_bits) {
  TripleCases<Bits> cases;
  const std::vector<Bits> special = corpus<Bits, Float>(fraction_bits);
  const Bits exp_one = Bits{1} << fraction_bits;
  const Bits inf = (~Bits{0} >> 1) & ~(exp_one - 1);
  const Bits sign = ~(~Bits{0} >> 1);
  std::vector<Triple<Bits>>& products = cases.products;
  for (Bits a : special) {
    for (Bits b : special) {
      for (Bits c : {Bits{0}, sign, exp_one, static_cast<Bits>(exp_one | sign), Bits{3}, inf,
                     static_cast<Bits>(inf | (exp_one >> 1)), static_cast<Bits>(inf | 1)})
        products.push_back({a, b, c});
    }
  }
  std::vector<Status>& nearest_or_zero = cases.nearest_or_zero;
  for (const Status& s : statuses()) {
    if (s.rounding_mode == 0 || s.rounding_mode == 3) nearest_or_zero.push_back(s);
  }

  constexpr int kTriples = 2000;
  const Bits bias = (Bits{1} << (sizeof(Bits) * 8 - fraction_bits - 2)) - 1;
  const Bits exp_max = 2 * bias + 1;
  const Bits fraction_mask = exp_one - 1;
  std::mt19937_64 rng(13);
  const auto sign_of = [&](uint64_t r) { return static_cast<Bits>((r & 1) << (sizeof(Bits) * 8 - 1)); };
  const auto moderate = [&]() -> Bits {
    const uint64_t r = rng();
    if (r % 8 == 0) return special[(r >> 8) % special.size()];
    const Bits exp = bias + static_cast<Bits>(static_cast<int>((r >> 3) % 61) - 30);
    return sign_of(r >> 2) | (exp << fraction_bits) | (static_cast<Bits>(rng()) & fraction_mask);
  };
  const auto denormal = [&]() -> Bits {
    const uint64_t r = rng();
    return sign_of(r) | ((static_cast<Bits>(rng()) & fraction_mask) >> ((r >> 1) % fraction_bits));
  };
  const auto any = [&]() -> Bits {
    const uint64_t r = rng();
    const Bits exp = static_cast<Bits>((r >> 1) % exp_max);
    return sign_of(r) | (exp << fraction_bits) | (static_cast<Bits>(rng()) & fraction_mask);
  };
  std::vector<Triple<Bits>>& triples = cases.random;
  for (int i = 0; i < kTriples; ++i) {
    triples.push_back({moderate(), moderate(), moderate()});
    triples.push_back({denormal(), any(), any()});
    triples.push_back({any(), any(), denormal()});
    triples.push_back({any(), any(), any()});
    // Cancellation: operands of any size (their product may be tiny) or moderate, the addend the product's
    // negation rounded (computed on the host, round-to-nearest), then moved by -2..2 ulps.
    const Bits a = i % 2 ? any() : moderate();
    const Bits b = i % 2 ? any() : moderate();
    Float fa;
    Float fb;
    std::memcpy(&fa, &a, sizeof fa);
    std::memcpy(&fb, &b, sizeof fb);
    const Float product = fa * fb;
    Bits c;
    std::memcpy(&c, &product, sizeof c);
    c = static_cast<Bits>((c ^ sign) + static_cast<Bits>(static_cast<int>(rng() % 5) - 2));
    triples.push_back({a, b, c});
  }
  return cases;
}

template <typename Bits, typename Float>
void check_muladd(int fraction_bits, Ternary<Bits> fast, Ternary<Bits> real) {
  const TripleCases<Bits> cases = triple_cases<Bits, Float>(fraction_bits);
  EXPECT_EQ(compare_ternary<Bits>("fmadd, products", fast, real, cases.products, cases.nearest_or_zero), 0);
  EXPECT_EQ(compare_ternary<Bits>("fmadd, random", fast, real, cases.random, statuses()), 0);
}

// emu/fp_fast.cpp's FMUL-and-FADD helper: (a, b, x, float_status, slot - float_status).
template <typename Bits>
using Pair = Bits (*)(Bits, Bits, Bits, void*, intptr_t);

// The pair helper against FMUL then the operation in softfloat, each triple (a, b, x) under each status: the
// same result, the same status after, and the product in the slot (a single zero-extended).
template <typename Bits>
int compare_pair(const char* name, Pair<Bits> fast, Binary<Bits> mul, Binary<Bits> op, bool product_first,
                 const std::vector<Triple<Bits>>& triples, const std::vector<Status>& all) {
  struct State {
    uint64_t slot;
    Status status;
  };
  const intptr_t delta = -static_cast<intptr_t>(offsetof(State, status));
  int failures = 0;
  for (const Status& start : all) {
    for (const Triple<Bits>& t : triples) {
      State sf{~uint64_t{0}, start};
      Status sr = start;
      const Bits rf = fast(t.a, t.b, t.c, &sf.status, delta);
      const Bits p = mul(t.a, t.b, &sr);
      const Bits rr = product_first ? op(p, t.c, &sr) : op(t.c, p, &sr);
      if (rf == rr && sf.slot == p && std::memcmp(&sf.status, &sr, sizeof sr) == 0) continue;
      if (++failures <= 10)
        ADD_FAILURE() << name << "(" << std::hex << t.a << ", " << t.b << ", " << t.c << ") under "
                      << describe(start) << ": fast " << rf << " slot " << sf.slot << " flags "
                      << int{sf.status.exception_flags} << ", softfloat " << rr << " product " << p
                      << " flags " << int{sr.exception_flags};
    }
  }
  return failures;
}

// The triple cases for the pair helpers, fewer than the fused multiply-add's (eight helpers, and the
// operations themselves are tested above): every third product under round-to-nearest, and the random
// triples under round-to-nearest and round-down, with every FZ, DN and flags combination.
template <typename Bits, typename Float>
void check_pairs(int fraction_bits, const Pair<Bits> (&fast)[2][2], Binary<Bits> mul,
                 const Binary<Bits> (&op)[2]) {
  const TripleCases<Bits> cases = triple_cases<Bits, Float>(fraction_bits);
  std::vector<Triple<Bits>> products;
  for (size_t i = 0; i < cases.products.size(); i += 3) products.push_back(cases.products[i]);
  std::vector<Status> nearest;
  std::vector<Status> nearest_or_down;
  for (const Status& s : statuses()) {
    if (s.rounding_mode == 0) nearest.push_back(s);
    if (s.rounding_mode <= 1) nearest_or_down.push_back(s);
  }
  static const char* const kNames[2][2] = {{"x + a*b", "a*b + x"}, {"x - a*b", "a*b - x"}};
  for (int sub = 0; sub < 2; ++sub) {
    for (int first = 0; first < 2; ++first) {
      // The helper emu/fp_pairs.cpp takes for this form is the one tested here.
      EXPECT_EQ(fp_mul_pair_helper(sizeof(Bits) == 4, sub != 0, first != 0),
                reinterpret_cast<const void*>(fast[sub][first]));
      EXPECT_EQ(compare_pair<Bits>(kNames[sub][first], fast[sub][first], mul, op[sub], first != 0, products,
                                   nearest),
                0);
      EXPECT_EQ(compare_pair<Bits>(kNames[sub][first], fast[sub][first], mul, op[sub], first != 0,
                                   cases.random, nearest_or_down),
                0);
    }
  }
}

TEST(FpFastTest, ThisBuildTakesTheFastPath) {
  // The project's pinned Unicorn and an x86-64 host with the ABI's MXCSR: the comparisons below then test
  // the fast path, not softfloat against itself.
  EXPECT_TRUE(prepare_fp_fast());
}

TEST(FpFastTest, SinglePrecisionMatchesSoftfloat) {
  ASSERT_TRUE(prepare_fp_fast());
  const std::vector<uint32_t> v = corpus<uint32_t, float>(23);
  EXPECT_EQ(
      compare_binary<uint32_t>("fadd s", __wrap_helper_vfp_adds_aarch64, __real_helper_vfp_adds_aarch64, v),
      0);
  EXPECT_EQ(
      compare_binary<uint32_t>("fsub s", __wrap_helper_vfp_subs_aarch64, __real_helper_vfp_subs_aarch64, v),
      0);
  EXPECT_EQ(
      compare_binary<uint32_t>("fmul s", __wrap_helper_vfp_muls_aarch64, __real_helper_vfp_muls_aarch64, v),
      0);
  EXPECT_EQ(
      compare_binary<uint32_t>("fdiv s", __wrap_helper_vfp_divs_aarch64, __real_helper_vfp_divs_aarch64, v),
      0);
  EXPECT_EQ(
      compare_unary<uint32_t>("fsqrt s", __wrap_helper_vfp_sqrts_aarch64, __real_helper_vfp_sqrts_aarch64, v),
      0);
}

TEST(FpFastTest, DoublePrecisionMatchesSoftfloat) {
  ASSERT_TRUE(prepare_fp_fast());
  const std::vector<uint64_t> v = corpus<uint64_t, double>(52);
  EXPECT_EQ(
      compare_binary<uint64_t>("fadd d", __wrap_helper_vfp_addd_aarch64, __real_helper_vfp_addd_aarch64, v),
      0);
  EXPECT_EQ(
      compare_binary<uint64_t>("fsub d", __wrap_helper_vfp_subd_aarch64, __real_helper_vfp_subd_aarch64, v),
      0);
  EXPECT_EQ(
      compare_binary<uint64_t>("fmul d", __wrap_helper_vfp_muld_aarch64, __real_helper_vfp_muld_aarch64, v),
      0);
  EXPECT_EQ(
      compare_binary<uint64_t>("fdiv d", __wrap_helper_vfp_divd_aarch64, __real_helper_vfp_divd_aarch64, v),
      0);
  EXPECT_EQ(
      compare_unary<uint64_t>("fsqrt d", __wrap_helper_vfp_sqrtd_aarch64, __real_helper_vfp_sqrtd_aarch64, v),
      0);
}

TEST(FpFastTest, RandomOperandsMatchSoftfloat) {
  ASSERT_TRUE(prepare_fp_fast());
  const Binary<uint32_t> fast_s[4] = {__wrap_helper_vfp_adds_aarch64, __wrap_helper_vfp_subs_aarch64,
                                      __wrap_helper_vfp_muls_aarch64, __wrap_helper_vfp_divs_aarch64};
  const Binary<uint32_t> real_s[4] = {__real_helper_vfp_adds_aarch64, __real_helper_vfp_subs_aarch64,
                                      __real_helper_vfp_muls_aarch64, __real_helper_vfp_divs_aarch64};
  EXPECT_EQ((compare_random<uint32_t, float>(23, fast_s, real_s, __wrap_helper_vfp_sqrts_aarch64,
                                             __real_helper_vfp_sqrts_aarch64, false)),
            0);
  const Binary<uint64_t> fast_d[4] = {__wrap_helper_vfp_addd_aarch64, __wrap_helper_vfp_subd_aarch64,
                                      __wrap_helper_vfp_muld_aarch64, __wrap_helper_vfp_divd_aarch64};
  const Binary<uint64_t> real_d[4] = {__real_helper_vfp_addd_aarch64, __real_helper_vfp_subd_aarch64,
                                      __real_helper_vfp_muld_aarch64, __real_helper_vfp_divd_aarch64};
  EXPECT_EQ((compare_random<uint64_t, double>(52, fast_d, real_d, __wrap_helper_vfp_sqrtd_aarch64,
                                              __real_helper_vfp_sqrtd_aarch64, false)),
            0);
}

TEST(FpFastTest, DenormalOperandsMatchSoftfloat) {
  ASSERT_TRUE(prepare_fp_fast());
  const Binary<uint32_t> fast_s[4] = {__wrap_helper_vfp_adds_aarch64, __wrap_helper_vfp_subs_aarch64,
                                      __wrap_helper_vfp_muls_aarch64, __wrap_helper_vfp_divs_aarch64};
  const Binary<uint32_t> real_s[4] = {__real_helper_vfp_adds_aarch64, __real_helper_vfp_subs_aarch64,
                                      __real_helper_vfp_muls_aarch64, __real_helper_vfp_divs_aarch64};
  EXPECT_EQ((compare_random<uint32_t, float>(23, fast_s, real_s, __wrap_helper_vfp_sqrts_aarch64,
                                             __real_helper_vfp_sqrts_aarch64, true)),
            0);
  const Binary<uint64_t> fast_d[4] = {__wrap_helper_vfp_addd_aarch64, __wrap_helper_vfp_subd_aarch64,
                                      __wrap_helper_vfp_muld_aarch64, __wrap_helper_vfp_divd_aarch64};
  const Binary<uint64_t> real_d[4] = {__real_helper_vfp_addd_aarch64, __real_helper_vfp_subd_aarch64,
                                      __real_helper_vfp_muld_aarch64, __real_helper_vfp_divd_aarch64};
  EXPECT_EQ((compare_random<uint64_t, double>(52, fast_d, real_d, __wrap_helper_vfp_sqrtd_aarch64,
                                              __real_helper_vfp_sqrtd_aarch64, true)),
            0);
}

TEST(FpFastTest, FusedMultiplyAddMatchesSoftfloat) {
  ASSERT_TRUE(prepare_fp_fast());
  // Without FMA3 the fused multiply-add keeps softfloat, and this would compare softfloat with itself.
  if (!__builtin_cpu_supports("fma")) GTEST_SKIP() << "the host has no FMA3";
  EXPECT_TRUE(fp_fast_fma());
  check_muladd<uint32_t, float>(23, __wrap_helper_vfp_muladds_aarch64, __real_helper_vfp_muladds_aarch64);
  check_muladd<uint64_t, double>(52, __wrap_helper_vfp_muladdd_aarch64, __real_helper_vfp_muladdd_aarch64);
}

TEST(FpFastTest, MultiplyThenAddPairsMatchSoftfloat) {
  ASSERT_TRUE(prepare_fp_fast());
  const Pair<uint32_t> single[2][2] = {{a64run_fp_mul_adds_xp, a64run_fp_mul_adds_px},
                                       {a64run_fp_mul_subs_xp, a64run_fp_mul_subs_px}};
  check_pairs<uint32_t, float>(23, single, __real_helper_vfp_muls_aarch64,
                               {__real_helper_vfp_adds_aarch64, __real_helper_vfp_subs_aarch64});
  const Pair<uint64_t> dbl[2][2] = {{a64run_fp_mul_addd_xp, a64run_fp_mul_addd_px},
                                    {a64run_fp_mul_subd_xp, a64run_fp_mul_subd_px}};
  check_pairs<uint64_t, double>(52, dbl, __real_helper_vfp_muld_aarch64,
                                {__real_helper_vfp_addd_aarch64, __real_helper_vfp_subd_aarch64});
}

}  // namespace
}  // namespace emu

#endif  // A64RUN_WRAP_TRANSLATOR
