// Parallel atomics (emu/parallel_atomics.cpp): guest atomics translated as host atomics, so vCPUs can run
// guest code at the same time.
#pragma once

#include <cstdint>

namespace emu {

// True once the first translation has shown that the wrapper can mark blocks parallel on this Unicorn
// build (the structure layout it relies on checked out): vCPUs may then run guest code at the same time.
// Until then, and for good when the check fails (or Unicorn is linked as a shared library, where the
// wrapper cannot reach it), guest code runs under the run lock, one thread at a time. The first
// translation happens in the first thread, before it can make another.
bool parallel_guest_code();

}  // namespace emu
