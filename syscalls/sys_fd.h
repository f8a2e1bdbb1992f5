// Descriptor syscalls: open, close, dup, fcntl, pipes, flock, lseek and memfd_create. Guest fds are host fds;
// the emulator's reserved ones look closed (EBADF) and are never closed, replaced or handed out.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "syscalls/abi/fcntl.h"
#include "syscalls/dispatch.h"

namespace syscalls {

SysResult sys_openat(Task& t, int dirfd, GuestCStr path, uint32_t flags, uint32_t mode);
SysResult sys_openat2(Task& t, int dirfd, GuestCStr path, GuestPtr<const guest::open_how> how, uint64_t size);
SysResult sys_close(Task& t, int fd);
SysResult sys_close_range(Task& t, uint32_t first, uint32_t last, uint32_t flags);
SysResult sys_dup(Task& t, int fd);
SysResult sys_dup3(Task& t, int oldfd, int newfd, int flags);
SysResult sys_fcntl(Task& t, int fd, int cmd, uint64_t arg);
SysResult sys_pipe2(Task& t, GuestPtr<int32_t> fds, int flags);
SysResult sys_flock(Task& t, int fd, int op);
SysResult sys_lseek(Task& t, int fd, int64_t offset, int whence);
SysResult sys_memfd_create(Task& t, GuestCStr name, uint32_t flags);

// The sub-ranges of [first, last] left after taking out the reserved descriptors in `reserved` (sorted).
std::vector<std::pair<uint32_t, uint32_t>> split_fd_range(uint32_t first, uint32_t last,
                                                          const std::vector<int>& reserved);

}  // namespace syscalls
