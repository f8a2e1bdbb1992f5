// This file owns the words the translator decodes. Unicorn runs guest code at EL1 (its CPU model starts
// there, and a64run's exception handling, gdb stepping and lazy flags are built on that), where Linux runs
// it at EL0. The A64 instructions whose behaviour differs between the two are the system instructions:
// at EL0 most system registers, address translation, TLB and set/way maintenance, the PSTATE fields other
// than the flags, SSBS, DIT and TCO, and ERET, DRPS, HVC, SMC, HLT and DCPS are undefined, and Linux answers
// with SIGILL (ILL_ILLOPC at the instruction), as qemu-aarch64 does; at EL1 Unicorn would run them: a guest
// could read the privileged state and write it (SCTLR_EL1 with the data endianness and the alignment check,
// VBAR, SPSel, the exception return), and the emulator's state with it. Each word fetched for translation
// passes filter_fetched_insn first, and such an instruction becomes UDF #0, which every translator rejects
// the same way: the guest gets the SIGILL Linux gives at that PC. The allowed set is Linux's EL0 set
// (arch/arm64/kernel: SCTLR_EL1's UCT, UCI, DZE on and UMA off; CNTKCTL_EL1 with only the virtual counter;
// no PMU access; MRS of the CPU ID registers emulated: Op0 3, Op1 0, CRn 0, CRm 0 or 4-7).
//
// The same filter keeps two encoding classes away from Unicorn 2.1.1's translator, which aborts the process
// on them (g_assert_not_reached in translate-a64.c): the unallocated operations of the half-precision
// "three registers of the same type" and "two-register miscellaneous" groups. Both are unallocated in the
// Arm ARM, so UDF is their architected behaviour.
//
// The wrapped function is cpu_ldl_code, which the A64 translator calls once per instruction
// (disas_a64_insn through arm_ldl_code); the link wraps it (CMakeLists.txt).
#include "emu/insn_filter.h"

