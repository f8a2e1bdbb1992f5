// This file implements the host signal intake thread and SIGCHLD mirroring.
#include "signals/host_signals.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>

#include <fmt/core.h>

#include "emu/host_fault.h"
#include "emu/task.h"
#include "signals/mq_notify.h"
#include "signals/park.h"
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
constexpr uint64_t kQuitMagic = uint64_t{0xa64cd1e0} << 32;

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
// and resets it to SIG_DFL), so a bug in a64run still ends it with that signal. (The intake thread waits
// for all of them; the others leave SIGSEGV and SIGBUS unblocked: kThreadBlocked.)
constexpr uint64_t kAsyncSet = ~uint64_t{0};
// What a64run's threads block: all but SIGSEGV and SIGBUS, whose handler (emu/host_fault.h) must run for a
// fault in a guarded access to guest memory and for the guest's own faults in translated code (a fault on a
// blocked signal kills at once); the handler passes one another process sent on to the intake thread.
constexpr uint64_t kThreadBlocked =
    kAsyncSet & ~(uint64_t{1} << (SIGSEGV - 1)) & ~(uint64_t{1} << (SIGBUS - 1));

constexpr int kGlibcCancel = 32;  // glibc's SIGCANCEL and SIGSETXID (__SIGRTMIN and __SIGRTMIN + 1)
constexpr int kGlibcSetxid = 33;

// Acts on one host signal the intake thread took. False for stop_host_signal_intake's marker: the worker
// ends.
bool act_on(emu::Process& proc, HostIntake& in, long sig, siginfo_t hsi) {
  if (take_sync_marker(in, sig, hsi)) return true;
  if (uint32_t unused; is_marker(sig, hsi, kQuitMagic, &unused)) return false;
  if (take_forwarded(in, sig, &hsi)) sig = hsi.si_signo;
  if (sig == timer_host_signal() && hsi.si_code == SI_TIMER) {
    timer_expired(proc, reinterpret_cast<uintptr_t>(hsi.si_value.sival_ptr), hsi.si_overrun);
    return true;
  }
  if (sig == timer_host_signal() && hsi.si_code == SI_MESGQ) {
    mq_notified(proc, hsi);
    return true;
  }
  send_to_process(proc, guest::to_guest(hsi));
  return true;
}

// A signalfd for every asynchronous host signal, in a descriptor table of the calling thread's own: the
// guest's table keeps every number it may use (a guest that counts its free descriptors and then fills its
// table gets them all). unshare gives the thread a copy of the process's table, whose descriptors are closed
// at once (a copy would keep a pipe's end open), with raw calls: the sanitizers' descriptor bookkeeping is
// the process's table's. -1 when the kernel refuses (the intake thread then waits in rt_sigtimedwait).
int private_signalfd(const uint64_t& set) {
  if (::unshare(CLONE_FILES) != 0) return -1;
  if (::syscall(SYS_close_range, 0U, ~0U, 0U) != 0) {
    // Before Linux 5.9: one by one, up to the highest number this thread's table can hold.
    rlimit rl{};
    ::getrlimit(RLIMIT_NOFILE, &rl);
    const rlim_t top = rl.rlim_max == RLIM_INFINITY ? rlim_t{1} << 20 : rl.rlim_max;
    for (rlim_t fd = 0; fd < top; ++fd) ::syscall(SYS_close, static_cast<int>(fd));
  }
  return static_cast<int>(::syscall(SYS_signalfd4, -1, &set, sizeof set, SFD_CLOEXEC | SFD_NONBLOCK));
}

// The start of the intake thread and of its worker: the process's, hidden from the guest's /proc views,
// named, and with everything blocked, the safe calls' wake signal too (a fork child's are made by a thread
// that leaves it unblocked).
HostIntake& enter_intake_thread(emu::Process& proc, const char* role) {
  emu::Process::set_current(&proc);
  syscalls::reserve_tid(static_cast<int>(::gettid()));
  syscalls::name_emulator_thread(role);
  const uint64_t set = kAsyncSet;
  ::syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, nullptr, sizeof set);
  return proc.intake;
}

