// The host-FPU fast path of the guest's scalar floating point (emu/fp_fast.cpp): Unicorn's FADD, FSUB, FMUL,
// FDIV, FSQRT and fused multiply-add helpers, wrapped at link time, compute the common case with one SSE
// instruction and give the rest to softfloat.
#pragma once

namespace emu {

// Checks, once, that this Unicorn build and the host FPU are the ones the fast path was written for (the
// machine code of the helpers, MXCSR's rounding and denormal controls); until then, and for good when they
// are not, every operation takes softfloat. True when the fast path is on. Called when a vCPU is made.
bool prepare_fp_fast();

// True when the fused multiply-add takes the host's FMA3 too (the fast path is on and the host has it).
bool fp_fast_fma();

// True when the conversions (FCVT, SCVTF, UCVTF, FCVTZS, FCVTZU, FCVTNS, FCVTNU) take the host FPU too.
bool fp_fast_conversions();

// True when FMAX/FMIN/FMAXNM/FMINNM and FRINT* take the host FPU too (SSE4.1 for the rounding).
bool fp_fast_minmax_round();

// True when FCMP/FCMPE of ordered operands take a host compare.
bool fp_fast_compare();

// The function emu/fp_pairs.cpp calls for an FMUL and an FADD (sub false) or FSUB (sub true) of its product:
// (a, b, x, float_status, delta) -> product op x when product_first, else x op product, with the product
// stored at `delta` bytes from the float_status (its V register slot) in between. Single or double precision.
// Null when the translator's helpers are not wrapped.
const void* fp_mul_pair_helper(bool single, bool sub, bool product_first);

}  // namespace emu
