// Extended attributes: the set/get/list/remove families on a path (following a final symlink), on the link
// itself (l*) and on an fd (f*). The names, values and lists are the same bytes on every architecture, so
// they go to the host's calls unchanged.
#pragma once

#include "syscalls/dispatch.h"

namespace syscalls {

SysResult sys_setxattr(Task& t, GuestCStr path, GuestCStr name, uint64_t value, uint64_t size, int flags);
SysResult sys_lsetxattr(Task& t, GuestCStr path, GuestCStr name, uint64_t value, uint64_t size, int flags);
SysResult sys_fsetxattr(Task& t, int fd, GuestCStr name, uint64_t value, uint64_t size, int flags);
SysResult sys_getxattr(Task& t, GuestCStr path, GuestCStr name, uint64_t value, uint64_t size);
SysResult sys_lgetxattr(Task& t, GuestCStr path, GuestCStr name, uint64_t value, uint64_t size);
SysResult sys_fgetxattr(Task& t, int fd, GuestCStr name, uint64_t value, uint64_t size);
SysResult sys_listxattr(Task& t, GuestCStr path, uint64_t list, uint64_t size);
SysResult sys_llistxattr(Task& t, GuestCStr path, uint64_t list, uint64_t size);
SysResult sys_flistxattr(Task& t, int fd, uint64_t list, uint64_t size);
SysResult sys_removexattr(Task& t, GuestCStr path, GuestCStr name);
SysResult sys_lremovexattr(Task& t, GuestCStr path, GuestCStr name);
SysResult sys_fremovexattr(Task& t, int fd, GuestCStr name);

}  // namespace syscalls
