// Store-to-load forwarding of the vector registers within a translated block (emu/vreg_forwarding.cpp):
// a value the block has just stored to a V register in the CPU state is used from the host register that
// holds it, instead of being loaded back, and a store of the value the register already holds is dropped.
#pragma once

#include <unicorn/unicorn.h>

namespace emu {

// Checks the layout the rewrite relies on in `uc` (the op definitions' names, the env temp, where the V
// registers lie in the CPU state) and returns true when it is this Unicorn build's: translations of `uc`
// then forward (not under A64RUN_NO_FORWARD=1). Called when a vCPU is made, before its first translation.
bool prepare_vreg_forwarding(uc_engine* uc);

// The translator's wrapper calls this after a block's ops are generated and before TCG compiles them.
void vreg_forwarding_after_translation(void* cpu);

}  // namespace emu
