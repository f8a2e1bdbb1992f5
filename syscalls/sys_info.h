// System and resource information syscalls: sysinfo, getrusage and getrandom.
#pragma once

#include "syscalls/abi/time_abi.h"
#include "syscalls/abi/types.h"
#include "syscalls/dispatch.h"

namespace syscalls {

SysResult sys_sysinfo(Task& t, GuestPtr<guest::sysinfo> info);
SysResult sys_getrusage(Task& t, int32_t who, GuestPtr<guest::rusage> usage);
SysResult sys_getrandom(Task& t, GuestPtr<uint8_t> buf, uint64_t count, uint32_t flags);

}  // namespace syscalls
