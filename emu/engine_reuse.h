// Reuse of an engine whose thread died inside uc_emu_start (emu/engine_reuse.cpp).
#pragma once

#include <unicorn/unicorn.h>

namespace emu {

// For the engine of a CLONE_VM|CLONE_VFORK child that has exec'd or exited: the child made that call from
// the system-call hook, so it never returned from uc_emu_start. Puts the engine back in the state of one
// that did (Unicorn's nesting level back to 0) and returns true; false when this Unicorn build's layout is
// not the one the reset was read from, and the engine must be closed rather than run again.
bool reset_abandoned_engine(uc_engine* uc);

}  // namespace emu
