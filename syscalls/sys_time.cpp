// This file implements the time syscalls. Clocks are the host's: guest pids and tids are host ones, so every
// clock id, including the dynamic CPU clocks of other processes and threads, means the same on the host. The
// CPU-time clocks therefore count the emulator's work for the guest: CLOCK_THREAD_CPUTIME_ID of the calling
// thread is its host thread's time, translation and emulation included, and CLOCK_PROCESS_CPUTIME_ID and
// times() cover the whole emulator process.
#include "syscalls/sys_time.h"

#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timex.h>
#include <unistd.h>

#include <ctime>

#include "signals/signals.h"
#include "signals/sleep.h"
#include "syscalls/abi/errno.h"
#include "syscalls/host_call.h"

namespace syscalls {
namespace {}  // namespace

// clock_gettime(2): the host's clock through its vDSO; an unknown clock is EINVAL before the pointer is used.
SysResult sys_clock_gettime(Task& t, int32_t clockid, GuestPtr<guest::timespec> tp) {
  ::timespec h{};
  if (::clock_gettime(clockid, &h) != 0) return guest::neg_errno();
  return tp.write(t.as(), guest::to_guest(h));
}

// clock_getres(2): res may be NULL (then only the clock is checked).
SysResult sys_clock_getres(Task& t, int32_t clockid, GuestPtr<guest::timespec> res) {
  ::timespec h{};
  if (::syscall(SYS_clock_getres, clockid, res.null() ? nullptr : &h) != 0) return guest::neg_errno();
  return res.null() ? 0 : res.write(t.as(), guest::to_guest(h));
}

// clock_settime(2): the host decides (EINVAL for a clock that cannot be set, EPERM without CAP_SYS_TIME).
SysResult sys_clock_settime(Task& t, int32_t clockid, GuestPtr<const guest::timespec> tp) {
  ::timespec h{};
  const ::timespec* hp = copy_in_for_host(t.as(), tp, &h);
  return guest::from_host(::syscall(SYS_clock_settime, clockid, hp));
}

// clock_adjtime(2): the struct is copied in first (EFAULT), then the host checks the clock and the modes; the
// result goes back only on success.
SysResult sys_clock_adjtime(Task& t, int32_t clockid, GuestPtr<guest::timex> buf) {
  guest::timex g{};
  if (buf.read(t.as(), &g) != 0) return -EFAULT;
  ::timex h = guest::to_host(g);
  const int64_t r = guest::from_host(::syscall(SYS_clock_adjtime, clockid, &h));
  if (r < 0) return r;
  return buf.write(t.as(), guest::to_guest(h)) != 0 ? -EFAULT : r;
}

// adjtimex(2): like clock_adjtime on CLOCK_REALTIME, except that the struct is written back even when the
// call fails (kernel/time/time.c), so a read-only buffer is EFAULT.
SysResult sys_adjtimex(Task& t, GuestPtr<guest::timex> buf) {
  guest::timex g{};
  if (buf.read(t.as(), &g) != 0) return -EFAULT;
  ::timex h = guest::to_host(g);
  const int64_t r = guest::from_host(::syscall(SYS_adjtimex, &h));
  return buf.write(t.as(), guest::to_guest(h)) != 0 ? -EFAULT : r;
}

// gettimeofday(2): either pointer may be NULL. The time comes through the vDSO; the timezone is the kernel's
// sys_tz, which only the raw syscall reports (glibc's wrapper may zero it).
SysResult sys_gettimeofday(Task& t, GuestPtr<guest::timeval> tv, GuestPtr<guest::timezone> tz) {
  if (!tv.null()) {
    ::timeval h{};
    if (::gettimeofday(&h, nullptr) != 0) return guest::neg_errno();
    if (tv.write(t.as(), guest::to_guest(h)) != 0) return -EFAULT;
  }
  if (!tz.null()) {
    struct ::timezone h {};
    if (::syscall(SYS_gettimeofday, nullptr, &h) != 0) return guest::neg_errno();
    if (tz.write(t.as(), guest::to_guest(h)) != 0) return -EFAULT;
  }
  return 0;
}

// settimeofday(2): the host validates and decides (EPERM without CAP_SYS_TIME).
SysResult sys_settimeofday(Task& t, GuestPtr<const guest::timeval> tv, GuestPtr<const guest::timezone> tz) {
  ::timeval htv{};
  struct ::timezone htz {};
  const ::timeval* tvp = copy_in_for_host(t.as(), tv, &htv);
  const struct ::timezone* tzp = copy_in_for_host(t.as(), tz, &htz);
  return guest::from_host(::syscall(SYS_settimeofday, tvp, tzp));
}

// times(2): returns clock ticks (USER_HZ is 100 on both architectures); buf may be NULL.
SysResult sys_times(Task& t, GuestPtr<guest::tms> buf) {
  ::tms h{};
  const int64_t ticks = guest::from_host(::syscall(SYS_times, &h));
  if (ticks < 0) return ticks;
  if (!buf.null() && buf.write(t.as(), guest::to_guest(h)) != 0) return -EFAULT;
  return ticks;
}

// nanosleep(2): a relative sleep on CLOCK_MONOTONIC; an interrupted sleep writes the time left to rem.
SysResult sys_nanosleep(Task& t, GuestPtr<const guest::timespec> req, GuestPtr<guest::timespec> rem) {
  guest::timespec g{};
  if (req.read(t.as(), &g) != 0) return -EFAULT;
  if (!guest::timespec_valid(g)) return -EINVAL;
  const ::timespec deadline = signals::add(signals::now(CLOCK_MONOTONIC), guest::to_host(g));
  return signals::relative_sleep(t, CLOCK_MONOTONIC, deadline, rem.addr);
}

// clock_nanosleep(2): checks in the kernel's order (clock, then request), then sleeps relative or until an
// absolute time (TIMER_ABSTIME; rem is not used then). Other flag bits are ignored, as Linux ignores them.
SysResult sys_clock_nanosleep(Task& t, int32_t clockid, int32_t flags, GuestPtr<const guest::timespec> req,
                              GuestPtr<guest::timespec> rem) {
  switch (guest::classify_sleep_clock(clockid)) {
    case guest::SleepClock::kInvalid:
      return -EINVAL;
    case guest::SleepClock::kNoSleep:
      return -EOPNOTSUPP;
    case guest::SleepClock::kTimer:
    case guest::SleepClock::kAlarm:  // the host checks the RTC, the flags and CAP_WAKE_ALARM
    case guest::SleepClock::kCpu:    // the host checks the pid and that it is not the caller's own thread
      break;
  }
  guest::timespec g{};
  if (req.read(t.as(), &g) != 0) return -EFAULT;
  if (!guest::timespec_valid(g)) return -EINVAL;
  const bool absolute = (flags & guest::kTIMER_ABSTIME) != 0;
  if (clockid != CLOCK_MONOTONIC && clockid != CLOCK_REALTIME && clockid != CLOCK_BOOTTIME) {
    // CPU-time, TAI and alarm clocks: the host sleeps until an absolute time on the clock. A clock the host
    // cannot read cannot be slept on either: the host's sleep says why (no RTC, a process gone...).
    const ::timespec h = guest::to_host(g);
    if (absolute) return signals::host_clock_sleep(t, clockid, flags, h, false, 0);
    ::timespec start{};
    if (::clock_gettime(clockid, &start) != 0)
      return guest::from_host(::syscall(SYS_clock_nanosleep, clockid, flags, &h, nullptr));
    return signals::host_clock_sleep(t, clockid, flags, signals::add(start, h), true, rem.addr);
  }
  if (absolute) {
    // An absolute sleep restarts unchanged unless a handler runs (hrtimer_nanosleep: -ERESTARTNOHAND).
    return signals::sleep_until(t, clockid, guest::to_host(g)) == 0 ? 0 : signals::kERESTARTNOHAND;
  }
  // A relative sleep measures elapsed time, which setting CLOCK_REALTIME does not change: Linux times it on
  // CLOCK_MONOTONIC (__hrtimer_init turns a relative CLOCK_REALTIME timer into a monotonic one).
  const clockid_t clock = clockid == CLOCK_REALTIME ? CLOCK_MONOTONIC : clockid;
  const ::timespec deadline = signals::add(signals::now(clock), guest::to_host(g));
  return signals::relative_sleep(t, clock, deadline, rem.addr);
}

}  // namespace syscalls
