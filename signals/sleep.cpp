// This file implements sleeps on parks, and on the host for the clocks a park cannot wait on.
#include "signals/sleep.h"

#include <sys/syscall.h>

#include <cerrno>

#include "emu/guest_mem.h"
#include "emu/task.h"
#include "signals/safe_syscall.h"
#include "signals/signals.h"

namespace signals {
namespace {

// Park waits on the host futex clocks (MONOTONIC or REALTIME). BOOTTIME differs from MONOTONIC only by time
// spent suspended, so a BOOTTIME deadline becomes a MONOTONIC one.
clockid_t park_clock(clockid_t clock, timespec* deadline) {
  if (clock == CLOCK_REALTIME) return CLOCK_REALTIME;
  if (clock == CLOCK_BOOTTIME) {
    const timespec now_boot = now(CLOCK_BOOTTIME);
    const timespec now_mono = now(CLOCK_MONOTONIC);
    *deadline = add(now_mono, sub_clamped(*deadline, now_boot));
  }
  return CLOCK_MONOTONIC;
}

}  // namespace

int64_t sleep_until(emu::Task& t, clockid_t clock, const timespec& deadline) {
  timespec dl = deadline;
  const clockid_t pc = park_clock(clock, &dl);
  emu::RunLockReleaser unlocked(t.proc().run_lock(), &t.cpu(), emu::RunLockReleaser::kLeaveReleased);
  while (!t.interrupted()) {
    if (!t.park().wait(&dl, pc)) {
      if (!before(now(pc), dl)) return 0;
    }
  }
  return -EINTR;
}

int64_t relative_sleep(emu::Task& t, clockid_t clock, const timespec& deadline, uint64_t rem_addr) {
  if (sleep_until(t, clock, deadline) == 0) return 0;
  if (rem_addr != 0) {
    const timespec left = sub_clamped(deadline, now(clock));
    const int64_t g[2] = {left.tv_sec, left.tv_nsec};
    if (emu::copy_out(t.as(), rem_addr, g, sizeof g) != 0) return -EFAULT;
  }
  t.restart.block = [clock, deadline, rem_addr](emu::Task& task) {
    return relative_sleep(task, clock, deadline, rem_addr);
  };
  return kERESTART_RESTARTBLOCK;
}

int64_t host_clock_sleep(emu::Task& t, clockid_t clock, int flags, const timespec& deadline, bool relative,
                         uint64_t rem_addr) {
  const int64_t r = blocking_syscall(t, kERESTARTNOHAND, SYS_clock_nanosleep, clock, flags | TIMER_ABSTIME,
                                     reinterpret_cast<long>(&deadline), 0);
  if (r != kERESTARTNOHAND || !relative) return r;
  if (rem_addr != 0) {
    const timespec left = sub_clamped(deadline, now(clock));
    const int64_t g[2] = {left.tv_sec, left.tv_nsec};
    if (emu::copy_out(t.as(), rem_addr, g, sizeof g) != 0) return -EFAULT;
  }
  t.restart.block = [clock, flags, deadline, rem_addr](emu::Task& task) {
    return host_clock_sleep(task, clock, flags, deadline, true, rem_addr);
  };
  return kERESTART_RESTARTBLOCK;
}

}  // namespace signals
