// Thread and process creation: clone, clone3 (threads, fork, vfork-style CLONE_VM|CLONE_VFORK).
#pragma once

#include "syscalls/dispatch.h"

namespace syscalls {

SysResult sys_clone(Task& t, uint64_t flags, uint64_t newsp, uint64_t parent_tid, uint64_t tls,
                    uint64_t child_tid);
SysResult sys_clone3(Task& t, uint64_t args, uint64_t size);

}  // namespace syscalls
