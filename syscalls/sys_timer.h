// Signals by timer and by file: interval timers (getitimer, setitimer; glibc's alarm is setitimer on arm64)
// and POSIX timers (timer_create and friends), and signalfd4. signals/timers.h and signals/signalfd.h say how
// each maps onto the host.
#pragma once

#include "syscalls/abi/signal.h"
#include "syscalls/abi/types.h"
#include "syscalls/dispatch.h"

namespace syscalls {

SysResult sys_getitimer(Task& t, int which, GuestPtr<guest::itimerval> value);
SysResult sys_setitimer(Task& t, int which, GuestPtr<const guest::itimerval> value,
                        GuestPtr<guest::itimerval> old);

SysResult sys_timer_create(Task& t, int clockid, GuestPtr<const guest::sigevent> sevp, GuestPtr<int32_t> id);
SysResult sys_timer_settime(Task& t, int id, int flags, GuestPtr<const guest::itimerspec> value,
                            GuestPtr<guest::itimerspec> old);
SysResult sys_timer_gettime(Task& t, int id, GuestPtr<guest::itimerspec> value);
SysResult sys_timer_getoverrun(Task& t, int id);
SysResult sys_timer_delete(Task& t, int id);

SysResult sys_signalfd4(Task& t, int fd, GuestPtr<const uint64_t> mask, uint64_t sizemask, int flags);

}  // namespace syscalls