// The worker: acts on what the intake thread hands it, in the process's descriptor table (signalfd
// readiness bytes, written by number), from the process's first signalfd on.
void* worker_main(void* arg) {
  auto* proc = static_cast<emu::Process*>(arg);
  HostIntake& in = enter_intake_thread(*proc, "signals");
  __atomic_store_n(&in.worker, static_cast<int>(::gettid()), __ATOMIC_RELEASE);
  while (true) {
    int h;
    while ((h = in.handoff.load(std::memory_order_acquire)) == 0)
      in.handoff.wait(0, std::memory_order_acquire);
    const bool go_on = h == 1 && act_on(*proc, in, in.handoff_sig, in.handoff_info);
    in.handoff.store(0, std::memory_order_relaxed);
    if (!go_on) break;
    in.busy.store(0, std::memory_order_release);
    in.busy.notify_all();
  }
  syscalls::unreserve_tid(static_cast<int>(::gettid()));
  __atomic_store_n(&in.worker, 0, __ATOMIC_RELEASE);
  in.busy.store(0, std::memory_order_release);
  in.busy.notify_all();
  return nullptr;
}

// The intake thread: takes each host signal and acts on it, or hands it to the worker once the process has
// one.
void* intake_main(void* arg) {
  auto* proc = static_cast<emu::Process*>(arg);
  HostIntake& in = enter_intake_thread(*proc, "intake");
  const uint64_t set = kAsyncSet;
  const int fd = private_signalfd(set);
  __atomic_store_n(&in.tid, static_cast<int>(::gettid()), __ATOMIC_RELEASE);
  while (in.open.load(std::memory_order_acquire) == 0) in.open.wait(0, std::memory_order_acquire);
  while (true) {
    // Invariant (host_signals_in_flight): from the kernel's dequeue of a host signal until its guest signal
    // is queued, busy is 1. The thread waits for a pending signal without taking it (poll of the signalfd,
    // which reports this thread's signals and the process's), sets busy (a seq_cst store, before the
    // dequeue's own locked instructions), takes one, queues it itself or hands it to the worker and waits
    // until the worker has queued it and cleared busy. A thread that sees neither the signal pending nor
    // busy set knows the guest signal of any host signal generated before its look is queued already.
    pollfd p{fd, POLLIN, 0};
    if (fd >= 0 && ::poll(&p, 1, -1) <= 0) continue;
    in.busy.store(1, std::memory_order_seq_cst);
    if (proc->dying()) {
      // The process is ending with its threads parked (emu/process_death.cpp): this one takes nothing more.
      in.busy.store(0, std::memory_order_seq_cst);
      while (true) ::pause();
    }
    siginfo_t hsi{};
    const timespec zero{};
    // The raw call: glibc's sigwaitinfo would leave out its reserved RT signals 32 and 33.
    const long sig = ::syscall(SYS_rt_sigtimedwait, &set, &hsi, fd >= 0 ? &zero : nullptr, sizeof set);
    if (sig <= 0) {
      in.busy.store(0, std::memory_order_release);
      continue;
    }
    uint32_t unused;
    const bool quit = is_marker(sig, hsi, kQuitMagic, &unused);
    if (quit && !in.actor.worker()) break;
    // Queued here, in this thread's own descriptor table, only while the process has no signalfd
    // (ActorSwitch's invariant).
    if (!quit && in.actor.begin_self_act()) {
      act_on(*proc, in, sig, hsi);
      in.actor.end_self_act();
      in.busy.store(0, std::memory_order_release);
      in.busy.notify_all();
      continue;
    }
    in.handoff_sig = sig;
    in.handoff_info = hsi;
    in.handoff.store(quit ? 2 : 1, std::memory_order_release);
    in.handoff.notify_one();
    if (quit) break;
    int b;
    while ((b = in.busy.load(std::memory_order_acquire)) != 0) in.busy.wait(b, std::memory_order_acquire);
  }
  // stop_host_signal_intake: the worker, if any, ends too; what arrives from now on waits, blocked, for the
  // next intake thread.
  while (__atomic_load_n(&in.worker, __ATOMIC_ACQUIRE) != 0) in.busy.wait(1, std::memory_order_acquire);
  syscalls::unreserve_tid(static_cast<int>(::gettid()));
  __atomic_store_n(&in.tid, 0, __ATOMIC_RELEASE);
  return nullptr;
}

