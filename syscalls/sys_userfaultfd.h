// userfaultfd(2) on the host's: the descriptor, its ioctls (addresses moved into the guest window) and its
// messages (addresses moved back out).
#pragma once

#include "syscalls/dispatch.h"

namespace syscalls {

SysResult sys_userfaultfd(Task& t, int flags);
// ioctl of a UFFDIO request (type 0xaa) on fd, or USERFAULTFD_IOC_NEW on /dev/userfaultfd.
int64_t userfaultfd_ioctl(Task& t, int fd, uint32_t cmd, uint64_t arg);
// read(2) of a userfaultfd: kNotUserfaultfd when fd is none (the caller reads it as any fd). Only worth
// asking once userfaultfd_active() (this process made one).
inline constexpr int64_t kNotUserfaultfd = INT64_MIN + 1;
bool userfaultfd_active();
int64_t userfaultfd_read(Task& t, int fd, uint64_t buf, uint64_t count);

}  // namespace syscalls
