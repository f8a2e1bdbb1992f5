// This file implements the host signal intake thread and SIGCHLD mirroring.
#include "signals/host_signals.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <mutex>

#include "emu/task.h"
#include "signals/mq_notify.h"
#include "signals/signals.h"
#include "signals/timers.h"
#include "syscalls/fd_util.h"

namespace signals {
namespace {

// The intake thread's markers: SIGRTMAX queued by this process itself, SI_QUEUE, with a magic number in the
// upper half of its value and a number of the sender's in the lower half. sync_host_signals' carry a
// sequence number, forward_to_intake's a slot.
constexpr uint64_t kSyncMagic = uint64_t{0xa64c5c0d} << 32;
constexpr uint64_t kForwardMagic = uint64_t{0xa64cf0d0} << 32;
constexpr uint64_t kQuitMagic = uint64_t{0xa64cd1e0} << 32;

siginfo_t marker(uint64_t magic, uint32_t number) {
  siginfo_t si{};
  si.si_signo = timer_host_signal();
  si.si_code = SI_QUEUE;
  si.si_pid = static_cast<int>(::getpid());
  si.si_uid = ::getuid();
  si.si_value.sival_ptr = reinterpret_cast<void*>(magic | number);
  return si;
}

// True when the signal the intake thread took is a marker with `magic`; *number is its lower half.
bool is_marker(long sig, const siginfo_t& hsi, uint64_t magic, uint32_t* number) {
  const auto v = reinterpret_cast<uintptr_t>(hsi.si_value.sival_ptr);
  if (sig != timer_host_signal() || hsi.si_code != SI_QUEUE || hsi.si_pid != ::getpid()) return false;
  if ((v & ~uint64_t{0xffffffff}) != magic) return false;
  *number = static_cast<uint32_t>(v);
  return true;
}

bool take_sync_marker(HostIntake& in, long sig, const siginfo_t& hsi) {
  uint32_t seq;
  if (!is_marker(sig, hsi, kSyncMagic, &seq)) return false;
  in.sync_acked.store(seq, std::memory_order_release);
  in.sync_acked.notify_all();
  return true;
}

bool take_forwarded(HostIntake& in, long sig, siginfo_t* hsi) {
  uint32_t slot;
  if (!is_marker(sig, *hsi, kForwardMagic, &slot)) return false;
  if (slot >= HostIntake::kForwardSlots || in.forward_state[slot].load(std::memory_order_acquire) != 2) {
    return false;
  }
  *hsi = in.forward_info[slot];
  in.forward_state[slot].store(0, std::memory_order_release);
  return true;
}

// The signals a64run takes asynchronously: all of them. SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGTRAP too:
// another process may kill() the guest with them, and the guest may ignore or block them. The kernel forces
// a real fault in the emulator through the block (it unblocks the signal and resets it to SIG_DFL), so a
// bug in a64run still ends it with that signal.
::sigset_t async_set() {
  ::sigset_t s;
  sigfillset(&s);
  return s;
}

// SA_NOCLDSTOP: no SIGCHLD for a child's stop or continue (do_notify_parent_cldstop). Applied here, not by
// the host: the host's SIGCHLD also wakes wait4/waitid callers (mirror_sigchld_action). A child's exit may
// have been merged into a stop's host SIGCHLD still pending (standard signals coalesce), so when a child is
// waitable as exited, the signal is kept and carries that exit (waitid WNOWAIT leaves the child to the
// guest).
bool suppressed_by_nocldstop(emu::Process& proc, siginfo_t* hsi) {
  if (hsi->si_code != CLD_STOPPED && hsi->si_code != CLD_CONTINUED) return false;
  {
    ProcessSignals& ps = proc.signals();
    std::lock_guard lk(ps.sig_lock);
    if (!(ps.actions[SIGCHLD - 1].sa_flags & guest::kSA_NOCLDSTOP)) return false;
  }
  siginfo_t exited{};
  if (::waitid(P_ALL, 0, &exited, WEXITED | WNOHANG | WNOWAIT) == 0 && exited.si_pid != 0) {
    *hsi = exited;
    return false;
  }
  return true;
}

void* intake_main(void* arg) {
  auto* proc = static_cast<emu::Process*>(arg);
  emu::Process::set_current(proc);
  HostIntake& in = proc->intake;
  syscalls::reserve_tid(static_cast<int>(::gettid()));
  syscalls::name_emulator_thread("intake");
  ::sigset_t set = async_set();
  // Everything blocked, the safe calls' wake signal too: a fork child's intake thread is made by a thread
  // that leaves it unblocked.
  ::syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, nullptr, 8);
  in.pid.store(static_cast<int>(::getpid()), std::memory_order_release);
  in.tid.store(static_cast<int>(::gettid()), std::memory_order_release);
  while (true) {
    siginfo_t hsi{};
    // The raw call: glibc's sigwaitinfo would leave out its reserved RT signals 32 and 33.
    long sig = ::syscall(SYS_rt_sigtimedwait, &set, &hsi, nullptr, 8);
    if (sig <= 0 || take_sync_marker(in, sig, hsi)) continue;
    if (uint32_t unused; is_marker(sig, hsi, kQuitMagic, &unused)) {
      // stop_host_signal_intake: what arrives from now on waits, blocked, for the next intake thread.
      syscalls::unreserve_tid(static_cast<int>(::gettid()));
      in.tid.store(0, std::memory_order_release);
      return nullptr;
    }
    if (take_forwarded(in, sig, &hsi)) sig = hsi.si_signo;
    if (sig == timer_host_signal() && hsi.si_code == SI_TIMER) {
      timer_expired(*proc, reinterpret_cast<uintptr_t>(hsi.si_value.sival_ptr), hsi.si_overrun);
      continue;
    }
    if (sig == timer_host_signal() && hsi.si_code == SI_MESGQ) {
      mq_notified(*proc, hsi);
      continue;
    }
    if (sig == SIGCHLD) {
      // Decided before the waiters wake: a woken waiter could reap the exit that suppressed_by_nocldstop
      // looks for.
      const bool suppressed = suppressed_by_nocldstop(*proc, &hsi);
      in.child_events.fetch_add(1, std::memory_order_acq_rel);
      proc->wake_child_waiters();
      if (suppressed) continue;
    }
    send_to_process(*proc, guest::to_guest(hsi));
  }
  return nullptr;
}

// Starts the intake thread and waits until it is up: it has reserved and named itself, so the /proc views
// the guest reads from now on leave it out (a few tens of microseconds, once per process).
void start_intake_thread(emu::Process& proc) {
  pthread_t th;
  pthread_create(&th, nullptr, &intake_main, &proc);
  pthread_detach(th);
  while (proc.intake.tid.load(std::memory_order_acquire) == 0) sched_yield();
}

// The host process's threads (entries of /proc/self/task), 0 when they cannot be read.
int host_thread_count() {
  const int fd = ::open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return 0;
  int n = 0;
  alignas(8) char buf[4096];
  long len;
  while ((len = ::syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
    for (long off = 0; off < len;) {
      const auto* d = reinterpret_cast<const dirent64*>(buf + off);
      if (d->d_name[0] != '.') ++n;
      off += d->d_reclen;
    }
  }
  ::close(fd);
  return n;
}

}  // namespace

void start_host_signal_intake(emu::Process& proc) {
  ::sigset_t set = async_set();
  ::syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, nullptr, 8);
  struct sigaction ign {};
  ign.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ign, nullptr);
  start_intake_thread(proc);
}

