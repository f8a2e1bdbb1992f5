// This file implements sending: queueing under sig_lock, picking exactly one thread for a process-directed
// signal, and waking that thread (interrupt flag, vCPU stop request, park, fd-wait wake).
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "emu/task.h"
#include "signals/park.h"
#include "signals/signals.h"

namespace signals {
namespace {

size_t sigpending_limit() {
  rlimit rl{};
  if (getrlimit(RLIMIT_SIGPENDING, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return SIZE_MAX;
  return rl.rlim_cur;
}

// Wakes t so it reaches a safe point: its vCPU stops at the next block, and any wait it is in returns.
void notify(emu::Task& t) {
  t.cpu().request(emu::Vcpu::kRequestSignal);
  t.wake();
}

// Queues p on q unless it is a duplicate standard signal. -EAGAIN when RT signals exceed the limit.
int64_t enqueue_locked(ProcessSignals& ps, PendingQueue& q, const guest::siginfo& info) {
  const int sig = info.si_signo;
  if (sig < guest::kSIGRTMIN && q.has(sig)) return 0;
  if (sig >= guest::kSIGRTMIN && ps.queued >= sigpending_limit()) return -EAGAIN;
  q.push(PendingSignal{info, now_ns()});
  ++ps.queued;
  return 0;
}

}  // namespace

bool is_restart_code(int64_t r) {
  return r == kERESTARTSYS || r == kERESTARTNOINTR || r == kERESTARTNOHAND || r == kERESTART_RESTARTBLOCK;
}

guest::siginfo user_siginfo(int sig, int code) {
  guest::siginfo si{};
  si.si_signo = sig;
  si.si_code = code;
  si.fields.kill.pid = static_cast<int32_t>(::getpid());
  si.fields.kill.uid = ::getuid();
  return si;
}

void recompute_locked(emu::Task& t) {
  ProcessSignals& ps = t.proc().signals();
  const sigset_t deliverable = (t.sig().pending.set() | ps.shared.set()) & ~t.sig().blocked;
  t.set_interrupt(deliverable != 0 || t.exit_requested());
}

void set_blocked_locked(emu::Task& t, sigset_t mask) {
  t.sig().blocked = mask & ~guest::kUnblockableSignals;
  recompute_locked(t);
}

int64_t send_to_thread(emu::Task& target, const guest::siginfo& info) {
  const int sig = info.si_signo;
  if (sig == guest::kSIGKILL) die_with_signal(sig);
  ProcessSignals& ps = target.proc().signals();
  std::lock_guard lk(ps.sig_lock);
  if (!guest::sig_in(target.sig().blocked, sig) && is_ignored(ps.actions[sig - 1], sig)) return 0;
  if (int64_t r = enqueue_locked(ps, target.sig().pending, info); r < 0) return r;
  recompute_locked(target);
  if (target.interrupted()) notify(target);
  return 0;
}

int64_t send_to_process(emu::Process& proc, const guest::siginfo& info) {
  const int sig = info.si_signo;
  if (sig == guest::kSIGKILL) die_with_signal(sig);
  ProcessSignals& ps = proc.signals();
  std::lock_guard lk(ps.sig_lock);
  if (is_ignored(ps.actions[sig - 1], sig)) {
    // A signal blocked everywhere stays queued even when ignored: its handler may change before unblocking.
    bool blocked_everywhere = true;
    proc.for_each_thread([&](emu::Task& t) { blocked_everywhere &= guest::sig_in(t.sig().blocked, sig); });
    if (!blocked_everywhere) return 0;
  }
  if (int64_t r = enqueue_locked(ps, ps.shared, info); r < 0) return r;
  // complete_signal(): one thread that does not block it (the main thread first) is woken; the rest sleep on.
  emu::Task* chosen = nullptr;
  proc.for_each_thread([&](emu::Task& t) {
    if (chosen == nullptr && !guest::sig_in(t.sig().blocked, sig)) chosen = &t;
  });
  if (chosen != nullptr) {
    recompute_locked(*chosen);
    notify(*chosen);
  }
  return 0;
}

}  // namespace signals
