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
class Task;
}  // namespace emu

namespace signals {

// A process's intake thread and the counters its waiters read (emu::Process::intake). tid, pid and
// forward_state are plain ints read and written only with the __atomic builtins: forward_to_intake uses them
// from a signal handler that ThreadSanitizer does not see, and std::atomic's member functions are
// instrumented calls there.
struct HostIntake {
  int tid = 0;     // the intake thread: it takes host signals off the kernel's queue (the markers' target)
  int worker = 0;  // its worker: it acts on each (queues the guest signal), in the process's descriptor table
  int pid = 0;
  // One host signal passed from the intake thread to the worker: 1 ready, 2 the quit marker, 0 taken.
  std::atomic<int> handoff{0};
  long handoff_sig = 0;      // written before handoff's release store, read after its acquire load
  siginfo_t handoff_info{};  // the same
  // sync_host_signals' markers: queued in sequence order (under sync_mu) and taken in that order, so
  // sync_acked only grows.
  std::mutex sync_mu;
  uint32_t sync_next = 0;  // GUARDED_BY(sync_mu)
  std::atomic<uint32_t> sync_acked{0};
  // 0 until open_host_signal_intake: the first intake thread waits for the 1 before it takes anything.
  std::atomic<int> open{0};
  // 1 from before the intake thread takes a host signal off the kernel's queue until the worker has queued
  // the guest signal (host_signals_in_flight); the intake thread waits for the 0.
  std::atomic<int> busy{0};
  // Signals another thread took for the intake thread (forward_to_intake): free, being written, or ready.
  static constexpr int kForwardSlots = 16;
  int forward_state[kForwardSlots] = {};
  siginfo_t forward_info[kForwardSlots] = {};
};

// Blocks the asynchronous host signals in the calling thread (call before any thread is made), ignores
// host SIGPIPE (the syscall layer raises the guest's), and starts the intake thread for proc and its worker
// without waiting for them: they come up while the caller loads the program and makes its first vCPU. The
// intake thread takes no host signal before open_host_signal_intake.
void start_host_signal_intake(emu::Process& proc);
// After the main thread is registered, before any guest code: waits until the intake thread and its worker
// are up (hidden from the /proc views, the intake's own descriptor table made) and lets the intake thread
// take host signals (one sent while a64run was starting must find a thread to make it pending for).
void open_host_signal_intake(emu::Process& proc);
// In a fork child (only the forking thread survives) and in a CLONE_VM child: starts a new intake thread.
void restart_host_signal_intake(emu::Process& proc);
// Blocks again, in a thread pthread_create just started, what glibc unblocked there (its SIGCANCEL, 32):
// every emulator thread made with pthread_create calls it first. (glibc's first pthread_create also unblocks
// 32 and 33 in the thread that calls it, and sets its own handler for 33: the intake thread's start blocks
// them again and puts a64run's handler back.) The wake signal keeps its state.
void block_after_thread_start();
// For a host call that needs the process single-threaded (unshare and setns of a user namespace), from the
// guest's only thread, which must block every host signal first: ends the intake thread and waits until
// the host process has one thread left. The host threads of guest threads that have ended are waited for
// first (emu::Process::settle_leaving_threads). False (the intake thread kept) when that cannot be done
// (another host thread; a PID namespace for the children, after which no thread could start again); after a
// true, restart_host_signal_intake makes the next one. Nothing is lost meanwhile: the host sends only
// process-directed signals (kill, SIGCHLD, the timers', mq_notify's), which wait in the process's queue,
// and the only signals aimed at the intake thread's tid are a64run's markers, which the calling thread,
// with everything blocked, cannot send.
bool stop_host_signal_intake(emu::Process& proc);
void mirror_sigchld_action(const guest::sigaction& act);

// Returns once the intake thread has taken every host signal pending for the process when called (a
// marker signal queued behind them comes back). wait4/waitid call it after reaping a child: on Linux the
// child's SIGCHLD is pending before the child is waitable, so its handler runs before wait4 returns.
void sync_host_signals();

// True when a host signal is on its way to the guest: pending in the kernel for this process (or the calling
// thread), or taken by the intake thread and not yet queued as the guest's. A thread back from a host call
// that may have observed another process's work (data on a pipe, a file) calls it, and sync_host_signals
// when true, so that a signal sent before that work is handled before the guest sees the call's result, as
// on Linux (the kill makes the signal pending before the sender goes on). One rt_sigpending.
bool host_signals_in_flight();

// For a system call whose answer depends on host signals generated so far (sigpending, a zero-timeout
// sigtimedwait, a timer's re-arm or deletion, which drop its queued expiry): when host_signals_in_flight,
// sync_host_signals with t's run lock released (the intake thread may need it).
void settle_host_signals(emu::Task& t);

// From a signal handler: passes a host signal that a thread other than the intake thread took (the safe
// calls' wake signal, which guest threads leave unblocked, sent by another process) to the intake thread,
// which queues the guest signal as if it had taken it itself. (The kernel lets a thread queue a kill's
// siginfo, si_code SI_USER, to no thread but itself, so the siginfo waits in a slot and a marker signal
// names the slot.) Async-signal-safe.
void forward_to_intake(const siginfo_t& si);

}  // namespace signals
