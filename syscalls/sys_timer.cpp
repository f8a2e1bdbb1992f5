// This file implements the interval-timer and POSIX-timer syscalls.
#include "syscalls/sys_timer.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>

#include "emu/task.h"
#include "signals/host_signals.h"
#include "signals/signalfd.h"
#include "signals/timers.h"
#include "syscalls/abi/errno.h"
#include "syscalls/fd_util.h"

namespace syscalls {

// The host's interval timers are the guest's: one process each, the same clocks, kept across execve and
// dropped by fork as Linux does. Their signals reach the guest through the intake thread.
SysResult sys_getitimer(Task& t, int which, GuestPtr<guest::itimerval> value) {
  ::itimerval h{};
  if (::syscall(SYS_getitimer, which, &h) != 0) return guest::neg_errno();
  if (value.write(t.as(), guest::to_guest(h)) != 0) return -EFAULT;
  return 0;
}

// A null new value disarms, as Linux takes it (kernel/time/itimer.c).
SysResult sys_setitimer(Task& t, int which, GuestPtr<const guest::itimerval> value,
                        GuestPtr<guest::itimerval> old) {
  ::itimerval h{};
  if (!value.null()) {
    guest::itimerval g{};
    if (value.read(t.as(), &g) != 0) return -EFAULT;
    h = guest::to_host(g);
  }
  ::itimerval hold{};
  if (::syscall(SYS_setitimer, which, &h, old.null() ? nullptr : &hold) != 0) return guest::neg_errno();
  if (!old.null() && old.write(t.as(), guest::to_guest(hold)) != 0) return -EFAULT;
  return 0;
}

// The id is written after the timer exists; a fault there deletes it again (do_timer_create).
SysResult sys_timer_create(Task& t, int clockid, GuestPtr<const guest::sigevent> sevp, GuestPtr<int32_t> id) {
  guest::sigevent ev{};
  if (!sevp.null() && sevp.read(t.as(), &ev) != 0) return -EFAULT;
  const int64_t r = signals::timer_create(t, clockid, sevp.null() ? nullptr : &ev);
  if (r < 0) return r;
  if (id.write(t.as(), static_cast<int32_t>(r)) != 0) {
    signals::timer_delete(static_cast<int>(r));
    return -EFAULT;
  }
  return 0;
}

SysResult sys_timer_settime(Task& t, int id, int flags, GuestPtr<const guest::itimerspec> value,
                            GuestPtr<guest::itimerspec> old) {
  if (value.null()) return -EINVAL;
  guest::itimerspec g{};
  if (value.read(t.as(), &g) != 0) return -EFAULT;
  guest::itimerspec prev{};
  signals::settle_host_signals(t);  // signals/timers.h
  if (const int64_t r = signals::timer_settime(id, flags, g, old.null() ? nullptr : &prev); r != 0) return r;
  if (!old.null() && old.write(t.as(), prev) != 0) return -EFAULT;
  return 0;
}

SysResult sys_timer_gettime(Task& t, int id, GuestPtr<guest::itimerspec> value) {
  guest::itimerspec cur{};
  if (const int64_t r = signals::timer_gettime(id, &cur); r != 0) return r;
  if (value.write(t.as(), cur) != 0) return -EFAULT;
  return 0;
}

SysResult sys_timer_getoverrun(Task&, int id) {
  return signals::timer_getoverrun(id);
}

SysResult sys_timer_delete(Task& t, int id) {
  signals::settle_host_signals(t);  // signals/timers.h
  return signals::timer_delete(id);
}

// signalfd4(2): flags, then the mask size, then the mask (do_signalfd4 after the syscall's checks).
SysResult sys_signalfd4(Task& t, int fd, GuestPtr<const uint64_t> mask, uint64_t sizemask, int flags) {
  if (flags & ~(O_CLOEXEC | O_NONBLOCK)) return -EINVAL;
  if (sizemask != guest::kSigsetSize) return -EINVAL;
  uint64_t m;
  if (mask.read(t.as(), &m) != 0) return -EFAULT;
  if (fd != -1 && is_reserved_fd(fd)) return -EBADF;
  return signals::signalfd_create_or_update(fd, m, flags);
}

}  // namespace syscalls
