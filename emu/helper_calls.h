// The translator's floating-point helper calls (emu/helper_calls.cpp): the helpers that touch only their
// operands and a float_status, so that their calls can leave guest registers in host registers instead of
// storing them before the call and loading them again after.
#pragma once

#include <unicorn/unicorn.h>

namespace emu {

// Finds those helpers (108 of them: FADD to FCMP, the conversions, the half-precision operations) in the
// helper table of `uc`'s TCG context, once per process. True when they were found as expected; false on
// another Unicorn build, and then no call is treated differently. Called when a vCPU is made, before its
// first translation.
bool prepare_helper_calls(uc_engine* uc);

// True when `func` is one of them: it writes nothing but its result and a float_status, and reads no TCG
// global (so TCG_CALL_NO_RWG holds for its calls, and what is known of the V registers survives them).
bool helper_touches_only_fp_status(const void* func);

// The number of those helpers found (0 before the first engine, or when the layout differs).
int helper_calls_marked();

// A translation starts on this thread; and how many calls of those helpers it has emitted so far (the link
// wraps tcg_gen_callN to count them).
void helper_calls_translation_start();
int helper_calls_in_translation();

}  // namespace emu
