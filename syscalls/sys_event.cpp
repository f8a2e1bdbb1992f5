// This file implements epoll on host epoll instances (events converted between the guest's 16-byte
// epoll_event and the host's packed 12-byte one; a wait is the host's epoll_wait as a safe system call),
// eventfd2, and timerfds passed to the host (their reads are sys_read's).
#include "syscalls/sys_event.h"

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>

#include "emu/task.h"
#include "signals/park.h"
#include "signals/safe_syscall.h"
#include "syscalls/abi/errno.h"
#include "syscalls/abi/eventfd.h"
#include "syscalls/fd_util.h"
#include "syscalls/host_call.h"
#include "syscalls/procfs.h"
#include "syscalls/sys_poll.h"

namespace syscalls {
namespace {

using guest::from_host;

// fs/eventpoll.c: EP_MAX_EVENTS, counted in the guest's 16-byte events.
constexpr int kEpMaxEvents = INT_MAX / static_cast<int>(sizeof(guest::epoll_event));
// Events fetched from the host per call; a guest asking for more gets at most this many, as epoll_wait may.
constexpr int kEpollBatch = 256;

int64_t copy_events_out(Task& t, uint64_t events, const ::epoll_event* h, int n) {
  std::array<guest::epoll_event, kEpollBatch> g;
  for (int i = 0; i < n; ++i) g[static_cast<size_t>(i)] = guest::to_guest(h[i]);
  if (emu::copy_out(t.as(), events, g.data(), static_cast<size_t>(n) * sizeof(guest::epoll_event)) != 0) {
    return -EFAULT;
  }
  return n;
}

// do_epoll_wait/ep_poll: ready events are taken without waiting; otherwise the thread waits for events or
// for a signal, which ends the wait with -EINTR: epoll_wait is never restarted. A zero timeout never reports
// a signal.
SysResult epoll_wait_common(Task& t, int epfd, uint64_t events, int maxevents, const Timeout& to) {
  if (maxevents <= 0 || maxevents > kEpMaxEvents) return -EINVAL;
  if (is_reserved_fd(epfd)) return -EBADF;
  std::array<::epoll_event, kEpollBatch> buf;
  const int want = std::min(maxevents, kEpollBatch);
  while (true) {
    const int n = ::epoll_wait(epfd, buf.data(), want, 0);
    if (n < 0) return -errno;
    if (n > 0) return copy_events_out(t, events, buf.data(), n);
    if (to.zero) return 0;
    // The host's own wait, as a safe system call: EPOLLEXCLUSIVE wakes one waiter only among threads that
    // wait in epoll_wait itself (a poll on the epoll fd woke them all). Its timeout is in milliseconds,
    // rounded up; a wake that finds no event, or returns early, goes round again.
    long ms = -1;
    if (!to.infinite) {
      const timespec left = signals::sub_clamped(to.deadline, signals::now(CLOCK_MONOTONIC));
      if (left.tv_sec == 0 && left.tv_nsec == 0) return 0;
      ms = static_cast<long>(
          std::min<int64_t>(left.tv_sec * 1000 + (left.tv_nsec + 999'999) / 1'000'000, INT_MAX));
    }
    const int64_t r =
        signals::safe_syscall(t, SYS_epoll_wait, epfd, reinterpret_cast<long>(buf.data()), want, ms);
    if (r > 0) return copy_events_out(t, events, buf.data(), static_cast<int>(r));
    if (r == -EINTR && t.interrupted()) return -EINTR;
    if (r < 0 && r != -EINTR) return r;
  }
}

// epoll_pwait and epoll_pwait2: the temporary mask stays for the handler only when a signal ended the wait.
SysResult epoll_pwait_masked(Task& t, int epfd, uint64_t events, int maxevents, const Timeout& to,
                             uint64_t sigmask, uint64_t sigsetsize) {
  TempSigmask mask;
  if (const int64_t e = mask.install(t, sigmask, sigsetsize); e != 0) return e;
  const SysResult r = epoll_wait_common(t, epfd, events, maxevents, to);
  mask.finish(t, r == -EINTR);
  return r;
}

}  // namespace

SysResult sys_epoll_create1(Task&, int flags) {
  if (flags & ~guest::kEPOLL_CLOEXEC) return -EINVAL;
  return from_host(::epoll_create1(flags));
}

// epoll_ctl(2): the event is read for every op but EPOLL_CTL_DEL, as ep_op_has_event decides.
SysResult sys_epoll_ctl(Task& t, int epfd, int op, int fd, GuestPtr<const guest::epoll_event> event) {
  ::epoll_event h{};
  ::epoll_event* hp = nullptr;
  if (op != guest::kEPOLL_CTL_DEL) {
    guest::epoll_event g{};
    if (event.read(t.as(), &g) != 0) return -EFAULT;
    h = guest::to_host(g);
    hp = &h;
  }
  if (is_reserved_fd(epfd) || is_reserved_fd(fd)) return -EBADF;
  return from_host(::epoll_ctl(epfd, op, fd, hp));
}

SysResult sys_epoll_pwait(Task& t, int epfd, GuestPtr<guest::epoll_event> events, int maxevents, int timeout,
                          GuestPtr<const uint64_t> sigmask, uint64_t sigsetsize) {
  return epoll_pwait_masked(t, epfd, events.addr, maxevents, Timeout::from_ms(timeout), sigmask.addr,
                            sigsetsize);
}

SysResult sys_epoll_pwait2(Task& t, int epfd, GuestPtr<guest::epoll_event> events, int maxevents,
                           GuestPtr<const guest::timespec> timeout, GuestPtr<const uint64_t> sigmask,
                           uint64_t sigsetsize) {
  Timeout to;
  if (const int64_t e = read_timeout(t, timeout.addr, &to); e != 0) return e;
  return epoll_pwait_masked(t, epfd, events.addr, maxevents, to, sigmask.addr, sigsetsize);
}

SysResult sys_eventfd2(Task&, uint32_t count, int flags) {
  if (flags & ~guest::kEFD_FLAGS) return -EINVAL;
  return from_host(::eventfd(count, flags));
}

SysResult sys_timerfd_create(Task&, int clockid, int flags) {
  if (flags & ~guest::kTFD_CREATE_FLAGS) return -EINVAL;
  return from_host(::timerfd_create(clockid, flags));
}

// timerfd_settime(2): the new value is read before anything else, the old one written last
// (do_timerfd_settime).
SysResult sys_timerfd_settime(Task& t, int fd, int flags, GuestPtr<const guest::itimerspec> new_value,
                              GuestPtr<guest::itimerspec> old_value) {
  guest::itimerspec g{};
  if (new_value.read(t.as(), &g) != 0) return -EFAULT;
  if (is_reserved_fd(fd)) return -EBADF;
  const ::itimerspec h = guest::to_host(g);
  ::itimerspec old{};
  if (::timerfd_settime(fd, flags, &h, &old) != 0) return guest::neg_errno();
  if (!old_value.null() && old_value.write(t.as(), guest::to_guest(old)) != 0) return -EFAULT;
  return 0;
}

SysResult sys_timerfd_gettime(Task& t, int fd, GuestPtr<guest::itimerspec> curr_value) {
  if (is_reserved_fd(fd)) return -EBADF;
  ::itimerspec h{};
  if (::timerfd_gettime(fd, &h) != 0) return guest::neg_errno();
  if (curr_value.write(t.as(), guest::to_guest(h)) != 0) return -EFAULT;
  return 0;
}

SysResult sys_inotify_init1(Task&, int flags) {
  return from_host(::inotify_init1(flags));
}

// inotify_add_watch(2): the host checks the mask and the fd before it looks the path up, so a path that
// does not read goes to it as a faulting address and its EFAULT comes in that order.
SysResult sys_inotify_add_watch(Task& t, int fd, GuestCStr path, uint32_t mask) {
  if (is_reserved_fd(fd)) return -EBADF;
  GuestPath p;
  const int64_t r = read_guest_path(t, AT_FDCWD, path, &p);
  if (r < 0 && r != -EFAULT) return r;
  const char* host = r == -EFAULT              ? static_cast<const char*>(kHostFaultAddr)
                     : (mask & IN_DONT_FOLLOW) ? p.nofollow().c_str()
                                               : p.host.c_str();
  return from_host(::inotify_add_watch(fd, host, mask));
}

SysResult sys_inotify_rm_watch(Task&, int fd, int wd) {
  if (is_reserved_fd(fd)) return -EBADF;
  return from_host(::inotify_rm_watch(fd, wd));
}

}  // namespace syscalls
