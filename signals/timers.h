// POSIX timers (timer_create and friends) on host timers. Each guest timer is a host timer of the same clock
// that signals the process (SIGEV_SIGNAL, kTimerHostSignal, the guest id and a tag as its value), which only
// the intake thread takes; it turns each expiry into the guest's SI_TIMER signal, so the host kernel does the
// timekeeping for every clock (CPU-time clocks included) and a64run only routes and counts overruns.
// Invariant (stale expiries): every arming of a signalling timer is a new host timer with a new tag, so the
// intake thread tells an expiry of an earlier arming from the current one by the tag alone, however late it
// takes the host signal; the earlier arming's expiry is queued as stale (sigpending shows it, dequeue drops
// it), as Linux 6.13+ does with a signal queued before timer_settime or timer_delete.
// Interval timers (setitimer, alarm) are the host's own: their SIGALRM/SIGVTALRM/SIGPROF reach the guest
// through the intake thread like any host signal, and survive execve as Linux's do.
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

#include "syscalls/abi/signal.h"
#include "syscalls/abi/types.h"

namespace emu {
class Process;
class Task;
}  // namespace emu

namespace signals {

struct Timer {
  bool used = false;
  int clockid = 0;
  // Tags (TimerTable::next_tag) of the host timer made by timer_create and of the current one: an expiry
  // tagged in [first_tag, tag) is an earlier arming's, one outside it an earlier timer's of the same id.
  uint32_t first_tag = 0;
  uint32_t tag = 0;
  int host_id = -1;
  int notify = guest::kSIGEV_SIGNAL;
  int signo = 0;
  int target_tid = 0;  // SIGEV_THREAD_ID
  guest::sigval_t value = 0;
  int32_t overrun_last = 0;  // of the last dequeued signal: what timer_getoverrun(2) reports
  uint32_t seq = 0;          // bumped by every timer_settime and timer_delete
};

// A process's timers (emu::Process::timers). The calls below take the calling thread's process's.
struct TimerTable {
  std::mutex* mu =
      new std::mutex;         // leaked on purpose: a fork child replaces it (another thread may hold it)
  std::vector<Timer> timers;  // GUARDED_BY(*mu), index = guest timer id
  uint32_t next_tag = 0;      // GUARDED_BY(*mu), the last host timer's tag
};

// The host signal of every host timer a64run creates; the intake thread claims it when si_code is SI_TIMER.
int timer_host_signal();

// timer_create(2): ev null means SIGEV_SIGNAL with SIGALRM and the timer id as value. Returns the id or a
// negative errno.
int64_t timer_create(emu::Task& t, int clockid, const guest::sigevent* ev);
// The caller settles host signals first (settle_host_signals): an expiry the host made before the call is
// then in the guest's queue under the old arming (sigpending shows it, dequeue drops it), as on Linux, where
// the expiry queues it at once; the host kernel drops the signal of a re-armed or deleted host timer that is
// still in its own queue. timer_delete likewise.
int64_t timer_settime(int id, int flags, const guest::itimerspec& value, guest::itimerspec* old);
int64_t timer_gettime(int id, guest::itimerspec* value);
int64_t timer_getoverrun(int id);
int64_t timer_delete(int id);

// The intake thread got the host timer signal carrying `value` (guest id and tag), with the host's count of
// further expiries.
void timer_expired(emu::Process& proc, uint64_t value, int host_overrun);
// The guest dequeues timer id's signal of arming `seq` carrying `overrun`: returns whether it is still
// current (else it is dropped); timer_getoverrun reports the overrun from now on.
bool note_timer_dequeued(int32_t id, uint32_t seq, int32_t overrun);
// fork(2): the child has no timers (the host's were not inherited either), and the table's lock may have
// been held by another thread of the parent.
void reset_timers_after_fork(emu::Process& proc);

}  // namespace signals
