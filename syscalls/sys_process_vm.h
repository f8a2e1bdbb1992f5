// Cross-process inspection: process_vm_readv(2), process_vm_writev(2), kcmp(2).
#pragma once

#include "syscalls/dispatch.h"

namespace syscalls {

SysResult sys_process_vm_readv(Task& t, int pid, uint64_t local, uint64_t liovcnt, uint64_t remote,
                               uint64_t riovcnt, uint64_t flags);
SysResult sys_process_vm_writev(Task& t, int pid, uint64_t local, uint64_t liovcnt, uint64_t remote,
                                uint64_t riovcnt, uint64_t flags);
SysResult sys_kcmp(Task& t, int pid1, int pid2, int type, uint64_t idx1, uint64_t idx2);

}  // namespace syscalls
