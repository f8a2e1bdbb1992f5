// Safe system calls: a blocking host call (a read of an empty pipe) made as the guest asked for it, in one
// host call, that a guest signal still ends at once. The thread checks its interrupt flag and enters the
// call in a few instructions of its own (signals/safe_syscall.cpp); a sender that finds it there sends it
// the wake signal, whose handler moves a thread still before the `syscall` instruction past it, and the
// host call itself ends with EINTR. QEMU's linux-user does the same (safe_syscall); the alternative, a host
// poll of the fd and the thread's wake fd before the call, cost three host calls more per blocking read.
#pragma once

#include <cstdint>

namespace emu {
class Task;
}

namespace signals {

// Installs the wake signal's handler and unblocks it in the calling thread, whose later threads inherit the
// mask; the intake thread must exist already (it keeps every signal blocked). A no-op where safe calls are
// off (ThreadSanitizer runs signal handlers late, outside the interrupted context).
void init_safe_syscalls();
bool safe_syscalls_enabled();

// Host system call `nr` with the run lock released, unless t is interrupted first: then -EINTR without the
// call. A wake of t (Task::wake with the interrupt set) while it blocks ends the call with -EINTR.
int64_t safe_syscall(emu::Task& t, long nr, long a1, long a2, long a3, long a4 = 0, long a5 = 0, long a6 = 0);

// Blocks or unblocks the wake signal in the calling thread (around execve).
void set_wake_signal_blocked(bool blocked);

// Sends the wake signal to host thread `tid` of host process `pid` (Task::wake, for a thread in a safe
// call).
void send_wake_signal(int pid, int tid);

}  // namespace signals