void say_no_intake(int err) {
  static std::atomic<bool> said{false};
  if (!said.exchange(true))
    fmt::print(stderr, "a64run: cannot start the signal intake thread ({}): host signals stay pending\n",
               std::strerror(err));
}

// Starts the worker (the calling thread's descriptor table is the one it shares); false when the host
// refuses the thread.
bool start_worker(emu::Process& proc) {
  HostIntake& in = proc.intake;
  in.handoff.store(0, std::memory_order_relaxed);
  pthread_t th;
  if (const int err = pthread_create(&th, nullptr, &worker_main, &proc); err != 0) {
    errno = err;
    return false;
  }
  pthread_detach(th);
  return true;
}

// Starts the intake thread, and its worker when the switch says one acts (a fork child of a process with
// signalfds).
// wait_for_intake_threads waits until they are up: they have reserved and named themselves, so the /proc
// views the guest reads from then on leave them out, and the intake thread holds a descriptor table of its
// own, its copies of the guest's descriptors closed (until then a pipe's end the guest closes stays open in
// the copy). When the host refuses a thread (after unshare(CLONE_NEWPID) or setns to a PID namespace the
// kernel lets no process start a thread, copy_process's EINVAL; EAGAIN at RLIMIT_NPROC), the process goes
// on without them: its pid mark is cleared, so nothing waits for a thread that will never come
// (has_intake, forward_to_intake), and host signals stay pending, blocked. Said once on stderr: the guest
// no longer hears kill(2) from outside.
void start_intake_thread(emu::Process& proc) {
  HostIntake& in = proc.intake;
  const bool with_worker = in.actor.worker();
  if (with_worker && !start_worker(proc)) {
    __atomic_store_n(&in.pid, 0, __ATOMIC_RELEASE);
    say_no_intake(errno);
    return;
  }
  // The two start side by side: the intake thread hands nothing to the worker before the worker is up
  // (handoff waits for it), and nothing asks either to stop before both are.
  pthread_t th;
  if (const int err = pthread_create(&th, nullptr, &intake_main, &proc); err != 0) {
    if (with_worker) {
      while (__atomic_load_n(&in.worker, __ATOMIC_ACQUIRE) == 0) sched_yield();
      in.handoff.store(2, std::memory_order_release);  // the worker ends
      in.handoff.notify_one();
      while (__atomic_load_n(&in.worker, __ATOMIC_ACQUIRE) != 0) sched_yield();
    }
    __atomic_store_n(&in.pid, 0, __ATOMIC_RELEASE);
    say_no_intake(err);
    return;
  }
  pthread_detach(th);
}

// A few tens of microseconds after start_intake_thread, once per process; at once when it started none.
void wait_for_intake_threads(const emu::Process& proc) {
  const HostIntake& in = proc.intake;
  const bool with_worker = in.actor.worker();
  while (__atomic_load_n(&in.pid, __ATOMIC_ACQUIRE) != 0 &&
         ((with_worker && __atomic_load_n(&in.worker, __ATOMIC_ACQUIRE) == 0) ||
          __atomic_load_n(&in.tid, __ATOMIC_ACQUIRE) == 0))
    sched_yield();
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
  emu::install_host_fault_handler();
  const uint64_t set = kThreadBlocked;
  ::syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, nullptr, sizeof set);
  const uint64_t faults = kAsyncSet & ~kThreadBlocked;
  ::syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &faults, nullptr, sizeof faults);
  struct sigaction ign {};
  ign.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ign, nullptr);
  __atomic_store_n(&proc.intake.pid, static_cast<int>(::getpid()), __ATOMIC_RELEASE);
  start_intake_thread(proc);
  after_first_thread();
}

