// Declarations of every syscall handler named in table.inc, one header per kernel area.
#pragma once

#include "syscalls/sys_dir.h"
#include "syscalls/sys_fd.h"
#include "syscalls/sys_file.h"
#include "syscalls/sys_ioctl.h"
#include "syscalls/sys_mm.h"
#include "syscalls/sys_process.h"
#include "syscalls/sys_rw.h"
#include "syscalls/sys_stat.h"
#include "syscalls/sys_exec.h"
#include "syscalls/sys_futex.h"
#include "syscalls/sys_thread.h"
#include "syscalls/sys_wait.h"
#include "syscalls/sys_info.h"
#include "syscalls/sys_sched.h"
#include "syscalls/sys_time.h"
#include "syscalls/sys_signal.h"
