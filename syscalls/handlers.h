// Declarations of every syscall handler named in table.inc, one header per kernel area.
#pragma once

#include "syscalls/sys_mm.h"
#include "syscalls/sys_process.h"
#include "syscalls/sys_rw.h"
