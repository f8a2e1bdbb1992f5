// This file implements parks on host futex words.
#include "signals/park.h"

#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <vector>

namespace signals {
namespace {

std::mutex g_pool_mu;
std::vector<Park*> g_pool;  // GUARDED_BY(g_pool_mu): recycled parks

thread_local WakeList* t_defer_into = nullptr;

void futex_wake(uint32_t* word) {
  const int saved_errno = errno;
  ::syscall(SYS_futex, word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, nullptr, nullptr, 0);
  errno = saved_errno;
}

}  // namespace

Park& Park::make() {
  {
    std::lock_guard lk(g_pool_mu);
    if (!g_pool.empty()) {
      Park* p = g_pool.back();
      g_pool.pop_back();
      p->token_.store(0, std::memory_order_relaxed);
      return *p;
    }
  }
  return *new Park;  // never deleted: see the class comment
}

void Park::recycle(Park& p) {
  std::lock_guard lk(g_pool_mu);
  g_pool.push_back(&p);
}

void Park::lock_pool() {
  g_pool_mu.lock();
}

void Park::unlock_pool() {
  g_pool_mu.unlock();
}

void defer_wakes(WakeList* into) {
  t_defer_into = into;
}

void WakeList::flush() {
  for (int i = 0; i < count; ++i) futex_wake(words[i]);
  count = 0;
}

bool Park::wait(const timespec* deadline, clockid_t clock, uint64_t spin_ns) {
  if (spin_ns != 0) {
    // sched_yield between looks, not a pause loop: on a busy host the waker may be queued for this CPU.
    const uint64_t until = now_ns() + spin_ns;
    do {
      if (token_.load(std::memory_order_relaxed) != 0 && token_.exchange(0, std::memory_order_acquire) != 0)
        return true;
      sched_yield();
    } while (now_ns() < until);
  }
  while (token_.exchange(0, std::memory_order_acquire) == 0) {
    const int op =
        FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG | (clock == CLOCK_REALTIME ? FUTEX_CLOCK_REALTIME : 0);
    const long r = ::syscall(SYS_futex, &token_, op, 0u, deadline, nullptr, FUTEX_BITSET_MATCH_ANY);
    if (r != 0 && errno == ETIMEDOUT) return token_.exchange(0, std::memory_order_acquire) != 0;
  }
  return true;
}

void Park::unpark() {
  if (token_.exchange(1, std::memory_order_release) != 0) return;  // woken already, or not waiting yet
  if (WakeList* list = t_defer_into; list != nullptr && list->count < WakeList::kMax) {
    list->words[list->count++] = word();
    return;
  }
  futex_wake(word());
}

bool multi_cpu() {
  // The CPUs this process may run on (taskset, a cgroup's cpuset), not the host's: spinning for a waker
  // that can only run on this CPU once it yields costs a sched_yield each look (on one allowed CPU, a Go
  // signal round trip took 45 us with the spin and 32 us without).
  static const bool yes = [] {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set) > 1;
    return sysconf(_SC_NPROCESSORS_ONLN) > 1;  // more CPUs than a cpu_set_t holds
  }();
  return yes;
}

uint64_t spin_budget() {
  static const uint64_t budget = [] {
    if (const char* us = getenv("A64RUN_FUTEX_SPIN_US"))
      return static_cast<uint64_t>(std::strtoull(us, nullptr, 10)) * 1000;
    return multi_cpu() ? uint64_t{5000} : 0;
  }();
  return budget;
}

timespec now(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return ts;
}

uint64_t now_ns() {
  const timespec ts = now(CLOCK_MONOTONIC);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

timespec add(const timespec& a, const timespec& b) {
  // Saturates at the largest time: a guest's relative sleep of up to 2^63-1 s from now is a sleep forever.
  constexpr timespec kLast{std::numeric_limits<time_t>::max(), 999'999'999};
  timespec r{};
  if (__builtin_add_overflow(a.tv_sec, b.tv_sec, &r.tv_sec)) return kLast;
  r.tv_nsec = a.tv_nsec + b.tv_nsec;
  if (r.tv_nsec >= 1'000'000'000) {
    if (r.tv_sec == kLast.tv_sec) return kLast;
    r.tv_sec += 1;
    r.tv_nsec -= 1'000'000'000;
  }
  return r;
}

bool before(const timespec& a, const timespec& b) {
  return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec < b.tv_nsec);
}

timespec sub_clamped(const timespec& a, const timespec& b) {
  if (!before(b, a)) return {0, 0};
  timespec r{a.tv_sec - b.tv_sec, a.tv_nsec - b.tv_nsec};
  if (r.tv_nsec < 0) {
    r.tv_sec -= 1;
    r.tv_nsec += 1'000'000'000;
  }
  return r;
}

}  // namespace signals
