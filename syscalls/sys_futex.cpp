// This file decodes futex operations and runs them on emu::FutexTable. Waits release the run lock and park,
// so a signal (Task::interrupted) ends them.
#include "syscalls/sys_futex.h"

#include <linux/futex.h>
#include <sys/mman.h>
#include <time.h>

#include "signals/signals.h"
#include "syscalls/host_futex.h"

#include <vector>

namespace syscalls {
namespace {

struct GuestTimespec {
  int64_t tv_sec;
  int64_t tv_nsec;
};

// Reads a guest timespec; -EFAULT or -EINVAL for a bad pointer or value.
int64_t read_timespec(Task& t, uint64_t addr, timespec* out) {
  GuestTimespec g{};
  if (emu::copy_in(t.as(), &g, addr, sizeof g) != 0) return -EFAULT;
  if (g.tv_sec < 0 || g.tv_nsec < 0 || g.tv_nsec >= 1'000'000'000) return -EINVAL;
  out->tv_sec = g.tv_sec;
  out->tv_nsec = g.tv_nsec;
  return 0;
}

int64_t futex_wait(Task& t, uint64_t uaddr, uint32_t val, uint32_t bitset, uint64_t timeout, bool absolute,
                   clockid_t clock, bool host) {
  timespec deadline{};
  const timespec* dl = nullptr;
  if (timeout != 0) {
    timespec ts{};
    if (int64_t r = read_timespec(t, timeout, &ts); r < 0) return r;
    deadline = absolute ? ts : signals::add(signals::now(clock), ts);
    dl = &deadline;
  }
  int64_t r;
  if (host) {
    r = host_futex_wait(t, uaddr, val, dl, clock);
    if (r == signals::kERESTARTSYS) r = -EINTR;
  } else {
    emu::RunLockReleaser unlocked(t.proc().run_lock(), &t.cpu(), emu::RunLockReleaser::kLeaveReleased);
    r = t.proc().futexes().wait(t.as(), t.park(), uaddr, val, bitset, dl, clock,
                                [&t] { return t.interrupted(); });
    // Woken by a wake of this process: what the wait saw is a guest thread's work, and that thread settled
    // any host signal sent before what it saw in its own system calls (Vcpu::on_interrupt), so there is
    // nothing to settle on the way back. Not so for a waker of a CLONE_VM relative (its calls settle its
    // own process's signals), a timeout (a host timer's expiry may be in flight) or an interruption (the
    // intake may be busy with more signals than the one that ended the wait): those still settle.
    if (r == 0 && !t.proc().shares_memory()) t.cpu().take_host_call_mark();
  }
  // A signal ends the wait. Untimed waits restart under SA_RESTART (sem_wait, pthread_join...); timed ones
  // return EINTR to a handler and restart when none runs (Linux uses a restart block for those).
  if (r != -EINTR) return r;
  return timeout == 0 ? signals::kERESTARTSYS : signals::kERESTARTNOHAND;
}

}  // namespace

// futex(2): WAIT, WAKE, WAIT_BITSET, WAKE_BITSET, REQUEUE, CMP_REQUEUE and WAKE_OP, private or not, with
// FUTEX_CLOCK_REALTIME. The PI operations are not implemented (-ENOSYS).
SysResult sys_futex(Task& t, uint64_t uaddr, int op, uint32_t val, uint64_t timeout_or_val2, uint64_t uaddr2,
                    uint32_t val3) {
  const int cmd = op & FUTEX_CMD_MASK;
  const bool realtime = op & FUTEX_CLOCK_REALTIME;
  if (realtime && cmd != FUTEX_WAIT && cmd != FUTEX_WAIT_BITSET && cmd != FUTEX_WAIT_REQUEUE_PI &&
      cmd != FUTEX_LOCK_PI2)
    return -ENOSYS;
  if (uaddr & 3) return -EINVAL;
  emu::FutexTable& table = t.proc().futexes();
  // Without FUTEX_PRIVATE_FLAG on MAP_SHARED memory the other side may be another process: the host's futex.
  // Only the wakes go to the host as they are (their arguments are counts and values); the PI operations,
  // which would wait in the host where no guest signal ends the wait and take a guest timeout address for a
  // host pointer, are -ENOSYS here as for private futexes.
  const bool host = !(op & FUTEX_PRIVATE_FLAG) && t.as().is_shared(uaddr);
  const bool wakes = cmd == FUTEX_WAKE || cmd == FUTEX_WAKE_BITSET || cmd == FUTEX_REQUEUE ||
                     cmd == FUTEX_CMP_REQUEUE || cmd == FUTEX_WAKE_OP;
  if (host && wakes) {
    const int64_t r = host_futex_other(t, uaddr, op, val, timeout_or_val2, uaddr2, val3);
    if (r >= 0 && (cmd == FUTEX_WAKE || cmd == FUTEX_WAKE_BITSET)) table.wake(uaddr, INT32_MAX, ~0u);
    return r;
  }
  const auto count = [](uint32_t v) {
    return static_cast<int64_t>(static_cast<int32_t>(v) < 0 ? INT32_MAX : v);
  };
  // A shared futex's key needs the page (get_futex_key's get_user_pages_fast): an unmapped or PROT_NONE
  // address, or a file page past the end of its file, is -EFAULT even for the calls that do not read the
  // word. A private key is the address alone, once access_ok accepts it (a kernel address is -EFAULT).
  const auto unkeyable = [&](uint64_t a) {
    bool past_eof = false;
    if (!emu::user_range_ok(a, 4)) return true;  // get_futex_key's access_ok, private or not
    if (op & FUTEX_PRIVATE_FLAG) return false;
    const int prot = t.as().page_prot(a, &past_eof);  // -1: unmapped
    return prot < 0 || !(prot & PROT_READ) || past_eof;
  };
  const bool two = cmd == FUTEX_REQUEUE || cmd == FUTEX_CMP_REQUEUE || cmd == FUTEX_WAKE_OP;
  if ((cmd == FUTEX_WAKE || two || (cmd == FUTEX_WAKE_BITSET && val3 != 0)) &&
      (unkeyable(uaddr) || (two && (uaddr2 & 3) == 0 && unkeyable(uaddr2)))) {
    return -EFAULT;
  }
  switch (cmd) {
    case FUTEX_WAIT:
      return futex_wait(t, uaddr, val, FUTEX_BITSET_MATCH_ANY, timeout_or_val2, false,
                        realtime ? CLOCK_REALTIME : CLOCK_MONOTONIC, host);
    case FUTEX_WAIT_BITSET:
      if (val3 == 0) return -EINVAL;
      return futex_wait(t, uaddr, val, val3, timeout_or_val2, true,
                        realtime ? CLOCK_REALTIME : CLOCK_MONOTONIC, host);
    case FUTEX_WAKE:
      return table.wake(uaddr, count(val), FUTEX_BITSET_MATCH_ANY);
    case FUTEX_WAKE_BITSET:
      if (val3 == 0) return -EINVAL;
      return table.wake(uaddr, count(val), val3);
    case FUTEX_REQUEUE:
      if (uaddr2 & 3) return -EINVAL;
      return table.requeue(t.as(), uaddr, uaddr2, count(val), count(static_cast<uint32_t>(timeout_or_val2)),
                           nullptr);
    case FUTEX_CMP_REQUEUE:
      if (uaddr2 & 3) return -EINVAL;
      return table.requeue(t.as(), uaddr, uaddr2, count(val), count(static_cast<uint32_t>(timeout_or_val2)),
                           &val3);
    case FUTEX_WAKE_OP:
      if (uaddr2 & 3) return -EINVAL;
      return table.wake_op(t.as(), uaddr, uaddr2, count(val), count(static_cast<uint32_t>(timeout_or_val2)),
                           val3);
    default:
      return -ENOSYS;
  }
}

// futex_waitv(2): struct futex_waitv {u64 val; u64 uaddr; u32 flags; u32 reserved}; only 32-bit futexes
// (FUTEX2_SIZE_U32), optionally FUTEX2_PRIVATE; the timeout is absolute on clockid.
SysResult sys_futex_waitv(Task& t, uint64_t waiters, uint32_t nr, uint32_t flags, uint64_t timeout,
                          int clockid) {
  struct GuestWaitv {
    uint64_t val;
    uint64_t uaddr;
    uint32_t flags;
    uint32_t reserved;
  };
  constexpr uint32_t kSizeU32 = 0x02;
  constexpr uint32_t kPrivate = 128;
  if (flags != 0 || nr == 0 || nr > 128 || waiters == 0) return -EINVAL;
  if (clockid != CLOCK_MONOTONIC && clockid != CLOCK_REALTIME) return -EINVAL;
  std::vector<GuestWaitv> g(nr);
  if (emu::copy_in(t.as(), g.data(), waiters, nr * sizeof(GuestWaitv)) != 0) return -EFAULT;
  std::vector<emu::FutexTable::WaitvEntry> entries(nr);
  for (uint32_t i = 0; i < nr; ++i) {
    if ((g[i].flags & ~(kSizeU32 | kPrivate)) || (g[i].flags & 3) != kSizeU32 || g[i].reserved)
      return -EINVAL;
    if ((g[i].uaddr & 3) || g[i].val > UINT32_MAX) return -EINVAL;
    entries[i] = {g[i].uaddr, static_cast<uint32_t>(g[i].val)};
  }
  timespec deadline{};
  if (timeout != 0) {
    if (int64_t r = read_timespec(t, timeout, &deadline); r < 0) return r;
  }
  emu::RunLockReleaser unlocked(t.proc().run_lock(), &t.cpu());
  const int64_t r =
      t.proc().futexes().waitv(t.as(), t.park(), entries.data(), static_cast<int>(nr),
                               timeout ? &deadline : nullptr, clockid, [&t] { return t.interrupted(); });
  // A signal ends the wait, which restarts under SA_RESTART (futex_wait_multiple: -ERESTARTSYS; the
  // timeout is absolute).
  return r == -EINTR ? signals::kERESTARTSYS : r;
}

}  // namespace syscalls