void open_host_signal_intake(emu::Process& proc) {
  wait_for_intake_threads(proc);
  proc.intake.open.store(1, std::memory_order_release);
  proc.intake.open.notify_all();
}

void restart_host_signal_intake(emu::Process& proc) {
  // A fork copied the parent's thread ids: wait_for_intake_threads waits for each new thread to publish its
  // own, after it is hidden from the /proc views (else a fork child's first read of its status could count
  // a worker that had not yet hidden itself). The threads are registered already: open at once.
  __atomic_store_n(&proc.intake.tid, 0, __ATOMIC_RELEASE);
  __atomic_store_n(&proc.intake.worker, 0, __ATOMIC_RELEASE);
  // The pid first: host_signals_in_flight and sync_host_signals of this process wait for the new thread.
  __atomic_store_n(&proc.intake.pid, static_cast<int>(::getpid()), __ATOMIC_RELEASE);
  proc.intake.busy.store(0, std::memory_order_relaxed);  // a fork may have copied the old thread's 1
  proc.intake.open.store(1, std::memory_order_relaxed);
  // A worker when the process has signalfds (a fork child's are copies, with pipes of their own) or had one
  // (started before a PID namespace); a start a fork interrupted is over.
  proc.intake.actor.reset(proc.intake.actor.worker() ||
                          proc.signalfds.active.load(std::memory_order_acquire));
  start_intake_thread(proc);
  after_first_thread();  // a fork child's may be its first again
  wait_for_intake_threads(proc);
}

bool start_intake_worker(emu::Process& proc) {
  HostIntake& in = proc.intake;
  if (in.actor.worker()) return true;
  if (__atomic_load_n(&in.pid, __ATOMIC_ACQUIRE) != proc.host_pid()) return true;  // no intake thread here
  if (!in.actor.claim()) return true;  // another thread started it meanwhile
  if (!start_worker(proc)) {
    const int err = errno;
    in.actor.abandon();
    errno = err;
    return false;
  }
  // Up (reserved and named) before the guest's next look at /proc.
  while (__atomic_load_n(&in.worker, __ATOMIC_ACQUIRE) == 0) sched_yield();
  in.actor.to_worker();
  return true;
}

