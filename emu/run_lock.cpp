// This file implements the run lock's fair hand-off between vCPUs.
#include "emu/run_lock.h"

#include <dirent.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "emu/parallel_atomics.h"
#include "emu/vcpu.h"
#include "signals/park.h"

namespace emu {
namespace {

// A thread's state from /proc/.../stat: the letter after the command's closing parenthesis.
char thread_state(const std::string& stat_path) {
  FILE* f = ::fopen(stat_path.c_str(), "re");
  if (f == nullptr) return 'X';
  char buf[512];
  const size_t n = ::fread(buf, 1, sizeof buf - 1, f);
  ::fclose(f);
  buf[n] = '\0';
  const char* paren = ::strrchr(buf, ')');
  return paren != nullptr && paren[1] == ' ' ? paren[2] : 'X';
}

// True when pid, another host process, has no thread that lives on (a zombie, or reaped): a CLONE_VM
// relative killed by SIGKILL while its vCPU held the lock, for which exit_group's eviction never ran. (A
// zombie leader alone is no proof: the leader may have exited with its threads still running.)
bool died_elsewhere(int pid) {
  if (pid <= 0) return false;
  const std::string dir = "/proc/" + std::to_string(pid) + "/task";
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return errno == ENOENT;
  bool alive = false;
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;
    const char st = thread_state(dir + "/" + e->d_name + "/stat");
    if (st != 'Z' && st != 'X') {
      alive = true;
      break;
    }
  }
  ::closedir(d);
  return !alive;
}

}  // namespace

void RunLock::acquire_parallel(Vcpu* self) {
  uint32_t c = 0;
  for (int spin = 0; spin < 256; ++spin) {
    c = 0;
    if (word_.compare_exchange_weak(c, 1, std::memory_order_acquire, std::memory_order_relaxed)) break;
    __builtin_ia32_pause();
  }
  if (c != 0) {
    const timespec ts{0, std::chrono::nanoseconds(kSlice).count()};
    while ((c = word_.exchange(2, std::memory_order_acquire)) != 0) {
      Vcpu* seen = holder_.load(std::memory_order_acquire);
      const long r = ::syscall(SYS_futex, &word_, FUTEX_WAIT_PRIVATE, 2, &ts, nullptr, 0);
      // A holder of another host process that has held it for a whole wait may have died (a CLONE_VM
      // relative killed by SIGKILL). Its pid was recorded when it took the lock: the holder's own objects
      // may be gone by now (a thread of this process that exited).
      const int pid = holder_pid_.load(std::memory_order_acquire);
      if (r != 0 && errno == ETIMEDOUT && seen != nullptr && pid != self->host_pid() && died_elsewhere(pid))
        evict([pid](const Vcpu* v) { return v->host_pid() == pid; });
      if (self->run_evicted().load(std::memory_order_relaxed)) {
        while (true) ::pause();  // the host is ending this thread's process
      }
      self->park_if_dying();  // a wait for the lock is a safe point (Vcpu::death)
    }
  }
  holder_pid_.store(self->host_pid(), std::memory_order_release);
  holder_.store(self, std::memory_order_release);
  parallel_held_ = true;
  signals::defer_wakes(&deferred_wakes_);
}

void RunLock::release_parallel() {
  signals::WakeList wakes = deferred_wakes_;  // the next holder defers into deferred_wakes_
  deferred_wakes_.count = 0;
  signals::defer_wakes(nullptr);
  parallel_held_ = false;
  holder_.store(nullptr, std::memory_order_release);
  if (word_.exchange(0, std::memory_order_release) == 2) {
    const int saved_errno = errno;
    ::syscall(SYS_futex, &word_, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
    errno = saved_errno;
  }
  wakes.flush();
}

void RunLock::acquire(Vcpu* self, bool priority) {
  const int saved_errno = errno;  // callers read the errno of the host call they made without the lock
  self->park_if_dying();
  if (parallel_guest_code()) {
    if (self->run_evicted().load(std::memory_order_relaxed)) {
      while (true) ::pause();  // the host is ending this thread's process
    }
    acquire_parallel(self);
    errno = saved_errno;
    return;
  }
  std::unique_lock lk(mu_);
  if (self->run_evicted().load(std::memory_order_relaxed)) {
    lk.unlock();
    while (true) ::pause();  // the host is ending this thread's process
  }
  if (holder_ == nullptr && queue_.empty()) {
    holder_ = self;
    return;
  }
  self->run_grant().store(0, std::memory_order_relaxed);
  // A thread with a signal to take goes first (delivery latency is what a64run is for), a woken one after
  // the woken ones already waiting, a CPU-bound one last.
  const bool signal = priority && self->has_request(Vcpu::kRequestSignal);
  if (signal) {
    queue_.push_front(self);
    ++priority_waiters_;
  } else if (priority) {
    queue_.insert(queue_.begin() + static_cast<std::ptrdiff_t>(priority_waiters_++), self);
  } else {
    queue_.push_back(self);
  }
  // Ask a holder that keeps running to yield at its next block: at once for a thread with a signal to take,
  // after the minimum granularity for a woken thread, after a full slice for a CPU-bound one.
  const auto wait = priority ? kWakeGranularity : kSlice;
  if (signal && holder_ != nullptr) holder_.load()->request(Vcpu::kRequestYield);
  const bool spin = priority && queue_.front() == self && signals::multi_cpu();
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
    if (r != 0 && errno == ETIMEDOUT && seen != nullptr) waited_too_long(self, seen);
    self->park_if_dying();  // still queued: the ender's eviction takes this vCPU out
  }
  errno = saved_errno;
}

