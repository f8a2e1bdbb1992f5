// This file implements delivery at safe points: dequeueing under sig_lock, default actions, the restart
// rule for an interrupted syscall, frames for handlers, forced fault signals, death by signal, rt_sigreturn.
#include <fmt/format.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "emu/task.h"
#include "emu/vdso.h"
#include "gdb/hooks.h"
#include "signals/frame_arm64.h"
#include "signals/host_signals.h"
#include "signals/signals.h"
#include "signals/slow_core.h"
#include "signals/stats.h"

namespace signals {
namespace {

constexpr uint64_t kRestartSyscallNr = 128;  // __NR_restart_syscall
// Stops the whole process with the host's job control, so a parent's waitpid(WUNTRACED) sees WSTOPSIG.
void group_stop(int sig) {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  struct sigaction old {};
  ::sigaction(sig, &dfl, &old);
  ::sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, sig);
  ::pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
  ::syscall(SYS_tgkill, ::getpid(), ::gettid(), sig);
  ::pthread_sigmask(SIG_BLOCK, &one, nullptr);
  ::sigaction(sig, &old, nullptr);
}

void restart_syscall_now(emu::Task& t) {
  emu::Vcpu& cpu = t.cpu();
  if (t.restart.code == kERESTART_RESTARTBLOCK) {
    cpu.set_x(8, kRestartSyscallNr);
  } else {
    cpu.set_x(0, t.restart.orig_x0);
  }
  cpu.set_pc(cpu.pc() - 4);
}

// Applies the restart rule for a handler about to run (handle_signal's switch on regs[0]).
void restart_for_handler(emu::Task& t, const guest::sigaction& act) {
  const int64_t code = t.restart.code;
  if (code == kERESTARTNOINTR || (code == kERESTARTSYS && (act.sa_flags & guest::kSA_RESTART))) {
    restart_syscall_now(t);
  } else {
    t.cpu().set_x(0, static_cast<uint64_t>(-EINTR));
  }
}

// The handler for sig is about to run: returns the mask its frame saves (the mask from before sigsuspend if
// one is saved), raises the thread's current mask (sigsuspend's temporary one, as signal_delivered ors into
// current->blocked) by sa_mask and sig itself (unless SA_NODEFER), applies SA_RESETHAND.
sigset_t enter_handler_locked(emu::Task& t, int sig, guest::sigaction& slot) {
  ThreadSignals& ts = t.sig();
  const guest::sigaction act = slot;
  const sigset_t old_mask = ts.has_saved_mask ? ts.saved_mask : ts.blocked;
  ts.has_saved_mask = false;
  if (act.sa_flags & guest::kSA_RESETHAND) slot.handler = guest::kSIG_DFL;
  sigset_t mask = ts.blocked | act.sa_mask;
  if (!(act.sa_flags & guest::kSA_NODEFER)) mask |= sig_bit(sig);
  set_blocked_locked(t, mask);
  return old_mask;
}

enum class Next { kNone, kHandler, kAgain };

// Dequeues one deliverable signal. kHandler fills *out/*act/*old_mask with sig_lock's view applied (mask
// raised, SA_RESETHAND done); default actions other than ignore never return.
Next dequeue_one(emu::Task& t, PendingSignal* out, guest::sigaction* act, sigset_t* old_mask) {
  ProcessSignals& ps = t.proc().signals();
  std::unique_lock lk(ps.sig_lock);
  ThreadSignals& ts = t.sig();
  const sigset_t own = ts.pending.set() & ~ts.blocked;
  const sigset_t shared = ps.shared.set() & ~ts.blocked;
  const int sig = own ? next_signal(own) : next_signal(shared);
  if (sig == 0) {
    recompute_locked(t);
    return Next::kNone;
  }
  PendingQueue& q = guest::sig_in(own, sig) ? ts.pending : ps.shared;
  const bool live = q.take(sig, out);
  if (ps.queued) --ps.queued;
  if (!live) return Next::kAgain;  // a stale POSIX timer signal, dropped
  int delivered = sig;
  if (gdb::enabled()) {  // a debugger sees the signal first, and may drop or replace it (ptrace's rule)
    lk.unlock();
    delivered = gdb::on_signal(t, out->info);
    if (delivered == 0) return Next::kAgain;
    out->info.si_signo = delivered;
    lk.lock();
  }
  *act = ps.actions[delivered - 1];
  if (act->handler == guest::kSIG_IGN) return Next::kAgain;
  if (act->handler == guest::kSIG_DFL) {
    const DefaultAction d = default_action(delivered);
    if (d == DefaultAction::kIgnore || d == DefaultAction::kContinue) return Next::kAgain;
    lk.unlock();
    if (d == DefaultAction::kStop) {
      group_stop(delivered);
      return Next::kAgain;
    }
    die_with_signal(delivered);
  }
  *old_mask = enter_handler_locked(t, delivered, ps.actions[delivered - 1]);
  return Next::kHandler;
}

bool run_handler(emu::Task& t, const PendingSignal& p, const guest::sigaction& act, sigset_t old_mask,
                 const FaultDetail* fault) {
  delay_before_handler(t);  // the slow-core model's pre-ack delay (no-op unless asked for)
  if (!setup_rt_frame(t, p.info, act, old_mask, fault, t.proc().sigreturn_trampoline)) return false;
  record_handler_entry(t, p);
  return true;
}

}  // namespace

