// This file implements the extended attribute calls by handing them to the host (as raw system calls: a
// sanitizer's interceptors would read the faulting addresses given for the kernel to refuse) with the path
// resolved (sysroot, /proc/self/exe), the name copied in, a value to set passed in place and a value or list
// to get bounced.
#include "syscalls/sys_xattr.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "syscalls/abi/errno.h"
#include "syscalls/fd_util.h"
#include "syscalls/host_call.h"
#include "syscalls/procfs.h"

namespace syscalls {
namespace {

using guest::from_host;

// Linux's limits (include/uapi/linux/limits.h): a name of at most 255 bytes, a value of at most 64 KiB. A
// get or list asks for at most that much, whatever size the caller gives.
constexpr size_t kNameMax = 255;
constexpr uint64_t kSizeMax = 65536;

// The attribute name for the host call, which judges it in its own order among its checks (Linux reads it
// before the path in setxattr and removexattr, after it in getxattr): a name too long for Linux's buffer
// goes as a string of that buffer's length, which the host refuses with ERANGE, and one that does not copy
// in goes as a faulting address (EFAULT).
class HostName {
 public:
  HostName(Task& t, GuestCStr name) {
    const int64_t r = emu::read_cstring(t.as(), name.addr, kNameMax + 1, &s_);
    if (r == -ENAMETOOLONG) s_.assign(kNameMax + 1, 'x');
    ptr_ = r < 0 && r != -ENAMETOOLONG ? static_cast<const char*>(kHostFaultAddr) : s_.c_str();
  }
  const char* get() const { return ptr_; }

 private:
  std::string s_;
  const char* ptr_;
};

// Which host path a path call uses: the link itself for the l* calls.
int64_t host_path_for(Task& t, GuestCStr path, bool follow, std::string* out) {
  GuestPath p;
  if (const int64_t r = read_guest_path(t, AT_FDCWD, path, &p); r < 0) return r;
  *out = follow ? p.host : p.nofollow();
  return 0;
}

// A value to set: a size past Linux's limit goes to the host as it is, which refuses it (E2BIG) before it
// reads the buffer.
const void* set_buf(Task& t, uint64_t value, uint64_t size) {
  if (size > kSizeMax) return kHostFaultAddr;
  return size == 0 ? nullptr : host_buf(t.as(), value, size, PROT_READ);
}

// A get or list fills a bounce buffer of at most 64 KiB and copies out only what the host wrote, as Linux
// copies out only the value's length: the caller's size may run past its mapping. A size of 0 asks for the
// size only.
template <typename Call>
SysResult get_bounced(Task& t, uint64_t addr, uint64_t size, Call call) {
  if (size == 0) return from_host(call(nullptr, 0));
  std::vector<char> bounce(std::min(size, kSizeMax));
  const ssize_t n = call(bounce.data(), bounce.size());
  if (n < 0) return guest::neg_errno();
  if (n > 0 && emu::copy_out(t.as(), addr, bounce.data(), static_cast<size_t>(n)) != 0) return -EFAULT;
  return n;
}

SysResult set_path(Task& t, GuestCStr path, GuestCStr name, uint64_t value, uint64_t size, int flags,
                   bool follow) {
  std::string host;
  if (const int64_t r = host_path_for(t, path, follow, &host); r < 0) return r;
  const HostName n(t, name);
  const void* v = set_buf(t, value, size);
  return from_host(follow ? ::syscall(SYS_setxattr, host.c_str(), n.get(), v, size, flags)
                          : ::syscall(SYS_lsetxattr, host.c_str(), n.get(), v, size, flags));
}

SysResult get_path(Task& t, GuestCStr path, GuestCStr name, uint64_t value, uint64_t size, bool follow) {
  std::string host;
  if (const int64_t r = host_path_for(t, path, follow, &host); r < 0) return r;
  const HostName n(t, name);
  return get_bounced(t, value, size, [&](char* v, size_t len) {
    return follow ? ::syscall(SYS_getxattr, host.c_str(), n.get(), v, len)
                  : ::syscall(SYS_lgetxattr, host.c_str(), n.get(), v, len);
  });
}

SysResult list_path(Task& t, GuestCStr path, uint64_t list, uint64_t size, bool follow) {
  std::string host;
  if (const int64_t r = host_path_for(t, path, follow, &host); r < 0) return r;
  return get_bounced(t, list, size, [&](char* l, size_t len) {
    return follow ? ::syscall(SYS_listxattr, host.c_str(), l, len)
                  : ::syscall(SYS_llistxattr, host.c_str(), l, len);
  });
}

SysResult remove_path(Task& t, GuestCStr path, GuestCStr name, bool follow) {
  std::string host;
  if (const int64_t r = host_path_for(t, path, follow, &host); r < 0) return r;
  const HostName n(t, name);
  return from_host(follow ? ::syscall(SYS_removexattr, host.c_str(), n.get())
                          : ::syscall(SYS_lremovexattr, host.c_str(), n.get()));
}

}  // namespace

SysResult sys_setxattr(Task& t, GuestCStr path, GuestCStr name, uint64_t value, uint64_t size, int flags) {
  return set_path(t, path, name, value, size, flags, true);
}

SysResult sys_lsetxattr(Task& t, GuestCStr path, GuestCStr name, uint64_t value, uint64_t size, int flags) {
  return set_path(t, path, name, value, size, flags, false);
}

SysResult sys_fsetxattr(Task& t, int fd, GuestCStr name, uint64_t value, uint64_t size, int flags) {
  if (is_reserved_fd(fd)) return -EBADF;
  return from_host(
      ::syscall(SYS_fsetxattr, fd, HostName(t, name).get(), set_buf(t, value, size), size, flags));
}

SysResult sys_getxattr(Task& t, GuestCStr path, GuestCStr name, uint64_t value, uint64_t size) {
  return get_path(t, path, name, value, size, true);
}

SysResult sys_lgetxattr(Task& t, GuestCStr path, GuestCStr name, uint64_t value, uint64_t size) {
  return get_path(t, path, name, value, size, false);
}

SysResult sys_fgetxattr(Task& t, int fd, GuestCStr name, uint64_t value, uint64_t size) {
  if (is_reserved_fd(fd)) return -EBADF;
  const HostName n(t, name);
  return get_bounced(t, value, size,
                     [&](char* v, size_t len) { return ::syscall(SYS_fgetxattr, fd, n.get(), v, len); });
}

SysResult sys_listxattr(Task& t, GuestCStr path, uint64_t list, uint64_t size) {
  return list_path(t, path, list, size, true);
}

SysResult sys_llistxattr(Task& t, GuestCStr path, uint64_t list, uint64_t size) {
  return list_path(t, path, list, size, false);
}

SysResult sys_flistxattr(Task& t, int fd, uint64_t list, uint64_t size) {
  if (is_reserved_fd(fd)) return -EBADF;
  return get_bounced(t, list, size,
                     [&](char* l, size_t len) { return ::syscall(SYS_flistxattr, fd, l, len); });
}

SysResult sys_removexattr(Task& t, GuestCStr path, GuestCStr name) {
  return remove_path(t, path, name, true);
}

SysResult sys_lremovexattr(Task& t, GuestCStr path, GuestCStr name) {
  return remove_path(t, path, name, false);
}

SysResult sys_fremovexattr(Task& t, int fd, GuestCStr name) {
  if (is_reserved_fd(fd)) return -EBADF;
  return from_host(::syscall(SYS_fremovexattr, fd, HostName(t, name).get()));
}

}  // namespace syscalls
