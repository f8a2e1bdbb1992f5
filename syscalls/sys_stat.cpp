// This file implements the inode attribute syscalls. Every host result struct is converted field by field
// into the guest's layout (abi/stat.h); *at flags are the same on both kernels and the host validates them.
// A path that names /proc/<self>/exe means the guest executable unless the call acts on a final symlink.
#include "syscalls/sys_stat.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "syscalls/abi/errno.h"
#include "syscalls/abi/fcntl.h"
#include "syscalls/fd_util.h"
#include "syscalls/host_call.h"
#include "syscalls/procfs.h"

namespace syscalls {
namespace {

using guest::from_host;

constexpr long kSysFchmodat2 = 452;  // x86-64's number too (Linux 6.6); Debian 12's headers predate it

// A path argument of a call that takes AT_EMPTY_PATH: Linux 6.11 accepts NULL for "" there.
int64_t read_at_path(Task& t, int dirfd, GuestCStr path, int flags, GuestPath* p) {
  if (path.addr == 0 && (flags & guest::kAT_EMPTY_PATH)) {
    if (dirfd != guest::kAT_FDCWD && is_reserved_fd(dirfd)) return -EBADF;
    return 0;
  }
  return read_guest_path(t, dirfd, path, p);
}

// The host path for a call with AT_SYMLINK_NOFOLLOW semantics in `flags`.
const char* at_path(const GuestPath& p, int flags) {
  return (flags & guest::kAT_SYMLINK_NOFOLLOW) ? p.nofollow().c_str() : p.host.c_str();
}

template <typename G, typename H>
SysResult store(Task& t, GuestPtr<G> buf, int64_t r, const H& host) {
  if (r < 0) return r;
  return buf.write(t.as(), guest::to_guest(host));
}

}  // namespace

SysResult sys_fstat(Task& t, int fd, GuestPtr<guest::stat> buf) {
  if (is_reserved_fd(fd)) return -EBADF;
  struct ::stat st {};
  return store(t, buf, from_host(::fstat(fd, &st)), st);
}

// newfstatat(2) (arm64 has no stat/lstat): the host's 144-byte stat becomes arm64's 128-byte one.
SysResult sys_newfstatat(Task& t, int dirfd, GuestCStr path, GuestPtr<guest::stat> buf, int flags) {
  GuestPath p;
  if (const int64_t r = read_at_path(t, dirfd, path, flags, &p); r < 0) return r;
  struct ::stat st {};
  return store(t, buf, from_host(::syscall(SYS_newfstatat, dirfd, at_path(p, flags), &st, flags)), st);
}

// statx(2): the struct is the same on every architecture; it is still copied through the host's definition.
SysResult sys_statx(Task& t, int dirfd, GuestCStr path, int flags, uint32_t mask,
                    GuestPtr<guest::statx> buf) {
  GuestPath p;
  if (const int64_t r = read_at_path(t, dirfd, path, flags, &p); r < 0) return r;
  struct ::statx sx {};
  return store(t, buf, from_host(::syscall(SYS_statx, dirfd, at_path(p, flags), flags, mask, &sx)), sx);
}

SysResult sys_statfs(Task& t, GuestCStr path, GuestPtr<guest::statfs> buf) {
  GuestPath p;
  if (const int64_t r = read_guest_path(t, AT_FDCWD, path, &p); r < 0) return r;
  struct ::statfs sf {};
  return store(t, buf, from_host(::statfs(p.host.c_str(), &sf)), sf);
}

SysResult sys_fstatfs(Task& t, int fd, GuestPtr<guest::statfs> buf) {
  if (is_reserved_fd(fd)) return -EBADF;
  struct ::statfs sf {};
  return store(t, buf, from_host(::fstatfs(fd, &sf)), sf);
}

// faccessat(2) has no flags argument on Linux; glibc's flags go to faccessat2.
SysResult sys_faccessat(Task& t, int dirfd, GuestCStr path, int mode) {
  GuestPath p;
  if (const int64_t r = read_guest_path(t, dirfd, path, &p); r < 0) return r;
  return from_host(::syscall(SYS_faccessat, dirfd, p.host.c_str(), mode));
}

SysResult sys_faccessat2(Task& t, int dirfd, GuestCStr path, int mode, int flags) {
  GuestPath p;
  if (const int64_t r = read_at_path(t, dirfd, path, flags, &p); r < 0) return r;
  return from_host(::syscall(SYS_faccessat2, dirfd, at_path(p, flags), mode, flags));
}

SysResult sys_fchmod(Task&, int fd, uint32_t mode) {
  if (is_reserved_fd(fd)) return -EBADF;
  return from_host(::fchmod(fd, mode));
}

// fchmodat(2): three arguments on Linux (glibc emulates AT_SYMLINK_NOFOLLOW); it follows symlinks.
SysResult sys_fchmodat(Task& t, int dirfd, GuestCStr path, uint32_t mode) {
  GuestPath p;
  if (const int64_t r = read_guest_path(t, dirfd, path, &p); r < 0) return r;
  return from_host(::syscall(SYS_fchmodat, dirfd, p.host.c_str(), mode));
}

// fchmodat2(2): fchmodat with AT_SYMLINK_NOFOLLOW and AT_EMPTY_PATH, which the host validates.
SysResult sys_fchmodat2(Task& t, int dirfd, GuestCStr path, uint32_t mode, int flags) {
  GuestPath p;
  if (const int64_t r = read_at_path(t, dirfd, path, flags, &p); r < 0) return r;
  return from_host(::syscall(kSysFchmodat2, dirfd, at_path(p, flags), mode, flags));
}

namespace {

// file_getattr and file_setattr: struct file_attr is extensible (its size travels as `usize`, more than a
// page is the host's E2BIG); the path follows the *at rules of `at_flags`.
SysResult file_attr_call(Task& t, long nr, int dirfd, GuestCStr path, uint64_t attr, uint64_t usize,
                         uint32_t at_flags, bool out) {
  GuestPath p;
  const char* host = nullptr;
  if (path.addr != 0) {
    if (const int64_t r = read_guest_path(t, dirfd, path, &p); r < 0) return r;
    host = at_path(p, static_cast<int>(at_flags));
  } else if (dirfd != guest::kAT_FDCWD && is_reserved_fd(dirfd)) {
    return -EBADF;
  }
  std::vector<uint8_t> buf(std::min<uint64_t>(usize, 4096));
  void* hp = buf.data();
  if (usize > 4096 || attr == 0) {
    hp = attr == 0 ? nullptr : kHostFaultAddr;
  } else if (!out && emu::copy_in(t.as(), buf.data(), attr, buf.size()) != 0) {
    hp = kHostFaultAddr;
  }
  const int64_t r = from_host(::syscall(nr, dirfd, host, hp, usize, at_flags));
  if (r < 0 || !out || hp != buf.data()) return r;
  return emu::copy_out(t.as(), attr, buf.data(), buf.size()) != 0 ? -EFAULT : r;
}

constexpr long kSysFileGetattr = 468, kSysFileSetattr = 469;  // Linux 6.17, the same on x86-64

}  // namespace

SysResult sys_file_getattr(Task& t, int dirfd, GuestCStr path, uint64_t attr, uint64_t usize,
                           uint32_t at_flags) {
  return file_attr_call(t, kSysFileGetattr, dirfd, path, attr, usize, at_flags, true);
}
SysResult sys_file_setattr(Task& t, int dirfd, GuestCStr path, uint64_t attr, uint64_t usize,
                           uint32_t at_flags) {
  return file_attr_call(t, kSysFileSetattr, dirfd, path, attr, usize, at_flags, false);
}

SysResult sys_fchown(Task&, int fd, uint32_t uid, uint32_t gid) {
  if (is_reserved_fd(fd)) return -EBADF;
  return from_host(::fchown(fd, uid, gid));
}

SysResult sys_fchownat(Task& t, int dirfd, GuestCStr path, uint32_t uid, uint32_t gid, int flags) {
  GuestPath p;
  if (const int64_t r = read_at_path(t, dirfd, path, flags, &p); r < 0) return r;
  return from_host(::syscall(SYS_fchownat, dirfd, at_path(p, flags), uid, gid, flags));
}

// utimensat(2): a NULL path means the dirfd itself (futimens); UTIME_NOW/UTIME_OMIT are the same values.
SysResult sys_utimensat(Task& t, int dirfd, GuestCStr path, GuestPtr<const guest::timespec> times,
                        int flags) {
  GuestPath p;
  const char* host = nullptr;
  if (path.addr != 0) {
    if (const int64_t r = read_guest_path(t, dirfd, path, &p); r < 0) return r;
    host = at_path(p, flags);
  } else if (is_reserved_fd(dirfd)) {
    return -EBADF;
  }
  struct ::timespec ts[2];
  if (times.addr != 0) {
    guest::timespec g[2];
    if (const int64_t r = emu::copy_in(t.as(), g, times.addr, sizeof g); r < 0) return r;
    ts[0] = guest::to_host(g[0]);
    ts[1] = guest::to_host(g[1]);
  }
  return from_host(::syscall(SYS_utimensat, dirfd, host, times.addr != 0 ? ts : nullptr, flags));
}

// umask(2): the host process's mask is the guest's (threads share it, as CLONE_FS threads do).
SysResult sys_umask(Task&, uint32_t mask) {
  return ::umask(mask & 0777);
}

}  // namespace syscalls
