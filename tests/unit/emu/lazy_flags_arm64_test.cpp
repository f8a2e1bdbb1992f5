// Tests for the A64 side of lazy condition flags: which encodings may be left lazy, and that the NZCV
// recomputed from a record is the Arm pseudocode's (AddWithCarry, and the logical instructions' N and Z).
#include "emu/lazy_flags_arm64.h"

#include <capstone/capstone.h>
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
      {0xfa410000, kLazyNone, "ccmp x0, x1, #0, eq (conditional_compare_kind's)"},
      {0x1e612000, kLazyNone, "fcmp d0, d1"},
  };
  for (const auto& c : kCases) EXPECT_EQ(lazy_kind(c.insn), c.kind) << c.text;
}

TEST(LazyFlagsArm64Test, ConditionalComparesGiveTheirCompareAndImmediate) {
  // Encodings from the cross assembler (aarch64-linux-gnu-as).
  const struct {
    uint32_t insn;
    LazyKind kind;
    uint32_t nzcv;
    const char* text;
  } kCases[] = {
      {0xfa410000, kLazySub64, 0x0, "ccmp x0, x1, #0, eq"},
      {0x7a5f186f, kLazySub32, 0xf, "ccmp w3, #31, #15, ne"},
      {0xba4680a9, kLazyAdd64, 0x9, "ccmn x5, x6, #9, hi"},
      {0x3a40d8e2, kLazyAdd32, 0x2, "ccmn w7, #0, #2, le"},
      {0xfa43b048, kLazySub64, 0x8, "ccmp x2, x3, #8, lt"},
      // AL and NV (the compare always), and what is not a conditional compare.
      {0xfa41e004, kLazyNone, 0, "ccmp x0, x1, #4, al"},
      {0xfa41f004, kLazyNone, 0, "ccmp x0, x1, #4, nv"},
      {0x1e610400, kLazyNone, 0, "fccmp d0, d1, #0, eq"},
      {0x9a820020, kLazyNone, 0, "csel x0, x1, x2, eq"},
      {0xba020020, kLazyNone, 0, "adcs x0, x1, x2"},
      {0xeb01001f, kLazyNone, 0, "cmp x0, x1"},
      {0xfa410010, kLazyNone, 0, "ccmp x0, x1, #0, eq with o3 set (unallocated)"},
      {0xfa410400, kLazyNone, 0, "ccmp x0, x1, #0, eq with o2 set (unallocated)"},
  };
  for (const auto& c : kCases) {
    uint32_t nzcv = 0xdead;
    EXPECT_EQ(conditional_compare_kind(c.insn, &nzcv), c.kind) << c.text;
    if (c.kind != kLazyNone) {
      EXPECT_EQ(nzcv, c.nzcv) << c.text;
    }
  }
  // A compare whose condition failed: the record's kind is its immediate's fixed kind, whatever a and b.
  for (uint32_t nzcv = 0; nzcv < 16; ++nzcv) {
    EXPECT_EQ(lazy_nzcv(static_cast<LazyKind>(kLazyFixed + nzcv), 5, 5), nzcv << 28);
    EXPECT_EQ(lazy_nzcv(static_cast<LazyKind>(kLazyFixed + nzcv), ~0ull, 1), nzcv << 28);
  }
  EXPECT_EQ(kLazyFixed + 16, kLazyKinds);
}

