// Key management syscalls (keyrings(7)): add_key(2), request_key(2), keyctl(2), on the host's keyrings.
#pragma once

#include "syscalls/dispatch.h"

namespace syscalls {

SysResult sys_add_key(Task& t, uint64_t type, uint64_t description, uint64_t payload, uint64_t plen,
                      int32_t keyring);
SysResult sys_request_key(Task& t, uint64_t type, uint64_t description, uint64_t callout, int32_t dest);
SysResult sys_keyctl(Task& t, int cmd, uint64_t arg2, uint64_t arg3, uint64_t arg4, uint64_t arg5);

}  // namespace syscalls
