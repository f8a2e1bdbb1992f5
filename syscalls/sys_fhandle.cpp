// This file implements file handles (fs/fhandle.c): name_to_handle_at and open_by_handle_at are the host's
// calls; struct file_handle (a length, a type and the opaque bytes, at most MAX_HANDLE_SZ of them) has the
// same layout on both sides and crosses through a host copy.
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>

#include "syscalls/abi/errno.h"
#include "syscalls/abi/fcntl.h"
#include "syscalls/fd_util.h"
#include "syscalls/host_call.h"
#include "syscalls/proc_mem.h"
#include "syscalls/procfs.h"
#include "syscalls/sys_fhandle.h"

namespace syscalls {
namespace {

using guest::from_host;

constexpr uint32_t kMaxHandleSize = 128;     // MAX_HANDLE_SZ
constexpr int kAtHandleMntIdUnique = 0x001;  // name_to_handle_at: a 64-bit unique mount id
constexpr uint64_t kHandleHeader = 8;        // handle_bytes, handle_type

struct HostHandle {
  uint32_t handle_bytes;
  int32_t handle_type;
  uint8_t f_handle[kMaxHandleSize];
};

}  // namespace

// do_sys_name_to_handle: the guest's handle_bytes says how much room there is; on success the handle, on
// EOVERFLOW only the header (with the size needed) is written back, and the mount id in both cases.
SysResult sys_name_to_handle_at(Task& t, int dirfd, GuestCStr path, uint64_t handle, uint64_t mount_id,
                                int flags) {
  GuestPath p;
  const char* host_path = "";
  if (path.addr != 0 || !(flags & guest::kAT_EMPTY_PATH)) {
    if (const int64_t r = read_guest_path(t, dirfd, path, &p); r < 0) return r;
    host_path = (flags & guest::kAT_SYMLINK_FOLLOW) ? p.host.c_str() : p.nofollow().c_str();
  } else if (dirfd != guest::kAT_FDCWD && is_reserved_fd(dirfd)) {
    return -EBADF;
  }
  HostHandle h{};
  void* hp = &h;
  if (emu::copy_in(t.as(), &h, handle, kHandleHeader) != 0) hp = kHostFaultAddr;
  uint64_t mnt = 0;
  const int64_t r = from_host(::syscall(SYS_name_to_handle_at, dirfd, host_path, hp, &mnt, flags));
  if (r != 0 && r != -EOVERFLOW) return r;
  const size_t mnt_size = (flags & kAtHandleMntIdUnique) ? sizeof(uint64_t) : sizeof(int32_t);
  if (emu::copy_out(t.as(), mount_id, &mnt, mnt_size) != 0) return -EFAULT;
  const uint64_t bytes = r == 0 ? std::min(h.handle_bytes, kMaxHandleSize) : 0;
  if (emu::copy_out(t.as(), handle, &h, kHandleHeader + bytes) != 0) return -EFAULT;
  return r;
}

// handle_to_path: the mount fd and the caller's right to decode come before the handle is read, so an
// unreadable handle reaches the host as a faulting address; a handle_bytes of 0 or past MAX_HANDLE_SZ with
// its header only (the host refuses it before reading on).
SysResult sys_open_by_handle_at(Task& t, int mount_fd, uint64_t handle, int flags) {
  if (mount_fd != guest::kAT_FDCWD && is_reserved_fd(mount_fd)) return -EBADF;
  HostHandle h{};
  void* hp = &h;
  if (emu::copy_in(t.as(), &h, handle, kHandleHeader) != 0) {
    hp = kHostFaultAddr;
  } else if (h.handle_bytes != 0 && h.handle_bytes <= kMaxHandleSize &&
             emu::copy_in(t.as(), h.f_handle, handle + kHandleHeader, h.handle_bytes) != 0) {
    hp = kHostFaultAddr;
  }
  const int64_t fd = from_host(
      ::syscall(SYS_open_by_handle_at, mount_fd, hp, guest::host_open_flags(static_cast<uint32_t>(flags))));
  if (fd >= 0) proc_mem_note_fd(static_cast<int>(fd));
  return fd;
}

}  // namespace syscalls
