// POSIX timers (timer_create and friends) on host timers. Each guest timer is a host timer of the same clock
// that signals the process (SIGEV_SIGNAL, kTimerHostSignal, the guest id as its value), which only the
// intake thread takes; it turns each expiry into the guest's SI_TIMER signal, so the host kernel does the
// timekeeping for every clock (CPU-time clocks included) and a64run only routes and counts overruns.
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
  uint32_t generation = 0;  // told apart from an earlier timer of the same id whose expiry is in flight
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
};

// The host signal of every host timer a64run creates; the intake thread claims it when si_code is SI_TIMER.
int timer_host_signal();

// timer_create(2): ev null means SIGEV_SIGNAL with SIGALRM and the timer id as value. Returns the id or a
// negative errno.
int64_t timer_create(emu::Task& t, int clockid, const guest::sigevent* ev);
int64_t timer_settime(int id, int flags, const guest::itimerspec& value, guest::itimerspec* old);
int64_t timer_gettime(int id, guest::itimerspec* value);
int64_t timer_getoverrun(int id);
int64_t timer_delete(int id);

// The intake thread got the host timer signal carrying `value` (guest id and generation), with the host's
// count of further expiries.
void timer_expired(emu::Process& proc, uint64_t value, int host_overrun);
// The guest dequeues timer id's signal of arming `seq` carrying `overrun`: returns whether it is still
// current (else it is dropped); timer_getoverrun reports the overrun from now on.
bool note_timer_dequeued(int32_t id, uint32_t seq, int32_t overrun);
// fork(2): the child has no timers (the host's were not inherited either), and the table's lock may have
// been held by another thread of the parent.
void reset_timers_after_fork(emu::Process& proc);

}  // namespace signals
