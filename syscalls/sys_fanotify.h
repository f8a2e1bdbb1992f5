// fanotify(7): fanotify_init(2), fanotify_mark(2), on the host's fanotify groups.
#pragma once

#include "syscalls/dispatch.h"

namespace syscalls {

SysResult sys_fanotify_init(Task& t, uint32_t flags, uint32_t event_f_flags);
SysResult sys_fanotify_mark(Task& t, int fd, uint32_t flags, uint64_t mask, int dirfd, GuestCStr path);

}  // namespace syscalls
