// Event fds: epoll (create, ctl, and the pwait forms with their 16-byte guest epoll_event), eventfd2, the
// timerfd calls and inotify.
#pragma once

#include "syscalls/abi/epoll.h"
#include "syscalls/abi/types.h"
#include "syscalls/dispatch.h"

namespace syscalls {

SysResult sys_epoll_create1(Task& t, int flags);
SysResult sys_epoll_ctl(Task& t, int epfd, int op, int fd, GuestPtr<const guest::epoll_event> event);
SysResult sys_epoll_pwait(Task& t, int epfd, GuestPtr<guest::epoll_event> events, int maxevents, int timeout,
                          GuestPtr<const uint64_t> sigmask, uint64_t sigsetsize);
SysResult sys_epoll_pwait2(Task& t, int epfd, GuestPtr<guest::epoll_event> events, int maxevents,
                           GuestPtr<const guest::timespec> timeout, GuestPtr<const uint64_t> sigmask,
                           uint64_t sigsetsize);

SysResult sys_eventfd2(Task& t, uint32_t count, int flags);

SysResult sys_timerfd_create(Task& t, int clockid, int flags);
SysResult sys_timerfd_settime(Task& t, int fd, int flags, GuestPtr<const guest::itimerspec> new_value,
                              GuestPtr<guest::itimerspec> old_value);
SysResult sys_timerfd_gettime(Task& t, int fd, GuestPtr<guest::itimerspec> curr_value);

// inotify: the host's own (struct inotify_event and the flags are the same on both kernels; reads pass
// through), with the watched path resolved for the host.
SysResult sys_inotify_init1(Task& t, int flags);
SysResult sys_inotify_add_watch(Task& t, int fd, GuestCStr path, uint32_t mask);
SysResult sys_inotify_rm_watch(Task& t, int fd, int wd);

}  // namespace syscalls
