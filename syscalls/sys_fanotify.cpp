// This file implements fanotify (fanotify_init, fanotify_mark) as the host's: the events read from the
// group's descriptor (struct fanotify_event_metadata and its info records, the descriptors it opens, the
// responses written back) have the same layout on both sides, and the pids in them are guest pids.
#include <sys/syscall.h>
#include <unistd.h>

#include "syscalls/abi/errno.h"
#include "syscalls/abi/fcntl.h"
#include "syscalls/fd_util.h"
#include "syscalls/proc_mem.h"
#include "syscalls/procfs.h"
#include "syscalls/sys_fanotify.h"

namespace syscalls {
namespace {

constexpr uint32_t kFanMarkDontFollow = 0x04;  // FAN_MARK_DONT_FOLLOW

}  // namespace

// fanotify_init(2): event_f_flags are the open flags of the descriptors events carry.
// The descriptors its events carry are opened by the host: a /proc/PID/mem one among them is noted when it is
// first read or written (proc_mem_watch_all).
SysResult sys_fanotify_init(Task&, uint32_t flags, uint32_t event_f_flags) {
  const int64_t fd =
      guest::from_host(::syscall(SYS_fanotify_init, flags, guest::host_open_flags(event_f_flags)));
  if (fd >= 0) proc_mem_watch_all();
  return fd;
}

// fanotify_mark(2): a NULL path marks dirfd itself; a path is the guest's (sysroot, /proc).
SysResult sys_fanotify_mark(Task& t, int fd, uint32_t flags, uint64_t mask, int dirfd, GuestCStr path) {
  if (is_reserved_fd(fd)) return -EBADF;
  GuestPath p;
  const char* host = nullptr;
  if (path.addr != 0) {
    if (const int64_t r = read_guest_path(t, dirfd, path, &p); r < 0) return r;
    host = (flags & kFanMarkDontFollow) ? p.nofollow().c_str() : p.host.c_str();
  } else if (dirfd != guest::kAT_FDCWD && is_reserved_fd(dirfd)) {
    return -EBADF;
  }
  return guest::from_host(::syscall(SYS_fanotify_mark, fd, flags, mask, dirfd, host));
}

}  // namespace syscalls
