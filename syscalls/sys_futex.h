// futex(2) and futex_waitv(2) on the emulator's futex table.
#pragma once

#include "syscalls/dispatch.h"

namespace syscalls {

SysResult sys_futex(Task& t, uint64_t uaddr, int op, uint32_t val, uint64_t timeout_or_val2, uint64_t uaddr2,
                    uint32_t val3);
SysResult sys_futex_waitv(Task& t, uint64_t waiters, uint32_t nr, uint32_t flags, uint64_t timeout,
                          int clockid);

}  // namespace syscalls
