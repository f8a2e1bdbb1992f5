// --signal-stats: per signal, how many were sent and how many of those merged into one already pending, the
// time from queueing to handler entry and from handler entry to sigreturn, printed as count, p50, p99 and
// max at exit (or written as JSON to a file).
#pragma once

#include <string>

#include "signals/signal_state.h"

namespace emu {
class Task;
}

namespace signals {

// Turns recording on; `json_path` empty prints a table to stderr at exit.
void enable_stats(const std::string& json_path);
bool stats_enabled();
// A signal was sent (queued, or merged into the same standard signal already pending).
void record_send(int sig, bool merged);
void record_handler_entry(emu::Task& t, const PendingSignal& p);
void record_sigreturn(emu::Task& t);
void print_stats_at_exit();

}  // namespace signals
