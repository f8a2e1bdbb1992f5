// This file implements file data syscalls: readv/writev and the positional forms on host iovecs that point
// into the guest window, the zero-copy transfers with their optional offset arguments, and truncation,
// allocation, sync and advice. Anything that can block runs without the run lock.
#include "syscalls/sys_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>

#include "signals/fd_wait.h"
#include "signals/safe_syscall.h"
#include "signals/signals.h"
#include "syscalls/abi/errno.h"
#include "syscalls/fd_util.h"
#include "syscalls/host_call.h"
#include "syscalls/proc_mem.h"
#include "syscalls/procfs.h"

namespace syscalls {
namespace {

using guest::from_host;

// A bad buffer is reported only after a bad descriptor: the kernel checks the file (open, for a positional
// call seekable, and open for this direction) before it looks at user memory.
int64_t fd_error_first(int fd, bool writing, int64_t err, bool positional) {
  const int fl = ::fcntl(fd, F_GETFL);
  if (fl < 0 || (fl & O_PATH)) return -EBADF;
  if (positional && ::lseek(fd, 0, SEEK_CUR) < 0 && errno == ESPIPE) return -ESPIPE;  // no FMODE_PREAD
  const int acc = fl & O_ACCMODE;
  if (writing ? acc == O_RDONLY : acc == O_WRONLY) return -EBADF;
  return err;
}

// readv and friends: import the guest iovecs for the direction, then the host call `nr` (fd, the iovecs, then
// `more`) as a safe system call: on a pipe, socket or terminal it may wait, which a signal ends (regular
// files never wait there; the positional forms fail on pipes at once, and there ESPIPE comes before EFAULT).
SysResult vector_io(Task& t, int fd, uint64_t iov, uint64_t count, bool writing, long nr,
                    std::array<long, 3> more = {}) {
  const bool positional =
      nr == SYS_preadv || nr == SYS_pwritev || ((nr == SYS_preadv2 || nr == SYS_pwritev2) && more[0] != -1);
  if (is_reserved_fd(fd)) return -EBADF;
  if (nr != SYS_vmsplice) {
    const MemIo io{.write = writing,
                   .vector = true,
                   .iov = iov,
                   .iovcnt = count,
                   .pos = nr == SYS_readv || nr == SYS_writev ? -1 : more[0],
                   .flags = static_cast<int>(more[2])};
    if (const int64_t r = proc_mem_io(t, fd, io); r != kNotProcMem) return r;
  }
  HostIovecs v;
  if (const int64_t r = v.import(t.as(), iov, count, writing ? PROT_READ : PROT_WRITE); r < 0) {
    return fd_error_first(fd, writing, r, positional);
  }
  return signals::safe_fd_call(t, nr, {fd, writing ? POLLOUT : POLLIN}, reinterpret_cast<long>(v.data()),
                               static_cast<long>(v.count()), more[0], more[1], more[2]);
}

// pread64/pwrite64: one guest buffer at an explicit position.
template <typename Call>
SysResult positional_io(Task& t, int fd, uint64_t buf, uint64_t count, int64_t pos, bool writing, Call call) {
  if (pos < 0) return -EINVAL;
  if (is_reserved_fd(fd)) return -EBADF;
  if (const int64_t r = proc_mem_io(t, fd, {.write = writing, .buf = buf, .count = count, .pos = pos});
      r != kNotProcMem)
    return r;
  const HostTransfer b = host_transfer(t.as(), buf, count, writing ? PROT_READ : PROT_WRITE);
  emu::RunLockReleaser unlocked(t.proc().run_lock(), &t.cpu());
  return from_host(call(static_cast<uint8_t*>(b.ptr), b.len));
}

// An optional loff_t* argument (sendfile, splice, copy_file_range): read before the call, written back after.
// One that cannot be read reaches the host as the fault address, so the host's checks of the descriptors
// and their kinds (EBADF, ESPIPE, EINVAL) come first, as Linux makes them before it reads the offset.
struct OptionalOffset {
  uint64_t addr;
  int64_t value = 0;
  bool readable = true;

