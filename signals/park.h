// Park: the one way a guest thread sleeps. A token-style park on a host futex word: unpark() makes the
// thread's current or next wait return at once, so a wake that races with the decision to sleep is never
// lost. Waiters always re-check their own predicate after a wait returns.
//
// Parks come from a pool and their memory is never freed (make/recycle), so an unpark may land after the
// parked thread has gone: a later owner's wait then returns once for nothing, which it tolerates. That lets
// a thread that holds the run lock post the token at once but leave the host futex wake, which costs the
// waker about 10 us on a virtual machine (an IPI to the sleeper's CPU), until it has released the lock: the
// woken thread wants the lock next, and found it held for the whole wake (WakeList).
#pragma once

#include <time.h>

#include <atomic>
#include <cstdint>

namespace signals {

class alignas(64) Park {
 public:
  static Park& make();
  static void recycle(Park& p);
  // fork: the pool's lock is held across the host fork (Process::prepare_fork).
  static void lock_pool();
  static void unlock_pool();

  // Waits for an unpark or until the absolute `deadline` on `clock` (CLOCK_MONOTONIC or CLOCK_REALTIME;
  // nullptr waits without a deadline). Returns true when unparked, false on timeout. With a `spin` budget
  // (futex waits: see spin_budget) it first looks for the token for that long, yielding the CPU between
  // looks, and only then sleeps in the host (a deadline can pass by up to the budget).
  bool wait(const timespec* deadline, clockid_t clock, uint64_t spin_ns = 0);
  void unpark();
  // The futex word behind the park, for a host futex_waitv that also ends on unpark(): it is 0 while
  // nothing is pending. consume() takes a pending unpark.
  uint32_t* word() { return reinterpret_cast<uint32_t*>(&token_); }
  bool consume() { return token_.exchange(0, std::memory_order_acquire) != 0; }

 private:
  std::atomic<uint32_t> token_{0};
};

// Futex wakes put off: while a thread defers into a list (RunLock's, for its holder with guest code in
// parallel), its unparks post their tokens at once and leave the host wake to the list's flush().
struct WakeList {
  static constexpr int kMax = 16;  // an unpark past this many wakes at once
  uint32_t* words[kMax];
  int count = 0;
  void flush();
};
// nullptr: the calling thread's unparks wake at once again.
void defer_wakes(WakeList* into);

// How long a futex wait (and a blocking read or receive, fd_wait.h's look_again) looks for its wake before
// it sleeps in the host, in nanoseconds: 5 us on a host with more than one CPU, 0 on one CPU (the waker
// cannot run while the waiter spins) or when the environment says A64RUN_FUTEX_SPIN_US=N (0 turns it off).
// A sleep and its wakeup cost each side 10-15 us of host scheduling on a virtual machine, so a partner that
// answers within the budget saves both.
uint64_t spin_budget();
// Whether this process may run on more than one CPU: its affinity at the first call (the first futex wait or
// run-lock wait, before the guest has usually changed it), kept from then on.
bool multi_cpu();

// Deadline helpers on CLOCK_MONOTONIC/REALTIME.
timespec now(clockid_t clock);
// CLOCK_MONOTONIC in nanoseconds (queueing and --signal-stats timestamps).
uint64_t now_ns();
timespec add(const timespec& a, const timespec& b);
bool before(const timespec& a, const timespec& b);
timespec sub_clamped(const timespec& a, const timespec& b);  // max(a - b, 0)

}  // namespace signals
