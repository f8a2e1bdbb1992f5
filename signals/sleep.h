// Sleeps as parks: a sleeping thread waits on its park with a deadline, so a signal (or exit) wakes it at
// once. No sleep is cut into polling quanta.
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

}  // namespace signals
