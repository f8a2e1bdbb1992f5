// This file implements the futex wait queues and their operations.
#include "emu/futex.h"

#include <linux/futex.h>
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <new>

#include "emu/fault_access.h"
#include "emu/guest_mem.h"

namespace emu {
namespace {

// Reads the aligned 32-bit guest word at addr with acquire ordering. Caller holds the bucket lock.
int64_t load_word(AddressSpace& as, uint64_t addr, uint32_t* out) {
  std::shared_lock lk(as.lock());
  if (!as.accessible_locked(addr, 4, PROT_READ)) return -EFAULT;
  return fault_load32(reinterpret_cast<uint32_t*>(as.host(addr)), out) ? 0 : -EFAULT;
}

int32_t sign_extend12(uint32_t v) {
  return static_cast<int32_t>(v << 20) >> 20;
}

}  // namespace

int64_t FutexTable::wait(AddressSpace& as, signals::Park& park, uint64_t addr, uint32_t val, uint32_t bitset,
                         const timespec* deadline, clockid_t clock, const InterruptCheck& interrupted) {
  WaitvEntry e{addr, val};
  FutexWaiter w;
  w.addr = addr;
  w.bitset = bitset;
  w.park = &park;
  Bucket& b = bucket(addr);
  {
    std::lock_guard lk(b.mu);
    uint32_t cur;
    if (int64_t r = load_word(as, e.addr, &cur); r < 0) return r;
    if (cur != val) return -EAGAIN;
    b.waiters.push_back(&w);
  }
  while (true) {
    const bool unparked = park.wait(deadline, clock, signals::spin_budget());
    std::lock_guard lk(b.mu);
    if (w.winner.load(std::memory_order_acquire) >= 0) return 0;
    // A wake may have raced with the interrupt or the timeout; being still queued means it did not.
    if (!unparked || interrupted()) {
      b.waiters.remove(&w);
      return unparked ? -EINTR : -ETIMEDOUT;
    }
  }
}

int64_t FutexTable::wake_locked(Bucket& b, uint64_t addr, int64_t n, uint32_t bitset) {
  int64_t woken = 0;
  for (auto it = b.waiters.begin(); it != b.waiters.end() && woken < n;) {
    FutexWaiter* w = *it;
    if (w->addr != addr || !(w->bitset & bitset)) {
      ++it;
      continue;
    }
    it = b.waiters.erase(it);
    FutexWaiter* head = w->group_first ? w->group_first : w;
    int expected = -1;
    if (head->winner.compare_exchange_strong(expected, w->index, std::memory_order_acq_rel))
      head->park->unpark();
    ++woken;
  }
  return woken;
}

int64_t FutexTable::wake(uint64_t addr, int64_t n, uint32_t bitset) {
  if (n <= 0) return 0;
  Bucket& b = bucket(addr);
  std::lock_guard lk(b.mu);
  return wake_locked(b, addr, n, bitset);
}

int64_t FutexTable::requeue(AddressSpace& as, uint64_t a1, uint64_t a2, int64_t nwake, int64_t nrequeue,
                            const uint32_t* cmpval) {
  if (nwake < 0 || nrequeue < 0) return -EINVAL;
  Bucket& b1 = bucket(a1);
  Bucket& b2 = bucket(a2);
  std::unique_lock l1(b1.mu, std::defer_lock);
  std::unique_lock l2(b2.mu, std::defer_lock);
  if (&b1 == &b2) {
    l1.lock();
  } else {
    std::lock(l1, l2);
  }
  if (cmpval) {
    uint32_t cur;
    if (int64_t r = load_word(as, a1, &cur); r < 0) return r;
    if (cur != *cmpval) return -EAGAIN;
  }
  int64_t done = wake_locked(b1, a1, nwake, FUTEX_BITSET_MATCH_ANY);
  int64_t moved = 0;
  for (auto it = b1.waiters.begin(); it != b1.waiters.end() && moved < nrequeue;) {
    FutexWaiter* w = *it;
    if (w->addr != a1) {
      ++it;
      continue;
    }
    it = b1.waiters.erase(it);
    w->addr = a2;
    b2.waiters.push_back(w);
    ++moved;
  }
  return done + moved;
}

int64_t FutexTable::wake_op(AddressSpace& as, uint64_t a1, uint64_t a2, int64_t nwake, int64_t nwake2,
                            uint32_t encoded) {
  const uint32_t op = (encoded >> 28) & 7;
  const uint32_t cmp = (encoded >> 24) & 15;
  auto oparg = static_cast<uint32_t>(sign_extend12((encoded >> 12) & 0xfff));
  const int32_t cmparg = sign_extend12(encoded & 0xfff);
  if (encoded & (FUTEX_OP_OPARG_SHIFT << 28)) {
    if (oparg > 31) return -EINVAL;
    oparg = 1u << oparg;
  }
  if (op > FUTEX_OP_XOR || cmp > FUTEX_OP_CMP_GE) return -ENOSYS;
  Bucket& b1 = bucket(a1);
  Bucket& b2 = bucket(a2);
  std::unique_lock l1(b1.mu, std::defer_lock);
  std::unique_lock l2(b2.mu, std::defer_lock);
  if (&b1 == &b2) {
    l1.lock();
  } else {
    std::lock(l1, l2);
  }
  int32_t old;
  {
    std::shared_lock lk(as.lock());
    if ((a2 & 3) || !as.accessible_locked(a2, 4, PROT_READ | PROT_WRITE)) return -EFAULT;
    auto* p = reinterpret_cast<uint32_t*>(as.host(a2));
    uint32_t prev;
    if (!fault_load32(p, &prev)) return -EFAULT;
    uint32_t next;
    int swapped;
    do {
      switch (op) {
        case FUTEX_OP_SET:
          next = oparg;
          break;
        case FUTEX_OP_ADD:
          next = prev + oparg;
          break;
        case FUTEX_OP_OR:
          next = prev | oparg;
          break;
        case FUTEX_OP_ANDN:
          next = prev & ~oparg;
          break;
        default:
          next = prev ^ oparg;
          break;
      }
    } while ((swapped = fault_cas32(p, &prev, next)) == 0);
    if (swapped < 0) return -EFAULT;
    old = static_cast<int32_t>(prev);
  }
  int64_t done = wake_locked(b1, a1, nwake, FUTEX_BITSET_MATCH_ANY);
  bool hit = false;
  switch (cmp) {
    case FUTEX_OP_CMP_EQ:
      hit = old == cmparg;
      break;
    case FUTEX_OP_CMP_NE:
      hit = old != cmparg;
      break;
    case FUTEX_OP_CMP_LT:
      hit = old < cmparg;
      break;
    case FUTEX_OP_CMP_LE:
      hit = old <= cmparg;
      break;
    case FUTEX_OP_CMP_GT:
      hit = old > cmparg;
      break;
    default:
      hit = old >= cmparg;
      break;
  }
  if (hit) done += wake_locked(b2, a2, nwake2, FUTEX_BITSET_MATCH_ANY);
  return done;
}

int64_t FutexTable::waitv(AddressSpace& as, signals::Park& park, const WaitvEntry* entries, int count,
                          const timespec* deadline, clockid_t clock, const InterruptCheck& interrupted) {
  std::unique_ptr<FutexWaiter[]> ws(new FutexWaiter[static_cast<size_t>(count)]);
  auto dequeue_all = [&](int upto) {
    for (int i = 0; i < upto; ++i) {
      Bucket& b = bucket(ws[static_cast<size_t>(i)].addr);
      std::lock_guard lk(b.mu);
      b.waiters.remove(&ws[static_cast<size_t>(i)]);
    }
  };
  for (int i = 0; i < count; ++i) {
    FutexWaiter& w = ws[static_cast<size_t>(i)];
    w.addr = entries[i].addr;
    w.bitset = FUTEX_BITSET_MATCH_ANY;
    w.park = &park;
    w.index = i;
    w.group_first = i ? &ws[0] : nullptr;
    Bucket& b = bucket(w.addr);
    std::unique_lock lk(b.mu);
    uint32_t cur;
    int64_t r = load_word(as, w.addr, &cur);
    if (r == 0 && cur != entries[i].val) r = -EAGAIN;
    if (r < 0) {
      lk.unlock();
      dequeue_all(i);
      return r;
    }
    b.waiters.push_back(&w);
  }
  while (true) {
    const bool unparked = park.wait(deadline, clock, signals::spin_budget());
    if (ws[0].winner.load(std::memory_order_acquire) >= 0 || !unparked || interrupted()) {
      dequeue_all(count);  // after this no waker can reach an entry, so `winner` is final
      const int winner = ws[0].winner.load(std::memory_order_acquire);
      if (winner >= 0) return winner;
      return unparked ? -EINTR : -ETIMEDOUT;
    }
  }
}

void FutexTable::reset_after_fork() {
  // Another thread may have held a bucket, mid-update, at the fork: its lock and list are made anew rather
  // than unlocked or walked (the few nodes left behind are the parent's). Their waiters are not here.
  for (Bucket& b : buckets_) {
    new (&b.mu) std::mutex();
    new (&b.waiters) std::list<FutexWaiter*>();
  }
}

void FutexTable::drop_waiters(const std::function<bool(const signals::Park*)>& dying) {
  for (Bucket& b : buckets_) {
    std::lock_guard lk(b.mu);
    b.waiters.remove_if([&](const FutexWaiter* w) { return dying(w->park); });
  }
}

}  // namespace emu
