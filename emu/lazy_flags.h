// Lazy condition flags (emu/lazy_flags.cpp): a translation whose last flag-setting instruction's NZCV is
// dead wherever the block can go records that instruction's operands instead of computing NZCV, and the
// register accessors make NZCV exact from the record before anything outside translated code looks at it.
#pragma once

#include <unicorn/unicorn.h>

namespace emu {

// Checks the layout lazy flags rely on in `uc` (the CPU state's flag and record fields, the TCG context's
// temps and ops) and returns true when it is this Unicorn build's: translations of `uc` may then leave NZCV
// lazy (not under A64RUN_EAGER_FLAGS=1, nor for a vCPU without direct memory access).
bool prepare_lazy_flags(uc_engine* uc);

// The translator's wrapper calls this after a block's ops are generated and before TCG compiles them.
void lazy_flags_after_translation(void* cpu, void* tb);

// Makes NZCV in `uc`'s CPU state exact if a block left it lazy (every uc_reg_read and uc_reg_write does this
// first, through the link's wrappers). Only on the thread that runs `uc`, or while it is stopped.
void settle_lazy_flags(uc_engine* uc);

}  // namespace emu