void handle_signals(emu::Task& t, bool syscall_exit) {
  bool restart_pending = syscall_exit && is_restart_code(t.restart.code);
  while (true) {
    PendingSignal p;
    guest::sigaction act{};
    sigset_t old_mask = 0;
    const Next n = dequeue_one(t, &p, &act, &old_mask);
    if (n == Next::kAgain) continue;
    if (n == Next::kNone) break;
    if (restart_pending) {
      restart_for_handler(t, act);
      restart_pending = false;
    }
    if (!run_handler(t, p, act, old_mask, nullptr)) die_with_signal(guest::kSIGSEGV);  // force_sigsegv
  }
  if (restart_pending) restart_syscall_now(t);
  if (syscall_exit) t.restart.code = 0;
  // A temporary mask (sigsuspend and friends) with no handler run is put back now, also when the call
  // restarts: the restarted call installs it again (do_signal's restore_saved_sigmask).
  ProcessSignals& ps = t.proc().signals();
  std::lock_guard lk(ps.sig_lock);
  if (t.sig().has_saved_mask) {
    t.sig().has_saved_mask = false;
    set_blocked_locked(t, t.sig().saved_mask);
  }
}

namespace {

void deliver_now(emu::Task& t, const guest::siginfo& info, const FaultDetail* detail) {
  // A debugger sees the fault first (PC at the faulting instruction). Dropped, the instruction runs again.
  const int sig = gdb::enabled() ? gdb::on_signal(t, info) : info.si_signo;
  if (sig == 0) return;
  ProcessSignals& ps = t.proc().signals();
  guest::sigaction act{};
  sigset_t old_mask = 0;
  {
    std::lock_guard lk(ps.sig_lock);
    // force_sig_info: a blocked or ignored fault signal gets its default action.
    guest::sigaction& a = ps.actions[sig - 1];
    if (guest::sig_in(t.sig().blocked, sig) || a.handler == guest::kSIG_IGN) a.handler = guest::kSIG_DFL;
    act = a;
    if (act.handler != guest::kSIG_DFL) old_mask = enter_handler_locked(t, sig, a);
  }
  if (act.handler == guest::kSIG_DFL) die_with_signal(sig);
  PendingSignal p{info, 0};
  p.info.si_signo = sig;
  if (!run_handler(t, p, act, old_mask, detail)) die_with_signal(guest::kSIGSEGV);
}

}  // namespace

void deliver_fault(emu::Task& t, const guest::siginfo& info, const FaultDetail& detail) {
  deliver_now(t, info, &detail);
}

void deliver_forced(emu::Task& t, const guest::siginfo& info) {
  deliver_now(t, info, nullptr);
}

void die_with_signal(int sig) {
  if (emu::Process* proc = emu::Process::current()) proc->prepare_death();
  if (gdb::enabled()) gdb::on_killed(sig);
  print_stats_at_exit();
  fflush(stdout);
  fflush(stderr);
  // A core file only when the guest asked for one: its RLIMIT_CORE is the host's (setrlimit passes through),
  // so the host dumps (a64run's own core, not an arm64 one) and a parent sees WCOREDUMP exactly when Linux
  // would have written the guest's core.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  ::sigaction(sig, &dfl, nullptr);
  ::sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, sig);
  ::syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &one, nullptr, 8);
  ::syscall(SYS_tgkill, ::getpid(), ::gettid(), sig);
  _exit(128 + sig);
}

bool sigreturn(emu::Task& t) {
  const ParsedFrame f = restore_rt_frame(t);
  if (f.valid) record_sigreturn(t);
  ProcessSignals& ps = t.proc().signals();
  std::lock_guard lk(ps.sig_lock);
  // restore_sigframe sets the mask before it checks the rest: a bad frame's mask holds too.
  if (f.mask_loaded) set_blocked_locked(t, f.mask);
  if (!f.valid) return false;
  t.sig().altstack = altstack_after_sigreturn(t.sig().altstack, t.cpu().sp(), f.uc_stack);
  return true;
}

uint64_t map_trampoline(emu::Process& proc) {
  const uint32_t code[] = {0xd2801168 /* mov x8, #139 */, 0xd4000001 /* svc #0 */};
  return emu::map_guest_code(proc.as(), code, sizeof code, "[vdso]");
}

