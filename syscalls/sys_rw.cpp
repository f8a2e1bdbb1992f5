// This file implements read and write: the guest buffer is checked, then handed to the host call with the
// run lock released, since the call may block. signalfds, userfaultfds and /proc/PID/mem and pagemap
// descriptors (syscalls/proc_mem.h) are served by a64run.
#include "syscalls/sys_rw.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>

#include "signals/fd_wait.h"
#include "signals/safe_syscall.h"
#include "signals/signalfd.h"
#include "syscalls/fd_util.h"
#include "syscalls/host_call.h"
#include "syscalls/proc_mem.h"
#include "syscalls/sys_userfaultfd.h"

namespace syscalls {
namespace {

// The fast path: a transfer that can complete without blocking (a pipe or socket with data or room, a file
// in the page cache) runs in one host call with the run lock held. RWF_NOWAIT makes the call fail with
// EAGAIN instead of blocking, and EOPNOTSUPP where the file does not support it (terminals): both take the
// waiting path. Writes are tried only up to PIPE_BUF, where a pipe takes all of it or nothing.
constexpr uint64_t kNowaitWriteMax = 4096;

int64_t try_nowait(int fd, void* p, uint64_t count, bool writing) {
  iovec v{p, count};
  const ssize_t n = writing ? ::pwritev2(fd, &v, 1, -1, RWF_NOWAIT) : ::preadv2(fd, &v, 1, -1, RWF_NOWAIT);
  return n < 0 ? -errno : n;
}

bool take_slow_path(int64_t r) {
  return r == -EAGAIN || r == -EOPNOTSUPP || r == -EINVAL || r == -ESPIPE;
}

// The waiting path: one host call that does what the guest's would (a non-blocking fd's EAGAIN, a socket's
// timeout, a pipe write that a signal ends part-way are the host kernel's), a safe system call that a signal
// ends like any other wait.
int64_t safe_transfer(Task& t, int fd, void* p, uint64_t count, bool writing) {
  return signals::safe_fd_call(t, writing ? SYS_write : SYS_read, {fd, writing ? POLLOUT : POLLIN},
                               reinterpret_cast<long>(p), static_cast<long>(count));
}

// A blocking read that found nothing looks again before it sleeps (signals::look_again); a non-blocking
// fd's EAGAIN goes back at once.
int64_t spin_for_data(Task& t, int fd, void* p, uint64_t count) {
  const int fl = ::fcntl(fd, F_GETFL);
  if (fl < 0 || (fl & O_NONBLOCK)) return -EAGAIN;
  return signals::look_again(t, [&] { return try_nowait(fd, p, count, false); });
}

}  // namespace

SysResult sys_read(Task& t, int fd, GuestPtr<uint8_t> buf, uint64_t count) {
  if (is_reserved_fd(fd)) return -EBADF;
  if (signals::signalfd_active()) {
    if (const int64_t r = signals::signalfd_read(t, fd, buf.addr, count); r != signals::kNotSignalfd)
      return r;
  }
  if (userfaultfd_active()) {
    if (const int64_t r = userfaultfd_read(t, fd, buf.addr, count); r != kNotUserfaultfd) return r;
  }
  if (const int64_t r = proc_mem_io(t, fd, {.buf = buf.addr, .count = count}); r != kNotProcMem) return r;
  // A buffer whose tail is not writable reads what fits before it (the host stops there, as Linux does).
  const HostTransfer b = host_transfer(t.as(), buf.addr, count, PROT_WRITE);
  auto* p = static_cast<uint8_t*>(b.ptr);
  count = b.len;
  int64_t r = try_nowait(fd, p, count, false);
  if (r == -EAGAIN) r = spin_for_data(t, fd, p, count);
  return take_slow_path(r) ? safe_transfer(t, fd, p, count, false) : r;
}

SysResult sys_write(Task& t, int fd, GuestPtr<const uint8_t> buf, uint64_t count) {
  if (is_reserved_fd(fd)) return -EBADF;
  if (const int64_t r = proc_mem_io(t, fd, {.write = true, .buf = buf.addr, .count = count});
      r != kNotProcMem)
    return r;
  // A buffer whose tail is not readable writes the readable prefix and returns its length, as on Linux
  // (a pipe, a file); /dev/null takes the whole count without reading it.
  const HostTransfer b = host_transfer(t.as(), buf.addr, count, PROT_READ);
  const auto* p = static_cast<const uint8_t*>(b.ptr);
  count = b.len;
  uint64_t done = 0;  // what a short non-blocking write (a stream socket filling up) already sent
  if (count <= kNowaitWriteMax) {
    const int64_t r = try_nowait(fd, const_cast<uint8_t*>(p), count, true);
    if (!take_slow_path(r) && (r < 0 || static_cast<uint64_t>(r) == count)) return r;
    if (r > 0) done = static_cast<uint64_t>(r);
  }
  // The rest as a blocking write sends it: a signal or an error after some bytes returns the count.
  const int64_t r = safe_transfer(t, fd, const_cast<uint8_t*>(p + done), count - done, true);
  if (r < 0) return done ? static_cast<int64_t>(done) : r;
  return static_cast<int64_t>(done) + r;
}

}  // namespace syscalls
