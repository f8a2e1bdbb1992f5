// The softmmu TLBs of the MMU indexes a vCPU never runs in, cut to QEMU's smallest size when it is made.
#pragma once

#include <unicorn/unicorn.h>

namespace emu {

// After the engine of `uc` is made and before any guest code: every MMU index but the vCPU's own gets a TLB
// of 64 entries instead of 256. True when done; false (the TLBs left as they are) on an engine whose layout
// is not the one this was written against.
bool trim_idle_tlbs(uc_engine* uc);

}  // namespace emu