namespace emu {
namespace {

constexpr uint32_t bits(uint32_t insn, int lo, int n) {
  return (insn >> lo) & ((1u << n) - 1);
}

// MRS and MSR (register): o0 (op0 2 or 3), op1, CRn, CRm, op2; `read` for MRS.
bool sysreg_allowed_at_el0(uint32_t insn) {
  const bool read = bits(insn, 21, 1) != 0;
  const uint32_t op0 = 2 + bits(insn, 19, 1), op1 = bits(insn, 16, 3), crn = bits(insn, 12, 4);
  const uint32_t crm = bits(insn, 8, 4), op2 = bits(insn, 5, 3);
  if (op0 != 3) return false;  // debug registers (op0 2): none at EL0
  if (op1 == 0) {              // the CPU ID registers, read through Linux's emulation
    if (!read || crn != 0) return false;
    if (crm == 0) return op2 == 0 || op2 == 5 || op2 == 6;  // MIDR_EL1, MPIDR_EL1, REVIDR_EL1
    return crm >= 4 && crm <= 7;
  }
  if (op1 != 3) return false;
  switch (crn) {
    case 0:  // CTR_EL0, DCZID_EL0 (read only)
      return read && crm == 0 && (op2 == 1 || op2 == 7);
    case 2:  // RNDR, RNDRRS
      return read && crm == 4 && op2 <= 1;
    case 4:
      if (crm == 2)
        return op2 == 0 || op2 == 2 || op2 == 5 || op2 == 6 || op2 == 7;  // NZCV SVCR DIT SSBS TCO
      return crm == 4 && op2 <= 1;                                        // FPCR, FPSR
    case 13:  // TPIDR_EL0, TPIDRRO_EL0 (read only at EL0), TPIDR2_EL0
      return crm == 0 && (op2 == 2 || op2 == 5 || (op2 == 3 && read));
    case 14:  // CNTFRQ_EL0, CNTVCT_EL0, CNTVCTSS_EL0: read only
      return read && crm == 0 && (op2 == 0 || op2 == 2 || op2 == 6);
    default:
      return false;
  }
}

// SYS (op0 1, L 0): the cache maintenance Linux lets EL0 do (op1 3, CRn 7: DC ZVA, CVAC, CVAU, CVAP,
// CVADP, CIVAC, GVA, GZVA and their tag forms, IC IVAU, the prediction restrictions); none of AT, TLBI,
// DC IVAC, the set/way operations or IC IALLU.
bool sys_allowed_at_el0(uint32_t insn) {
  return bits(insn, 16, 3) == 3 && bits(insn, 12, 4) == 7;
}

// MSR (immediate): CFINV, XAFLAG, AXFLAG (op1 0, op2 0-2), SSBS, DIT, SVCR, TCO (op1 3, op2 1-4). Not
// DAIFSet and DAIFClr (SCTLR_EL1.UMA is 0), UAO, PAN, SPSel or ALLINT.
bool pstate_allowed_at_el0(uint32_t insn) {
  const uint32_t op1 = bits(insn, 16, 3), op2 = bits(insn, 5, 3);
  return (op1 == 0 && op2 <= 2) || (op1 == 3 && op2 >= 1 && op2 <= 4);
}

bool refused_at_el0(uint32_t insn) {
  if ((insn & 0xffe00000) == 0xd6800000) return true;  // ERET, ERETAA, ERETAB
  if ((insn & 0xffe00000) == 0xd6a00000) return true;  // DRPS
  if ((insn & 0xff000000) == 0xd4000000) {             // exception generation
    const uint32_t opc = bits(insn, 21, 3), ll = bits(insn, 0, 2);
    if (opc == 0) return ll == 2 || ll == 3;  // HVC, SMC (SVC is ll 1)
    return opc == 2 || opc == 5;              // HLT; DCPS1-3
  }
  if ((insn & 0xffc00000) != 0xd5000000) return false;  // not a system instruction
  const uint32_t l = bits(insn, 21, 1), op0 = bits(insn, 19, 2);
  if (op0 >= 2) return !sysreg_allowed_at_el0(insn);  // MRS, MSR (register)
  if (op0 == 1) return l != 0 || !sys_allowed_at_el0(insn);
  // op0 0: hints (CRn 2), barriers (CRn 3), PSTATE (CRn 4), and the rest unallocated
  if (l == 0 && bits(insn, 12, 4) == 4 && bits(insn, 0, 5) == 31) return !pstate_allowed_at_el0(insn);
  return false;
}

// Advanced SIMD three same (FP16), vector: U a opcode (bits 29, 23, 13-11) with no operation.
bool unicorn_aborts_on_fp16_three_same(uint32_t insn) {
  if ((insn & 0x9f60c400) != 0x0e400400) return false;
  const uint32_t op = bits(insn, 11, 3) | bits(insn, 23, 1) << 3 | bits(insn, 29, 1) << 4;
  constexpr uint32_t kUnallocated =
      1u << 0x05 | 1u << 0x0b | 1u << 0x0c | 1u << 0x0d | 1u << 0x11 | 1u << 0x19 | 1u << 0x1b | 1u << 0x1f;
  return (kUnallocated >> op) & 1;
}

// Advanced SIMD (scalar) two-register miscellaneous (FP16): U a opcode (bits 29, 23, 16-12) with no
// operation in the form at hand (bit 28: scalar). The translator's first switch takes the operations of
// both forms; the scalar form then lacks FABS and FSQRT (they are floating-point data-processing
// instructions, not these), and the vector form FRECPX.
bool unicorn_aborts_on_fp16_two_misc(uint32_t insn) {
  if ((insn & 0x8f7e0c00) != 0x0e780800) return false;
  if (bits(insn, 28, 1) != 0 && bits(insn, 30, 1) == 0) return false;  // scalar floating point (FADD, ...)
  const uint32_t op = bits(insn, 12, 5) | bits(insn, 23, 1) << 5 | bits(insn, 29, 1) << 6;
  const bool scalar = bits(insn, 28, 1) != 0;
  if (op == 0x2f || op == 0x7f) return scalar;  // FABS, FSQRT
  if (op == 0x3f) return !scalar;               // FRECPX
  static constexpr uint8_t kBothForms[] = {
      0x18, 0x19, 0x38, 0x39, 0x58, 0x59, 0x79,  // FRINTN, M, P, Z, A, X, I (refused later if scalar)
      0x1a, 0x1b, 0x1c, 0x3a, 0x3b,              // FCVTNS, MS, AS, PS, ZS
      0x5a, 0x5b, 0x5c, 0x7a, 0x7b,              // FCVTNU, MU, AU, PU, ZU
      0x1d, 0x5d,                                // SCVTF, UCVTF
      0x2c, 0x2d, 0x2e, 0x6c, 0x6d,              // FCMGT, FCMEQ, FCMLT, FCMGE, FCMLE (zero)
      0x3d, 0x6f, 0x7d};                         // FRECPE, FNEG, FRSQRTE
  for (const uint8_t known : kBothForms) {
    if (op == known) return false;
  }
  return true;
}

}  // namespace

uint32_t filter_fetched_insn(uint32_t insn) {
  if (refused_at_el0(insn) || unicorn_aborts_on_fp16_three_same(insn) ||
      unicorn_aborts_on_fp16_two_misc(insn))
    return kUdf;
  return insn;
}

}  // namespace emu

#if A64RUN_WRAP_TRANSLATOR
extern "C" {
uint32_t __real_cpu_ldl_code_aarch64(void* env, uint64_t addr);
uint32_t __wrap_cpu_ldl_code_aarch64(void* env, uint64_t addr) {
  return emu::filter_fetched_insn(__real_cpu_ldl_code_aarch64(env, addr));
}
}
#endif
