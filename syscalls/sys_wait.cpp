// This file implements wait4 and waitid with the run lock released while they block. struct rusage and
// siginfo_t have the same layout on arm64 and x86-64 (asm-generic), so results are copied through.
#include "syscalls/sys_wait.h"

#include "signals/host_signals.h"
#include "signals/signals.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace syscalls {
namespace {

constexpr int kWaitOptions = WNOHANG | WUNTRACED | WCONTINUED | __WNOTHREAD | __WCLONE | __WALL;
constexpr int kWaitidOptions =
    WNOHANG | WSTOPPED | WEXITED | WCONTINUED | WNOWAIT | __WNOTHREAD | __WCLONE | __WALL;

// Runs `poll` (a WNOHANG wait) until it reports a child or an error, parking between tries. Host SIGCHLD
// wakes the parked waiters (the intake thread), a guest signal ends the wait with ERESTARTSYS.
template <typename F>
int64_t park_for_child(Task& t, F&& poll) {
  t.proc().add_child_waiter(&t);
  int64_t r;
  {
    emu::RunLockReleaser unlocked(t.proc().run_lock(), &t.cpu());
    while ((r = poll()) == 0) {
      if (t.interrupted()) {
        r = signals::kERESTARTSYS;
        break;
      }
      t.park().wait(nullptr, CLOCK_MONOTONIC);
    }
  }
  t.proc().remove_child_waiter(&t);
  return r;
}

// A reaped child's host SIGCHLD may still be on its way to the guest (the intake thread): it is queued
// before the call returns, as on Linux (a SIGCHLD handler that counts children sees this one).
template <typename F>
int64_t wait_for_child(Task& t, bool nohang, F&& poll) {
  const int64_t r = nohang ? poll() : park_for_child(t, poll);
  if (r > 0) {
    emu::RunLockReleaser unlocked(t.proc().run_lock(), &t.cpu());
    signals::sync_host_signals();
  }
  return r;
}

}  // namespace

SysResult sys_wait4(Task& t, int pid, GuestPtr<int32_t> status, int options, uint64_t rusage) {
  if (options & ~kWaitOptions) return -EINVAL;
  int st = 0;
  struct rusage ru {};
  const int64_t r = wait_for_child(t, options & WNOHANG, [&]() -> int64_t {
    const long n = ::syscall(SYS_wait4, pid, &st, options | WNOHANG, rusage ? &ru : nullptr);
    return n < 0 ? -errno : n;
  });
  if (r < 0) return r;
  if (r > 0 && !status.null() && status.write(t.as(), st) != 0) return -EFAULT;
  if (r > 0 && rusage && emu::copy_out(t.as(), rusage, &ru, sizeof ru) != 0) return -EFAULT;
  return r;
}

SysResult sys_waitid(Task& t, int idtype, int id, uint64_t infop, int options, uint64_t rusage) {
  if (options & ~kWaitidOptions) return -EINVAL;
  siginfo_t si{};
  struct rusage ru {};
  // A wait on a non-blocking pidfd does not wait: EAGAIN while the child runs, unless WNOHANG asked for a
  // plain 0 (the host's kernel_waitid, which never sees the guest's options without WNOHANG).
  const bool nonblocking_pidfd = idtype == P_PIDFD && (::fcntl(id, F_GETFL) & O_NONBLOCK) != 0;
  // waitid with WNOHANG returns 0 both for "no child yet" and for a child: si_pid tells them apart.
  const int64_t r = wait_for_child(t, (options & WNOHANG) || nonblocking_pidfd, [&]() -> int64_t {
    si.si_pid = 0;
    const long n = ::syscall(SYS_waitid, idtype, id, &si, options | WNOHANG, rusage ? &ru : nullptr);
    if (n < 0) return -errno;
    return si.si_pid != 0 ? 1 : 0;
  });
  if (r < 0) return r;
  if (r == 0 && nonblocking_pidfd && !(options & WNOHANG)) return -EAGAIN;
  static_assert(sizeof(siginfo_t) == 128);
  if (infop && emu::copy_out(t.as(), infop, &si, sizeof si) != 0) return -EFAULT;
  if (rusage && emu::copy_out(t.as(), rusage, &ru, sizeof ru) != 0) return -EFAULT;
  return 0;
}

}  // namespace syscalls
