// Linux AIO syscalls (io_setup(2) and friends) on the host's AIO contexts.
#pragma once

#include "syscalls/dispatch.h"

namespace syscalls {

SysResult sys_io_setup(Task& t, uint32_t nr_events, GuestPtr<uint64_t> ctxp);
SysResult sys_io_destroy(Task& t, uint64_t ctx);
SysResult sys_io_submit(Task& t, uint64_t ctx, int64_t nr, uint64_t iocbpp);
SysResult sys_io_cancel(Task& t, uint64_t ctx, uint64_t iocb, uint64_t result);
SysResult sys_io_getevents(Task& t, uint64_t ctx, int64_t min_nr, int64_t nr, uint64_t events,
                           uint64_t timeout);
SysResult sys_io_pgetevents(Task& t, uint64_t ctx, int64_t min_nr, int64_t nr, uint64_t events,
                            uint64_t timeout, uint64_t usig);

}  // namespace syscalls
