// Lazy condition flags (emu/lazy_flags.cpp): a translated block records its last flag-setting instruction's
// operands instead of computing NZCV, and NZCV is made exact from the record wherever it is read: by a
// later block that reads it first, and by the register accessors (uc_reg_read and its kin, wrapped).
#pragma once

#include <unicorn/unicorn.h>

namespace emu {

// Checks the layout lazy flags rely on in `uc` (the CPU state's flag and record fields, the TCG context's
// temps and ops) and returns true when it is this Unicorn build's: translations of `uc` may then leave NZCV
// lazy (not under A64RUN_EAGER_FLAGS=1, nor for a vCPU without direct memory access).
bool prepare_lazy_flags(uc_engine* uc);

// The translator's wrapper calls this after a block's ops are generated and before TCG compiles them.
void lazy_flags_after_translation(void* cpu, void* tb);

// Makes the CPU state's NZCV exact and clears the record, as a block that reads the flags first does. Only
// the thread that runs `uc`, outside translated code and before it lets another thread see it stopped: a
// system call's start, so that the register reads and writes of the call and of the signals it delivers
// find no record to look at (the accessors' wrappers then pass straight through).
void settle_lazy_flags(uc_engine* uc);

}  // namespace emu
