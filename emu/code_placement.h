// Where each engine's translation buffer lies (emu/code_placement.cpp): within 2 GiB of a64run's own code,
// so that translated code calls helpers with a direct call.
#pragma once

#include <sys/types.h>
#include <unicorn/unicorn.h>

#include <cstddef>

namespace emu {

// Maps `len` bytes read-write-execute at a free slot between 256 MiB and the guest window's preferred base,
// with `map` (mmap's signature), and returns the address; MAP_FAILED when no slot is free or a64run's code
// does not lie low enough (a position-independent build). The wrapper of mmap64 calls it for Unicorn's
// code buffer.
void* place_code_buffer(size_t len,
                        void* (*map)(void* addr, size_t len, int prot, int flags, int fd, off_t off));

// True when a64run's code lies low enough for the slots (a static or otherwise not position-independent
// build).
bool code_lies_low();

// True when `uc`'s translation buffer and all of a64run's code are within a rel32 displacement of each
// other: its translated code calls every helper directly.
bool code_buffer_near(uc_engine* uc);

}  // namespace emu
