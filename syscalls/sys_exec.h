// execve and execveat: a64run re-executes itself (/proc/self/exe) on the new arm64 program or #! script.
#pragma once

#include "syscalls/dispatch.h"

namespace syscalls {

SysResult sys_execve(Task& t, GuestCStr path, uint64_t argv, uint64_t envp);
SysResult sys_execveat(Task& t, int dirfd, GuestCStr path, uint64_t argv, uint64_t envp, int flags);

}  // namespace syscalls
