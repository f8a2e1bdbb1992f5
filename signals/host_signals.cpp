// This file implements the host signal intake thread and SIGCHLD mirroring.
#include "signals/host_signals.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "emu/task.h"
#include "signals/safe_syscall.h"
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

// The process start_host_signal_intake started the intake thread of (the first of this a64run); written
// and read with the __atomic builtins (forward_to_intake).
emu::Process* g_first_process = nullptr;

// (Also built by forward_to_intake, in a signal handler: not instrumented either.)
__attribute__((no_sanitize("thread"))) siginfo_t marker(uint64_t magic, uint32_t number) {
  siginfo_t si{};
  si.si_signo = SIGRTMAX;  // timer_host_signal(), not called: no instrumented call from a signal handler
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
  if (slot >= HostIntake::kForwardSlots || __atomic_load_n(&in.forward_state[slot], __ATOMIC_ACQUIRE) != 2) {
    return false;
  }
  *hsi = in.forward_info[slot];
  __atomic_store_n(&in.forward_state[slot], 0, __ATOMIC_RELEASE);
  return true;
}

// The signals a64run takes asynchronously: all of them, in the kernel's 64-bit set for the raw calls (glibc's
// sigfillset leaves out its own 32 and 33, which a guest uses as any RT signal: a host 32 left unblocked
// would end a64run by its default action, and glibc's handler for 33 would swallow one). SIGSEGV, SIGBUS,
// SIGILL, SIGFPE and SIGTRAP too: another process may kill() the guest with them, and the guest may ignore
// or block them. The kernel forces a real fault in the emulator through the block (it unblocks the signal
// and resets it to SIG_DFL), so a bug in a64run still ends it with that signal.
constexpr uint64_t kAsyncSet = ~uint64_t{0};

constexpr int kGlibcCancel = 32;  // glibc's SIGCANCEL and SIGSETXID (__SIGRTMIN and __SIGRTMIN + 1)
constexpr int kGlibcSetxid = 33;

void* intake_main(void* arg) {
  auto* proc = static_cast<emu::Process*>(arg);
  emu::Process::set_current(proc);
  HostIntake& in = proc->intake;
  syscalls::reserve_tid(static_cast<int>(::gettid()));
  const uint64_t set = kAsyncSet;
  // Everything blocked, the safe calls' wake signal too: a fork child's intake thread is made by a thread
  // that leaves it unblocked.
  ::syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, nullptr, sizeof set);
  __atomic_store_n(&in.pid, static_cast<int>(::getpid()), __ATOMIC_RELEASE);
  __atomic_store_n(&in.tid, static_cast<int>(::gettid()), __ATOMIC_RELEASE);
  while (true) {
    siginfo_t hsi{};
    // The raw call: glibc's sigwaitinfo would leave out its reserved RT signals 32 and 33.
    long sig = ::syscall(SYS_rt_sigtimedwait, &set, &hsi, nullptr, sizeof set);
    if (sig <= 0 || take_sync_marker(in, sig, hsi)) continue;
    if (take_forwarded(in, sig, &hsi)) sig = hsi.si_signo;
    if (sig == timer_host_signal() && hsi.si_code == SI_TIMER) {
      timer_expired(*proc, reinterpret_cast<uintptr_t>(hsi.si_value.sival_ptr), hsi.si_overrun);
      continue;
    }
    send_to_process(*proc, guest::to_guest(hsi));
  }
  return nullptr;
}

// Host 32 and 33 that land on a thread which leaves them unblocked (glibc unblocks 32 in every thread it
// starts until the thread blocks it again, and in threads a64run does not start: ThreadSanitizer's) go to
// the intake thread like the wake signal's strays, instead of ending a64run (32's default action) or
// reaching glibc's handler for 33. A raw handler (safe_syscall.h).
__attribute__((no_sanitize("thread"))) void on_stray_signal(int /*sig*/, siginfo_t* si, void* /*ctx*/) {
  const int saved_errno = errno;
  forward_to_intake(*si);
  errno = saved_errno;
}

// glibc's first pthread_create of a process (late_init) installs its handler for 33 and unblocks 32 and 33 in
// the calling thread: the raw handlers go in, and the signals are blocked again, after it.
void after_first_thread() {
  install_raw_handler(kGlibcCancel, &on_stray_signal);
  install_raw_handler(kGlibcSetxid, &on_stray_signal);
  block_after_thread_start();
}

}  // namespace

