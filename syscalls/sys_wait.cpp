// This file implements wait4 and waitid on the host's, with the run lock released while they block. struct
// rusage and siginfo_t have the same layout on arm64 and x86-64 (asm-generic), so results are copied through.
#include "syscalls/sys_wait.h"

#include "signals/host_signals.h"
#include "signals/safe_syscall.h"
#include "signals/signals.h"
#include "syscalls/abi/errno.h"

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

// A wait is the host's own: one that may block is a safe system call (the host kernel wakes it for every
// child event, whatever signal the child's exit sends, none included; a guest signal ends it with
// ERESTARTSYS, as do_wait does), a WNOHANG one a plain call (a pending signal does not fail it).
int64_t host_wait(Task& t, bool nohang, long nr, long a1, long a2, long a3, long a4, long a5 = 0) {
  return nohang ? guest::from_host(::syscall(nr, a1, a2, a3, a4, a5))
                : signals::blocking_syscall(t, signals::kERESTARTSYS, nr, a1, a2, a3, a4, a5);
}

// A reaped child's host SIGCHLD may still be on its way to the guest (the intake thread): it is queued
// before the call returns, as on Linux (a SIGCHLD handler that counts children sees this one). The host
// kernel queues SIGCHLD before the child becomes waitable (exit_notify and do_notify_parent_cldstop, under
// tasklist_lock), so it is then pending on the host or in the intake thread's hands, which is what
// settle_host_signals waits out; with neither, there is nothing to wait for.
void after_child_found(Task& t) {
  signals::settle_host_signals(t);
}

}  // namespace

SysResult sys_wait4(Task& t, int pid, GuestPtr<int32_t> status, int options, uint64_t rusage) {
  if (options & ~kWaitOptions) return -EINVAL;
  int st = 0;
  struct rusage ru {};
  const int64_t r = host_wait(t, options & WNOHANG, SYS_wait4, pid, reinterpret_cast<long>(&st), options,
                              rusage ? reinterpret_cast<long>(&ru) : 0);
  if (r < 0) return r;
  if (r > 0) after_child_found(t);
  if (r > 0 && !status.null() && status.write(t.as(), st) != 0) return -EFAULT;
  if (r > 0 && rusage && emu::copy_out(t.as(), rusage, &ru, sizeof ru) != 0) return -EFAULT;
  return r;
}

SysResult sys_waitid(Task& t, int idtype, int id, uint64_t infop, int options, uint64_t rusage) {
  if (options & ~kWaitidOptions) return -EINVAL;
  siginfo_t si{};
  struct rusage ru {};
  // A wait on a non-blocking pidfd is EAGAIN while the child runs: the host's answer.
  const int64_t r = host_wait(t, options & WNOHANG, SYS_waitid, idtype, id, reinterpret_cast<long>(&si),
                              options, rusage ? reinterpret_cast<long>(&ru) : 0);
  if (r < 0) return r;
  if (si.si_pid != 0) after_child_found(t);
  static_assert(sizeof(siginfo_t) == 128);
  if (infop && emu::copy_out(t.as(), infop, &si, sizeof si) != 0) return -EFAULT;
  if (rusage && emu::copy_out(t.as(), rusage, &ru, sizeof ru) != 0) return -EFAULT;
  return 0;
}

}  // namespace syscalls
