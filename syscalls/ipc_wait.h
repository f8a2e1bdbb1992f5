// Blocking IPC calls (semop, msgsnd, msgrcv, mq_timedsend, mq_timedreceive) are the host kernel's own calls
// on host IPC objects, so two a64run processes, or an a64run process and a native one, meet in the same
// queues; so are the waits for file locks (flock, F_SETLKW). This file owns how such a call waits: as a safe
// system call (signals/safe_syscall.h), which a guest signal ends at once.
#pragma once

#include <time.h>

#include <cstdint>
#include <functional>

#include "syscalls/dispatch.h"

namespace syscalls {

// One blocking host call. `blocking` makes it as a safe system call (it recomputes any relative timeout from
// its own deadline, since it may be made again); `nowait` makes the non-blocking form of the same call, whose
// `would_block` result means "nothing yet". `deadline` (CLOCK_MONOTONIC, or nullptr) bounds the polled form,
// which then returns `timed_out`. Returns the host's result, or -EINTR when a guest signal ended the wait
// (the caller turns that into its call's restart rule).
struct IpcWait {
  std::function<int64_t()> blocking;
  std::function<int64_t()> nowait;
  int64_t would_block = -EAGAIN;
  const timespec* deadline = nullptr;
  int64_t timed_out = -EAGAIN;
};
int64_t ipc_wait(Task& t, const IpcWait& w);

// The time left until the CLOCK_MONOTONIC `deadline`, clamped at zero.
timespec ipc_time_left(const timespec& deadline);

}  // namespace syscalls
