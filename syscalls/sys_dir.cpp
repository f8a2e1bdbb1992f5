// This file implements the directory and name syscalls. linux_dirent64 has the same layout on arm64 and
// x86-64, so getdents64 passes the host's records through; only a listing of the guest's own /proc fd
// directory is filtered, so the emulator's reserved descriptors never show. Calls that act on a final
// symlink itself use the /proc link rather than the guest executable it stands for.
#include "syscalls/sys_dir.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <climits>

#include <charconv>
#include <cstring>
#include <vector>

#include "syscalls/abi/errno.h"
#include "syscalls/abi/fcntl.h"
#include "syscalls/abi/types.h"
#include "syscalls/fd_util.h"
#include "syscalls/procfs.h"

namespace syscalls {
namespace {

using guest::from_host;

// One host getdents64 call returns at most this much; the guest loops for more, as with any short listing.
constexpr uint64_t kDirentChunk = uint64_t{64} * 1024;

bool parse_fd_name(const char* name, size_t len, int* fd) {
  if (len == 0 || name[0] < '0' || name[0] > '9') return false;
  auto [end, ec] = std::from_chars(name, name + len, *fd);
  return ec == std::errc() && end == name + len;
}

// True when some record's name is a number that `hide` selects: only then is the directory worth a look.
bool has_hidden_name(const uint8_t* buf, size_t len, bool (*hide)(int)) {
  for (size_t pos = 0; pos + guest::kDirent64NameOffset < len;) {
    uint16_t reclen;
    memcpy(&reclen, buf + pos + offsetof(guest::linux_dirent64, d_reclen), sizeof reclen);
    if (reclen == 0 || pos + reclen > len) break;
    const char* name = reinterpret_cast<const char*>(buf + pos + guest::kDirent64NameOffset);
    int fd;
    if (parse_fd_name(name, strnlen(name, reclen - guest::kDirent64NameOffset), &fd) && hide(fd)) return true;
    pos += reclen;
  }
  return false;
}

bool hide_reserved(int fd) {
  return is_reserved_fd(fd);
}

// Paths for the two-name calls (rename, link).
int64_t read_two_paths(Task& t, int olddirfd, GuestCStr oldpath, int newdirfd, GuestCStr newpath,
                       GuestPath* o, GuestPath* n) {
  if (const int64_t r = read_guest_path(t, olddirfd, oldpath, o); r < 0) return r;
  return read_guest_path(t, newdirfd, newpath, n);
}

// The other a64run process whose task directory a getdents call is listing (set around the filter).
thread_local int g_peer_pid = 0;
bool hide_peer_emulator_tid(int tid) {
  return is_emulator_thread(g_peer_pid, tid);
}
bool any_number(int) {
  return true;
}

// /proc/<pid>/task of another a64run process: its pid, else 0 (pure but for the final check).
int peer_task_dir(std::string_view path) {
  if (!path.starts_with("/proc/") || !path.ends_with("/task")) return 0;
  const std::string_view num = path.substr(6, path.size() - 6 - 5);
  int pid = 0;
  auto [end, ec] = std::from_chars(num.data(), num.data() + num.size(), pid);
  if (ec != std::errc() || end != num.data() + num.size() || pid == ::getpid()) return 0;
  return is_a64run_process(pid) ? pid : 0;
}

}  // namespace

size_t filter_dirents(std::span<uint8_t> buf, bool (*hide)(int)) {
  size_t in = 0, out = 0;
  while (in + guest::kDirent64NameOffset < buf.size()) {
    uint16_t reclen;
    memcpy(&reclen, buf.data() + in + offsetof(guest::linux_dirent64, d_reclen), sizeof reclen);
    if (reclen == 0 || in + reclen > buf.size()) break;
    const char* name = reinterpret_cast<const char*>(buf.data() + in + guest::kDirent64NameOffset);
    int fd;
    const bool drop =
        parse_fd_name(name, strnlen(name, reclen - guest::kDirent64NameOffset), &fd) && hide(fd);
    if (!drop) {
      if (out != in) memmove(buf.data() + out, buf.data() + in, reclen);
      out += reclen;
    }
    in += reclen;
  }
  return out;
}

bool hide_reserved_tid(int tid) {
  return is_reserved_tid(tid);
}

// /proc/<own pid>/task: lists the emulator's own threads too.
bool is_proc_task_dir(std::string_view path, int pid) {
  return path == "/proc/" + std::to_string(pid) + "/task";
}

bool is_proc_fd_dir(std::string_view path, int pid) {
  const std::string own = "/proc/" + std::to_string(pid) + "/";
  if (!path.starts_with(own)) return false;
  std::string_view rest = path.substr(own.size());
  if (rest.starts_with("task/")) {
    rest.remove_prefix(5);
    const size_t slash = rest.find('/');
    if (slash == std::string_view::npos || slash == 0) return false;
    rest.remove_prefix(slash + 1);
  }
  return rest == "fd" || rest == "fdinfo";
}

// getdents64(2): read into a host buffer, filtered when it lists our own descriptors, then copied out.
SysResult sys_getdents64(Task& t, int fd, GuestPtr<uint8_t> dirp, uint64_t count) {
  if (is_reserved_fd(fd)) return -EBADF;
  count = static_cast<uint32_t>(count);  // the kernel's count is an unsigned int
  if (emu::host_range(t.as(), dirp.addr, count, PROT_WRITE) == nullptr) {
    return ::fcntl(fd, F_GETFD) < 0 ? -EBADF : -EFAULT;
  }
  std::vector<uint8_t> buf(std::min(count, kDirentChunk));
  while (true) {
    int64_t n;
    {
      emu::RunLockReleaser unlocked(t.proc().run_lock(), &t.cpu());
      n = from_host(::syscall(SYS_getdents64, fd, buf.data(), buf.size()));
    }
    if (n <= 0) return n;
    auto len = static_cast<size_t>(n);
    if (has_hidden_name(buf.data(), len, &hide_reserved) && is_proc_fd_dir(fd_path(fd), ::getpid())) {
      len = filter_dirents(std::span(buf.data(), len), &hide_reserved);
      if (len == 0) continue;  // everything in this chunk was hidden: list on
    }
    if (has_hidden_name(buf.data(), len, &hide_reserved_tid) && is_proc_task_dir(fd_path(fd), ::getpid())) {
      len = filter_dirents(std::span(buf.data(), len), &hide_reserved_tid);
      if (len == 0) continue;
    } else if (has_hidden_name(buf.data(), len, &any_number)) {
      // Another a64run process's threads: its emulator threads are known by their names.
      if ((g_peer_pid = peer_task_dir(fd_path(fd))) != 0) {
        len = filter_dirents(std::span(buf.data(), len), &hide_peer_emulator_tid);
        if (len == 0) continue;
      }
    }
    if (const int64_t r = emu::copy_out(t.as(), dirp.addr, buf.data(), len); r < 0) return r;
    return static_cast<int64_t>(len);
  }
}

namespace {
// The working directory as the guest names it: a directory of the sysroot by the name the guest entered it by
// (Process::cwd_by_host_path), any other by its host path.
std::string guest_cwd(Task& t, const std::string& host_cwd) {
  if (t.proc().cwd_by_host_path.load(std::memory_order_relaxed)) return host_cwd;
  return t.proc().sysroot().to_guest(host_cwd);
}
}  // namespace

// getcwd(2): returns the length including the NUL; ERANGE when the buffer is too small.
SysResult sys_getcwd(Task& t, GuestPtr<char> buf, uint64_t size) {
  char cwd[PATH_MAX + 1];
  const int64_t n = from_host(::syscall(SYS_getcwd, cwd, sizeof cwd));
  if (n < 0) return n;
  const std::string guest = guest_cwd(t, cwd);
  if (guest.size() + 1 > size) return -ERANGE;
  if (const int64_t r = emu::copy_out(t.as(), buf.addr, guest.c_str(), guest.size() + 1); r < 0) return r;
  return static_cast<int64_t>(guest.size() + 1);
}

SysResult sys_chdir(Task& t, GuestCStr path) {
  GuestPath p;
  if (const int64_t r = read_guest_path(t, AT_FDCWD, path, &p); r < 0) return r;
  if (const int64_t r = from_host(::chdir(p.host.c_str())); r != 0) return r;
  // An absolute path outside /proc names the directory one way or the other (a /proc link or a relative
  // path keeps the name the guest had).
  if (p.host.starts_with('/') && p.proc.node == ProcNode::kNone)
    t.proc().cwd_by_host_path.store(p.hosts, std::memory_order_relaxed);
  return 0;
}

SysResult sys_fchdir(Task&, int fd) {
  if (is_reserved_fd(fd)) return -EBADF;
  return from_host(::fchdir(fd));
}

// chroot(2): the host process changes root (needs CAP_SYS_CHROOT); a64run's sysroot lookups then happen
// inside the new root.
SysResult sys_chroot(Task& t, GuestCStr path) {
  GuestPath p;
  if (const int64_t r = read_guest_path(t, AT_FDCWD, path, &p); r < 0) return r;
  return from_host(::chroot(p.host.c_str()));
}

SysResult sys_mkdirat(Task& t, int dirfd, GuestCStr path, uint32_t mode) {
  GuestPath p;
  if (const int64_t r = read_guest_path(t, dirfd, path, &p); r < 0) return r;
  return from_host(::syscall(SYS_mkdirat, dirfd, p.nofollow().c_str(), mode));
}

// mknodat(2): dev is the kernel's new_encode_dev form on both.
SysResult sys_mknodat(Task& t, int dirfd, GuestCStr path, uint32_t mode, uint32_t dev) {
  GuestPath p;
  if (const int64_t r = read_guest_path(t, dirfd, path, &p); r < 0) return r;
  return from_host(::syscall(SYS_mknodat, dirfd, p.nofollow().c_str(), mode, dev));
}

SysResult sys_unlinkat(Task& t, int dirfd, GuestCStr path, int flags) {
  GuestPath p;
  if (const int64_t r = read_guest_path(t, dirfd, path, &p); r < 0) return r;
  return from_host(::syscall(SYS_unlinkat, dirfd, p.nofollow().c_str(), flags));
}

SysResult sys_renameat(Task& t, int olddirfd, GuestCStr oldpath, int newdirfd, GuestCStr newpath) {
  GuestPath o, n;
  if (const int64_t r = read_two_paths(t, olddirfd, oldpath, newdirfd, newpath, &o, &n); r < 0) return r;
  return from_host(::syscall(SYS_renameat, olddirfd, o.nofollow().c_str(), newdirfd, n.nofollow().c_str()));
}

SysResult sys_renameat2(Task& t, int olddirfd, GuestCStr oldpath, int newdirfd, GuestCStr newpath,
                        uint32_t flags) {
  GuestPath o, n;
  if (const int64_t r = read_two_paths(t, olddirfd, oldpath, newdirfd, newpath, &o, &n); r < 0) return r;
  return from_host(
      ::syscall(SYS_renameat2, olddirfd, o.nofollow().c_str(), newdirfd, n.nofollow().c_str(), flags));
}

// symlinkat(2): the target is stored as written, never resolved.
SysResult sys_symlinkat(Task& t, GuestCStr target, int newdirfd, GuestCStr linkpath) {
  std::string text;
  if (const int64_t r = emu::read_cstring(t.as(), target.addr, PATH_MAX - 1, &text); r < 0) return r;
  GuestPath p;
  if (const int64_t r = read_guest_path(t, newdirfd, linkpath, &p); r < 0) return r;
  return from_host(::syscall(SYS_symlinkat, text.c_str(), newdirfd, p.nofollow().c_str()));
}

// linkat(2): the old name is followed only with AT_SYMLINK_FOLLOW.
SysResult sys_linkat(Task& t, int olddirfd, GuestCStr oldpath, int newdirfd, GuestCStr newpath, int flags) {
  GuestPath o, n;
  if (const int64_t r = read_two_paths(t, olddirfd, oldpath, newdirfd, newpath, &o, &n); r < 0) return r;
  const std::string& from = (flags & guest::kAT_SYMLINK_FOLLOW) ? o.host : o.nofollow();
  return from_host(::syscall(SYS_linkat, olddirfd, from.c_str(), newdirfd, n.nofollow().c_str(), flags));
}

// readlinkat(2): no NUL is written and a short buffer truncates. /proc/<self>/exe reads as the guest's
// executable; the links under /proc (cwd, fd/N, exe, ...) read as guest paths, without the sysroot's prefix.
SysResult sys_readlinkat(Task& t, int dirfd, GuestCStr path, GuestPtr<char> buf, int bufsiz) {
  if (bufsiz <= 0) return -EINVAL;
  GuestPath p;
  if (const int64_t r = read_guest_path(t, dirfd, path, &p); r < 0) return r;
  std::string target;
  if (p.proc.node == ProcNode::kExe) {
    target = t.proc().sysroot().to_guest(t.proc().exe_path);
  } else {
    char local[PATH_MAX];
    const int64_t n = from_host(::syscall(SYS_readlinkat, dirfd, p.nofollow().c_str(), local, sizeof local));
    if (n < 0) return n;
    target.assign(local, static_cast<size_t>(n));
    if (p.nofollow().starts_with("/proc/")) {
      // A link to the working directory (/proc/self/cwd) reads as getcwd does: by its host path after a chdir
      // by that path (only then is the host's working directory worth asking for).
      char cwd[PATH_MAX + 1];
      const bool keep = t.proc().cwd_by_host_path.load(std::memory_order_relaxed) &&
                        ::syscall(SYS_getcwd, cwd, sizeof cwd) > 0 && target == cwd;
      if (!keep) target = t.proc().sysroot().to_guest(target);
    }
  }
  const size_t n = std::min(target.size(), static_cast<size_t>(bufsiz));
  if (const int64_t r = emu::copy_out(t.as(), buf.addr, target.data(), n); r < 0) return r;
  return static_cast<int64_t>(n);
}

}  // namespace syscalls
