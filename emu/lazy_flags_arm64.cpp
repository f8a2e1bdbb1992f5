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
      break;
  }
  return static_cast<uint32_t>(n << 31 | z << 30 | c << 29 | v << 28);
}

}  // namespace emu