// The holder has kept the lock for a whole wait: asks it to yield (the lock then goes to the front of the
// queue, whoever asked: the front waiter may itself be waiting for a host CPU, and asking only from there
// let holders run on for milliseconds), or, when it is a CLONE_VM relative's vCPU whose host process has
// died, evicts that process.
void RunLock::waited_too_long(Vcpu* self, Vcpu* seen) {
  int pid;
  {
    std::lock_guard lk(mu_);
    if (holder_ != seen) return;  // `seen` may be back in a pool, or gone, by now
    pid = seen->host_pid();
  }
  if (pid != self->host_pid() && died_elsewhere(pid)) {
    evict([pid](const Vcpu* v) { return v->host_pid() == pid; });
    return;
  }
  std::lock_guard lk(mu_);
  if (holder_ == seen) seen->request(Vcpu::kRequestYield);
}

void RunLock::release(Vcpu* self) {
  if (holder_.load(std::memory_order_acquire) == self && parallel_held_) {
    release_parallel();
    return;
  }
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
    if (priority_waiters_ > 0) --priority_waiters_;
    holder_.store(next, std::memory_order_release);
    next->run_grant().store(1, std::memory_order_release);
  }
  const int saved_errno = errno;
  ::syscall(SYS_futex, &next->run_grant(), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
  errno = saved_errno;
}

RunLockReleaser::RunLockReleaser(RunLock& lock, Vcpu* self, Then then)
    : lock_(lock), self_(self), then_(then) {
  lock_.release(self_);
  if (self_ != nullptr) self_->mark_host_call();
}

RunLockReleaser::~RunLockReleaser() {
  if (then_ == kLeaveReleased && parallel_guest_code()) return;
  lock_.acquire(self_, true);
}

void RunLock::evict(const std::function<bool(const Vcpu*)>& dying) {
  Vcpu* holder = nullptr;
  {
    std::lock_guard lk(mu_);
    for (size_t i = 0; i < queue_.size();) {
      Vcpu* v = queue_[i];
      if (!dying(v)) {
        ++i;
        continue;
      }
      v->run_evicted().store(true, std::memory_order_relaxed);
      queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(i));
      if (i < priority_waiters_) --priority_waiters_;
    }
    holder = holder_.load();
    if (holder == nullptr || !dying(holder)) return;
    holder->run_evicted().store(true, std::memory_order_relaxed);
  }
  if (parallel_held_) {
    release_parallel();  // on the dead holder's behalf
    return;
  }
  release(holder);
}

void RunLock::nudge(Vcpu* v) {
  const int saved_errno = errno;
  // Every waiter of word_ wakes (they cannot be told apart), finds the lock still held, and waits again.
  if (word_.load(std::memory_order_relaxed) == 2)
    ::syscall(SYS_futex, &word_, FUTEX_WAKE_PRIVATE, INT32_MAX, nullptr, nullptr, 0);
  ::syscall(SYS_futex, &v->run_grant(), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
  errno = saved_errno;
}

void RunLock::reset_after_fork(Vcpu* self) {
  // Threads that were waiting are gone.
  queue_.clear();
  priority_waiters_ = 0;
  holder_ = self;
  if (parallel_held_) word_.store(1, std::memory_order_relaxed);  // no sleepers survived the fork
  mu_.unlock();
}

}  // namespace emu
