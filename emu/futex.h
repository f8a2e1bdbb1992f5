// FutexTable: the emulator's futex wait queues, keyed by guest address (DESIGN.md section 3). Waits are
// parks, so a signal can end one like any other sleep. Each queue is checked and woken under its bucket's
// lock.
#pragma once

#include <time.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <list>
#include <mutex>

#include "emu/address_space.h"
#include "signals/park.h"

namespace emu {

struct FutexWaiter {
  uint64_t addr = 0;
  uint32_t bitset = 0;
  signals::Park* park = nullptr;
  int index = 0;  // position in a futex_waitv list
  // Set once, by the first wake, to the index of the entry that woke the waiter (-1: not woken). futex_waitv
  // entries sit in different buckets, so the result lives in the first entry and is atomic.
  std::atomic<int> winner{-1};
  FutexWaiter* group_first = nullptr;  // futex_waitv: the entry that holds `winner`
};

// What ends a wait early besides a wake: checked after every park return. Returns true to give up.
using InterruptCheck = std::function<bool()>;

class FutexTable {
 public:
  // FUTEX_WAIT(_BITSET): sleeps while the guest word at addr equals val. Returns 0 (woken), -EAGAIN (value
  // differs), -EFAULT, -ETIMEDOUT (deadline on `clock` passed) or -EINTR (interrupted).
  int64_t wait(AddressSpace& as, signals::Park& park, uint64_t addr, uint32_t val, uint32_t bitset,
               const timespec* deadline, clockid_t clock, const InterruptCheck& interrupted);
  // Wakes up to n waiters on addr whose bitset intersects `bitset`; returns how many.
  int64_t wake(uint64_t addr, int64_t n, uint32_t bitset);
  // FUTEX_(CMP_)REQUEUE: wakes nwake waiters on a1 and moves up to nrequeue others to a2.
  int64_t requeue(AddressSpace& as, uint64_t a1, uint64_t a2, int64_t nwake, int64_t nrequeue,
                  const uint32_t* cmpval);
  // FUTEX_WAKE_OP: atomically applies the encoded operation to the word at a2, wakes nwake on a1 and, if
  // the comparison on the old value holds, nwake2 on a2.
  int64_t wake_op(AddressSpace& as, uint64_t a1, uint64_t a2, int64_t nwake, int64_t nwake2,
                  uint32_t encoded);
  // futex_waitv: waits on several words at once; returns the index of the one that woke it.
  struct WaitvEntry {
    uint64_t addr;
    uint32_t val;
  };
  int64_t waitv(AddressSpace& as, signals::Park& park, const WaitvEntry* entries, int count,
                const timespec* deadline, clockid_t clock, const InterruptCheck& interrupted);

  // fork support: the child drops every waiter (their threads do not exist there).
  void reset_after_fork();
  // A process sharing these queues (a CLONE_VM relative) is about to die: its threads' waits, picked by
  // their parks, leave the queues so that wakes go to live waiters.
  void drop_waiters(const std::function<bool(const signals::Park*)>& dying);

 private:
  struct Bucket {
    std::mutex mu;
    std::list<FutexWaiter*> waiters;  // GUARDED_BY(mu)
  };
  static constexpr size_t kBuckets = 256;
  Bucket& bucket(uint64_t addr) { return buckets_[(addr >> 2) % kBuckets]; }
  int64_t wake_locked(Bucket& b, uint64_t addr, int64_t n, uint32_t bitset);

  std::array<Bucket, kBuckets> buckets_;
};

}  // namespace emu
