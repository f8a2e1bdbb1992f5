// The arm64 signal frame: building it for a handler and restoring it at rt_sigreturn.
#pragma once

#include <cstdint>

#include "signals/frame_parse_arm64.h"
#include "signals/signals.h"

namespace emu {
class Task;
}

namespace signals {

// Writes the frame for `info` below the thread's SP (or on its altstack for SA_ONSTACK) and points the
// registers at the handler. Returns false when the stack is not writable.
bool setup_rt_frame(emu::Task& t, const guest::siginfo& info, const guest::sigaction& act, sigset_t old_mask,
                    const FaultDetail* fault, uint64_t trampoline);
// Parses the frame at SP (parse_rt_frame) and loads its registers, and for a valid frame its FP/SIMD state,
// into the thread; the caller applies the mask and uc_stack.
ParsedFrame restore_rt_frame(emu::Task& t);

}  // namespace signals