// may_touch_nzcv against the Arm ARM: each kind of flag reader and writer, and the common instructions that
// are neither (so that the answer is not simply always true).
TEST(LazyFlagsArm64Test, FlagReadersAndWritersMayTouchNzcv) {
  static const struct {
    uint32_t insn;
    bool touches;
    const char* text;
  } kCases[] = {
      {0x54000040, true, "b.eq"},
      {0x54000051, true, "bc.ne"},
      {0x9a821020, true, "csel x0, x1, x2, ne"},
      {0x1a9f17e0, true, "cset w0, eq"},
      {0x9a020020, true, "adc x0, x1, x2"},
      {0x5a020020, true, "sbc w0, w1, w2"},
      {0xfa410000, true, "ccmp x0, x1, #0, eq"},
      {0x3a410800, true, "ccmn w0, #1, #0, eq"},
      {0x3a00080d, true, "setf8 w0"},
      {0xba0084a1, true, "rmif x5, #1, #1"},
      {0xd500401f, true, "cfinv"},
      {0xd500403f, true, "xaflag"},
      {0xd500405f, true, "axflag"},
      {0xd53b4200, true, "mrs x0, nzcv"},
      {0xd51b4200, true, "msr nzcv, x0"},
      {0xf1000c1f, true, "cmp x0, #3"},
      {0x2b020020, true, "adds w0, w1, w2"},
      {0xab22c020, true, "adds x0, x1, w2, sxtw"},
      {0x7200001f, true, "tst w0, #1"},
      {0xea220020, true, "bics x0, x1, x2"},
      {0x1e612000, true, "fcmp d0, d1"},
      {0x1e202018, true, "fcmpe s0, #0.0"},
      {0x1e610400, true, "fccmp d0, d1, #0, eq"},
      {0x1e610c20, true, "fcsel d0, d1, d1, eq"},
      {0x1ee10c20, true, "fcsel h0, h1, h1, eq"},
      {0x25904000, true, "an SVE flag setter (whilelo)"},
      {0x19000400, true, "cpyfp (memory copy, sets NZCV)"},
      {0x00000000, true, "udf #0"},
      {0x8b020020, false, "add x0, x1, x2"},
      {0xd1000420, false, "sub x0, x1, #1"},
      {0xaa0103e0, false, "mov x0, x1"},
      {0xd2800020, false, "mov x0, #1"},
      {0xf9400020, false, "ldr x0, [x1]"},
      {0xa9bf7bfd, false, "stp x29, x30, [sp, #-16]!"},
      {0xc85f7c20, false, "ldxr x0, [x1]"},
      {0xf8200020, false, "ldadd x0, x0, [x1]"},
      {0x94000000, false, "bl"},
      {0x14000000, false, "b"},
      {0xb4000000, false, "cbz x0"},
      {0x37000000, false, "tbnz w0, #0"},
      {0xd65f03c0, false, "ret"},
      {0xd63f0020, false, "blr x1"},
      {0xd4000001, false, "svc #0"},
      {0xd4200000, false, "brk #0"},
      {0xd503201f, false, "nop"},
      {0xd503233f, false, "paciasp"},
      {0xd5033bbf, false, "dmb ish"},
      {0xd5033fdf, false, "isb"},
      {0xd53bd040, false, "mrs x0, tpidr_el0"},
      {0xd51b4400, false, "msr fpcr, x0"},
      {0xd50b7520, false, "ic ivau, x0"},
      {0x9b027c20, false, "mul x0, x1, x2"},
      {0x9ac20c20, false, "sdiv x0, x1, x2"},
      {0xdac01020, false, "clz x0, x1"},
      {0x1e612820, false, "fadd d0, d1, d1"},
      {0x1e604020, false, "fmov d0, d1"},
      {0x1e601000, false, "fmov d0, #2.0"},
      {0x9e670020, false, "fmov d0, x1"},
      {0x1f420c20, false, "fmadd d0, d1, d2, d3"},
      {0x4ea21c20, false, "mov v0.16b, v1.16b"},
      {0x6e22d420, false, "fadd v0.4s, v1.4s, v2.4s"},
      {0x4e284820, false, "aese v0.16b, v1.16b"},
  };
  for (const auto& c : kCases) EXPECT_EQ(may_touch_nzcv(c.insn), c.touches) << c.text;
}

// Whether Capstone (LLVM's tables) says `insn` reads or writes NZCV: a condition code, a flag update, or NZCV
// among the registers it accesses. Capstone 5 lists NZCV for CBZ and CBNZ too, which test a register.
bool capstone_says_nzcv(csh cs, cs_insn* insn) {
  if (insn->id == ARM64_INS_CBZ || insn->id == ARM64_INS_CBNZ) return false;
  const cs_arm64& d = insn->detail->arm64;
  if (d.update_flags || (d.cc != ARM64_CC_INVALID && d.cc != ARM64_CC_AL && d.cc != ARM64_CC_NV)) return true;
  cs_regs read, write;
  uint8_t nread = 0, nwrite = 0;
  if (cs_regs_access(cs, insn, read, &nread, write, &nwrite) == CS_ERR_OK) {
    for (int i = 0; i < nread; ++i) {
      if (read[i] == ARM64_REG_NZCV) return true;
    }
    for (int i = 0; i < nwrite; ++i) {
      if (write[i] == ARM64_REG_NZCV) return true;
    }
  }
  return false;
}

// Across the whole encoding space (every value of the top 14 bits, with pseudo-random low bits): an
// instruction Capstone knows to read or write NZCV is never one may_touch_nzcv calls flag free.
TEST(LazyFlagsArm64Test, MayTouchNzcvCoversWhatCapstoneSaysUsesTheFlags) {
  csh cs = 0;
  ASSERT_EQ(cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &cs), CS_ERR_OK);
  ASSERT_EQ(cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON), CS_ERR_OK);
  cs_insn* insn = cs_malloc(cs);
  uint64_t seed = 0x243f6a8885a308d3ull;
  int decoded = 0, flag_users = 0, missed = 0;
  for (uint32_t top = 0; top < (1u << 14); ++top) {
    for (int k = 0; k < 12; ++k) {
      seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
      const uint32_t word = top << 18 | static_cast<uint32_t>(seed & 0x3ffff);
      const auto* code = reinterpret_cast<const uint8_t*>(&word);
      size_t size = sizeof word;
      uint64_t address = 0x1000;
      if (!cs_disasm_iter(cs, &code, &size, &address, insn)) continue;
      ++decoded;
      if (!capstone_says_nzcv(cs, insn)) continue;
      ++flag_users;
      if (!may_touch_nzcv(word) && missed++ < 10) {
        ADD_FAILURE() << std::hex << word << " " << insn->mnemonic << " " << insn->op_str;
      }
    }
  }
  cs_free(insn, 1);
  cs_close(&cs);
  EXPECT_EQ(missed, 0);
  EXPECT_GT(decoded, 50000);  // the sample reaches every group of the encoding index
  EXPECT_GT(flag_users, 5000);
}

}  // namespace
}  // namespace emu
