// The engine's translation buffer (emu/code_buffer.cpp): every time it fills, Unicorn must flush it the way
// QEMU does, never wipe it under the translations that still point into it.
#pragma once

#include <unicorn/unicorn.h>

#include <cstdint>

namespace emu {

// How many engines made on the calling thread the link's wrapper has guarded (a count, so that a caller can
// tell whether the engine it has just made was).
uint64_t code_buffers_guarded_here();

// For an engine just made on this thread, whose init has run (any uc_ctl that initialises it): when the
// wrapper did not guard its buffer (a Unicorn build other than the pinned one, or Unicorn as a shared
// library), flushes the engine's translations once, which reaches the same state through the public API at
// the price of clearing the whole buffer. `guarded_before` is code_buffers_guarded_here() from before the
// engine was made.
uc_err guard_code_buffer(uc_engine* uc, uint64_t guarded_before);

// False once the wrapper met an engine whose layout it did not recognise (tests: the pinned build must pass).
bool code_buffer_wrapper_recognised_all();

}  // namespace emu
