// This file implements the wait of blocking IPC calls: safe system calls.
#include "syscalls/ipc_wait.h"

#include <algorithm>
#include <cerrno>

#include "emu/task.h"
#include "signals/park.h"
#include "signals/safe_syscall.h"

namespace syscalls {

int64_t ipc_wait(Task& t, const IpcWait& w) {
  while (true) {
    const int64_t r = w.blocking();
    if (r != -EINTR) return r;
    // A wake signal meant for an earlier call of this thread ends this one for nothing: make it again.
    if (t.interrupted()) return -EINTR;
  }
}

timespec ipc_time_left(const timespec& deadline) {
  return signals::sub_clamped(deadline, signals::now(CLOCK_MONOTONIC));
}

}  // namespace syscalls
