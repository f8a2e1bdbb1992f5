// The arm64 signal frame: building it for a handler and restoring it at rt_sigreturn.
#pragma once

#include <cstdint>

#include "signals/signals.h"

namespace emu {
class Task;
}

namespace signals {

// Writes the frame for `info` below the thread's SP (or on its altstack for SA_ONSTACK) and points the
// registers at the handler. Returns false when the stack is not writable.
bool setup_rt_frame(emu::Task& t, const guest::siginfo& info, const guest::sigaction& act, sigset_t old_mask,
                    const FaultDetail* fault, uint64_t trampoline);
// Restores registers and FP/SIMD state from the frame at SP; returns the saved mask and uc_stack. False for a
// frame Linux would reject.
bool restore_rt_frame(emu::Task& t, sigset_t* mask, guest::stack_t* uc_stack);

}  // namespace signals
