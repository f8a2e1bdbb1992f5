// Safe system calls: a blocking host call (a read of an empty pipe) made as the guest asked for it, in one
// host call, that a guest signal still ends at once. The thread checks its interrupt flag and enters the
// call in a few instructions of its own (signals/safe_syscall.cpp); a sender that finds it there sends it
// the wake signal, whose handler moves a thread still before the `syscall` instruction past it, and the
// host call itself ends with EINTR. QEMU's linux-user does the same (safe_syscall); the alternative, a host
// poll of the fd and the thread's wake fd before the call, cost three host calls more per blocking read.
#pragma once

#include <signal.h>

#include <cstdint>

namespace emu {
class Task;
}

namespace signals {

// Installs the wake signal's handler and unblocks it in the calling thread, whose later threads inherit the
// mask; the intake thread must exist already (it keeps every signal blocked).
void init_safe_syscalls();

// Installs `handler` (SA_SIGINFO, SA_RESTART, every signal blocked while it runs) for host signal `sig` with
// the raw rt_sigaction and a restorer of a64run's own (glibc's is not exported), so that it runs as the
// kernel delivers the signal, in the context it interrupted, in every build: ThreadSanitizer's sigaction
// would run it later, at a point of its own choosing and with a copy of the context (where moving the pc
// means nothing). Such a handler runs at any point of a thread, inside the sanitizer's runtime too: it must
// not be instrumented (no_sanitize("thread")) nor call what is, and touches nothing but its signal frame and
// memory it reaches with the __atomic builtins.
void install_raw_handler(int sig, void (*handler)(int, siginfo_t*, void*));
// The restorer install_raw_handler gives (an rt_sigreturn), for a raw handler installed with other flags.
uint64_t raw_restorer();

// Host system call `nr` with the run lock released, unless t is interrupted first: then -EINTR without the
// call. A wake of t (Task::wake with the interrupt set) while it blocks ends the call with -EINTR.
int64_t safe_syscall(emu::Task& t, long nr, long a1 = 0, long a2 = 0, long a3 = 0, long a4 = 0, long a5 = 0,
                     long a6 = 0);

// A host system call that may sleep in the kernel (a lock wait, the open of a FIFO, a CPU-time sleep, a
// transfer on a pipe) as a safe system call: the host's result, or `on_signal` when a guest signal (or an
// exit) for t ended the wait or came before it. `on_signal` is the restart rule the guest's kernel applies
// to the call: kERESTARTSYS (restarted under SA_RESTART), kERESTARTNOHAND, -EINTR (never restarted)... A
// host EINTR that no guest signal explains (a wake signal meant for an earlier call of this thread) makes
// the call again, so callers pass calls that are the same when made again (an absolute deadline, not a
// relative one). The one interruptible path for every host wait that has no readiness to poll for.
int64_t blocking_syscall(emu::Task& t, int64_t on_signal, long nr, long a1 = 0, long a2 = 0, long a3 = 0,
                         long a4 = 0, long a5 = 0);

// The wake signal: the host signal that ends a safe system call.
int wake_signal();

// Blocks or unblocks the wake signal in the calling thread (around execve).
void set_wake_signal_blocked(bool blocked);

// Sends the wake signal to host thread `tid` of host process `pid` (Task::wake, for a thread in a safe
// call).
void send_wake_signal(int pid, int tid);

}  // namespace signals