  void load(emu::AddressSpace& as) {
    readable = addr == 0 || emu::copy_in(as, &value, addr, sizeof value) == 0;
  }
  int64_t* ptr() {
    if (!readable) return static_cast<int64_t*>(kHostFaultAddr);
    return addr ? &value : nullptr;
  }
  int64_t store(emu::AddressSpace& as) const {
    return addr ? emu::copy_out(as, addr, &value, sizeof value) : 0;
  }
};

// A call on one descriptor that may take a while (sync, allocate), without the run lock.
template <typename Call>
SysResult blocking_fd_call(Task& t, int fd, Call call) {
  if (is_reserved_fd(fd)) return -EBADF;
  emu::RunLockReleaser unlocked(t.proc().run_lock(), &t.cpu());
  return from_host(call());
}

}  // namespace

int64_t HostIovecs::import(emu::AddressSpace& as, uint64_t addr, uint64_t count, int prot) {
  if (count > static_cast<uint64_t>(guest::kUIO_MAXIOV)) return -EINVAL;
  count_ = count;
  total_ = 0;
  if (count == 0) return 0;
  std::array<guest::iovec, 8> small;
  std::vector<guest::iovec> large;
  if (count > small.size()) large.resize(count);
  const std::span<guest::iovec> g(count <= small.size() ? small.data() : large.data(), count);
  if (const int64_t r = emu::copy_in(as, g.data(), addr, g.size_bytes()); r < 0) return r;
  const int64_t total = clamp_iovecs(g);
  if (total < 0) return total;
  total_ = static_cast<uint64_t>(total);
  // import_iovec: every buffer must pass access_ok before anything moves.
  for (const guest::iovec& v : g) {
    if (!emu::user_range_ok(v.iov_base, v.iov_len)) return -EFAULT;
  }
  if (count > inline_.size()) heap_.resize(count);
  ::iovec* h = count <= inline_.size() ? inline_.data() : heap_.data();
  // The transfer stops where Linux's copy would fault: the host stops by itself at a page that is not mapped,
  // and the iovecs end before one that is mapped without `prot` (a first buffer that starts there faults).
  for (size_t i = 0; i < count; ++i) {
    h[i] = {nullptr, 0};
    if (g[i].iov_len == 0) continue;
    const HostTransfer b = host_transfer(as, g[i].iov_base, g[i].iov_len, prot);
    if (b.ptr == kHostFaultAddr && i > 0) {
      count_ = i;
      break;
    }
    h[i] = {b.ptr, b.len};
    if (b.len < g[i].iov_len && b.ptr != kHostFaultAddr) {
      count_ = i + 1;
      break;
    }
  }
  return 0;
}

SysResult sys_readv(Task& t, int fd, GuestPtr<const guest::iovec> iov, uint64_t count) {
  return vector_io(t, fd, iov.addr, count, false, SYS_readv);
}

SysResult sys_writev(Task& t, int fd, GuestPtr<const guest::iovec> iov, uint64_t count) {
  return vector_io(t, fd, iov.addr, count, true, SYS_writev);
}

SysResult sys_pread64(Task& t, int fd, GuestPtr<uint8_t> buf, uint64_t count, int64_t pos) {
  return positional_io(t, fd, buf.addr, count, pos, false,
                       [&](uint8_t* p, uint64_t n) { return ::pread(fd, p, n, pos); });
}

SysResult sys_pwrite64(Task& t, int fd, GuestPtr<const uint8_t> buf, uint64_t count, int64_t pos) {
  return positional_io(t, fd, buf.addr, count, pos, true,
                       [&](uint8_t* p, uint64_t n) { return ::pwrite(fd, p, n, pos); });
}

// preadv/pwritev: on a 64-bit kernel the position is pos_l alone (pos_h is shifted out).
SysResult sys_preadv(Task& t, int fd, GuestPtr<const guest::iovec> iov, uint64_t count, int64_t pos_l,
                     uint64_t) {
  if (pos_l < 0) return -EINVAL;
  return vector_io(t, fd, iov.addr, count, false, SYS_preadv, {pos_l});
}

SysResult sys_pwritev(Task& t, int fd, GuestPtr<const guest::iovec> iov, uint64_t count, int64_t pos_l,
                      uint64_t) {
  if (pos_l < 0) return -EINVAL;
  return vector_io(t, fd, iov.addr, count, true, SYS_pwritev, {pos_l});
}

// preadv2/pwritev2: position -1 means the file offset (on a pipe they wait as readv and writev do); RWF_*
// flags are arch-independent.
SysResult sys_preadv2(Task& t, int fd, GuestPtr<const guest::iovec> iov, uint64_t count, int64_t pos_l,
                      uint64_t, int flags) {
  return vector_io(t, fd, iov.addr, count, false, SYS_preadv2, {pos_l, 0, flags});
}

SysResult sys_pwritev2(Task& t, int fd, GuestPtr<const guest::iovec> iov, uint64_t count, int64_t pos_l,
                       uint64_t, int flags) {
  return vector_io(t, fd, iov.addr, count, true, SYS_pwritev2, {pos_l, 0, flags});
}

// sendfile(2): the offset, when given, is read first (EFAULT before any check of the descriptors) and written
// back even after an error, as the kernel does. Into a pipe or socket it may wait, which a signal ends
// (restarted under SA_RESTART, as the pipe's and socket's waits are).
SysResult sys_sendfile(Task& t, int out_fd, int in_fd, GuestPtr<int64_t> offset, uint64_t count) {
  if (is_reserved_fd(out_fd) || is_reserved_fd(in_fd)) return -EBADF;
  OptionalOffset off{offset.addr};
  off.load(t.as());
  if (!off.readable) return -EFAULT;
  const int64_t r = signals::safe_fd_call(t, SYS_sendfile, {out_fd, POLLOUT}, in_fd,
                                          reinterpret_cast<long>(off.ptr()), static_cast<long>(count));
  if (off.store(t.as()) < 0) return -EFAULT;
  return r;
}

namespace {

// Shared by copy_file_range and splice: two optional offsets around one host call, `nr` (fd_in, off_in,
// fd_out, off_out, len, flags), made as a safe system call (splice waits on pipes and sockets).
SysResult two_offset_call(Task& t, long nr, int fd_in, uint64_t in_addr, int fd_out, uint64_t out_addr,
                          uint64_t len, uint32_t flags) {
  if (is_reserved_fd(fd_in) || is_reserved_fd(fd_out)) return -EBADF;
  OptionalOffset in{in_addr}, out{out_addr};
  in.load(t.as());
  out.load(t.as());
  const int64_t r = signals::safe_fd_call(t, nr, {fd_in, POLLIN}, reinterpret_cast<long>(in.ptr()), fd_out,
                                          reinterpret_cast<long>(out.ptr()), static_cast<long>(len), flags);
  if (r > 0 && (in.store(t.as()) < 0 || out.store(t.as()) < 0)) return -EFAULT;
  return r;
}

}  // namespace

SysResult sys_copy_file_range(Task& t, int fd_in, GuestPtr<int64_t> off_in, int fd_out,
                              GuestPtr<int64_t> off_out, uint64_t len, uint32_t flags) {
  return two_offset_call(t, SYS_copy_file_range, fd_in, off_in.addr, fd_out, off_out.addr, len, flags);
}

SysResult sys_splice(Task& t, int fd_in, GuestPtr<int64_t> off_in, int fd_out, GuestPtr<int64_t> off_out,
                     uint64_t len, uint32_t flags) {
  return two_offset_call(t, SYS_splice, fd_in, off_in.addr, fd_out, off_out.addr, len, flags);
}

// tee(2): waits for data in fd_in and room in fd_out, both pipes.
SysResult sys_tee(Task& t, int fd_in, int fd_out, uint64_t len, uint32_t flags) {
  if (is_reserved_fd(fd_in) || is_reserved_fd(fd_out)) return -EBADF;
  return signals::safe_fd_call(t, SYS_tee, {fd_in, POLLIN}, fd_out, static_cast<long>(len), flags);
}

// vmsplice(2): into a pipe's write end the guest pages are read, from a read end they are written. The
// pipe then refers to the guest's pages in the host window, as it would to the process's own on Linux. A
// full (or empty) blocking pipe waits as a write (or read) does: a guest signal ends the wait.
SysResult sys_vmsplice(Task& t, int fd, GuestPtr<const guest::iovec> iov, uint64_t count, uint32_t flags) {
  if (is_reserved_fd(fd)) return -EBADF;
  const int fl = ::fcntl(fd, F_GETFL);
  if (fl < 0) return -EBADF;
  const bool into_pipe = (fl & O_ACCMODE) == O_WRONLY;
  return vector_io(t, fd, iov.addr, count, into_pipe, SYS_vmsplice, {flags});
}

// truncate(2) breaks a lease on the file, which may wait for the lease holder: a signal ends that wait, and
// the call restarts under SA_RESTART.
SysResult sys_truncate(Task& t, GuestCStr path, int64_t length) {
  GuestPath p;
  if (const int64_t r = read_guest_path(t, AT_FDCWD, path, &p); r < 0) return r;
  return signals::blocking_syscall(t, signals::kERESTARTSYS, SYS_truncate,
                                   reinterpret_cast<long>(p.host.c_str()), length);
}

SysResult sys_ftruncate(Task& t, int fd, int64_t length) {
  return blocking_fd_call(t, fd, [&] { return ::ftruncate(fd, length); });
}

SysResult sys_fallocate(Task& t, int fd, int mode, int64_t offset, int64_t len) {
  return blocking_fd_call(t, fd, [&] { return ::syscall(SYS_fallocate, fd, mode, offset, len); });
}

SysResult sys_fsync(Task& t, int fd) {
  return blocking_fd_call(t, fd, [&] { return ::fsync(fd); });
}

SysResult sys_fdatasync(Task& t, int fd) {
  return blocking_fd_call(t, fd, [&] { return ::fdatasync(fd); });
}

SysResult sys_sync(Task& t) {
  emu::RunLockReleaser unlocked(t.proc().run_lock(), &t.cpu());
  ::sync();
  return 0;
}

SysResult sys_syncfs(Task& t, int fd) {
  return blocking_fd_call(t, fd, [&] { return ::syncfs(fd); });
}

SysResult sys_sync_file_range(Task& t, int fd, int64_t offset, int64_t nbytes, uint32_t flags) {
  return blocking_fd_call(t, fd, [&] { return ::syscall(SYS_sync_file_range, fd, offset, nbytes, flags); });
}

// fadvise64(2) (arm64's is the 64-bit-offset fadvise64_64): POSIX_FADV_* are the generic values on both.
SysResult sys_fadvise64(Task&, int fd, int64_t offset, int64_t len, int advice) {
  if (is_reserved_fd(fd)) return -EBADF;
  return from_host(::syscall(SYS_fadvise64, fd, offset, len, advice));
}

SysResult sys_readahead(Task& t, int fd, int64_t offset, uint64_t count) {
  return blocking_fd_call(t, fd, [&] { return ::syscall(SYS_readahead, fd, offset, count); });
}

}  // namespace syscalls
