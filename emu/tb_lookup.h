// The lookup of the next translation block at an indirect branch (emu/tb_lookup.cpp): a shorter path through
// the CPU's jump cache than Unicorn's helper_lookup_tb_ptr, which the link wraps.
#pragma once

namespace emu {

// Checks, once, that this Unicorn build is the one the short path was written against (its machine code);
// until then, and for good when it is not, every lookup takes Unicorn's helper. True when the short path is
// on. Called when a vCPU is made, before any translated code runs.
bool prepare_tb_lookup();

}  // namespace emu
