// This file implements the run lock's fair hand-off between vCPUs.
#include "emu/run_lock.h"

#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <new>

#include "emu/vcpu.h"

namespace emu {
namespace {

int64_t mono_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1'000'000'000LL + ts.tv_nsec;
}

bool multi_cpu() {
  static const bool yes = sysconf(_SC_NPROCESSORS_ONLN) > 1;
  return yes;
}

}  // namespace

void RunLock::acquire(Vcpu* self, bool priority) {
  std::unique_lock lk(mu_);
  if (holder_ == nullptr && queue_.empty()) {
    holder_ = self;
    return;
  }
  if (priority) {
    queue_.push_front(self);
  } else {
    queue_.push_back(self);
  }
  // Ask a holder that keeps running to yield at its next block: at once for a thread with a signal to take
  // (delivery latency is what a64run is for), after the minimum granularity for a woken thread, after a
  // full slice for a CPU-bound one. Asynchronous uc_emu_stop is never used (section 3).
  const auto wait = priority ? kWakeGranularity : kSlice;
  if (priority && self->has_request(Vcpu::kRequestSignal) && queue_.front() == self && holder_ != nullptr) {
    holder_.load()->request(Vcpu::kRequestYield);
  }
  if (priority && queue_.front() == self && multi_cpu()) {
    lk.unlock();
    const int64_t until = mono_ns() + std::chrono::nanoseconds(kSpin).count();
    // sched_yield, not a pause loop: the woken thread often lands on the holder's CPU, where spinning would
    // only keep the holder from releasing.
    while (holder_.load(std::memory_order_acquire) != self && mono_ns() < until) sched_yield();
    lk.lock();
  }
  while (holder_ != self) {
    Vcpu* seen = holder_;
    if (cv_.wait_for(lk, wait) == std::cv_status::timeout && holder_ == seen && seen != nullptr &&
        queue_.front() == self) {
      seen->request(Vcpu::kRequestYield);
    }
  }
}

void RunLock::release(Vcpu* self) {
  std::lock_guard lk(mu_);
  if (holder_ != self) return;
  if (queue_.empty()) {
    holder_ = nullptr;
    return;
  }
  holder_ = queue_.front();
  queue_.pop_front();
  cv_.notify_all();
}

void RunLock::reset_after_fork(Vcpu* self) {
  // Threads that were waiting are gone, but glibc's condvar still counts them: make it anew.
  new (&cv_) std::condition_variable();
  queue_.clear();
  holder_ = self;
  mu_.unlock();
}

}  // namespace emu
