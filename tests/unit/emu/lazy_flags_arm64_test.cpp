// Tests for the A64 side of lazy condition flags: which encodings may be left lazy, and that the NZCV
// recomputed from a record is the Arm pseudocode's (AddWithCarry, and the logical instructions' N and Z).
#include "emu/lazy_flags_arm64.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace emu {
namespace {

// AddWithCarry(x, y, carry_in) on `bits`-bit operands (shared/functions/integer/AddWithCarry), as NZCV.
uint32_t add_with_carry(uint64_t x, uint64_t y, unsigned carry, int bits) {
  const unsigned __int128 mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  x &= static_cast<uint64_t>(mask), y &= static_cast<uint64_t>(mask);
  const auto sint = [bits](uint64_t v) -> __int128 {
    return bits == 64 ? static_cast<__int128>(static_cast<int64_t>(v))
                      : static_cast<__int128>(static_cast<int32_t>(static_cast<uint32_t>(v)));
  };
  const unsigned __int128 unsigned_sum = static_cast<unsigned __int128>(x) + y + carry;
  const __int128 signed_sum = sint(x) + sint(y) + carry;
  const auto result = static_cast<uint64_t>(unsigned_sum & mask);
  const uint32_t n = static_cast<uint32_t>(result >> (bits - 1)) & 1;
  const uint32_t z = result == 0;
  const uint32_t c = static_cast<unsigned __int128>(result) != unsigned_sum;
  const uint32_t v = sint(result) != signed_sum;
  return n << 31 | z << 30 | c << 29 | v << 28;
}

std::vector<uint64_t> corpus() {
  std::vector<uint64_t> v = {0,
                             1,
                             2,
                             0x7fffffff,
                             0x80000000,
                             0x80000001,
                             0xffffffff,
                             0x100000000,
                             0x17fffffff,
                             0x7fffffffffffffff,
                             0x8000000000000000,
                             0x8000000000000001,
                             0xfffffffffffffffe,
                             0xffffffffffffffff};
  uint64_t s = 0x9e3779b97f4a7c15;
  for (int i = 0; i < 40; ++i) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    v.push_back(s);
    v.push_back(s >> (i % 64));
  }
  return v;
}

TEST(LazyFlagsArm64Test, RecomputedNzcvIsAddWithCarrys) {
  const std::vector<uint64_t> values = corpus();
  for (uint64_t a : values) {
    for (uint64_t b : values) {
      EXPECT_EQ(lazy_nzcv(kLazySub64, a, b), add_with_carry(a, ~b, 1, 64)) << std::hex << a << " - " << b;
      EXPECT_EQ(lazy_nzcv(kLazySub32, a, b), add_with_carry(a, ~b, 1, 32)) << std::hex << a << " - " << b;
      EXPECT_EQ(lazy_nzcv(kLazyAdd64, a, b), add_with_carry(a, b, 0, 64)) << std::hex << a << " + " << b;
      EXPECT_EQ(lazy_nzcv(kLazyAdd32, a, b), add_with_carry(a, b, 0, 32)) << std::hex << a << " + " << b;
    }
    // ANDS, BICS, TST: N and Z of the result; C and V clear.
    const uint32_t n64 = static_cast<uint32_t>(a >> 63), z64 = a == 0;
    const uint32_t n32 = static_cast<uint32_t>(a >> 31) & 1, z32 = static_cast<uint32_t>(a) == 0;
    EXPECT_EQ(lazy_nzcv(kLazyLogic64, a, 0x1234), n64 << 31 | z64 << 30) << std::hex << a;
    EXPECT_EQ(lazy_nzcv(kLazyLogic32, a, 0x1234), n32 << 31 | z32 << 30) << std::hex << a;
  }
}

TEST(LazyFlagsArm64Test, KindsAreTheFlagSettersWithoutFlagInputs) {
  // Encodings from the cross assembler (aarch64-linux-gnu-as).
  const struct {
    uint32_t insn;
    LazyKind kind;
    const char* text;
  } kCases[] = {
      {0xeb01001f, kLazySub64, "cmp x0, x1"},
      {0x7100141f, kLazySub32, "cmp w0, #5"},
      {0xeb051c83, kLazySub64, "subs x3, x4, x5, lsl #7"},
      {0x6b250883, kLazySub32, "subs w3, w4, w5, uxtb #2"},
      {0xeb0103e0, kLazySub64, "negs x0, x1"},
      {0xb17ffc1f, kLazyAdd64, "cmn x0, #0xfff, lsl #12"},
      {0x2b830c41, kLazyAdd32, "adds w1, w2, w3, asr #3"},
      {0xab23c3e1, kLazyAdd64, "adds x1, sp, w3, sxtw"},
      {0xf2781c1f, kLazyLogic64, "tst x0, #0xff00"},
      {0x72000841, kLazyLogic32, "ands w1, w2, #7"},
      {0xeae31041, kLazyLogic64, "bics x1, x2, x3, ror #4"},
      {0x6a01001f, kLazyLogic32, "tst w0, w1"},
      // Not flag setters, or setters that read the flags or are not recomputed from a record.
      {0x8b020020, kLazyNone, "add x0, x1, x2"},
      {0x51000420, kLazyNone, "sub w0, w1, #1"},
      {0x8a020020, kLazyNone, "and x0, x1, x2"},
      {0xb2400020, kLazyNone, "orr x0, x1, #1"},
      {0xba020020, kLazyNone, "adcs x0, x1, x2"},
      {0x7a020020, kLazyNone, "sbcs w0, w1, w2"},
      {0xfa410000, kLazyNone, "ccmp x0, x1, #0, eq"},
      {0x1e612000, kLazyNone, "fcmp d0, d1"},
  };
  for (const auto& c : kCases) EXPECT_EQ(lazy_kind(c.insn), c.kind) << c.text;
}

}  // namespace
}  // namespace emu
