// This file implements the new mount API (fsopen, fsconfig, fsmount, fspick, move_mount, open_tree,
// open_tree_attr, mount_setattr) and the mount queries (statmount, listmount) as the host's calls: a guest
// mounts into the host's mount namespace, as with mount(2). Paths go through the guest's path rules; the
// extensible structs (struct mount_attr, struct mnt_id_req) cross as host copies of the size the guest gives,
// so the host's size checks (EINVAL, E2BIG for unknown non-zero bytes) answer as Linux's.
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "syscalls/abi/errno.h"
#include "syscalls/abi/fcntl.h"
#include "syscalls/fd_util.h"
#include "syscalls/host_call.h"
#include "syscalls/procfs.h"
#include "syscalls/sys_mount_api.h"

namespace syscalls {
namespace {

using guest::from_host;

// Numbers of the mount API on x86-64 too (Linux 5.2 and later; 6.8 for statmount and listmount, 6.15 for
// open_tree_attr); Debian 12's headers lack the newer ones.
constexpr long kOpenTree = 428, kMoveMount = 429, kFsopen = 430, kFsconfig = 431, kFsmount = 432,
               kFspick = 433, kMountSetattr = 442, kStatmount = 457, kListmount = 458, kOpenTreeAttr = 467;
constexpr uint64_t kPage = 4096;

// fsconfig commands (linux/mount.h).
enum FsconfigCmd : uint32_t {
  kSetFlag = 0,
  kSetString = 1,
  kSetBinary = 2,
  kSetPath = 3,
  kSetPathEmpty = 4,
  kSetFd = 5,
};

// Host copies of a call's guest arguments, alive for the call.
class Args {
 public:
  explicit Args(Task& t) : t_(t) {}
  // A string that is no path (a file system name, a key): nullptr for NULL, kHostFaultAddr if unreadable.
  const char* string(uint64_t addr, size_t max = kPage) {
    if (addr == 0) return nullptr;
    std::string& s = strings_.emplace_back();
    const int64_t r = emu::read_cstring(t_.as(), addr, max, &s);
    if (r == -EFAULT) return static_cast<const char*>(kHostFaultAddr);
    if (r < 0) s.assign(max + 1, 'x');  // too long: the host says so
    return s.c_str();
  }
  // A path relative to dirfd: the guest's rules (sysroot, /proc) when it reads; else nullptr or a faulting
  // address for the host to answer; an error the host would not give (a reserved dirfd) in *err.
  const char* path(int dirfd, uint64_t addr, bool nofollow, int64_t* err) {
    if (addr == 0) return nullptr;
    GuestPath& p = paths_.emplace_back();
    *err = read_guest_path(t_, dirfd, GuestCStr{addr}, &p);
    if (*err == -EFAULT || *err == -ENAMETOOLONG) {
      const int64_t e = *err;
      *err = 0;
      return e == -EFAULT ? static_cast<const char*>(kHostFaultAddr) : string(addr);
    }
    return nofollow ? p.nofollow().c_str() : p.host.c_str();
  }
  // An extensible struct of `size` bytes (more than a page is the host's E2BIG without a read).
  void* extensible(uint64_t addr, uint64_t size) {
    if (addr == 0) return nullptr;
    if (size > kPage) return kHostFaultAddr;
    std::vector<uint8_t>& b = buffers_.emplace_back(size);
    if (size != 0 && emu::copy_in(t_.as(), b.data(), addr, size) != 0) return kHostFaultAddr;
    return b.data();
  }

