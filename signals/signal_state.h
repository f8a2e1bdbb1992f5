// Signal state after Linux and gVisor: per process the actions, the shared pending queue and sig_lock; per
// thread the blocked mask, the private pending queue, the altstack and a mask to restore after
// sigsuspend-like waits. All of it is guarded by the process's sig_lock.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "syscalls/abi/siginfo.h"
#include "syscalls/abi/signal.h"

namespace signals {

using guest::sig_bit;
using guest::sigset_t;

inline constexpr int kNumSignals = 64;

// What SIG_DFL does for each signal (signal(7)).
enum class DefaultAction { kTerminate, kCore, kIgnore, kStop, kContinue };
DefaultAction default_action(int sig);

struct PendingSignal {
  guest::siginfo info{};
  uint64_t queued_ns = 0;  // CLOCK_MONOTONIC when queued, for --signal-stats
  int32_t timer = -1;      // the POSIX timer that queued it (its expiries while queued count as overruns)
  uint32_t timer_seq = 0;  // that timer's arming when queued: a signal of an earlier arming is dropped
};

// A pending set with its queued siginfo: standard signals at most once (they coalesce), RT signals in
// arrival order, each with its own siginfo.
class PendingQueue {
 public:
  sigset_t set() const { return set_; }
  bool has(int sig) const { return set_ & sig_bit(sig); }
  void push(const PendingSignal& p);
  // Removes the oldest entry for sig; returns false when there is none. A POSIX timer's signal whose timer
  // was re-armed or deleted since is dropped on the way, as Linux 6.13 and later do.
  bool take(int sig, PendingSignal* out);
  // Drops every entry for sig (a signal becoming ignored); returns how many RT entries went.
  size_t discard(int sig);
  size_t size() const { return items_.size(); }
  const std::deque<PendingSignal>& items() const { return items_; }
  // The queued signal of POSIX timer `id`, or null.
  PendingSignal* find_timer(int32_t id);

 private:
  sigset_t set_ = 0;
  std::deque<PendingSignal> items_;
};

struct ThreadSignals {
  sigset_t blocked = 0;
  PendingQueue pending;
  guest::stack_t altstack{0, guest::kSS_DISABLE, 0, 0};
  // sigsuspend, ppoll, pselect6 and epoll_pwait install a temporary mask; the signal frame saves this one
  // (or it is restored on return when no handler runs).
  bool has_saved_mask = false;
  sigset_t saved_mask = 0;
  // rt_sigtimedwait's own mask while it waits with its set unblocked (Linux's real_blocked): a signal
  // blocked here is still "blocked" for the ignored-signal check, so it is queued for the wait to take.
  sigset_t real_blocked = 0;
};

// The signal actions and the lock over all signal state, shared by the processes of a CLONE_SIGHAND clone
// without CLONE_THREAD (Linux's sighand_struct, whose siglock is sig_lock here).
struct SignalHandlers {
  std::mutex lock;
  guest::sigaction actions[kNumSignals] = {};  // GUARDED_BY(lock), index sig - 1
};

struct ProcessSignals {
  ProcessSignals() : ProcessSignals(std::make_shared<SignalHandlers>()) {}
  explicit ProcessSignals(std::shared_ptr<SignalHandlers> h)
      : handlers(std::move(h)), sig_lock(handlers->lock), actions(handlers->actions) {}
  ProcessSignals(const ProcessSignals&) = delete;
  ProcessSignals& operator=(const ProcessSignals&) = delete;

  std::shared_ptr<SignalHandlers> handlers;
  std::mutex& sig_lock;
  guest::sigaction (&actions)[kNumSignals];  // GUARDED_BY(sig_lock), index sig - 1
  PendingQueue shared;                       // GUARDED_BY(sig_lock)
  size_t queued = 0;                         // GUARDED_BY(sig_lock): against RLIMIT_SIGPENDING
};

// on_sig_stack(): sp lies on the enabled altstack (sp > base and sp - base <= size, as Linux counts).
inline bool on_altstack(const guest::stack_t& ss, uint64_t sp) {
  return !(ss.ss_flags & guest::kSS_DISABLE) && sp > ss.ss_sp && sp - ss.ss_sp <= ss.ss_size;
}

// A pending signal that an execve keeps (signals.h, exec_pending_fd): on the process's shared queue or on
// the exec'ing thread's own.
struct ExecPendingSignal {
  bool shared = false;
  guest::siginfo info{};
};
using ExecPending = std::vector<ExecPendingSignal>;

// The signal of `set` taken first (kernel/signal.c next_signal): a synchronous one (SIGSEGV, SIGBUS, SIGILL,
// SIGTRAP, SIGFPE, SIGSYS), else the lowest number; 0 for an empty set. Linux's dequeue_signal takes from
// the thread's own queue before the process's shared one: callers pick in `own` first.
int next_signal(sigset_t set);

// True when sig's current action discards it (SIG_IGN, or SIG_DFL with a default of ignore).
bool is_ignored(const guest::sigaction& a, int sig);

}  // namespace signals
