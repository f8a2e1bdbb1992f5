// POSIX message queue syscalls (mq_overview(7)) on the host's queues.
#pragma once

#include "syscalls/abi/mqueue.h"
#include "syscalls/abi/signal.h"
#include "syscalls/dispatch.h"

namespace syscalls {

SysResult sys_mq_open(Task& t, GuestCStr name, int oflag, uint32_t mode, GuestPtr<const guest::mq_attr> attr);
SysResult sys_mq_unlink(Task& t, GuestCStr name);
SysResult sys_mq_timedsend(Task& t, int mqd, uint64_t msg, uint64_t len, uint32_t prio,
                           GuestPtr<const guest::timespec> abs_timeout);
SysResult sys_mq_timedreceive(Task& t, int mqd, uint64_t msg, uint64_t len, GuestPtr<uint32_t> prio,
                              GuestPtr<const guest::timespec> abs_timeout);
SysResult sys_mq_notify(Task& t, int mqd, GuestPtr<const guest::sigevent> sevp);
SysResult sys_mq_getsetattr(Task& t, int mqd, GuestPtr<const guest::mq_attr> newattr,
                            GuestPtr<guest::mq_attr> oldattr);

}  // namespace syscalls