void start_host_signal_intake(emu::Process& proc) {
  __atomic_store_n(&g_first_process, &proc, __ATOMIC_RELEASE);
  const uint64_t set = kAsyncSet;
  ::syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, nullptr, sizeof set);
  struct sigaction ign {};
  ign.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ign, nullptr);
  pthread_t th;
  pthread_create(&th, nullptr, &intake_main, &proc);
  pthread_detach(th);
  after_first_thread();
}

void restart_host_signal_intake(emu::Process& proc) {
  __atomic_store_n(&proc.intake.tid, 0, __ATOMIC_RELEASE);
  pthread_t th;
  pthread_create(&th, nullptr, &intake_main, &proc);
  pthread_detach(th);
  after_first_thread();  // a fork child's may be its first again
}

void block_after_thread_start() {
  const uint64_t set = kAsyncSet & ~(uint64_t{1} << (wake_signal() - 1));
  ::syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, nullptr, sizeof set);
}

void mirror_sigchld_action(const guest::sigaction& act) {
  // The host sends SIGCHLD for the child events the guest's kernel would signal, and the intake thread takes
  // it for the guest's (SIGCHLD stays blocked everywhere, so the host handler never runs): never host
  // SIG_IGN, which would send none. The guest's auto-reaping (SIG_IGN or SA_NOCLDWAIT) is the host's
  // SA_NOCLDWAIT, which reaps and still sends SIGCHLD; SA_NOCLDSTOP is the host's own (a blocking wait4 is
  // the host's, which the kernel wakes for a stop with or without a signal).
  struct sigaction h {};
  h.sa_handler = SIG_DFL;
  if (act.handler == guest::kSIG_IGN || (act.sa_flags & guest::kSA_NOCLDWAIT)) h.sa_flags |= SA_NOCLDWAIT;
  if (act.sa_flags & guest::kSA_NOCLDSTOP) h.sa_flags |= SA_NOCLDSTOP;
  ::sigaction(SIGCHLD, &h, nullptr);
}

int intake_tid() {
  const HostIntake& in = emu::Process::current()->intake;
  int tid;
  while ((tid = __atomic_load_n(&in.tid, __ATOMIC_ACQUIRE)) == 0) sched_yield();
  return tid;
}

void sync_host_signals() {
  HostIntake& in = emu::Process::current()->intake;
  const int pid = static_cast<int>(::getpid());
  if (__atomic_load_n(&in.tid, __ATOMIC_ACQUIRE) == 0 || __atomic_load_n(&in.pid, __ATOMIC_ACQUIRE) != pid) {
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

// Runs in the wake signal's handler, which ThreadSanitizer does not know of (safe_syscall.cpp): nothing in it
// is instrumented.
__attribute__((no_sanitize("thread"))) void forward_to_intake(const siginfo_t& si) {
  emu::Process* proc = emu::Process::current();
  // A thread that runs no Process (one starting, ThreadSanitizer's own): the first one's, which a fork child
  // keeps (the same object); a CLONE_VM child's threads all have theirs.
  if (proc == nullptr) proc = __atomic_load_n(&g_first_process, __ATOMIC_ACQUIRE);
  const int pid = static_cast<int>(::getpid());
  if (proc == nullptr) return;
  HostIntake& in = proc->intake;
  const int tid = __atomic_load_n(&in.tid, __ATOMIC_ACQUIRE);
  if (tid == 0 || __atomic_load_n(&in.pid, __ATOMIC_ACQUIRE) != pid) return;  // no intake thread here
  for (int slot = 0; slot < HostIntake::kForwardSlots; ++slot) {
    int expected = 0;
    if (!__atomic_compare_exchange_n(&in.forward_state[slot], &expected, 1, false, __ATOMIC_ACQUIRE,
                                     __ATOMIC_RELAXED)) {
      continue;
    }
    in.forward_info[slot] = si;
    __atomic_store_n(&in.forward_state[slot], 2, __ATOMIC_RELEASE);
    siginfo_t m = marker(kForwardMagic, static_cast<uint32_t>(slot));
    if (::syscall(SYS_rt_tgsigqueueinfo, pid, tid, m.si_signo, &m) != 0)
      __atomic_store_n(&in.forward_state[slot], 0, __ATOMIC_RELEASE);
    return;
  }
}

}  // namespace signals
