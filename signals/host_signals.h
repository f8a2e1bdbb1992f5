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

// Who acts on a host signal the intake thread took (queues the guest signal): the intake thread itself, in
// its own descriptor table, until a worker takes over in the process's table, at the process's first
// signalfd (whose readiness byte is written by number). The invariant, a Dekker handshake (its four accesses
// seq_cst): the intake thread marks itself acting before it looks at the mode and clears the mark once the
// signal is queued; the switch sets the mode before it looks at the mark and waits for it to clear. So
// either the intake thread sees the worker's mode and hands the signal over, or the switch waits until the
// intake thread has queued it: once to_worker() returns, the intake thread queues nothing itself.
class ActorSwitch {
 public:
  // The intake thread, for each signal it took: true when it acts on it itself (end_self_act after).
  bool begin_self_act() {
    acting_.store(1, std::memory_order_seq_cst);
    if (mode_.load(std::memory_order_seq_cst) != kWorker) return true;
    end_self_act();
    return false;
  }
  void end_self_act() {
    acting_.store(0, std::memory_order_seq_cst);
    acting_.notify_all();
  }
  bool worker() const { return mode_.load(std::memory_order_acquire) == kWorker; }
  // True when the caller is to start the worker (then to_worker or abandon); false when a worker acts
  // already. A caller that finds another starting one waits for its end.
  bool claim() {
    int mode = mode_.load(std::memory_order_acquire);
    while (mode != kWorker) {
      if (mode == kStarting) {
        mode_.wait(kStarting, std::memory_order_acquire);
      } else if (mode_.compare_exchange_strong(mode, kStarting, std::memory_order_acquire)) {
        return true;
      }
      mode = mode_.load(std::memory_order_acquire);
    }
    return false;
  }
  // The worker is up: returns once the intake thread acts on nothing itself.
  void to_worker() {
    mode_.store(kWorker, std::memory_order_seq_cst);
    mode_.notify_all();
    while (acting_.load(std::memory_order_seq_cst) != 0) acting_.wait(1, std::memory_order_acquire);
  }
  void abandon() {
    mode_.store(kSelf, std::memory_order_release);
    mode_.notify_all();
  }
  // A fork child (the old intake thread is gone, a start it was in is over) and a restart.
  void reset(bool worker) {
    acting_.store(0, std::memory_order_relaxed);
    mode_.store(worker ? kWorker : kSelf, std::memory_order_relaxed);
  }

 private:
  static constexpr int kSelf = 0;
  static constexpr int kStarting = 1;  // the intake thread still acts itself
  static constexpr int kWorker = 2;
  std::atomic<int> mode_{kSelf};
  std::atomic<int> acting_{0};
};

// A process's intake thread and the counters its waiters read (emu::Process::intake). tid, pid and
// forward_state are plain ints read and written only with the __atomic builtins: forward_to_intake uses them
// from a signal handler that ThreadSanitizer does not see, and std::atomic's member functions are
// instrumented calls there.
struct HostIntake {
  int tid = 0;     // the intake thread: it takes host signals off the kernel's queue (the markers' target)
  int worker = 0;  // its worker, once it has one: it acts on each, in the process's descriptor table
  int pid = 0;
  ActorSwitch actor;  // the intake thread, or its worker once the process has a signalfd
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
// host SIGPIPE (the syscall layer raises the guest's), and starts the intake thread for proc without
// waiting for it: it comes up while the caller loads the program and makes its first vCPU. The intake
// thread takes no host signal before open_host_signal_intake.
void start_host_signal_intake(emu::Process& proc);
// After the main thread is registered, before any guest code: waits until the intake thread is up (hidden
// from the /proc views, its own descriptor table made) and lets it take host signals (one sent while
// a64run was starting must find a thread to make it pending for).
void open_host_signal_intake(emu::Process& proc);
// In a fork child (only the forking thread survives) and in a CLONE_VM child: starts a new intake thread,
// and its worker when the process has signalfds.
void restart_host_signal_intake(emu::Process& proc);
// Before the process's first signalfd, from the guest thread that makes it (whose descriptor table holds
// the signalfd's pipe): starts the intake thread's worker, waits until it is up (hidden from the /proc
// views) and until the intake thread acts on no signal itself any more; from then on the worker acts on
// each. At once when it is up already, or when this host process has no intake thread. False when the host
// refuses the thread (RLIMIT_NPROC; a PID namespace for the children, so a64run starts it before one).
bool start_intake_worker(emu::Process& proc);
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
