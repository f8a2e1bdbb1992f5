// This file implements read and write: the guest buffer is checked, then handed to the host call with the
// run lock released, since the call may block.
#include "syscalls/sys_rw.h"

#include <unistd.h>

#include "signals/fd_wait.h"
#include "signals/signalfd.h"
#include "syscalls/fd_util.h"

namespace syscalls {

SysResult sys_read(Task& t, int fd, GuestPtr<uint8_t> buf, uint64_t count) {
  if (is_reserved_fd(fd)) return -EBADF;
  uint8_t* p = emu::host_range(t.as(), buf.addr, count, PROT_WRITE);
  if (p == nullptr) return -EFAULT;
  if (signals::signalfd_active()) {
    if (const int64_t r = signals::signalfd_read(t, fd, buf.addr, count); r != signals::kNotSignalfd)
      return r;
  }
  if (int64_t w = signals::wait_fd(t, fd, POLLIN); w != 0) return w;
  emu::RunLockReleaser unlocked(t.proc().run_lock(), &t.cpu());
  const ssize_t n = ::read(fd, p, count);
  return n < 0 ? -errno : n;
}

SysResult sys_write(Task& t, int fd, GuestPtr<const uint8_t> buf, uint64_t count) {
  if (is_reserved_fd(fd)) return -EBADF;
  const uint8_t* p = emu::host_range(t.as(), buf.addr, count, PROT_READ);
  if (p == nullptr) return -EFAULT;
  if (int64_t w = signals::wait_fd(t, fd, POLLOUT); w != 0) return w;
  emu::RunLockReleaser unlocked(t.proc().run_lock(), &t.cpu());
  const ssize_t n = ::write(fd, p, count);
  return n < 0 ? -errno : n;
}

}  // namespace syscalls
