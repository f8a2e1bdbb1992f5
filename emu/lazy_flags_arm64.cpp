// This file owns the A64 side of lazy condition flags: which flag-setting instructions a translation may
// leave for later (decoded from the Arm ARM's encodings), and the NZCV each gives (its pseudocode,
// AddWithCarry).
#include "emu/lazy_flags_arm64.h"

namespace emu {
namespace {

constexpr uint32_t bits(uint32_t insn, int lo, int n) {
  return (insn >> lo) & ((1u << n) - 1);
}

}  // namespace

LazyKind lazy_kind(uint32_t insn) {
  const bool sf = bits(insn, 31, 1) != 0;
  const bool s = bits(insn, 29, 1) != 0;
  const bool sub = bits(insn, 30, 1) != 0;
  const bool add_sub_imm = (insn & 0x1f800000) == 0x11000000;
  const bool add_sub_reg = (insn & 0x1f000000) == 0x0b000000;  // shifted or extended register
  if ((add_sub_imm || add_sub_reg) && s) {
    if (sub) return sf ? kLazySub64 : kLazySub32;
    return sf ? kLazyAdd64 : kLazyAdd32;
  }
  const bool logic_imm = (insn & 0x1f800000) == 0x12000000;
  const bool logic_reg = (insn & 0x1f000000) == 0x0a000000;
  if ((logic_imm || logic_reg) && bits(insn, 29, 2) == 3) return sf ? kLazyLogic64 : kLazyLogic32;
  return kLazyNone;
}

LazyKind conditional_compare_kind(uint32_t insn, uint32_t* nzcv) {
  // sf op 1 11010010 Rm|imm5 cond o2 0 Rn 0 nzcv (CONDITIONAL COMPARE (REGISTER) and (IMMEDIATE)).
  if ((insn & 0x3fe00410) != 0x3a400000 || bits(insn, 12, 4) >= 14) return kLazyNone;
  *nzcv = bits(insn, 0, 4);
  const bool sf = bits(insn, 31, 1) != 0;
  if (bits(insn, 30, 1) != 0) return sf ? kLazySub64 : kLazySub32;
  return sf ? kLazyAdd64 : kLazyAdd32;
}

namespace {

// Data processing, immediate (op0 100x): ADDS, SUBS (immediate) and ANDS (immediate) set the flags.
bool dp_immediate_touches(uint32_t insn) {
  switch (bits(insn, 23, 3)) {
    case 2:  // add/subtract (immediate)
      return bits(insn, 29, 1) != 0;
    case 4:  // logical (immediate)
      return bits(insn, 29, 2) == 3;
    default:  // PC-relative, add/subtract with tags or min/max, move wide, bitfield, extract
      return false;
  }
}

// Branches, exception generation and system instructions (op0 101x).
bool branch_system_touches(uint32_t insn) {
  if ((insn & 0x7c000000) == 0x14000000) return false;  // B, BL
  if ((insn & 0x7e000000) == 0x34000000) return false;  // CBZ, CBNZ
  if ((insn & 0x7e000000) == 0x36000000) return false;  // TBZ, TBNZ
  if ((insn & 0xfe000000) == 0xd6000000) return false;  // BR, BLR, RET and their authenticated forms
  if ((insn & 0xff000000) == 0xd4000000) return false;  // SVC, HVC, SMC, BRK, HLT, DCPS
  if ((insn & 0xfffff01f) == 0xd503201f) return false;  // hints: NOP, YIELD, BTI, PACIASP, ...
  if ((insn & 0xfffff01f) == 0xd503301f) return false;  // barriers: CLREX, DSB, DMB, ISB, SB
  if ((insn & 0xffd80000) == 0xd5080000) return false;  // SYS, SYSL: DC, IC, TLBI, AT
  if ((insn & 0xffd00000) == 0xd5100000) {              // MRS, MSR (register)
    return bits(insn, 5, 16) == 0xda10;                 // op0 3, op1 3, CRn 4, CRm 2, op2 0: NZCV
  }
  return true;  // B.cond, BC.cond, MSR (immediate) with CFINV, XAFLAG, AXFLAG, and anything unknown
}

// Data processing, register (op0 x101).
bool dp_register_touches(uint32_t insn) {
  if ((insn & 0x1f000000) == 0x0a000000) return bits(insn, 29, 2) == 3;  // logical: ANDS, BICS
  if ((insn & 0x1f000000) == 0x0b000000) return bits(insn, 29, 1) != 0;  // add/subtract: ADDS, SUBS
  if ((insn & 0x1f000000) == 0x1b000000) return false;                   // 3 source: MADD, SMULH, ...
  if ((insn & 0x1fe00000) == 0x1ac00000) {
    return bits(insn, 30, 1) == 0 && bits(insn, 29, 1) != 0;  // 2 source with S (SUBPS); 1 source: none
  }
  return true;  // ADC, SBC, RMIF, SETF8, CCMP, CCMN, CSEL, CSINC, ... and anything unknown
}

// Scalar floating point (M 0 S 11110 type 1): FCMP, FCCMP and FCSEL. The rest of SIMD and floating point
// (op0 x111) never names NZCV.
bool simd_fp_touches(uint32_t insn) {
  if ((insn & 0x5f200000) != 0x1e200000) return false;
  switch (bits(insn, 10, 2)) {
    case 1:  // FCCMP, FCCMPE
    case 3:  // FCSEL
      return true;
    case 2:  // 2 source: FMUL, FADD, FMAX, ...
      return false;
    default:
      break;
  }
  if (bits(insn, 10, 3) == 4) return false;   // FMOV (immediate)
  if (bits(insn, 10, 4) == 8) return true;    // FCMP, FCMPE
  if (bits(insn, 10, 5) == 16) return false;  // 1 source: FMOV, FABS, FNEG, FSQRT, FCVT, FRINT*
  return bits(insn, 10, 6) != 0;              // conversion to and from integer: none
}

}  // namespace

bool may_touch_nzcv(uint32_t insn) {
  const uint32_t op0 = bits(insn, 25, 4);
  if ((op0 & 0xe) == 0x8) return dp_immediate_touches(insn);
  if ((op0 & 0xe) == 0xa) return branch_system_touches(insn);
  if ((op0 & 0x5) == 0x4) {  // loads and stores; but the memory copy and set instructions (CPY*, SET*)
    return (insn & 0x3b000000) == 0x19000000;  // set NZCV, so that encoding space counts (with LDAPUR)
  }
  if ((op0 & 0x7) == 0x5) return dp_register_touches(insn);
  if ((op0 & 0x7) == 0x7) return simd_fp_touches(insn);
  return true;  // reserved, SME, SVE (PTEST, WHILE* and others set NZCV), unallocated
}

uint32_t lazy_nzcv(LazyKind kind, uint64_t a, uint64_t b) {
  uint64_t n = 0, z = 0, c = 0, v = 0;
  const auto a32 = static_cast<uint32_t>(a);
  const auto b32 = static_cast<uint32_t>(b);
  switch (kind) {
    case kLazySub64: {
      const uint64_t r = a - b;
      n = r >> 63, z = r == 0, c = a >= b, v = ((a ^ b) & (a ^ r)) >> 63;
      break;
    }
    case kLazySub32: {
      const uint32_t r = a32 - b32;
      n = r >> 31, z = r == 0, c = a32 >= b32, v = ((a32 ^ b32) & (a32 ^ r)) >> 31;
      break;
    }
    case kLazyAdd64: {
      const uint64_t r = a + b;
      n = r >> 63, z = r == 0, c = r < a, v = (~(a ^ b) & (a ^ r)) >> 63;
      break;
    }
    case kLazyAdd32: {
      const uint32_t r = a32 + b32;
      n = r >> 31, z = r == 0, c = r < a32, v = (~(a32 ^ b32) & (a32 ^ r)) >> 31;
      break;
    }
    case kLazyLogic64:
      n = a >> 63, z = a == 0;
      break;
    case kLazyLogic32:
      n = a32 >> 31, z = a32 == 0;
      break;
    default:
      if (kind >= kLazyFixed && kind < kLazyKinds) return static_cast<uint32_t>(kind - kLazyFixed) << 28;
      break;
  }
  return static_cast<uint32_t>(n << 31 | z << 30 | c << 29 | v << 28);
}

}  // namespace emu
