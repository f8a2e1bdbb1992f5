// Scheduling syscalls: affinity, policies and parameters (sched_*), yield, getcpu, nice values
// (getpriority/setpriority) and I/O priorities (ioprio_get/ioprio_set).
#pragma once

#include "syscalls/abi/time_abi.h"
#include "syscalls/abi/types.h"
#include "syscalls/dispatch.h"

namespace syscalls {

SysResult sys_sched_setparam(Task& t, int32_t pid, GuestPtr<const guest::sched_param> param);
SysResult sys_sched_setscheduler(Task& t, int32_t pid, int32_t policy,
                                 GuestPtr<const guest::sched_param> param);
SysResult sys_sched_getscheduler(Task& t, int32_t pid);
SysResult sys_sched_getparam(Task& t, int32_t pid, GuestPtr<guest::sched_param> param);
SysResult sys_sched_setaffinity(Task& t, int32_t pid, uint32_t len, GuestPtr<const uint64_t> mask);
SysResult sys_sched_getaffinity(Task& t, int32_t pid, uint32_t len, GuestPtr<uint64_t> mask);
SysResult sys_sched_yield(Task& t);
SysResult sys_sched_get_priority_max(Task& t, int32_t policy);
SysResult sys_sched_get_priority_min(Task& t, int32_t policy);
SysResult sys_sched_rr_get_interval(Task& t, int32_t pid, GuestPtr<guest::timespec> interval);
SysResult sys_sched_setattr(Task& t, int32_t pid, GuestPtr<guest::sched_attr> attr, uint32_t flags);
SysResult sys_sched_getattr(Task& t, int32_t pid, GuestPtr<guest::sched_attr> attr, uint32_t size,
                            uint32_t flags);
SysResult sys_getcpu(Task& t, GuestPtr<uint32_t> cpu, GuestPtr<uint32_t> node, uint64_t cache);
SysResult sys_getpriority(Task& t, int32_t which, int32_t who);
SysResult sys_setpriority(Task& t, int32_t which, int32_t who, int32_t prio);
SysResult sys_ioprio_get(Task& t, int32_t which, int32_t who);
SysResult sys_ioprio_set(Task& t, int32_t which, int32_t who, int32_t ioprio);

}  // namespace syscalls
