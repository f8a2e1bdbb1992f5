// This file implements the signal syscalls on the signals/ model. Signals to this process stay inside
// a64run; signals to other processes go to the host, whose a64run turns them back into guest signals.
#include "syscalls/sys_signal.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "signals/host_signals.h"
#include "signals/signals.h"
#include "signals/slow_core.h"
#include "syscalls/abi/errno.h"
#include "syscalls/fd_util.h"
#include "syscalls/proc_mem.h"

namespace syscalls {
namespace {

using signals::ProcessSignals;

bool valid_sig(int sig) {
  return sig >= 1 && sig <= signals::kNumSignals;
}

// Waits with the run lock released until the thread has a deliverable signal or `deadline` passes.
// Returns false on timeout.
bool park_until_signal(Task& t, const timespec* deadline) {
  emu::RunLockReleaser unlocked(t.proc().run_lock(), &t.cpu());
  while (!t.interrupted()) {
    if (!t.park().wait(deadline, CLOCK_MONOTONIC) && !t.interrupted()) return false;
  }
  return true;
}

}  // namespace

// rt_sigaction(2): per-process actions. Unknown flag bits are cleared (as Linux reports unsupported flags),
// SA_EXPOSE_TAGBITS included: a64run keeps no address tags to expose.
SysResult sys_rt_sigaction(Task& t, int sig, GuestPtr<const guest::sigaction> act,
                           GuestPtr<guest::sigaction> oact, uint64_t sigsetsize) {
  if (sigsetsize != guest::kSigsetSize || !valid_sig(sig)) return -EINVAL;
  guest::sigaction next{};
  if (!act.null()) {
    if (sig == guest::kSIGKILL || sig == guest::kSIGSTOP) return -EINVAL;
    if (act.read(t.as(), &next) != 0) return -EFAULT;
    next.sa_flags &= guest::kUAPI_SA_FLAGS & ~guest::kSA_EXPOSE_TAGBITS;
    next.sa_mask &= ~guest::kUnblockableSignals;
  }
  ProcessSignals& ps = t.proc().signals();
  guest::sigaction prev;
  {
    std::lock_guard lk(ps.sig_lock);
    prev = ps.actions[sig - 1];
    if (!act.null()) {
      ps.actions[sig - 1] = next;
      // POSIX: setting a pending signal to be ignored discards it, in every queue.
      if (signals::is_ignored(next, sig)) {
        ps.queued -= std::min(ps.queued, ps.shared.discard(sig));
        t.proc().for_each_thread(
            [&](emu::Task& th) { ps.queued -= std::min(ps.queued, th.sig().pending.discard(sig)); });
      }
    }
  }
  if (!act.null() && sig == guest::kSIGCHLD) signals::mirror_sigchld_action(next);
  if (!oact.null() && oact.write(t.as(), prev) != 0) return -EFAULT;
  return 0;
}

SysResult sys_rt_sigprocmask(Task& t, int how, GuestPtr<const uint64_t> set, GuestPtr<uint64_t> oset,
                             uint64_t sigsetsize) {
  if (sigsetsize != guest::kSigsetSize) return -EINVAL;
  uint64_t want = 0;
  if (!set.null() && set.read(t.as(), &want) != 0) return -EFAULT;
  ProcessSignals& ps = t.proc().signals();
  uint64_t old;
  {
    std::lock_guard lk(ps.sig_lock);
    old = t.sig().blocked;
    if (!set.null()) {
      switch (how) {
        case guest::kSIG_BLOCK:
          signals::set_blocked_locked(t, old | want);
          break;
        case guest::kSIG_UNBLOCK:
          signals::set_blocked_locked(t, old & ~want);
          break;
        case guest::kSIG_SETMASK:
          signals::set_blocked_locked(t, want);
          break;
        default:
          return -EINVAL;
      }
    }
  }
  if (!oset.null() && oset.write(t.as(), old) != 0) return -EFAULT;
  return 0;
}

SysResult sys_rt_sigpending(Task& t, GuestPtr<uint64_t> set, uint64_t sigsetsize) {
  if (sigsetsize > guest::kSigsetSize) return -EINVAL;
  signals::settle_host_signals(t);  // a host signal generated before the call is pending in it, as on Linux
  ProcessSignals& ps = t.proc().signals();
  uint64_t pending;
  {
    std::lock_guard lk(ps.sig_lock);
    pending = (t.sig().pending.set() | ps.shared.set()) & t.sig().blocked;
  }
  return emu::copy_out(t.as(), set.addr, &pending, sigsetsize);
}

// rt_sigsuspend(2): waits with a temporary mask; the frame of the handler that ends it saves the old mask.
SysResult sys_rt_sigsuspend(Task& t, GuestPtr<const uint64_t> mask, uint64_t sigsetsize) {
  if (sigsetsize != guest::kSigsetSize) return -EINVAL;
  uint64_t m;
  if (mask.read(t.as(), &m) != 0) return -EFAULT;
  ProcessSignals& ps = t.proc().signals();
  {
    std::lock_guard lk(ps.sig_lock);
    t.sig().saved_mask = t.sig().blocked;
    t.sig().has_saved_mask = true;
    signals::set_blocked_locked(t, m);
  }
  park_until_signal(t, nullptr);
  return signals::kERESTARTNOHAND;
}

// rt_sigtimedwait(2): takes a signal of `set` from the queues; the set is unblocked for the wait so that
// senders pick and wake this thread, and the old mask is kept as real_blocked so that an ignored signal
// of the set is still queued (Linux's sig_ignored checks real_blocked too).
SysResult sys_rt_sigtimedwait(Task& t, GuestPtr<const uint64_t> set, GuestPtr<guest::siginfo> info,
                              uint64_t timeout, uint64_t sigsetsize) {
  if (sigsetsize != guest::kSigsetSize) return -EINVAL;
  uint64_t want;
  if (set.read(t.as(), &want) != 0) return -EFAULT;
  want &= ~guest::kUnblockableSignals;
  timespec deadline{};
  if (timeout != 0) {
    struct {
      int64_t sec, nsec;
    } ts{};
    if (emu::copy_in(t.as(), &ts, timeout, sizeof ts) != 0) return -EFAULT;
    if (ts.sec < 0 || ts.nsec < 0 || ts.nsec >= 1'000'000'000) return -EINVAL;
    deadline = signals::add(signals::now(CLOCK_MONOTONIC), {ts.sec, ts.nsec});
    // A poll (zero timeout) takes a host signal generated before the call, as on Linux; a wait takes it
    // when the intake thread has queued it.
    if (ts.sec == 0 && ts.nsec == 0) signals::settle_host_signals(t);
  }
  ProcessSignals& ps = t.proc().signals();
  signals::PendingSignal got;
  uint64_t real_blocked;
  {
    std::lock_guard lk(ps.sig_lock);
    real_blocked = t.sig().blocked;
  }
  // Takes a wanted signal (returns its number), reports another deliverable one (-EINTR), or arms the wait
  // (0). Runs under sig_lock.
  auto step = [&](bool arm) -> int64_t {
    t.sig().real_blocked = 0;
    uint64_t queued = t.sig().pending.set() | ps.shared.set();
    while (queued & want) {
      // dequeue_signal's order: the thread's own queue first (next_signal within each).
      const uint64_t own = t.sig().pending.set() & want;
      const int sig = signals::next_signal(own ? own : ps.shared.set() & want);
      const bool live = (own ? t.sig().pending : ps.shared).take(sig, &got);
      if (ps.queued) --ps.queued;
      queued = t.sig().pending.set() | ps.shared.set();
      if (!live) continue;  // a stale POSIX timer signal, dropped
      signals::set_blocked_locked(t, real_blocked);
      return sig;
    }
    if (!arm || (queued & ~real_blocked)) {
      signals::set_blocked_locked(t, real_blocked);
      return arm ? -EINTR : -EAGAIN;
    }
    t.sig().real_blocked = real_blocked;
    signals::set_blocked_locked(t, real_blocked & ~want);
    return 0;
  };
  int64_t r;
  while (true) {
    {
      std::lock_guard lk(ps.sig_lock);
      if ((r = step(true)) != 0) break;
    }
    if (!park_until_signal(t, timeout ? &deadline : nullptr)) {
      std::lock_guard lk(ps.sig_lock);
      r = step(false);
      break;
    }
  }
  if (r <= 0) return r;
  if (!info.null() && info.write(t.as(), got.info) != 0) return -EFAULT;
  return r;
}

namespace {

// Whether a process-directed signal to `pid` is this process's: its pid, or (as Linux's find_vpid) the id
// of any of its threads, which the signal then tries first (*first: the main thread for the pid, while it
// runs). The caller holds the run lock, so a thread found here cannot finish exiting meanwhile.
bool this_process(Task& t, int pid, emu::Task** first) {
  if (pid <= 0) return false;
  *first = t.proc().find_thread(pid);
  return *first != nullptr || pid == t.proc().host_pid();
}

// SIGKILL to another process of this memory (a CLONE_VM relative) ends it with its threads at safe points
// (emu/process_death.cpp): the host's SIGKILL would end them wherever they are, perhaps holding a lock of the
// emulator's memory that the family shares. True when that is done; false to send the host's signal.
// `id` is a pid or a thread id; `tgid`, when not 0, the process the thread must belong to (tgkill).
bool kill_relative(Task& t, int id, int tgid = 0) {
  if (!t.proc().shares_memory()) return false;
  bool done = false;
  t.proc().with_relative(id, [&](emu::Process& p) {
    if (tgid == 0 || p.host_pid() == tgid) done = p.kill_from_relative();
  });
  return done;
}

// The same for a SIGKILL to a process group (pid 0 or -pgrp) or to every process (-1): the relatives in it
// first; then, when the caller's own process is in it, its own end is prepared as exit_group's is, so that
// the host's SIGKILL finds the other threads parked.
void kill_relatives_in_group(Task& t, int pid) {
  if (!t.proc().shares_memory()) return;
  const pid_t own_group = ::getpgrp();
  const pid_t group = pid == 0 ? own_group : -pid;
  t.proc().for_each_relative([&](emu::Process& p) {
    if (pid == -1 || ::getpgid(p.host_pid()) == group) p.kill_from_relative();
  });
  if (pid != -1 && group == own_group) t.proc().prepare_death();
}

}  // namespace

SysResult sys_kill(Task& t, int pid, int sig) {
  if (sig < 0 || sig > signals::kNumSignals) return -EINVAL;
  emu::Task* named = nullptr;
  if (!this_process(t, pid, &named)) {
    if (sig == guest::kSIGKILL && pid > 0 && kill_relative(t, pid)) return 0;
    if (sig == guest::kSIGKILL && pid <= 0 && pid != INT32_MIN) kill_relatives_in_group(t, pid);
    const int r = ::kill(pid, sig);
    // A process group the caller is in: on Linux the signal is pending here before kill returns, so it is
    // handled on the way out. The host's reaches the intake thread asynchronously: wait until it has.
    if (r == 0 && sig != 0 && (pid == 0 || -pid == ::getpgrp())) signals::sync_host_signals();
    return guest::from_host(r);
  }
  if (sig == 0) return 0;
  return signals::send_to_process(t.proc(), signals::user_siginfo(sig, guest::kSI_USER), named);
}

SysResult sys_tgkill(Task& t, int tgid, int tid, int sig) {
  if (sig < 0 || sig > signals::kNumSignals || tid <= 0 || tgid <= 0) return -EINVAL;
  if (tgid != t.proc().host_pid()) {
    if (sig == guest::kSIGKILL && kill_relative(t, tid, tgid)) return 0;
    return guest::from_host(::syscall(SYS_tgkill, tgid, tid, sig));
  }
  emu::Task* target = t.proc().find_thread(tid);
  if (target == nullptr) return -ESRCH;
  if (sig == 0) return 0;
  return signals::send_to_thread(*target, signals::user_siginfo(sig, guest::kSI_TKILL));
}

SysResult sys_tkill(Task& t, int tid, int sig) {
  if (tid <= 0) return -EINVAL;
  if (t.proc().find_thread(tid) == nullptr) {
    if (sig == guest::kSIGKILL && kill_relative(t, tid)) return 0;
    return guest::from_host(::syscall(SYS_tkill, tid, sig));
  }
  return sys_tgkill(t, t.proc().host_pid(), tid, sig);
}

// rt_sigqueueinfo(2): a caller may use kernel si_codes (>= 0, SI_TKILL) only towards itself, and "itself" is
// its thread id (Linux compares pid with task_pid_vnr(current)): only the main thread passes for its process.
// Signal 0 checks the target and the permission only, as kill(pid, 0) does.
SysResult sys_rt_sigqueueinfo(Task& t, int pid, int sig, GuestPtr<const guest::siginfo> info) {
  if (sig != 0 && !valid_sig(sig)) return -EINVAL;
  guest::siginfo si;
  if (info.read(t.as(), &si) != 0) return -EFAULT;
  si.si_signo = sig;
  if ((si.si_code >= 0 || si.si_code == guest::kSI_TKILL) && pid != t.tid()) return -EPERM;
  emu::Task* named = nullptr;
  if (!this_process(t, pid, &named)) {
    if (sig == guest::kSIGKILL && kill_relative(t, pid)) return 0;
    return guest::from_host(::syscall(SYS_rt_sigqueueinfo, pid, sig, &si));
  }
  return sig == 0 ? 0 : signals::send_to_process(t.proc(), si, named);
}

SysResult sys_rt_tgsigqueueinfo(Task& t, int tgid, int tid, int sig, GuestPtr<const guest::siginfo> info) {
  if ((sig != 0 && !valid_sig(sig)) || tid <= 0 || tgid <= 0) return -EINVAL;
  guest::siginfo si;
  if (info.read(t.as(), &si) != 0) return -EFAULT;
  si.si_signo = sig;
  if (tgid != t.proc().host_pid()) {
    if (sig == guest::kSIGKILL && kill_relative(t, tid, tgid)) return 0;
    return guest::from_host(::syscall(SYS_rt_tgsigqueueinfo, tgid, tid, sig, &si));
  }
  if ((si.si_code >= 0 || si.si_code == guest::kSI_TKILL) && tid != t.tid()) return -EPERM;
  emu::Task* target = t.proc().find_thread(tid);
  if (target == nullptr) return -ESRCH;
  return sig == 0 ? 0 : signals::send_to_thread(*target, si);
}

namespace {

// The process a pidfd names (its fdinfo's Pid line), -1 when it is not one.
int pidfd_target(int pidfd) {
  char path[64];
  snprintf(path, sizeof path, "/proc/self/fdinfo/%d", pidfd);
  int target = -1;
  if (FILE* f = fopen(path, "re")) {
    char line[128];
    while (fgets(line, sizeof line, f)) sscanf(line, "Pid: %d", &target);
    fclose(f);
  }
  return target;
}

// The process pidfd_send_signal reaches through `fd`: a pidfd's, or that of a /proc/PID directory, which
// Linux takes as well (pidfd_to_pid: tgid_pidfd_to_pid; a thread's /proc/PID/task/TID is refused). -1 for
// any other file.
int signal_target(int fd) {
  if (const int pid = pidfd_target(fd); pid > 0) return pid;
  struct statfs fs {};
  if (::fstatfs(fd, &fs) != 0 || fs.f_type != PROC_SUPER_MAGIC) return -1;
  const std::string path = fd_path(fd);
  int pid = -1;
  int end = 0;
  if (sscanf(path.c_str(), "/proc/%d%n", &pid, &end) != 1 || static_cast<size_t>(end) != path.size())
    return -1;
  return pid;
}

}  // namespace

SysResult sys_pidfd_send_signal(Task& t, int pidfd, int sig, GuestPtr<const guest::siginfo> info,
                                uint32_t flags) {
  if (flags != 0 || sig < 0 || sig > signals::kNumSignals) return -EINVAL;
  if (is_reserved_fd(pidfd)) return -EBADF;
  guest::siginfo si{};
  if (!info.null() && info.read(t.as(), &si) != 0) return -EFAULT;
  // The pidfd names a host process; for this process a64run queues the signal itself (so it is pending, and
  // handled, when the call returns, as on Linux).
  if (const int target = signal_target(pidfd); target != ::getpid()) {
    if (sig == guest::kSIGKILL && target > 0 && kill_relative(t, target)) return 0;
    return guest::from_host(::syscall(SYS_pidfd_send_signal, pidfd, sig, info.null() ? nullptr : &si, 0));
  }
  // The kernel's check of a given siginfo (the host makes it on the other path): its signal is `sig`.
  if (!info.null() && si.si_signo != sig) return -EINVAL;
  if (sig == 0) return 0;
  if (info.null()) return signals::send_to_process(t.proc(), signals::user_siginfo(sig, guest::kSI_USER));
  return signals::send_to_process(t.proc(), si);
}

// pidfd_open(2): guest pids are the host's, so the host's pidfd is the guest's.
SysResult sys_pidfd_open(Task&, int pid, uint32_t flags) {
  return guest::from_host(::syscall(SYS_pidfd_open, pid, flags));
}

// pidfd_getfd(2): another process's fd numbers are the host's (a64run's guests use host descriptors); in
// this process, the emulator's own are not the guest's to take.
SysResult sys_pidfd_getfd(Task&, int pidfd, int targetfd, uint32_t flags) {
  if (is_reserved_fd(pidfd)) return -EBADF;
  if (is_reserved_fd(targetfd) && pidfd_target(pidfd) == ::getpid()) return -EBADF;
  const int64_t fd = guest::from_host(::syscall(SYS_pidfd_getfd, pidfd, targetfd, flags));
  if (fd >= 0) proc_mem_note_fd(static_cast<int>(fd));
  return fd;
}

SysResult sys_sigaltstack(Task& t, GuestPtr<const guest::stack_t> ss, GuestPtr<guest::stack_t> old) {
  guest::stack_t& cur = t.sig().altstack;
  const uint64_t sp = t.cpu().sp();
  const bool on_stack = signals::on_altstack(cur, sp);
  guest::stack_t report = cur;
  if ((cur.ss_flags & guest::kSS_DISABLE) || cur.ss_size == 0) {
    // do_sigaltstack: sas_ss_flags() and the flag bits (SS_AUTODISARM) last set, with SS_DISABLE too.
    report = {0, guest::kSS_DISABLE | (cur.ss_flags & guest::kSS_FLAG_BITS), 0, 0};
  } else {
    report.ss_flags = (cur.ss_flags & guest::kSS_FLAG_BITS) | (on_stack ? guest::kSS_ONSTACK : 0);
  }
  if (!ss.null()) {
    guest::stack_t next;
    if (ss.read(t.as(), &next) != 0) return -EFAULT;
    if (on_stack) return -EPERM;
    const int mode = next.ss_flags & ~guest::kSS_FLAG_BITS;
    if (mode != guest::kSS_DISABLE && mode != guest::kSS_ONSTACK && mode != 0) return -EINVAL;
    if (mode == guest::kSS_DISABLE) {
      cur = {0, guest::kSS_DISABLE | (next.ss_flags & guest::kSS_FLAG_BITS), 0, 0};
    } else {
      if (next.ss_size < guest::kMINSIGSTKSZ) return -ENOMEM;
      cur = {next.ss_sp, next.ss_flags & guest::kSS_FLAG_BITS, 0, next.ss_size};
    }
  }
  if (!old.null() && old.write(t.as(), report) != 0) return -EFAULT;
  return 0;
}

SysResult sys_rt_sigreturn(Task& t) {
  if (!signals::sigreturn(t)) {
    guest::siginfo si{};
    si.si_signo = guest::kSIGSEGV;
    si.si_code = guest::kSI_KERNEL;
    signals::deliver_fault(t, si, {});
    return kNoReturnValue;
  }
  signals::delay_after_sigreturn(t);  // the slow-core model's post-ack delay (no-op unless asked for)
  return kNoReturnValue;
}

SysResult sys_restart_syscall(Task& t) {
  if (!t.restart.block) return -EINTR;
  auto block = std::move(t.restart.block);
  t.restart.block = nullptr;
  return block(t);
}

}  // namespace syscalls
