// Time syscalls: clocks (get, set, resolution, adjust), gettimeofday and settimeofday, times, and the sleeps
// nanosleep and clock_nanosleep.
#pragma once

#include "syscalls/abi/time_abi.h"
#include "syscalls/abi/types.h"
#include "syscalls/dispatch.h"

namespace syscalls {

SysResult sys_clock_gettime(Task& t, int32_t clockid, GuestPtr<guest::timespec> tp);
SysResult sys_clock_getres(Task& t, int32_t clockid, GuestPtr<guest::timespec> res);
SysResult sys_clock_settime(Task& t, int32_t clockid, GuestPtr<const guest::timespec> tp);
SysResult sys_clock_adjtime(Task& t, int32_t clockid, GuestPtr<guest::timex> buf);
SysResult sys_adjtimex(Task& t, GuestPtr<guest::timex> buf);
SysResult sys_gettimeofday(Task& t, GuestPtr<guest::timeval> tv, GuestPtr<guest::timezone> tz);
SysResult sys_settimeofday(Task& t, GuestPtr<const guest::timeval> tv, GuestPtr<const guest::timezone> tz);
SysResult sys_times(Task& t, GuestPtr<guest::tms> buf);
SysResult sys_nanosleep(Task& t, GuestPtr<const guest::timespec> req, GuestPtr<guest::timespec> rem);
SysResult sys_clock_nanosleep(Task& t, int32_t clockid, int32_t flags, GuestPtr<const guest::timespec> req,
                              GuestPtr<guest::timespec> rem);

}  // namespace syscalls
