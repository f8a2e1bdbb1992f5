// This file implements wait4 and waitid with the run lock released while they block. struct rusage and
// siginfo_t have the same layout on arm64 and x86-64 (asm-generic), so results are copied through.
#include "syscalls/sys_wait.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace syscalls {
namespace {

constexpr int kWaitOptions = WNOHANG | WUNTRACED | WCONTINUED | __WNOTHREAD | __WCLONE | __WALL;
constexpr int kWaitidOptions = WNOHANG | WSTOPPED | WEXITED | WCONTINUED | WNOWAIT | __WNOTHREAD | __WCLONE | __WALL;

}  // namespace

SysResult sys_wait4(Task& t, int pid, GuestPtr<int32_t> status, int options, uint64_t rusage) {
  if (options & ~kWaitOptions) return -EINVAL;
  int st = 0;
  struct rusage ru {};
  long r;
  {
    emu::RunLockReleaser unlocked(t.proc().run_lock(), &t.cpu());
    r = ::syscall(SYS_wait4, pid, &st, options, rusage ? &ru : nullptr);
  }
  if (r < 0) return -errno;
  if (r > 0 && !status.null() && status.write(t.as(), st) != 0) return -EFAULT;
  if (r > 0 && rusage && emu::copy_out(t.as(), rusage, &ru, sizeof ru) != 0) return -EFAULT;
  return r;
}

SysResult sys_waitid(Task& t, int idtype, int id, uint64_t infop, int options, uint64_t rusage) {
  if (options & ~kWaitidOptions) return -EINVAL;
  siginfo_t si{};
  struct rusage ru {};
  long r;
  {
    emu::RunLockReleaser unlocked(t.proc().run_lock(), &t.cpu());
    r = ::syscall(SYS_waitid, idtype, id, infop ? &si : nullptr, options, rusage ? &ru : nullptr);
  }
  if (r < 0) return -errno;
  static_assert(sizeof(siginfo_t) == 128);
  if (infop && emu::copy_out(t.as(), infop, &si, sizeof si) != 0) return -EFAULT;
  if (rusage && emu::copy_out(t.as(), rusage, &ru, sizeof ru) != 0) return -EFAULT;
  return r;
}

}  // namespace syscalls
