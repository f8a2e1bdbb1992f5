// This file implements POSIX timers: the guest's timer table over host timers, and the expiry path from the
// intake thread to the guest's SI_TIMER signal.
#include "signals/timers.h"

#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <mutex>
#include <vector>

#include "emu/task.h"
#include "signals/host_signals.h"
#include "signals/signals.h"

namespace signals {
namespace {

// The calling thread's process's timers (the intake thread's process for timer_expired).
TimerTable& table() {
  return emu::Process::current()->timers;
}

Timer* find_locked(TimerTable& tab, int id) {
  if (id < 0 || static_cast<size_t>(id) >= tab.timers.size() || !tab.timers[id].used) return nullptr;
  return &tab.timers[id];
}

int alloc_locked(TimerTable& tab) {
  for (size_t i = 0; i < tab.timers.size(); ++i) {
    if (!tab.timers[i].used) return static_cast<int>(i);
  }
  tab.timers.emplace_back();
  return static_cast<int>(tab.timers.size() - 1);
}

// good_sigevent(): what the kernel accepts. Fills *target_tid for SIGEV_THREAD_ID.
int64_t check_sigevent(emu::Task& t, const guest::sigevent& ev, int* target_tid) {
  switch (ev.sigev_notify) {
    case guest::kSIGEV_THREAD_ID:
      if (t.proc().find_thread(ev.sigev_un.tid) == nullptr) return -EINVAL;
      *target_tid = ev.sigev_un.tid;
      [[fallthrough]];
    case guest::kSIGEV_SIGNAL:
    case guest::kSIGEV_THREAD:
      if (ev.sigev_signo <= 0 || ev.sigev_signo > guest::kSIGRTMAX) return -EINVAL;
      [[fallthrough]];
    case guest::kSIGEV_NONE:
      return 0;
    default:
      return -EINVAL;
  }
}

// A host timer on clockid whose expiries (when signalling) carry id and a new tag; its host id (and *tag) or
// a negative errno.
int make_host_timer(TimerTable& tab, int id, int clockid, bool signalling, uint32_t* tag) {
  const uint32_t next = tab.next_tag + 1;
  ::sigevent hev{};
  if (!signalling) {
    hev.sigev_notify = SIGEV_NONE;
  } else {
    // Process-directed: blocked in every thread, it waits in the process's queue for whichever intake thread
    // runs (stop_host_signal_intake may end one and start the next while the timer runs).
    hev.sigev_notify = SIGEV_SIGNAL;
    hev.sigev_signo = timer_host_signal();
    hev.sigev_value.sival_ptr = reinterpret_cast<void*>(static_cast<uintptr_t>(id) | uint64_t{next} << 32);
  }
  int host_id = -1;
  if (::syscall(SYS_timer_create, clockid, &hev, &host_id) != 0) return -errno;
  tab.next_tag = next;
  *tag = next;
  return host_id;
}

// A re-arm makes a new host timer, maybe from another thread, so a CPU-time clock of "the calling thread"
// (CLOCK_THREAD_CPUTIME_ID, or glibc's MAKE_THREAD_CPUCLOCK(0, clock): -2 for the scheduler clock) is named
// by the creating thread's tid instead, as the timer measures it.
int creator_clock(int clockid) {
  constexpr uint32_t kPerThread = 4;  // CPUCLOCK_PERTHREAD_MASK
  constexpr uint32_t kSched = 2;      // CPUCLOCK_SCHED
  uint32_t clock = 0;
  if (clockid == CLOCK_THREAD_CPUTIME_ID) {
    clock = kSched;
  } else if (clockid < 0 && (static_cast<uint32_t>(clockid) & kPerThread) && ~(clockid >> 3) == 0) {
    clock = static_cast<uint32_t>(clockid) & 3;
  } else {
    return clockid;
  }
  return static_cast<int>((~static_cast<uint32_t>(::gettid()) << 3) | kPerThread | clock);
}

}  // namespace

int timer_host_signal() {
  return SIGRTMAX;
}

int64_t timer_create(emu::Task& t, int clockid, const guest::sigevent* ev) {
  guest::sigevent e{};
  e.sigev_notify = guest::kSIGEV_SIGNAL;
  e.sigev_signo = guest::kSIGALRM;
  int target_tid = 0;
  if (ev != nullptr) {
    e = *ev;
    if (const int64_t r = check_sigevent(t, e, &target_tid); r != 0) return r;
  }
  TimerTable& tab = t.proc().timers;
  std::lock_guard lk(*tab.mu);
  const int id = alloc_locked(tab);
  Timer& tm = tab.timers[id];
  const int host_clock = creator_clock(clockid);
  uint32_t tag = 0;
  const int host_id = make_host_timer(tab, id, host_clock, e.sigev_notify != guest::kSIGEV_NONE, &tag);
  if (host_id < 0) return host_id;
  tm.used = true;
  tm.clockid = host_clock;
  tm.first_tag = tag;
  tm.tag = tag;
  tm.host_id = host_id;
  tm.notify = e.sigev_notify;
  tm.signo = e.sigev_signo;
  tm.target_tid = target_tid;
  tm.value = ev != nullptr ? e.sigev_value : static_cast<guest::sigval_t>(id);
  tm.overrun_last = 0;
  return id;
}

int64_t timer_settime(int id, int flags, const guest::itimerspec& value, guest::itimerspec* old) {
  TimerTable& tab = table();
  std::lock_guard lk(*tab.mu);
  Timer* tm = find_locked(tab, id);
  if (tm == nullptr) return -EINVAL;
  const ::itimerspec h = guest::to_host(value);
  ::itimerspec hold{};
  // The new arming of a signalling timer is a new host timer with a new tag (the invariant in timers.h); the
  // old one's value is what it had left when disarmed. With no host timer to spare (RLIMIT_SIGPENDING counts
  // each), or for SIGEV_NONE, the old one is re-armed: then an expiry the intake thread takes from here
  // until the lock is released is queued as the new arming's.
  uint32_t tag = 0;
  const int host_id =
      tm->notify != guest::kSIGEV_NONE ? make_host_timer(tab, id, tm->clockid, true, &tag) : -1;
  if (host_id >= 0) {
    if (::syscall(SYS_timer_settime, host_id, flags, &h, nullptr) != 0) {
      const int err = errno;
      ::syscall(SYS_timer_delete, host_id);
      return -err;
    }
    const ::itimerspec disarm{};
    ::syscall(SYS_timer_settime, tm->host_id, 0, &disarm, &hold);
    ::syscall(SYS_timer_delete, tm->host_id);
    tm->host_id = host_id;
    tm->tag = tag;
  } else if (::syscall(SYS_timer_settime, tm->host_id, flags, &h, &hold) != 0) {
    return -errno;
  }
  ++tm->seq;
  if (old != nullptr) *old = guest::to_guest(hold);
  return 0;
}

int64_t timer_gettime(int id, guest::itimerspec* value) {
  TimerTable& tab = table();
  std::lock_guard lk(*tab.mu);
  const Timer* tm = find_locked(tab, id);
  if (tm == nullptr) return -EINVAL;
  ::itimerspec h{};
  if (::syscall(SYS_timer_gettime, tm->host_id, &h) != 0) return -errno;
  *value = guest::to_guest(h);
  return 0;
}

int64_t timer_getoverrun(int id) {
  TimerTable& tab = table();
  std::lock_guard lk(*tab.mu);
  const Timer* tm = find_locked(tab, id);
  return tm == nullptr ? -EINVAL : tm->overrun_last;
}

int64_t timer_delete(int id) {
  TimerTable& tab = table();
  std::lock_guard lk(*tab.mu);
  Timer* tm = find_locked(tab, id);
  if (tm == nullptr) return -EINVAL;
  ::syscall(SYS_timer_delete, tm->host_id);
  // A signal already queued stays in the pending set and is dropped when dequeued, as on Linux 6.13+.
  ++tm->seq;
  tm->used = false;
  return 0;
}

void timer_expired(emu::Process& proc, uint64_t value, int host_overrun) {
  const int id = static_cast<int>(value & 0xffffffff);
  guest::siginfo si{};
  int target_tid = 0;
  uint32_t seq = 0;
  bool stale = false;
  {
    std::lock_guard lk(*proc.timers.mu);
    const Timer* tm = find_locked(proc.timers, id);
    if (tm == nullptr || tm->notify == guest::kSIGEV_NONE) return;
    // Tags are handed out in order (wrapping): one before first_tag is an earlier timer's of this id.
    const auto tag = static_cast<uint32_t>(value >> 32);
    if (static_cast<int32_t>(tag - tm->first_tag) < 0 || static_cast<int32_t>(tm->tag - tag) < 0) return;
    si.si_signo = tm->signo;
    si.si_code = guest::kSI_TIMER;
    si.fields.timer.tid = id;
    si.fields.timer.overrun = host_overrun;
    si.fields.timer.sigval = tm->value;
    if (tm->notify == guest::kSIGEV_THREAD_ID) target_tid = tm->target_tid;
    stale = tag != tm->tag;
    seq = stale ? tm->seq - 1 : tm->seq;  // an earlier arming's: dropped when dequeued
  }
  // A SIGEV_THREAD_ID target that has exited drops the expiry, as Linux does.
  (void)send_timer_signal(proc, target_tid, id, seq, si, stale);
}

bool note_timer_dequeued(int32_t id, uint32_t seq, int32_t overrun) {
  TimerTable& tab = table();
  std::lock_guard lk(*tab.mu);
  Timer* tm = find_locked(tab, id);
  if (tm == nullptr || tm->seq != seq) return false;
  tm->overrun_last = overrun;
  return true;
}

void reset_timers_after_fork(emu::Process& proc) {
  proc.timers.mu = new std::mutex;
  proc.timers.timers.clear();
}

}  // namespace signals
