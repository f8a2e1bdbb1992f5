// Sleeps as parks: a sleeping thread waits on its park with a deadline, so a signal (or exit) wakes it at
// once. No sleep is cut into polling quanta. Clocks a park cannot wait on sleep in the host, as safe system
// calls.
#pragma once

#include <time.h>

#include <cstdint>

namespace emu {
class Task;
}

namespace signals {

// Sleeps until the absolute `deadline` on `clock` (CLOCK_MONOTONIC, CLOCK_REALTIME or CLOCK_BOOTTIME) with
// the run lock released. Returns 0 when the deadline passed, -EINTR when a signal interrupted the sleep.
int64_t sleep_until(emu::Task& t, clockid_t clock, const timespec& deadline);

// nanosleep and relative clock_nanosleep: the sleep, and on interruption the remaining time written to
// `rem_addr` (if nonzero) and a restart block that resumes the same deadline (ERESTART_RESTARTBLOCK).
int64_t relative_sleep(emu::Task& t, clockid_t clock, const timespec& deadline, uint64_t rem_addr);

// clock_nanosleep on a clock a park cannot wait on (the CPU-time clocks, CLOCK_TAI, the alarm clocks): the
// host's own sleep until `deadline` on that clock (TIMER_ABSTIME, with the guest's other `flags` bits, which
// the host judges), as a safe system call. As posix_cpu_nsleep and hrtimer_nanosleep do, an absolute sleep
// that a signal ends restarts unchanged unless a handler runs (kERESTARTNOHAND); a `relative` one writes the
// time left to `rem_addr` (if nonzero) and restarts through restart_syscall to the same deadline
// (kERESTART_RESTARTBLOCK), so -EINTR after a handler.
int64_t host_clock_sleep(emu::Task& t, clockid_t clock, int flags, const timespec& deadline, bool relative,
                         uint64_t rem_addr);

}  // namespace signals
