// The slow-core signal model (--signal-delay-pre-ack-us, --signal-delay-post-ack-us): a thread that takes a
// signal busy-waits N microseconds before its handler runs (pre-ack) or after the handler returned, at
// rt_sigreturn (post-ack), as a core whose signal entry or exit is slow would. See workloads/stall/README.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace emu {
class Task;
}

namespace signals {

// Sets the delays (0 turns one off). Called once from the command line, before any guest thread runs.
void set_signal_delays(uint32_t pre_ack_us, uint32_t post_ack_us);
// The options that give an exec'd a64run the same delays (empty when both are 0).
std::vector<std::string> signal_delay_args();

// Busy-wait the configured time in the calling guest thread, with the run lock released so that the other
// guest threads run on, as on the other cores of a real machine. No-ops when the delay is 0.
void delay_before_handler(emu::Task& t);
void delay_after_sigreturn(emu::Task& t);

}  // namespace signals
