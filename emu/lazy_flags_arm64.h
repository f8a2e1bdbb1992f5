// The A64 side of lazy condition flags (emu/lazy_flags.cpp): the flag-setting instructions a translation may
// leave for later, and the NZCV such an instruction gives.
#pragma once

#include <cstdint>

namespace emu {

// The flag-setting instructions whose NZCV can be recomputed from a record of their operands.
enum LazyKind : uint32_t {
  kLazyNone = 0,
  kLazySub64 = 1,    // SUBS, CMP (X): a - b
  kLazySub32 = 2,    // SUBS, CMP (W)
  kLazyAdd64 = 3,    // ADDS, CMN (X): a + b
  kLazyAdd32 = 4,    // ADDS, CMN (W)
  kLazyLogic64 = 5,  // ANDS, BICS, TST (X): the result a; C and V clear
  kLazyLogic32 = 6,  // ANDS, BICS, TST (W)
  // A conditional compare whose condition failed: NZCV is its immediate, kind - kLazyFixed (so 7..22).
  kLazyFixed = 7,
  kLazyKinds = 23,
};

// The kind of `insn` if it is one of the instructions above, else kLazyNone.
LazyKind lazy_kind(uint32_t insn);

// For a CCMP or CCMN (register or immediate, either width) whose condition is not AL or NV: the kind of
// the compare it makes when its condition holds, and in *nzcv its immediate (bits 3..0). Else kLazyNone.
LazyKind conditional_compare_kind(uint32_t insn, uint32_t* nzcv);

// False only for an encoding that reads and writes no condition flag in any translation: the classes of the
// A64 encoding index that never name NZCV (loads and stores, moves, arithmetic and logic without S, SIMD and
// floating point other than FCMP, FCCMP and FCSEL, B, BL, CBZ, TBZ, BR, RET, SVC, hints, barriers, MRS and
// MSR of registers other than NZCV). True for every other encoding, unallocated and unknown ones included.
bool may_touch_nzcv(uint32_t insn);

// NZCV (in bits 31..28, as in PSTATE) of an instruction of kind `kind` with operands a and b (the low 32
// bits for the W forms); a fixed kind's own NZCV.
uint32_t lazy_nzcv(LazyKind kind, uint64_t a, uint64_t b);

}  // namespace emu