void block_after_thread_start() {
  const uint64_t set = kThreadBlocked & ~(uint64_t{1} << (wake_signal() - 1));
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

namespace {

// False once the process has a PID namespace for its children other than its own (unshare(CLONE_NEWPID),
// setns to one): copy_process then refuses it every new thread, the intake thread's next one too. The
// kernel's pid_for_children link fails until the new namespace has its first process: unknown counts as
// other (without /proc at all, as the same).
bool may_start_threads() {
  char own[64];
  char children[64];
  const ssize_t a = ::readlink("/proc/self/ns/pid", own, sizeof own);
  if (a <= 0) return true;
  const ssize_t b = ::readlink("/proc/self/ns/pid_for_children", children, sizeof children);
  return a == b && std::memcmp(own, children, static_cast<size_t>(a)) == 0;
}

}  // namespace

bool stop_host_signal_intake(emu::Process& proc) {
  HostIntake& in = proc.intake;
  const int tid = __atomic_load_n(&in.tid, __ATOMIC_ACQUIRE);
  if (tid == 0 || __atomic_load_n(&in.pid, __ATOMIC_ACQUIRE) != static_cast<int>(::getpid())) return false;
  if (!may_start_threads()) return false;  // it could not come back
  proc.settle_leaving_threads();  // threads of the guest that have ended may still be on their way out
  const int worker = __atomic_load_n(&in.worker, __ATOMIC_ACQUIRE);
  const int before = host_thread_count();
  if (before != (worker != 0 ? 3 : 2))
    return false;  // threads besides the caller, the intake thread and its worker: it fails anyway
  siginfo_t m = marker(kQuitMagic, 0);
  if (::syscall(SYS_rt_tgsigqueueinfo, ::getpid(), tid, m.si_signo, &m) != 0) return false;
  while (__atomic_load_n(&in.tid, __ATOMIC_ACQUIRE) != 0) sched_yield();
  // Both threads have returned; the host counts them until the kernel has reaped them (a few
  // microseconds). Not the count of /proc/self/task: a listing made while a thread exits can leave out one
  // that is still there (seen under ASan: 1, then 2). At most 100 ms.
  const int ids[] = {tid, worker};
  (void)proc.wait_host_threads_gone(ids, std::chrono::milliseconds(100));
  return true;
}

namespace {

// True when this host process has (or is starting) an intake thread for `proc`; waits for it to start. A
// CLONE_VM|CLONE_VFORK child has none (its Process's intake pid is never its host pid). The host pid is the
// Process's record, not getpid(2): a fork child sets it before its first system call (after_fork_child), and
// this runs after nearly every wait, where a host call each time was a tenth of a Go signal round trip.
bool has_intake(const emu::Process& proc) {
  const HostIntake& in = proc.intake;
  if (__atomic_load_n(&in.pid, __ATOMIC_ACQUIRE) != proc.host_pid()) return false;
  while (__atomic_load_n(&in.tid, __ATOMIC_ACQUIRE) == 0) sched_yield();
  return true;
}

}  // namespace

void sync_host_signals() {
  emu::Process& proc = *emu::Process::current();
  HostIntake& in = proc.intake;
  const int pid = proc.host_pid();
  if (!has_intake(proc)) return;
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

bool host_signals_in_flight() {
  const emu::Process& proc = *emu::Process::current();
  const HostIntake& in = proc.intake;
  if (!has_intake(proc)) return false;
  uint64_t pending = 0;
  ::syscall(SYS_rt_sigpending, &pending, sizeof pending);
  pending &= ~(uint64_t{1} << (wake_signal() - 1));  // this thread's own wake, never the intake thread's
  return pending != 0 || in.busy.load(std::memory_order_seq_cst) != 0;
}

void settle_host_signals(emu::Task& t) {
  if (!host_signals_in_flight()) return;
  emu::RunLockReleaser unlocked(t.proc().run_lock(), &t.cpu());
  sync_host_signals();
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
  if (__atomic_load_n(&in.pid, __ATOMIC_ACQUIRE) != pid) return;  // no intake thread here
  for (int slot = 0; slot < HostIntake::kForwardSlots; ++slot) {
    int expected = 0;
    if (!__atomic_compare_exchange_n(&in.forward_state[slot], &expected, 1, false, __ATOMIC_ACQUIRE,
                                     __ATOMIC_RELAXED)) {
      continue;
    }
    in.forward_info[slot] = si;
    __atomic_store_n(&in.forward_state[slot], 2, __ATOMIC_RELEASE);
    // To the intake thread; while it starts (tid 0), to the process, whose queue it reads too.
    siginfo_t m = marker(kForwardMagic, static_cast<uint32_t>(slot));
    if ((tid != 0 ? ::syscall(SYS_rt_tgsigqueueinfo, pid, tid, m.si_signo, &m)
                  : ::syscall(SYS_rt_sigqueueinfo, pid, m.si_signo, &m)) != 0)
      __atomic_store_n(&in.forward_state[slot], 0, __ATOMIC_RELEASE);
    return;
  }
}

}  // namespace signals
