// Shared futexes: a futex operation without FUTEX_PRIVATE_FLAG on MAP_SHARED memory may pair with another
// process, so it runs on the host futex at the host address. Waits use futex_waitv on the guest word and
// the thread's park word together, so a signal still ends them at once.
#pragma once

#include <cstdint>
#include <ctime>

#include "syscalls/dispatch.h"

namespace syscalls {

// FUTEX_WAIT on the host: 0 (woken, or spuriously), -EAGAIN, -ETIMEDOUT, -EFAULT or kERESTARTSYS.
int64_t host_futex_wait(Task& t, uint64_t uaddr, uint32_t val, const timespec* deadline, clockid_t clock);
// Any other futex command, passed to the host with host addresses; -EFAULT for unmapped words.
int64_t host_futex_other(Task& t, uint64_t uaddr, int op, uint32_t val, uint64_t val2, uint64_t uaddr2,
                         uint32_t val3);

}  // namespace syscalls
