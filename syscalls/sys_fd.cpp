// This file implements the descriptor syscalls: openat/openat2 (guest open flags translated, /proc files
// served by procfs), close and close_range (around the emulator's reserved fds), dup/dup3, fcntl (every
// command, with guest flag values and struct flock), pipe2, flock, lseek and memfd_create. Calls that can
// wait (opening a FIFO, waiting for a lock) are safe system calls that a signal ends; a close that flushes
// runs without the run lock.
#include "syscalls/sys_fd.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "signals/fasync_owner.h"
#include "signals/safe_syscall.h"
#include "signals/signals.h"
#include "syscalls/abi/errno.h"
#include "syscalls/fd_util.h"
#include "syscalls/ipc_wait.h"
#include "syscalls/proc_mem.h"
#include "syscalls/procfs.h"
#include "syscalls/sys_process.h"

namespace syscalls {
namespace {

using guest::from_host;

// Opens a resolved guest path with host flags (and, for openat2, the translated open_how): a synthesized
// /proc file, or the host's.
SysResult open_resolved(Task& t, int dirfd, const GuestPath& p, int hflags, uint32_t mode,
                        const guest::open_how* how) {
  const bool writes_comm = p.proc.node == ProcNode::kComm && (hflags & O_ACCMODE) != O_RDONLY;
  // openat2's resolve rules on a /proc path that a64run answers itself (a file it makes, /proc/self/exe):
  // the host resolves the same /proc path first under the same rules, and its refusal is the guest's. The
  // guest's pid is the host's, so the links on the way are the same kind: /proc/self/exe is a magic link
  // (RESOLVE_NO_MAGICLINKS: ELOOP), /proc/self a symlink (RESOLVE_NO_SYMLINKS), an absolute path leaves
  // the directory (RESOLVE_BENEATH: EXDEV).
  if (how != nullptr && how->resolve != 0 && (p.synthesized() || p.proc.node == ProcNode::kExe)) {
    guest::open_how probe{};
    probe.flags = O_PATH | O_CLOEXEC | static_cast<uint64_t>(hflags & O_NOFOLLOW);
    probe.resolve = how->resolve;
    const std::string& proc_path = p.proc.node == ProcNode::kExe ? p.link : p.host_nofollow;
    const long fd = ::syscall(SYS_openat2, dirfd, proc_path.c_str(), &probe, sizeof probe);
    if (fd < 0) return -errno;
    ::close(static_cast<int>(fd));
  }
  if (p.synthesized() && !(hflags & O_PATH) && !writes_comm) return open_proc_file(t, p.proc, hflags);
  // O_NOFOLLOW on /proc/self/exe meets the link itself (ELOOP, or an O_PATH descriptor), as on Linux.
  const std::string& path = (hflags & O_NOFOLLOW) ? p.nofollow() : p.host;
  // The open of a FIFO waits for the other side, a device's open may wait, and so may one that breaks a
  // lease: a signal ends each wait, and the open restarts under SA_RESTART.
  const auto name = reinterpret_cast<long>(path.c_str());
  const int64_t fd =
      how == nullptr
          ? signals::blocking_syscall(t, signals::kERESTARTSYS, SYS_openat, dirfd, name, hflags, mode)
          : signals::blocking_syscall(t, signals::kERESTARTSYS, SYS_openat2, dirfd, name,
                                      reinterpret_cast<long>(how), sizeof *how);
  // Any path may lead to a /proc/PID/mem file (a symlink, "..", another proc mount): the file tells.
  if (fd >= 0 && !(hflags & (O_PATH | O_DIRECTORY))) proc_mem_note_fd(static_cast<int>(fd));
  return fd;
}

// The emulator's descriptors that are open now, sorted (listed from /proc/self/fd).
std::vector<int> reserved_open_fds() {
  std::vector<int> out;
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) {
    for (int fd = 0; fd < 65536; ++fd) {
      if (is_reserved_fd(fd)) out.push_back(fd);
    }
    return out;
  }
  const int own = ::dirfd(dir);
  while (const dirent* e = ::readdir(dir)) {
    char* end = nullptr;
    const long fd = std::strtol(e->d_name, &end, 10);
    if (*end == '\0' && end != e->d_name && fd != own && is_reserved_fd(static_cast<int>(fd))) {
      out.push_back(static_cast<int>(fd));
    }
  }
  ::closedir(dir);
  std::sort(out.begin(), out.end());
  return out;
}

// F_GETLK, F_SETLK, F_SETLKW and the F_OFD_ forms: the guest's struct flock (asm-generic, 32 bytes).
SysResult fcntl_lock(Task& t, int fd, int cmd, uint64_t arg) {
  guest::flock g{};
  if (const int64_t r = emu::copy_in(t.as(), &g, arg, sizeof g); r < 0) return r;
  struct ::flock h = guest::to_host(g);
  // A lock wait ends on a signal and restarts under SA_RESTART (fcntl_setlk's -ERESTARTSYS).
  const int64_t r = cmd == F_SETLKW || cmd == F_OFD_SETLKW
                        ? signals::blocking_syscall(t, signals::kERESTARTSYS, SYS_fcntl, fd, cmd,
                                                    reinterpret_cast<long>(&h))
                        : from_host(::syscall(SYS_fcntl, fd, cmd, &h));
  if (r < 0 || (cmd != F_GETLK && cmd != F_OFD_GETLK)) return r;
  const guest::flock out = guest::to_guest(h);
  if (const int64_t w = emu::copy_out(t.as(), arg, &out, sizeof out); w < 0) return w;
  return r;
}

// The owner and signal of I/O-readiness signals: the model's (signals/fasync_owner.h), which gives a thread
// of this process as owner a proxy the host can signal.
SysResult fcntl_owner(Task& t, int fd, int cmd, uint64_t arg) {
  emu::Process& proc = t.proc();
  guest::f_owner_ex owner{};
  switch (cmd) {
    case F_SETOWN:
      return signals::fcntl_setown(proc, fd, arg);
    case F_GETOWN:
      return signals::fcntl_getown(proc, fd);
    case F_SETSIG:
      return signals::fcntl_setsig(proc, fd, arg);
    case F_GETSIG:
      return signals::fcntl_getsig(proc, fd);
    case F_SETOWN_EX:
      // The descriptor is checked before the argument is read, as in the kernel.
      if (const int64_t r = from_host(::syscall(SYS_fcntl, fd, F_GETSIG)); r < 0) return r;
      if (const int64_t r = emu::copy_in(t.as(), &owner, arg, sizeof owner); r < 0) return r;
      return signals::fcntl_setown_ex(proc, fd, owner);
    default: {  // F_GETOWN_EX
      if (const int64_t r = signals::fcntl_getown_ex(proc, fd, &owner); r < 0) return r;
      return emu::copy_out(t.as(), arg, &owner, sizeof owner);
    }
  }
}

// Commands whose argument points at a fixed-size struct that is the same on arm64 and x86-64:
// F_GETOWNER_UIDS (two uid_t) and the write-life hints (a u64).
SysResult fcntl_struct(Task& t, int fd, int cmd, uint64_t arg, size_t size, bool in, bool out) {
  uint64_t buf[2] = {0, 0};
  if (in) {
    if (const int64_t r = emu::copy_in(t.as(), buf, arg, size); r < 0) return r;
  }
  const int64_t r = from_host(::syscall(SYS_fcntl, fd, cmd, buf));
  if (r < 0 || !out) return r;
  if (const int64_t w = emu::copy_out(t.as(), arg, buf, size); w < 0) return w;
  return r;
}

constexpr int kF_DUPFD_QUERY = guest::kF_LINUX_SPECIFIC_BASE + 3;
constexpr int kF_CREATED_QUERY = guest::kF_LINUX_SPECIFIC_BASE + 4;
constexpr int kF_GETOWNER_UIDS = 17;

// True for commands whose argument is a plain integer (or unused): those pass straight to the host.
bool fcntl_value_command(int cmd) {
  switch (cmd) {
    case F_GETFD:
    case F_SETFD:
    case F_SETLEASE:
    case F_GETLEASE:
    case F_NOTIFY:
    case guest::kF_CANCELLK:
    case F_SETPIPE_SZ:
    case F_GETPIPE_SZ:
    case F_ADD_SEALS:
    case F_GET_SEALS:
    case kF_DUPFD_QUERY:
    case kF_CREATED_QUERY:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::vector<std::pair<uint32_t, uint32_t>> split_fd_range(uint32_t first, uint32_t last,
                                                          const std::vector<int>& reserved) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  uint64_t from = first;
  for (int r : reserved) {
    if (r < 0 || static_cast<uint32_t>(r) < first || static_cast<uint32_t>(r) > last) continue;
    if (from < static_cast<uint32_t>(r)) out.emplace_back(static_cast<uint32_t>(from), r - 1);
    from = static_cast<uint64_t>(r) + 1;
  }
  if (from <= last) out.emplace_back(static_cast<uint32_t>(from), last);
  return out;
}

// openat(2): guest flags become host flags (four bits differ); the path goes through the sysroot and /proc.
SysResult sys_openat(Task& t, int dirfd, GuestCStr path, uint32_t flags, uint32_t mode) {
  GuestPath p;
  if (const int64_t r = read_guest_path(t, dirfd, path, &p); r < 0) return r;
  return open_resolved(t, dirfd, p, guest::host_open_flags(flags), mode, nullptr);
}

// openat2(2): the open_how is copied in as the kernel's copy_struct_from_user does (a larger struct must
// be zero past what we know), its flags translated; the host checks the rest.
SysResult sys_openat2(Task& t, int dirfd, GuestCStr path, GuestPtr<const guest::open_how> how,
                      uint64_t size) {
  if (size < guest::kOPEN_HOW_SIZE_VER0) return -EINVAL;
  if (size > emu::kPageSize) return -E2BIG;
  guest::open_how g{};
  if (const int64_t r = emu::copy_in(t.as(), &g, how.addr, sizeof g); r < 0) return r;
  for (uint64_t off = sizeof g; off < size; ++off) {
    uint8_t b = 0;
    if (const int64_t r = emu::copy_in(t.as(), &b, how.addr + off, 1); r < 0) return r;
    if (b != 0) return -E2BIG;
  }
  if (g.flags >> 32) return -EINVAL;
  GuestPath p;
  if (const int64_t r = read_guest_path(t, dirfd, path, &p); r < 0) return r;
  guest::open_how h = g;
  h.flags = static_cast<uint32_t>(guest::host_open_flags(static_cast<uint32_t>(g.flags)));
  return open_resolved(t, dirfd, p, static_cast<int>(h.flags), 0, &h);
}

SysResult sys_close(Task& t, int fd) {
  if (is_reserved_fd(fd)) return -EBADF;
  emu::RunLockReleaser unlocked(t.proc().run_lock(), &t.cpu());
  return from_host(::close(fd));
}

// close_range(2): the host call per sub-range that holds no reserved descriptor. CLOSE_RANGE_UNSHARE first
// gives the calling thread a descriptor table of its own when its table is shared (the host's close_range
// would copy none of the range, reserved descriptors included). A lone guest thread: unshare_files (a copy
// when another process shares the table, with a64run's signal worker moved to it; none otherwise, as on
// Linux). A thread of a multithreaded guest: the host's unshare of this host thread, which copies the whole
// table; the signal worker stays in the process's, so a signalfd this thread makes afterwards does not
// become readable for a signal the worker queues (a limit of a64run's).
SysResult sys_close_range(Task& t, uint32_t first, uint32_t last, uint32_t flags) {
  if (flags & ~(CLOSE_RANGE_UNSHARE | CLOSE_RANGE_CLOEXEC)) return -EINVAL;
  if (first > last) return -EINVAL;
  const bool one_thread = t.proc().thread_count() == 1;
  if ((flags & CLOSE_RANGE_UNSHARE) && one_thread) {
    if (const int64_t r = unshare_files(t); r != 0) return r;
  } else if ((flags & CLOSE_RANGE_UNSHARE) && ::unshare(CLONE_FILES) != 0) {
    return guest::neg_errno();
  }
  for (const auto& [from, to] : split_fd_range(first, last, reserved_open_fds())) {
    const uint32_t host_flags = flags & ~CLOSE_RANGE_UNSHARE;
    if (const int64_t r = from_host(::syscall(SYS_close_range, from, to, host_flags)); r < 0) return r;
  }
  return 0;
}

SysResult sys_dup(Task&, int fd) {
  if (is_reserved_fd(fd)) return -EBADF;
  return from_host(::dup(fd));
}

// dup3(2): the checks in the kernel's order; a reserved descriptor is neither a source nor a target.
SysResult sys_dup3(Task&, int oldfd, int newfd, int flags) {
  if (flags & ~O_CLOEXEC) return -EINVAL;
  if (oldfd == newfd) return -EINVAL;
  if (is_reserved_fd(newfd) || is_reserved_fd(oldfd)) return -EBADF;
  return from_host(::dup3(oldfd, newfd, flags));
}

// fcntl(2): flags in guest values (F_GETFL/F_SETFL), struct flock and owner structs copied, F_DUPFD never
// lands on a reserved number (the host skips descriptors in use). Unknown commands are EINVAL rather than
// passed on, since the host would take a guest address for a host pointer.
SysResult sys_fcntl(Task& t, int fd, int cmd, uint64_t arg) {
  if (is_reserved_fd(fd)) return -EBADF;
  switch (cmd) {
    case F_DUPFD:
    case F_DUPFD_CLOEXEC:
      return from_host(::syscall(SYS_fcntl, fd, cmd, static_cast<int>(arg)));
    case F_GETFL: {
      const int64_t r = from_host(::syscall(SYS_fcntl, fd, F_GETFL));
      return r < 0 ? r : static_cast<int64_t>(guest::guest_open_flags(static_cast<int>(r)));
    }
    case F_SETFL:
      if (arg & guest::kFASYNC) t.proc().self_signals_armed.store(true, std::memory_order_relaxed);
      return from_host(::syscall(SYS_fcntl, fd, F_SETFL, guest::host_open_flags(static_cast<uint32_t>(arg))));
    case F_GETLK:
    case F_SETLK:
    case F_SETLKW:
    case F_OFD_GETLK:
    case F_OFD_SETLK:
    case F_OFD_SETLKW:
      return fcntl_lock(t, fd, cmd, arg);
    case F_SETOWN:
    case F_GETOWN:
    case F_SETOWN_EX:
    case F_GETOWN_EX:
    case F_SETSIG:
    case F_GETSIG:
      return fcntl_owner(t, fd, cmd, arg);
    case kF_GETOWNER_UIDS:
      return fcntl_struct(t, fd, cmd, arg, 2 * sizeof(uint32_t), false, true);
    case F_GET_RW_HINT:
    case F_GET_FILE_RW_HINT:
      return fcntl_struct(t, fd, cmd, arg, sizeof(uint64_t), false, true);
    case F_SET_RW_HINT:
    case F_SET_FILE_RW_HINT:
      return fcntl_struct(t, fd, cmd, arg, sizeof(uint64_t), true, false);
    default:
      if ((cmd == F_NOTIFY && arg != 0) || (cmd == F_SETLEASE && arg != F_UNLCK))
        t.proc().self_signals_armed.store(true, std::memory_order_relaxed);
      if (fcntl_value_command(cmd)) return from_host(::syscall(SYS_fcntl, fd, cmd, arg));
      // Still tell a closed descriptor from an unknown command, as the kernel checks the fd first.
      return ::fcntl(fd, F_GETFD) < 0 ? -EBADF : -EINVAL;
  }
}

// pipe2(2): O_DIRECT (packet mode) is one of the flags whose value differs. If the result cannot be
// stored, both ends are closed again, as the kernel does.
SysResult sys_pipe2(Task& t, GuestPtr<int32_t> fds, int flags) {
  int h[2];
  if (const int64_t r = from_host(::pipe2(h, guest::host_open_flags(static_cast<uint32_t>(flags)))); r < 0) {
    return r;
  }
  const int32_t out[2] = {h[0], h[1]};
  if (emu::copy_out(t.as(), fds.addr, out, sizeof out) < 0) {
    ::close(h[0]);
    ::close(h[1]);
    return -EFAULT;
  }
  return 0;
}

// flock(2): a wait for the lock ends on a signal and restarts under SA_RESTART (-ERESTARTSYS).
SysResult sys_flock(Task& t, int fd, int op) {
  if (is_reserved_fd(fd)) return -EBADF;
  if (op & LOCK_NB) return from_host(::flock(fd, op));
  return signals::blocking_syscall(t, signals::kERESTARTSYS, SYS_flock, fd, op);
}

SysResult sys_lseek(Task&, int fd, int64_t offset, int whence) {
  if (is_reserved_fd(fd)) return -EBADF;
  return from_host(::syscall(SYS_lseek, fd, offset, whence));
}

// memfd_create(2): flags are arch-independent; they are checked before the name, as the kernel does.
SysResult sys_memfd_create(Task& t, GuestCStr name, uint32_t flags) {
  constexpr uint32_t kKnown = MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_HUGETLB | 0x08 /*NOEXEC_SEAL*/ |
                              0x10 /*EXEC*/ | (0x3fu << 26) /*MFD_HUGE_MASK << MFD_HUGE_SHIFT*/;
  if (flags & ~kKnown) return -EINVAL;
  std::string n;
  if (const int64_t r = emu::read_cstring(t.as(), name.addr, 4096, &n); r < 0)
    return r == -EFAULT ? r : -EINVAL;
  return from_host(::syscall(SYS_memfd_create, n.c_str(), flags));
}

}  // namespace syscalls