 private:
  Task& t_;
  // Deques: growing one moves nothing (the c_str() and data() handed out stay valid).
  std::deque<std::string> strings_;
  std::deque<GuestPath> paths_;
  std::deque<std::vector<uint8_t>> buffers_;
};

bool reserved(int fd) {
  return fd != guest::kAT_FDCWD && is_reserved_fd(fd);
}

// struct mnt_id_req: its first u32 is its size, which the host reads first (a size too small is EINVAL).
void* mnt_id_req(Task& t, Args& a, uint64_t req) {
  uint32_t size = 0;
  if (req == 0) return nullptr;
  if (emu::copy_in(t.as(), &size, req, sizeof size) != 0) return kHostFaultAddr;
  return a.extensible(req, std::max<uint64_t>(size, sizeof size));
}

}  // namespace

SysResult sys_fsopen(Task& t, uint64_t fs_name, uint32_t flags) {
  Args a(t);
  return from_host(::syscall(kFsopen, a.string(fs_name), flags));
}

// fsconfig(2): what `value` and `aux` mean depends on the command.
SysResult sys_fsconfig(Task& t, int fd, uint32_t cmd, uint64_t key, uint64_t value, int aux) {
  if (reserved(fd)) return -EBADF;
  Args a(t);
  const char* k = a.string(key, 256);
  const void* v = nullptr;
  int64_t err = 0;
  switch (cmd) {
    case kSetString:
      v = a.string(value);
      break;
    case kSetBinary:
      v = aux >= 0 ? a.extensible(value, std::min<uint64_t>(static_cast<uint64_t>(aux), 1u << 20)) : nullptr;
      break;
    case kSetPath:
    case kSetPathEmpty:
      if (reserved(aux)) return -EBADF;
      v = a.path(aux, value, false, &err);
      if (err < 0) return err;
      break;
    case kSetFd:
      if (is_reserved_fd(aux)) return -EBADF;
      v = value == 0 ? nullptr : kHostFaultAddr;  // must be NULL
      break;
    default:
      v = value == 0 ? nullptr : kHostFaultAddr;
      break;
  }
  return from_host(::syscall(kFsconfig, fd, cmd, k, v, aux));
}

SysResult sys_fsmount(Task&, int fs_fd, uint32_t flags, uint32_t attr_flags) {
  if (reserved(fs_fd)) return -EBADF;
  return from_host(::syscall(kFsmount, fs_fd, flags, attr_flags));
}

SysResult sys_fspick(Task& t, int dirfd, uint64_t path, uint32_t flags) {
  if (reserved(dirfd)) return -EBADF;
  Args a(t);
  int64_t err = 0;
  const char* p = a.path(dirfd, path, false, &err);
  if (err < 0) return err;
  return from_host(::syscall(kFspick, dirfd, p, flags));
}

SysResult sys_move_mount(Task& t, int from_dirfd, uint64_t from_path, int to_dirfd, uint64_t to_path,
                         uint32_t flags) {
  if (reserved(from_dirfd) || reserved(to_dirfd)) return -EBADF;
  Args a(t);
  int64_t err = 0;
  const char* from = a.path(from_dirfd, from_path, true, &err);
  if (err < 0) return err;
  const char* to = a.path(to_dirfd, to_path, true, &err);
  if (err < 0) return err;
  return from_host(::syscall(kMoveMount, from_dirfd, from, to_dirfd, to, flags));
}

// open_tree(2) and open_tree_attr(2): OPEN_TREE_CLOEXEC is O_CLOEXEC, the same bit on both sides.
SysResult sys_open_tree(Task& t, int dirfd, uint64_t path, uint32_t flags) {
  if (reserved(dirfd)) return -EBADF;
  Args a(t);
  int64_t err = 0;
  const char* p = a.path(dirfd, path, false, &err);
  if (err < 0) return err;
  return from_host(::syscall(kOpenTree, dirfd, p, flags));
}

SysResult sys_open_tree_attr(Task& t, int dirfd, uint64_t path, uint32_t flags, uint64_t attr,
                             uint64_t size) {
  if (reserved(dirfd)) return -EBADF;
  Args a(t);
  int64_t err = 0;
  const char* p = a.path(dirfd, path, false, &err);
  if (err < 0) return err;
  return from_host(::syscall(kOpenTreeAttr, dirfd, p, flags, a.extensible(attr, size), size));
}

SysResult sys_mount_setattr(Task& t, int dirfd, uint64_t path, uint32_t flags, uint64_t attr, uint64_t size) {
  if (reserved(dirfd)) return -EBADF;
  Args a(t);
  int64_t err = 0;
  const char* p = a.path(dirfd, path, false, &err);
  if (err < 0) return err;
  return from_host(::syscall(kMountSetattr, dirfd, p, flags, a.extensible(attr, size), size));
}

// statmount(2): the host fills a host copy of the buffer; struct statmount's first u32 says how much of it
// was written, which is what goes out.
SysResult sys_statmount(Task& t, uint64_t req, uint64_t buf, uint64_t bufsize, uint32_t flags) {
  Args a(t);
  void* r = mnt_id_req(t, a, req);
  std::vector<uint8_t> out(std::min<uint64_t>(bufsize, uint64_t{1} << 20));
  void* hp = buf == 0 ? nullptr : (out.empty() ? kHostFaultAddr : out.data());
  const int64_t rc = from_host(::syscall(kStatmount, r, hp, out.size(), flags));
  if (rc < 0 || hp != out.data()) return rc;
  uint32_t written = 0;
  memcpy(&written, out.data(), std::min<size_t>(sizeof written, out.size()));
  const uint64_t n = std::min<uint64_t>(written, out.size());
  return emu::copy_out(t.as(), buf, out.data(), n) != 0 ? -EFAULT : rc;
}

// listmount(2): up to `nr` mount ids into a host copy, copied out.
SysResult sys_listmount(Task& t, uint64_t req, uint64_t mnt_ids, uint64_t nr, uint32_t flags) {
  Args a(t);
  void* r = mnt_id_req(t, a, req);
  std::vector<uint64_t> ids(std::min<uint64_t>(nr, uint64_t{1} << 20));
  void* hp = mnt_ids == 0 ? nullptr : (ids.empty() && nr != 0 ? kHostFaultAddr : ids.data());
  const int64_t rc = from_host(::syscall(kListmount, r, hp, ids.size(), flags));
  if (rc <= 0 || hp != ids.data()) return rc;
  return emu::copy_out(t.as(), mnt_ids, ids.data(), static_cast<uint64_t>(rc) * sizeof(uint64_t)) != 0
             ? -EFAULT
             : rc;
}

}  // namespace syscalls
