// Interruptible fd waits: a host poll of pipes, sockets or terminals, or a blocking call on one, made as a
// safe system call (signals/safe_syscall.h), so that a signal (or exit) ends the wait at once. Regular files
// and non-blocking descriptors never wait here.
#pragma once

#include <poll.h>

#include <cstdint>
#include <functional>

namespace emu {
class Task;
}

namespace signals {

// Waits until fd has `events` (POLLIN/POLLOUT) or the thread is interrupted, with the run lock released.
// Returns 0 when the caller should do its call now (ready, non-blocking fd, or an fd poll cannot wait on),
// or kERESTARTSYS when a signal arrived first. A socket with SO_RCVTIMEO (POLLIN) or SO_SNDTIMEO (POLLOUT)
// waits that long at most (-EAGAIN after), and a signal ends its wait with -EINTR, never restarted.
// `not_ready`: the caller just saw the fd not ready (skips the first readiness check), and then a
// non-blocking fd returns kWouldBlock instead of 0.
inline constexpr int64_t kWouldBlock = 1;
int64_t wait_fd(emu::Task& t, int fd, short events, bool not_ready = false);

// A blocking read or receive that found nothing looks again before it sleeps in the host, as a futex wait
// does (park.h, spin_budget): `look` (a try that does not block) is called after each sched_yield, with the
// run lock released, until it returns something other than -EAGAIN, a signal is on its way or the budget
// has passed. Returns its result, or -EAGAIN. A partner that answers within the budget saves both sides a
// host sleep and wakeup.
int64_t look_again(emu::Task& t, const std::function<int64_t()>& look);

// What a blocking call on fd (`events` says which direction) returns when a signal ended it: -EINTR for a
// socket with a timeout that way, else kERESTARTSYS.
int64_t interrupted_fd_result(int fd, short events);

// A blocking host call on w.fd (read, write, readv, writev, sendmsg, recvmsg, accept4, connect, splice...:
// `nr` with the fd and the rest) as a safe system call (signals/safe_syscall.h): the host kernel's result, or
// interrupted_fd_result when a signal ended it (or came first). The host kernel applies every rule of its
// own: a non-blocking fd's EAGAIN, a socket's timeout, the partial count of a transfer a signal ended.
struct FdWait {
  int fd;
  int events;  // POLLIN (the call waits for data) or POLLOUT (for room)
};
int64_t safe_fd_call(emu::Task& t, long nr, FdWait w, long a1, long a2, long a3 = 0, long a4 = 0,
                     long a5 = 0);

// poll(2) over host fds as a safe system call, with the run lock released, until the absolute CLOCK_MONOTONIC
// `deadline` (nullptr: none). Returns the host poll result (>= 0), -errno, or -EINTR when interrupted by a
// signal (the caller picks the restart rule).
int64_t poll_interruptible(emu::Task& t, struct pollfd* fds, nfds_t n, const struct timespec* deadline);

}  // namespace signals
