// Park: the one way a guest thread sleeps. A token-style park on a host futex word: unpark() makes the
// thread's current or next wait return at once, so a wake that races with the decision to sleep is never
// lost. Waiters always re-check their own predicate after a wait returns.
#pragma once

#include <time.h>

#include <atomic>
#include <cstdint>

namespace signals {

class Park {
 public:
  // Waits for an unpark or until the absolute `deadline` on `clock` (CLOCK_MONOTONIC or CLOCK_REALTIME;
  // nullptr waits without a deadline). Returns true when unparked, false on timeout.
  bool wait(const timespec* deadline, clockid_t clock);
  void unpark();
  // The futex word behind the park, for a host futex_waitv that also ends on unpark(): it is 0 while
  // nothing is pending. consume() takes a pending unpark.
  uint32_t* word() { return reinterpret_cast<uint32_t*>(&token_); }
  bool consume() { return token_.exchange(0, std::memory_order_acquire) != 0; }

 private:
  std::atomic<uint32_t> token_{0};
};

// Deadline helpers on CLOCK_MONOTONIC/REALTIME.
timespec now(clockid_t clock);
// CLOCK_MONOTONIC in nanoseconds (queueing and --signal-stats timestamps).
uint64_t now_ns();
timespec add(const timespec& a, const timespec& b);
bool before(const timespec& a, const timespec& b);
timespec sub_clamped(const timespec& a, const timespec& b);  // max(a - b, 0)

}  // namespace signals