void restart_host_signal_intake(emu::Process& proc) {
  proc.intake.tid.store(0, std::memory_order_release);
  start_intake_thread(proc);
}

bool stop_host_signal_intake(emu::Process& proc) {
  HostIntake& in = proc.intake;
  const int tid = in.tid.load(std::memory_order_acquire);
  if (tid == 0 || in.pid.load(std::memory_order_acquire) != static_cast<int>(::getpid())) return false;
  siginfo_t m = marker(kQuitMagic, 0);
  if (::syscall(SYS_rt_tgsigqueueinfo, ::getpid(), tid, m.si_signo, &m) != 0) return false;
  while (in.tid.load(std::memory_order_acquire) != 0) sched_yield();
  // The thread has returned; the host counts it until the kernel has reaped it (a few microseconds).
  for (int i = 0; i < 2000 && host_thread_count() > 1; ++i) ::usleep(500);
  return true;
}

void mirror_sigchld_action(const guest::sigaction& act) {
  // The host must send SIGCHLD for every child event: it is what wakes a parked wait4/waitid. So never host
  // SIG_IGN (no signal at all) or SA_NOCLDSTOP (a waitpid(WUNTRACED) would sleep through the stop). The
  // guest's auto-reaping (SIG_IGN or SA_NOCLDWAIT) is the host's SA_NOCLDWAIT, which reaps and still sends
  // SIGCHLD; SA_NOCLDSTOP is applied by the intake thread. SIGCHLD stays blocked everywhere and is taken by
  // the intake thread, so the host handler never runs.
  struct sigaction h {};
  h.sa_handler = SIG_DFL;
  if (act.handler == guest::kSIG_IGN || (act.sa_flags & guest::kSA_NOCLDWAIT)) h.sa_flags = SA_NOCLDWAIT;
  ::sigaction(SIGCHLD, &h, nullptr);
}

void sync_host_signals() {
  HostIntake& in = emu::Process::current()->intake;
  const int pid = static_cast<int>(::getpid());
  if (in.tid.load(std::memory_order_acquire) == 0 || in.pid.load(std::memory_order_acquire) != pid) {
    return;  // no intake thread in this host process (a CLONE_VM|CLONE_VFORK child)
  }
  uint32_t seq;
  {
    std::lock_guard lk(in.sync_mu);
    seq = ++in.sync_next;
    siginfo_t si = marker(kSyncMagic, seq);
    if (::syscall(SYS_rt_sigqueueinfo, pid, si.si_signo, &si) != 0) return;
  }
  uint32_t a;
  while (static_cast<int32_t>((a = in.sync_acked.load(std::memory_order_acquire)) - seq) < 0)
    in.sync_acked.wait(a);
}

void forward_to_intake(const siginfo_t& si) {
  emu::Process* proc = emu::Process::current();
  const int pid = static_cast<int>(::getpid());
  if (proc == nullptr) return;
  HostIntake& in = proc->intake;
  const int tid = in.tid.load(std::memory_order_acquire);
  if (tid == 0 || in.pid.load(std::memory_order_acquire) != pid) return;  // no intake thread here
  for (int slot = 0; slot < HostIntake::kForwardSlots; ++slot) {
    int expected = 0;
    if (!in.forward_state[slot].compare_exchange_strong(expected, 1, std::memory_order_acquire)) continue;
    in.forward_info[slot] = si;
    in.forward_state[slot].store(2, std::memory_order_release);
    siginfo_t m = marker(kForwardMagic, static_cast<uint32_t>(slot));
    if (::syscall(SYS_rt_tgsigqueueinfo, pid, tid, m.si_signo, &m) != 0)
      in.forward_state[slot].store(0, std::memory_order_release);
    return;
  }
}

uint64_t child_event_count() {
  return emu::Process::current()->intake.child_events.load(std::memory_order_acquire);
}

}  // namespace signals
