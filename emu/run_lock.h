// RunLock: one thread at a time does the emulator's work for its guest thread: system calls, signal delivery
// and fault handling (blocking waits inside them release it). Guest code itself runs in parallel on every
// vCPU, with parallel atomics (emu/parallel_atomics.cpp) and the code gate for memory-map changes
// (emu/code_gate.h). Where parallel atomics are unavailable (Unicorn linked as a shared library), guest
// code runs under this lock as well, one vCPU at a time, as DESIGN.md section 3 first had it, and a CPU-bound
// holder yields when asked (Task::run).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>

#include "signals/park.h"

namespace emu {

class Vcpu;

class RunLock {
 public:
  // How long a CPU-bound holder runs while others wait, and how long a woken thread (priority) lets the
  // holder run before asking it to yield.
  static constexpr std::chrono::microseconds kSlice{2000};
  static constexpr std::chrono::microseconds kWakeGranularity{50};
  // How long a woken thread at the front of the queue waits for the lock with sched_yield before it sleeps
  // on its grant word, on a host with more than one CPU: the holder is usually on its way into a wait, and
  // the sleep adds a host wakeup (about 10 us on this project's machine) to every hand-off.
  static constexpr std::chrono::microseconds kSpin{30};

  // Blocks until `self` holds the lock. `priority` puts the caller at the front of the queue (a thread that
  // just woke from a park or has a signal to take): latency is the product.
  void acquire(Vcpu* self, bool priority);
  void release(Vcpu* self);
  bool held_by(const Vcpu* v) const { return holder_.load(std::memory_order_acquire) == v; }

  // fork support (Process::prepare_fork): hold the internal mutex across the host fork; in the child the
  // caller is the only thread and the holder.
  void lock_internal() { mu_.lock(); }
  void unlock_internal() { mu_.unlock(); }
  void reset_after_fork(Vcpu* self);

  // A process sharing this lock (a CLONE_VM relative) is about to die: the vCPUs `dying` picks leave the
  // queue, the lock passes on if one of them holds it, and they never get it again (their threads, which
  // the host kills at any point, park in acquire until then).
  void evict(const std::function<bool(const Vcpu*)>& dying);
  // Wakes `v`'s thread if it waits for the lock, so that it looks at its requests (Vcpu::death): a spurious
  // wake, after which it waits again.
  void nudge(Vcpu* v);

 private:
  void waited_too_long(Vcpu* self, Vcpu* seen);
  // With guest code in parallel: a plain lock on word_ (0 free, 1 held, 2 held with sleepers) that a thread
  // may take while another is handing it over. Holds are short (a system call's work), so a queue that hands
  // the lock to the longest waiter made a convoy: every hand-off waited for a host wakeup, and a signal
  // storm between five threads ran 5x slower than with one thread at a time.
  void acquire_parallel(Vcpu* self);
  void release_parallel();

  std::mutex mu_;
  std::atomic<Vcpu*> holder_{nullptr};  // written under mu_; waiters also read it without mu_
  // GUARDED_BY(mu_): the first `priority_waiters_` entries are priority waiters, then the others, each group
  // in arrival order. (Pushing each priority waiter to the very front starved the earlier ones: in a Go
  // program, where threads wake all the time, one waited 9 ms while the lock went to 59 later arrivals.)
  std::deque<Vcpu*> queue_;
  size_t priority_waiters_ = 0;
  std::atomic<uint32_t> word_{0};
  std::atomic<int> holder_pid_{0};          // the host process of the parallel-mode holder
  std::atomic<bool> parallel_held_{false};  // the holder took word_ (evict reads it for a dead holder)
  // The parallel-mode holder's unparks (signals::WakeList): woken after release, so the woken thread does
  // not find the lock held through the waker's host wake. Evict wakes a dead holder's for it.
  signals::WakeList deferred_wakes_;
};

// Releases the run lock for the duration of a blocking wait or host call, then reacquires it with priority.
// kLeaveReleased: with guest code in parallel, the lock stays released: for a wait whose handler touches only
// its own thread's state afterwards, so the woken thread returns to guest code without waiting for a lock
// the waker often still holds (Vcpu::on_interrupt takes it again if a signal is to be delivered).
// Every releaser also marks its vCPU (Vcpu::mark_host_call): its system call made a host call that may sleep
// or see what another process did, so the way back to guest code settles host signals first.
class RunLockReleaser {
 public:
  enum Then { kReacquire, kLeaveReleased };
  RunLockReleaser(RunLock& lock, Vcpu* self, Then then = kReacquire);
  ~RunLockReleaser();
  RunLockReleaser(const RunLockReleaser&) = delete;
  RunLockReleaser& operator=(const RunLockReleaser&) = delete;

 private:
  RunLock& lock_;
  Vcpu* self_;
  Then then_;
};

}  // namespace emu
