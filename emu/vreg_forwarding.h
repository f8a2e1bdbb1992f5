// The walk over a translated block's ops that has FP helper calls (emu/vreg_forwarding.cpp): it gives those
// calls TCG_CALL_NO_RWG, and forwards the V registers within the block: a value the block has just stored
// to a V register in the CPU state is used from the host register that holds it, instead of being loaded
// back, and a store of the value the register already holds is dropped.
#pragma once

#include <unicorn/unicorn.h>

namespace emu {

// Checks the layout the walk relies on in `uc` (the op definitions' names, the env temp, where the V
// registers lie in the CPU state, the FP helpers found by prepare_helper_calls) and returns true when it is
// this Unicorn build's: translations of `uc` then mark the FP helper calls, and forward unless
// A64RUN_NO_FORWARD=1. Called when a vCPU is made, after prepare_helper_calls, before its first translation.
bool prepare_vreg_forwarding(uc_engine* uc);

// True when the walk is on and forwards (not A64RUN_NO_FORWARD=1).
bool vreg_forwarding_enabled();

// The translator's wrapper calls this after a block's ops are generated and before TCG compiles them, and
// before lazy flags look at the calls.
void vreg_forwarding_after_translation(void* cpu);

}  // namespace emu
