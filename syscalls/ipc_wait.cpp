// This file implements the wait of blocking IPC calls: safe system calls, or tries between parks.
#include "syscalls/ipc_wait.h"

#include <algorithm>
#include <cerrno>

#include "emu/task.h"
#include "signals/park.h"
#include "signals/safe_syscall.h"

namespace syscalls {
namespace {

// The polled form's look interval: a wake (signal) ends a park at once, so this bounds only how late a
// partner's post is seen.
constexpr timespec kPollInterval{0, 2'000'000};

int64_t polled_wait(Task& t, const IpcWait& w) {
  while (true) {
    const int64_t r = w.nowait();
    if (r != w.would_block) return r;
    const timespec now = signals::now(CLOCK_MONOTONIC);
    if (w.deadline != nullptr && !signals::before(now, *w.deadline)) return w.timed_out;
    timespec until = signals::add(now, kPollInterval);
    if (w.deadline != nullptr && signals::before(*w.deadline, until)) until = *w.deadline;
    emu::RunLockReleaser unlocked(t.proc().run_lock(), &t.cpu());
    if (t.interrupted()) return -EINTR;
    t.park().wait(&until, CLOCK_MONOTONIC);
    if (t.interrupted()) return -EINTR;
  }
}

}  // namespace

int64_t ipc_wait(Task& t, const IpcWait& w) {
  if (!signals::safe_syscalls_enabled()) return polled_wait(t, w);
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