namespace {

// What an execve from thread t keeps: its blocked signals and the process's ignored ones.
void exec_state(emu::Task& t, uint64_t* blocked, uint64_t* ignored) {
  ProcessSignals& ps = t.proc().signals();
  std::lock_guard lk(ps.sig_lock);
  *ignored = 0;
  for (int sig = 1; sig <= kNumSignals; ++sig) {
    if (ps.actions[sig - 1].handler == guest::kSIG_IGN) *ignored |= sig_bit(sig);
  }
  *blocked = t.sig().blocked;
}

}  // namespace

std::string exec_state_arg(emu::Task& t) {
  uint64_t blocked, ignored;
  exec_state(t, &blocked, &ignored);
  rlimit pending{};
  if (!guest_sigpending_limit(&pending))
    return fmt::format("--exec-signal-state={:x}:{:x}", blocked, ignored);
  return fmt::format("--exec-signal-state={:x}:{:x}:{:x}:{:x}", blocked, ignored, pending.rlim_cur,
                     pending.rlim_max);
}

void apply_exec_state(emu::Task& main_thread, uint64_t blocked, uint64_t ignored) {
  ProcessSignals& ps = main_thread.proc().signals();
  std::lock_guard lk(ps.sig_lock);
  main_thread.sig().blocked = blocked & ~guest::kUnblockableSignals;
  for (int sig = 1; sig <= kNumSignals; ++sig) {
    if (!(ignored & sig_bit(sig)) || (guest::kUnblockableSignals & sig_bit(sig))) continue;
    ps.actions[sig - 1].handler = guest::kSIG_IGN;
    if (sig == guest::kSIGCHLD) mirror_sigchld_action(ps.actions[sig - 1]);
  }
}

void host_signal_state(uint64_t* blocked, uint64_t* ignored) {
  *blocked = 0;
  *ignored = 0;
  ::syscall(SYS_rt_sigprocmask, SIG_BLOCK, nullptr, blocked, 8);
  for (int sig = 1; sig <= kNumSignals; ++sig) {
    KernelSigaction act{};
    if (::syscall(SYS_rt_sigaction, sig, nullptr, &act, 8) == 0 &&
        act.handler == reinterpret_cast<uint64_t>(SIG_IGN))
      *ignored |= sig_bit(sig);
  }
}

HostExecSignals::HostExecSignals(emu::Task& t) {
  uint64_t blocked, ignored;
  exec_state(t, &blocked, &ignored);
  for (int sig = 1; sig <= kNumSignals; ++sig) {
    if (guest::kUnblockableSignals & sig_bit(sig)) continue;
    KernelSigaction cur{};
    if (::syscall(SYS_rt_sigaction, sig, nullptr, &cur, 8) != 0) continue;
    const bool want_ignored = (ignored & sig_bit(sig)) != 0;
    if (want_ignored == (cur.handler == reinterpret_cast<uint64_t>(SIG_IGN))) continue;
    // Only ignored or not matters: a handler becomes SIG_DFL at the exec.
    const KernelSigaction next{reinterpret_cast<uint64_t>(want_ignored ? SIG_IGN : SIG_DFL), 0, 0, 0};
    if (::syscall(SYS_rt_sigaction, sig, &next, nullptr, 8) != 0) continue;
    old_[sig - 1] = cur;
    changed_ |= sig_bit(sig);
  }
  ::syscall(SYS_rt_sigprocmask, SIG_SETMASK, &blocked, &old_mask_, 8);
  // The pending signals the guest blocks go with it (execve keeps them), queued again with their siginfo on
  // this host thread, whose own pending signals the host's execve keeps whichever queue they came from.
  const long pid = ::getpid(), tid = ::gettid();
  for (ExecPendingSignal& e : kept_pending_signals(t)) {
    if (!(blocked & sig_bit(e.info.si_signo))) continue;
    if (::syscall(SYS_rt_tgsigqueueinfo, pid, tid, e.info.si_signo, &e.info) == 0)
      requeued_ |= sig_bit(e.info.si_signo);
  }
}

HostExecSignals::~HostExecSignals() {
  // The exec failed: the guest's queues still hold the signals, so their host copies go.
  if (requeued_ != 0) {
    const timespec zero{0, 0};
    while (::syscall(SYS_rt_sigtimedwait, &requeued_, nullptr, &zero, 8) > 0) {
    }
  }
  ::syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old_mask_, nullptr, 8);
  for (int sig = 1; sig <= kNumSignals; ++sig) {
    if (changed_ & sig_bit(sig)) ::syscall(SYS_rt_sigaction, sig, &old_[sig - 1], nullptr, 8);
  }
}

}  // namespace signals
