// mount(2) and umount2(2): the host's, with the paths resolved for the host (the sysroot first for absolute
// ones) and the options page copied in as Linux copies it.
#pragma once

#include "syscalls/dispatch.h"

namespace syscalls {

SysResult sys_mount(Task& t, GuestCStr source, GuestCStr target, GuestCStr fstype, uint64_t flags,
                    uint64_t data);
SysResult sys_umount2(Task& t, GuestCStr target, int flags);
SysResult sys_pivot_root(Task& t, GuestCStr new_root, GuestCStr put_old);

}  // namespace syscalls
