// This file implements the run lock's fair hand-off between vCPUs.
#include "emu/run_lock.h"

#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "emu/vcpu.h"
#include "signals/park.h"

namespace emu {
namespace {

bool multi_cpu() {
  static const bool yes = sysconf(_SC_NPROCESSORS_ONLN) > 1;
  return yes;
}

}  // namespace

void RunLock::acquire(Vcpu* self, bool priority) {
  const int saved_errno = errno;  // callers read the errno of the host call they made without the lock
  std::unique_lock lk(mu_);
  if (holder_ == nullptr && queue_.empty()) {
    holder_ = self;
    return;
  }
  self->run_grant().store(0, std::memory_order_relaxed);
  if (priority) {
    queue_.push_front(self);
  } else {
    queue_.push_back(self);
  }
  // Ask a holder that keeps running to yield at its next block: at once for a thread with a signal to take
  // (delivery latency is what a64run is for), after the minimum granularity for a woken thread, after a
  // full slice for a CPU-bound one.
  const auto wait = priority ? kWakeGranularity : kSlice;
  if (priority && self->has_request(Vcpu::kRequestSignal) && queue_.front() == self && holder_ != nullptr) {
    holder_.load()->request(Vcpu::kRequestYield);
  }
  const bool spin = priority && queue_.front() == self && multi_cpu();
  lk.unlock();
  if (spin) {
    const uint64_t until = signals::now_ns() + std::chrono::nanoseconds(kSpin).count();
    // sched_yield, not a pause loop: the woken thread often lands on the holder's CPU, where spinning would
    // only keep the holder from releasing.
    while (holder_.load(std::memory_order_acquire) != self && signals::now_ns() < until) sched_yield();
  }
  // Then sleep on this thread's own grant word: release() wakes only the thread it hands the lock to (a
  // shared condvar woke every waiter at every hand-off, and they fought over mu_).
  const timespec ts{0, std::chrono::nanoseconds(wait).count()};
  while (holder_.load(std::memory_order_acquire) != self) {
    Vcpu* seen = holder_.load(std::memory_order_acquire);
    const long r = ::syscall(SYS_futex, &self->run_grant(), FUTEX_WAIT_PRIVATE, 0, &ts, nullptr, 0);
    if (r != 0 && errno == ETIMEDOUT) {
      lk.lock();
      if (holder_ == seen && seen != nullptr && !queue_.empty() && queue_.front() == self)
        seen->request(Vcpu::kRequestYield);
      lk.unlock();
    }
  }
  errno = saved_errno;
}

void RunLock::release(Vcpu* self) {
  Vcpu* next = nullptr;
  {
    std::lock_guard lk(mu_);
    if (holder_ != self) return;
    if (queue_.empty()) {
      holder_ = nullptr;
      return;
    }
    next = queue_.front();
    queue_.pop_front();
    holder_.store(next, std::memory_order_release);
    next->run_grant().store(1, std::memory_order_release);
  }
  const int saved_errno = errno;
  ::syscall(SYS_futex, &next->run_grant(), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
  errno = saved_errno;
}

void RunLock::reset_after_fork(Vcpu* self) {
  // Threads that were waiting are gone.
  queue_.clear();
  holder_ = self;
  mu_.unlock();
}

}  // namespace emu
