// FMUL and an FADD or FSUB of its product in one helper call (emu/fp_pairs.cpp).
#pragma once

namespace emu {

// Builds the walk's table from an engine's TCG op definitions (once per process; every engine's are copies
// of one table, which prepare_vreg_forwarding checks) and returns true when every op it relies on is there.
// A64RUN_NO_FP_PAIRS=1 turns the walk off.
bool prepare_fp_pairs(const void* op_defs);

// True when the walk is on (after the first engine's prepare_fp_pairs).
bool fp_pairs_enabled();

// Fuses the pairs of a translated block whose ops start at `first`, in the TCG context `s`; called by
// emu/vreg_forwarding.cpp after its walk, before TCG compiles the block.
void fuse_fp_pairs(void* s, char* first);

}  // namespace emu
