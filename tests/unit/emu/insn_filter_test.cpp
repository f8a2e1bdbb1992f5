// Tests for the words the translator is handed: the system instructions Linux refuses at EL0 and the
// encodings Unicorn 2.1.1's translator aborts on become UDF #0; everything else passes unchanged.
#include "emu/insn_filter.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace emu {
namespace {

struct Case {
  uint32_t insn;
  const char* text;
};

TEST(InsnFilterTest, SystemInstructionsLinuxRefusesAtEl0BecomeUdf) {
  static const Case kRefused[] = {
      {0xd5381001, "mrs x1, sctlr_el1"},
      {0xd5181001, "msr sctlr_el1, x1"},
      {0xd5384241, "mrs x1, CurrentEL"},
      {0xd50040bf, "msr spsel, #0"},
      {0xd50342df, "msr daifset, #2"},
      {0xd53b4221, "mrs x1, daif"},
      {0xd500409f, "msr pan, #0"},
      {0xd500407f, "msr uao, #0"},
      {0xd69f03e0, "eret"},
      {0xd69f0bff, "eretaa"},
      {0xd6bf03e0, "drps"},
      {0xd4000002, "hvc #0"},
      {0xd4000003, "smc #0"},
      {0xd4400000, "hlt #0"},
      {0xd4a00001, "dcps1"},
      {0xd4a00003, "dcps3"},
      {0xd5087620, "dc ivac, x0"},
      {0xd5087e40, "dc cisw, x0"},
      {0xd508751f, "ic iallu"},
      {0xd508871f, "tlbi vmalle1"},
      {0xd5087840, "at s1e0r, x0"},
      {0xd5280001, "sysl x1, #0, c0, c0, #0"},
      {0xd5384021, "mrs x1, elr_el1"},
      {0xd5384101, "mrs x1, sp_el0"},
      {0xd518c01f, "msr vbar_el1, xzr"},
      {0xd51bd061, "msr tpidrro_el0, x1"},
      {0xd51be001, "msr cntfrq_el0, x1"},
      {0xd53be021, "mrs x1, cntpct_el0"},
      {0xd53be321, "mrs x1, cntv_ctl_el0"},
      {0xd53b9d01, "mrs x1, pmccntr_el0"},
      {0xd5300241, "mrs x1, mdscr_el1"},
      {0xd5390001, "mrs x1, ccsidr_el1"},
      {0xd5380101, "mrs x1, id_pfr0_el1"},
      {0xd5180001, "msr midr_el1, x1"},
      {0xd5382122, "mrs x2, apiakeyhi_el1"},
      {0xd53bd0e1, "mrs x1, scxtnum_el0"},
  };
  for (const Case& c : kRefused) EXPECT_EQ(filter_fetched_insn(c.insn), kUdf) << c.text;
}

TEST(InsnFilterTest, InstructionsLinuxRunsAtEl0PassUnchanged) {
  static const Case kAllowed[] = {
      {0xd5380001, "mrs x1, midr_el1"},
      {0xd53800a1, "mrs x1, mpidr_el1"},
      {0xd53800c1, "mrs x1, revidr_el1"},
      {0xd5380601, "mrs x1, id_aa64isar0_el1"},
      {0xd5380401, "mrs x1, id_aa64pfr0_el1"},
      {0xd5380701, "mrs x1, id_aa64mmfr0_el1"},
      {0xd53b0021, "mrs x1, ctr_el0"},
      {0xd53b00e1, "mrs x1, dczid_el0"},
      {0xd53bd041, "mrs x1, tpidr_el0"},
      {0xd51bd041, "msr tpidr_el0, x1"},
      {0xd53bd061, "mrs x1, tpidrro_el0"},
      {0xd53be041, "mrs x1, cntvct_el0"},
      {0xd53be001, "mrs x1, cntfrq_el0"},
      {0xd53b4201, "mrs x1, nzcv"},
      {0xd51b4201, "msr nzcv, x1"},
      {0xd53b4401, "mrs x1, fpcr"},
      {0xd51b4421, "msr fpsr, x1"},
      {0xd53b2401, "mrs x1, rndr"},
      {0xd50b7420, "dc zva, x0"},
      {0xd50b7b20, "dc cvau, x0"},
      {0xd50b7e20, "dc civac, x0"},
      {0xd50b7520, "ic ivau, x0"},
      {0xd500401f, "cfinv"},
      {0xd500403f, "xaflag"},
      {0xd503403f, "msr ssbs, #0"},
      {0xd503405f, "msr dit, #0"},
      {0xd4000001, "svc #0"},
      {0xd4200000, "brk #0"},
      {0xd503201f, "nop"},
      {0xd503233f, "paciasp"},
      {0xd5033bbf, "dmb ish"},
      {0xd5033fdf, "isb"},
      {0xd503305f, "clrex"},
      {0xd65f03c0, "ret"},
      {0xd65f0bff, "retaa"},
      {0xd61f0020, "br x1"},
      {0xd503207f, "wfi"},
      {0x00000000, "udf #0"},
      {0x0e401400, "fadd v0.4h, v0.4h, v0.4h"},
      {0x4ef8f820, "fabs v0.8h, v1.8h"},
      {0x5ef9d820, "frecpe h0, h1"},
      {0x5ef9f820, "frecpx h0, h1"},
      {0x1e792b7c, "fadd d28, d27, d25"},
      {0x1e783800, "fsub d0, d0, d24"},
      {0x1ef80800, "fmul h0, h0, h24"},
      {0x9e780000, "fcvtzs x0, d0"},
  };
  for (const Case& c : kAllowed) EXPECT_EQ(filter_fetched_insn(c.insn), c.insn) << c.text;
}

// The two half-precision groups that Unicorn 2.1.1's translator aborts on (found by translating random
// words): every unallocated U:a:opcode becomes UDF, whatever the registers and Q.
TEST(InsnFilterTest, HalfPrecisionEncodingsUnicornAbortsOnBecomeUdf) {
  static const Case kAborts[] = {
      {0x4ef85b52, "two-reg misc fp16, fpop 0x25"},
      {0x0ef9faf7, "two-reg misc fp16, FRECPX in the vector form"},
      {0x5ef8f820, "scalar two-reg misc fp16, FABS"},
      {0x7ef9f820, "scalar two-reg misc fp16, FSQRT"},
      {0x0ec8279a, "three same fp16, fpop 0x0c"},
      {0x6ec53d56, "three same fp16, fpop 0x1f"},
      {0x2e786be3, "two-reg misc fp16, fpop 0x46"},
      {0x5ef8fbb3, "scalar two-reg misc fp16, fpop 0x2f with a = 1"},
  };
  for (const Case& c : kAborts) {
    EXPECT_EQ(filter_fetched_insn(c.insn), kUdf) << c.text;
    for (uint32_t regs : {0x1u, 0x3e0u, 0x3ffu}) {
      EXPECT_EQ(filter_fetched_insn(c.insn ^ regs), kUdf) << c.text << " with other registers";
    }
  }
}

// Outside the exception, system and branch-register space and the two half-precision groups, every word
// passes unchanged.
TEST(InsnFilterTest, OtherEncodingsPassUnchanged) {
  int changed = 0;
  for (uint64_t w = 0; w < (uint64_t{1} << 32); w += 4093) {
    const auto insn = static_cast<uint32_t>(w);
    const bool system_space = (insn & 0xfc000000) == 0xd4000000;  // 0xd4-0xd7
    const bool scalar_fp = (insn & 0x50000000) == 0x10000000;     // bit 28 set, bit 30 clear
    const bool fp16_space =
        (insn & 0x9f60c400) == 0x0e400400 || ((insn & 0x8f7e0c00) == 0x0e780800 && !scalar_fp);
    if (!system_space && !fp16_space && filter_fetched_insn(insn) != insn) ++changed;
  }
  EXPECT_EQ(changed, 0);
}

}  // namespace
}  // namespace emu
