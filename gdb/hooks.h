// The debugger's hooks into the rest of a64run (gdb/debugger.h has the model). Each call site tests
// enabled() first, which is false unless a64run was started with a debugger port (-g, A64RUN_GDB): a program
// run without one pays one relaxed load per stop of guest code, and its vCPUs carry no breakpoint, step or
// watch state.
#pragma once

#include <atomic>
#include <string>

#include "syscalls/abi/siginfo.h"

namespace emu {
class Process;
class Task;
struct StopInfo;
}  // namespace emu

namespace gdb {

namespace detail {
extern std::atomic<bool> g_enabled;
}  // namespace detail
inline bool enabled() {
  return detail::g_enabled.load(std::memory_order_relaxed);
}

// main(): listens on `where` (a TCP port on the loopback interface, HOST:PORT, or a Unix socket path) and
// waits for the first debugger to connect, before the first instruction runs. False with *error set.
bool start(emu::Process& proc, const std::string& where, std::string* error);

// Task::run, before each run of guest code: parks while the debugger holds the threads stopped, then applies
// the resume (step or continue, a signal to pass) and the breakpoints and watchpoints to the vCPU.
void checkpoint(emu::Task& t);
// Task::run, after guest code stopped: reports a breakpoint, a finished step or a watchpoint. True when the
// stop was the debugger's alone (a step's trap, a watched page's refusal), which the caller then ignores.
bool on_stop(emu::Task& t, const emu::StopInfo& stop);
// A signal is about to be delivered to t (dequeued, or a fault forced on it): the debugger sees it first.
// Returns the signal to deliver instead, 0 to drop it. Called without sig_lock.
int on_signal(emu::Task& t, const guest::siginfo& info);
// The process ends: exit status (W) or the killing signal (X), reported before the host process goes.
void on_exit(int status);
void on_killed(int sig);
// A forked child is not debugged (as under qemu-user and gdb's default follow-fork-mode parent): it drops
// the connection and, at its threads' next checkpoint, the breakpoints and watchpoints.
void after_fork_child();

}  // namespace gdb
