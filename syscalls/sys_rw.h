// Data transfer on file descriptors: read, write and their vector and positional forms.
#pragma once

#include "syscalls/dispatch.h"

namespace syscalls {

SysResult sys_read(Task& t, int fd, GuestPtr<uint8_t> buf, uint64_t count);
SysResult sys_write(Task& t, int fd, GuestPtr<const uint8_t> buf, uint64_t count);

}  // namespace syscalls
