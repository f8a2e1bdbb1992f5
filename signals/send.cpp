// This file implements sending: queueing under sig_lock, picking exactly one thread for a process-directed
// signal, and waking that thread (interrupt flag, vCPU stop request, park, safe-call wake signal).
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>

#include "emu/task.h"
#include "signals/park.h"
#include "signals/signalfd.h"
#include "signals/signals.h"
#include "signals/stats.h"

namespace signals {
namespace {

// The guest's RLIMIT_SIGPENDING once it set one (guest_sigpending_limit): a64run never lowers the host's,
// since its own wake and marker signals are host RT signals, which a tgkill or rt_sigqueueinfo past the
// limit does not queue (EAGAIN): a lowered limit would leave a thread parked in a host call for good.
std::atomic<bool> g_sigpending_set{false};
std::atomic<uint64_t> g_sigpending_cur{0};
std::atomic<uint64_t> g_sigpending_max{0};

size_t sigpending_limit() {
  rlimit rl{};
  if (!guest_sigpending_limit(&rl) && getrlimit(RLIMIT_SIGPENDING, &rl) != 0) return SIZE_MAX;
  return rl.rlim_cur == RLIM_INFINITY ? SIZE_MAX : rl.rlim_cur;
}

// Wakes t so it reaches a safe point: its vCPU stops at the next block, and any wait it is in returns.
void notify(emu::Task& t) {
  t.cpu().request(emu::Vcpu::kRequestSignal);
  t.wake();
}

// Queues p on q unless it is a duplicate standard signal. -EAGAIN when RT signals exceed the limit.
int64_t enqueue_locked(ProcessSignals& ps, PendingQueue& q, const guest::siginfo& info, int32_t timer,
                       uint32_t seq) {
  const int sig = info.si_signo;
  const bool merged = sig < guest::kSIGRTMIN && q.has(sig);
  record_send(sig, merged);  // --signal-stats: every send, and those merged into one already pending
  if (merged) return 0;
  if (sig >= guest::kSIGRTMIN && ps.queued >= sigpending_limit()) return -EAGAIN;
  q.push(PendingSignal{info, now_ns(), timer, seq});
  ++ps.queued;
  return 0;
}

}  // namespace

bool guest_sigpending_limit(rlimit* out) {
  if (!g_sigpending_set.load(std::memory_order_acquire)) return false;
  out->rlim_cur = g_sigpending_cur.load(std::memory_order_relaxed);
  out->rlim_max = g_sigpending_max.load(std::memory_order_relaxed);
  return true;
}

void set_guest_sigpending_limit(const rlimit& limit) {
  g_sigpending_cur.store(limit.rlim_cur, std::memory_order_relaxed);
  g_sigpending_max.store(limit.rlim_max, std::memory_order_relaxed);
  g_sigpending_set.store(true, std::memory_order_release);
}

bool is_restart_code(int64_t r) {
  return r == kERESTARTSYS || r == kERESTARTNOINTR || r == kERESTARTNOHAND || r == kERESTART_RESTARTBLOCK;
}

namespace {

// The calling thread's real uid, which a kill's siginfo carries. Cached per thread: getpid and getuid are
// host system calls (a microsecond each on this project's machine, and a kill made three). Its own set*uid
// calls and its moves to another user namespace (unshare, setns) forget it. One case changes it without a
// call of the thread's: an unmapped uid (the overflow uid, in a user namespace whose uid_map nobody has
// written yet) becomes mapped when another process writes the map. So an overflow uid is never cached; a
// map is written once, so a mapped uid stays.
thread_local int64_t t_uid = -1;

int64_t overflow_uid() {
  static const int64_t uid = [] {
    int64_t v = 65534;  // the kernel's default
    if (FILE* f = std::fopen("/proc/sys/kernel/overflowuid", "re")) {
      long long x;
      if (std::fscanf(f, "%lld", &x) == 1) v = x;
      std::fclose(f);
    }
    return v;
  }();
  return uid;
}

}  // namespace

uint32_t caller_uid() {
  if (t_uid >= 0) return static_cast<uint32_t>(t_uid);
  const int64_t uid = ::getuid();
  if (uid != overflow_uid()) t_uid = uid;
  return static_cast<uint32_t>(uid);
}

void forget_caller_uid() {
  t_uid = -1;
}

guest::siginfo user_siginfo(int sig, int code) {
  guest::siginfo si{};
  si.si_signo = sig;
  si.si_code = code;
  const emu::Process* proc = emu::Process::current();
  si.fields.kill.pid = proc != nullptr ? proc->host_pid() : static_cast<int32_t>(::getpid());
  si.fields.kill.uid = caller_uid();
  return si;
}

void recompute_locked(emu::Task& t) {
  ProcessSignals& ps = t.proc().signals();
  const sigset_t deliverable = (t.sig().pending.set() | ps.shared.set()) & ~t.sig().blocked;
  t.set_interrupt(deliverable != 0 || t.exit_requested() || t.debug_stop());
}

void set_blocked_locked(emu::Task& t, sigset_t mask) {
  t.sig().blocked = mask & ~guest::kUnblockableSignals;
  recompute_locked(t);
}

namespace {

int64_t send_thread_locked(emu::Task& target, const guest::siginfo& info, int32_t timer, uint32_t seq) {
  const int sig = info.si_signo;
  ProcessSignals& ps = target.proc().signals();
  const sigset_t blocked = target.sig().blocked | target.sig().real_blocked;
  if (!guest::sig_in(blocked, sig) && is_ignored(ps.actions[sig - 1], sig)) return 0;
  if (int64_t r = enqueue_locked(ps, target.sig().pending, info, timer, seq); r < 0) return r;
  signalfd_note_queued_locked(target.proc());
  recompute_locked(target);
  if (target.interrupted()) notify(target);
  return 0;
}

int64_t send_process_locked(emu::Process& proc, const guest::siginfo& info, int32_t timer, uint32_t seq,
                            emu::Task* first = nullptr) {
  const int sig = info.si_signo;
  ProcessSignals& ps = proc.signals();
  if (is_ignored(ps.actions[sig - 1], sig)) {
    // A signal blocked everywhere stays queued even when ignored: its handler may change before unblocking.
    bool blocked_everywhere = true;
    proc.for_each_thread([&](emu::Task& t) {
      blocked_everywhere &= guest::sig_in(t.sig().blocked | t.sig().real_blocked, sig);
    });
    if (!blocked_everywhere) return 0;
  }
  if (int64_t r = enqueue_locked(ps, ps.shared, info, timer, seq); r < 0) return r;
  signalfd_note_queued_locked(proc);
  // complete_signal(): one thread that does not block it (the main thread first) is woken; the rest sleep on.
  emu::Task* chosen = first != nullptr && !guest::sig_in(first->sig().blocked, sig) ? first : nullptr;
  proc.for_each_thread([&](emu::Task& t) {
    if (chosen == nullptr && !guest::sig_in(t.sig().blocked, sig)) chosen = &t;
  });
  if (chosen != nullptr) {
    recompute_locked(*chosen);
    notify(*chosen);
  }
  return 0;
}

}  // namespace

int64_t send_to_thread(emu::Task& target, const guest::siginfo& info) {
  if (info.si_signo == guest::kSIGKILL) die_with_signal(info.si_signo);
  std::lock_guard lk(target.proc().signals().sig_lock);
  return send_thread_locked(target, info, -1, 0);
}

int64_t send_to_thread_id(emu::Process& proc, int tid, const guest::siginfo& info) {
  if (info.si_signo == guest::kSIGKILL) die_with_signal(info.si_signo);
  std::lock_guard lk(proc.signals().sig_lock);
  emu::Task* target = proc.find_thread(tid);
  return target != nullptr ? send_thread_locked(*target, info, -1, 0) : -ESRCH;
}

int64_t send_to_process(emu::Process& proc, const guest::siginfo& info, emu::Task* first) {
  if (info.si_signo == guest::kSIGKILL) die_with_signal(info.si_signo);
  std::lock_guard lk(proc.signals().sig_lock);
  return send_process_locked(proc, info, -1, 0, first);
}

int64_t send_timer_signal(emu::Process& proc, int target_tid, int32_t timer, uint32_t seq,
                          const guest::siginfo& info, bool stale) {
  if (info.si_signo == guest::kSIGKILL) die_with_signal(info.si_signo);
  ProcessSignals& ps = proc.signals();
  std::lock_guard lk(ps.sig_lock);
  emu::Task* target = target_tid > 0 ? proc.find_thread(target_tid) : nullptr;
  if (target_tid > 0 && target == nullptr) return -ESRCH;
  // Linux's per-timer sigqueue: while the timer's signal is still queued, expiries add to its si_overrun
  // instead of queueing again; a queued signal of an earlier arming (dropped at dequeue) becomes this
  // arming's, in its place.
  if (PendingSignal* p = (target ? target->sig().pending : ps.shared).find_timer(timer)) {
    if (stale) return 0;
    const int64_t o = p->timer_seq != seq
                          ? int64_t{info.fields.timer.overrun}
                          : int64_t{p->info.fields.timer.overrun} + 1 + info.fields.timer.overrun;
    p->info.fields.timer.overrun = static_cast<int32_t>(std::min<int64_t>(o, INT32_MAX));
    p->timer_seq = seq;
    return 0;
  }
  return target ? send_thread_locked(*target, info, timer, seq) : send_process_locked(proc, info, timer, seq);
}

}  // namespace signals
