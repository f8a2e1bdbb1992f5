// The call flags of the translator's floating-point helpers (emu/helper_calls.cpp): each engine's TCG
// context calls them as helpers that neither read nor write TCG's globals, so guest registers stay in host
// registers across an FADD or FMUL instead of being stored before it and loaded again after.
#pragma once

#include <unicorn/unicorn.h>

namespace emu {

// Marks the floating-point helpers of `uc`'s TCG context as touching no global (TCG_CALL_NO_RWG), as
// QEMU already marks their siblings (FRINT, FRECPE, the half-precision conversions). True when done;
// false, with every call as before, when this Unicorn build's layout is not the one checked here. Called
// when a vCPU is made, before its first translation.
bool prepare_helper_calls(uc_engine* uc);

// True when `func` is one of the helpers marked: it writes nothing but its result and a float_status (for
// emu/vreg_forwarding.cpp, which keeps what it knows of the V registers across such a call).
bool helper_touches_only_fp_status(const void* func);

// The number of helpers marked in each engine (0 before the first engine, or when the layout differs).
int helper_calls_marked();

}  // namespace emu
