// wait4 and waitid: the guest's children are host processes, and status and siginfo encodings match.
#pragma once

#include "syscalls/dispatch.h"

namespace syscalls {

SysResult sys_wait4(Task& t, int pid, GuestPtr<int32_t> status, int options, uint64_t rusage);
SysResult sys_waitid(Task& t, int idtype, int id, uint64_t infop, int options, uint64_t rusage);

}  // namespace syscalls
