// This file implements interruptible fd waits: host polls and fd calls made as safe system calls.
#include "signals/fd_wait.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>

#include <cerrno>

#include "emu/task.h"
#include "signals/park.h"
#include "signals/safe_syscall.h"
#include "signals/signals.h"
#include "syscalls/abi/errno.h"

namespace signals {

int64_t poll_interruptible(emu::Task& t, struct pollfd* fds, nfds_t n, const struct timespec* deadline) {
  while (true) {
    timespec left{};
    if (deadline != nullptr) left = sub_clamped(*deadline, now(CLOCK_MONOTONIC));
    const int64_t r = safe_syscall(t, SYS_ppoll, reinterpret_cast<long>(fds), static_cast<long>(n),
                                   deadline != nullptr ? reinterpret_cast<long>(&left) : 0);
    // A host EINTR without a guest signal: a wake signal meant for an earlier call. Poll again.
    if (r != -EINTR || t.interrupted()) return r;
  }
}

namespace {

// A socket's SO_RCVTIMEO/SO_SNDTIMEO bounds a blocking call (then -EAGAIN), and a signal then ends it with
// -EINTR whatever SA_RESTART says (sock_intr_errno). A socket's file is always open for reading and writing
// (sock_alloc_file), so a pipe end, the usual case, costs no getsockopt (host system calls are about a
// microsecond each here). `fl` is the fd's F_GETFL.
bool socket_timeout(int fd, int fl, short events, ::timeval* tv) {
  socklen_t len = sizeof *tv;
  const int opt = (events & POLLOUT) ? SO_SNDTIMEO : SO_RCVTIMEO;
  return (fl & O_ACCMODE) == O_RDWR && ::getsockopt(fd, SOL_SOCKET, opt, tv, &len) == 0 &&
         (tv->tv_sec != 0 || tv->tv_usec != 0);
}

}  // namespace

int64_t interrupted_fd_result(int fd, short events) {
  const int fl = ::fcntl(fd, F_GETFL);
  ::timeval tv{};
  return fl >= 0 && socket_timeout(fd, fl, events, &tv) ? -EINTR : kERESTARTSYS;
}

int64_t look_again(emu::Task& t, const std::function<int64_t()>& look) {
  const uint64_t budget = spin_budget();
  if (budget == 0) return -EAGAIN;
  emu::RunLockReleaser unlocked(t.proc().run_lock(), &t.cpu());
  const uint64_t until = now_ns() + budget;
  do {
    sched_yield();
    const int64_t r = look();
    if (r != -EAGAIN) return r;
  } while (!t.interrupted() && now_ns() < until);
  return -EAGAIN;
}

namespace {

constexpr long kSpliceNonblock = 2;  // SPLICE_F_NONBLOCK

bool nonblocking(int fd) {
  const int fl = ::fcntl(fd, F_GETFL);
  return fl >= 0 && (fl & O_NONBLOCK) != 0;
}

// Makes the call of an interrupted thread (a deliverable signal pending) when Linux makes it without a wait
// (true, its result in *out); false when it would wait (then the signal ends it: interrupted_fd_result). On
// Linux a call that need not wait completes whatever is pending, and one that would wait ends at once with
// the signal:
// - the read, write and socket calls wait only on the one fd, never when it is O_NONBLOCK;
// - vmsplice and tee move pages between pipes (and the guest's memory) and wait on a pipe unless
//   SPLICE_F_NONBLOCK, and fs/splice.c's wait_for_space and splice_from_pipe_next return -ERESTARTSYS for a
//   pending signal before they sleep: the call with the flag added is Linux's, its EAGAIN the wait, unless
//   the guest's own flag (or, for tee, an O_NONBLOCK end, which the kernel turns into the flag) made it
//   real. vmsplice ignores O_NONBLOCK, so a non-blocking pipe is no promise it will not wait;
// - splice, sendfile and copy_file_range may also wait on a socket or a file's other end: only with both
//   ends O_NONBLOCK is no wait left.
bool direct_result(long nr, FdWait w, const long (&a)[5], int64_t* out) {
  switch (nr) {
    case SYS_vmsplice:
    case SYS_tee: {
      const long flags = a[2];  // vmsplice(fd, iov, n, flags), tee(fd_in, fd_out, len, flags)
      const int64_t r = guest::from_host(::syscall(nr, w.fd, a[0], a[1], flags | kSpliceNonblock));
      const bool real_eagain = (flags & kSpliceNonblock) != 0 ||
                               (nr == SYS_tee && (nonblocking(w.fd) || nonblocking(static_cast<int>(a[0]))));
      if (r == -EAGAIN && !real_eagain) return false;
      *out = r;
      return true;
    }
    case SYS_splice:
    case SYS_copy_file_range:
    case SYS_sendfile: {
      const int other = static_cast<int>(nr == SYS_sendfile ? a[0] : a[1]);
      if (!nonblocking(w.fd) || !nonblocking(other)) return false;
      break;
    }
    default:
      if (!nonblocking(w.fd)) return false;
  }
  *out = guest::from_host(::syscall(nr, w.fd, a[0], a[1], a[2], a[3], a[4]));
  return true;
}

}  // namespace

int64_t safe_fd_call(emu::Task& t, long nr, FdWait w, long a1, long a2, long a3, long a4, long a5) {
  while (true) {
    const int64_t r = safe_syscall(t, nr, w.fd, a1, a2, a3, a4, a5);
    if (r != -EINTR) return r;
    // Not interrupted: a wake signal meant for an earlier call of this thread; nothing was transferred.
    if (t.interrupted()) {
      const long a[5] = {a1, a2, a3, a4, a5};
      int64_t direct = 0;
      if (direct_result(nr, w, a, &direct)) return direct;
      return interrupted_fd_result(w.fd, static_cast<short>(w.events));
    }
  }
}

int64_t wait_fd(emu::Task& t, int fd, short events, bool not_ready) {
  struct pollfd p {
    fd, events, 0
  };
  if (!not_ready && ::poll(&p, 1, 0) != 0) return 0;  // ready, or an error the call itself will report
  const int fl = ::fcntl(fd, F_GETFL);
  if (fl < 0) return 0;
  if (fl & O_NONBLOCK) return not_ready ? kWouldBlock : 0;
  ::timeval tv{};
  if (socket_timeout(fd, fl, events, &tv)) {
    const timespec deadline = add(now(CLOCK_MONOTONIC), {tv.tv_sec, tv.tv_usec * 1000});
    const int64_t r = poll_interruptible(t, &p, 1, &deadline);
    if (r == -EINTR) return -EINTR;
    return r == 0 ? -EAGAIN : 0;
  }
  const int64_t r = poll_interruptible(t, &p, 1, nullptr);
  return r == -EINTR ? kERESTARTSYS : 0;
}

}  // namespace signals
