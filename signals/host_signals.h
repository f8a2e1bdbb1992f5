// Host signals: every emulator thread blocks the asynchronous ones (all 64); one intake thread takes them
// (rt_sigtimedwait) and queues the matching guest signal. SIGCHLD's host disposition follows the guest's
// auto-reaping (SIG_IGN, SA_NOCLDWAIT: the host's SA_NOCLDWAIT) and SA_NOCLDSTOP, but is never SIG_IGN.
#pragma once

#include <signal.h>

#include <atomic>
#include <cstdint>
#include <mutex>

#include "syscalls/abi/signal.h"

namespace emu {
class Process;
}

namespace signals {

// A process's intake thread and the counters its waiters read (emu::Process::intake). tid, pid and
// forward_state are plain ints read and written only with the __atomic builtins: forward_to_intake uses them
// from a signal handler that ThreadSanitizer does not see, and std::atomic's member functions are
// instrumented calls there.
struct HostIntake {
  int tid = 0;
  int pid = 0;
  // sync_host_signals' markers: queued in sequence order (under sync_mu) and taken in that order, so
  // sync_acked only grows.
  std::mutex sync_mu;
  uint32_t sync_next = 0;  // GUARDED_BY(sync_mu)
  std::atomic<uint32_t> sync_acked{0};
  // Signals another thread took for the intake thread (forward_to_intake): free, being written, or ready.
  static constexpr int kForwardSlots = 16;
  int forward_state[kForwardSlots] = {};
  siginfo_t forward_info[kForwardSlots] = {};
};

// Blocks the asynchronous host signals in the calling thread (call before any thread is made), ignores
// host SIGPIPE (the syscall layer raises the guest's), and starts the intake thread for proc.
void start_host_signal_intake(emu::Process& proc);
// In a fork child (only the forking thread survives) and in a CLONE_VM child: starts a new intake thread.
void restart_host_signal_intake(emu::Process& proc);
// Blocks again, in a thread pthread_create just started, what glibc unblocked there (its SIGCANCEL, 32):
// every emulator thread made with pthread_create calls it first. (glibc's first pthread_create also unblocks
// 32 and 33 in the thread that calls it, and sets its own handler for 33: the intake thread's start blocks
// them again and puts a64run's handler back.) The wake signal keeps its state.
void block_after_thread_start();
// The calling thread's process's intake thread (waits for it to start): host timers signal it.
int intake_tid();
void mirror_sigchld_action(const guest::sigaction& act);

// Returns once the intake thread has taken every host signal pending for the process when called (a
// marker signal queued behind them comes back). wait4/waitid call it after reaping a child: on Linux the
// child's SIGCHLD is pending before the child is waitable, so its handler runs before wait4 returns.
void sync_host_signals();

// From a signal handler: passes a host signal that a thread other than the intake thread took (the safe
// calls' wake signal, which guest threads leave unblocked, sent by another process) to the intake thread,
// which queues the guest signal as if it had taken it itself. (The kernel lets a thread queue a kill's
// siginfo, si_code SI_USER, to no thread but itself, so the siginfo waits in a slot and a marker signal
// names the slot.) Async-signal-safe.
void forward_to_intake(const siginfo_t& si);

}  // namespace signals
