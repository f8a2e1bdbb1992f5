// File handle syscalls: name_to_handle_at(2), open_by_handle_at(2).
#pragma once

#include "syscalls/dispatch.h"

namespace syscalls {

SysResult sys_name_to_handle_at(Task& t, int dirfd, GuestCStr path, uint64_t handle, uint64_t mount_id,
                                int flags);
SysResult sys_open_by_handle_at(Task& t, int mount_fd, uint64_t handle, int flags);

}  // namespace syscalls
