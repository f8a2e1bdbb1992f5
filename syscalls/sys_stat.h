// Inode attribute syscalls: the stat family (arm64's 128-byte struct stat, statx, statfs), access checks,
// mode, owner and time changes, and umask.
#pragma once

#include "syscalls/abi/stat.h"
#include "syscalls/abi/types.h"
#include "syscalls/dispatch.h"

namespace syscalls {

SysResult sys_fstat(Task& t, int fd, GuestPtr<guest::stat> buf);
SysResult sys_newfstatat(Task& t, int dirfd, GuestCStr path, GuestPtr<guest::stat> buf, int flags);
SysResult sys_statx(Task& t, int dirfd, GuestCStr path, int flags, uint32_t mask, GuestPtr<guest::statx> buf);
SysResult sys_statfs(Task& t, GuestCStr path, GuestPtr<guest::statfs> buf);
SysResult sys_fstatfs(Task& t, int fd, GuestPtr<guest::statfs> buf);
SysResult sys_faccessat(Task& t, int dirfd, GuestCStr path, int mode);
SysResult sys_faccessat2(Task& t, int dirfd, GuestCStr path, int mode, int flags);
SysResult sys_fchmod(Task& t, int fd, uint32_t mode);
SysResult sys_fchmodat(Task& t, int dirfd, GuestCStr path, uint32_t mode);
SysResult sys_fchmodat2(Task& t, int dirfd, GuestCStr path, uint32_t mode, int flags);
SysResult sys_file_getattr(Task& t, int dirfd, GuestCStr path, uint64_t attr, uint64_t usize,
                           uint32_t at_flags);
SysResult sys_file_setattr(Task& t, int dirfd, GuestCStr path, uint64_t attr, uint64_t usize,
                           uint32_t at_flags);
SysResult sys_fchown(Task& t, int fd, uint32_t uid, uint32_t gid);
SysResult sys_fchownat(Task& t, int dirfd, GuestCStr path, uint32_t uid, uint32_t gid, int flags);
SysResult sys_utimensat(Task& t, int dirfd, GuestCStr path, GuestPtr<const guest::timespec> times, int flags);
SysResult sys_umask(Task& t, uint32_t mask);

}  // namespace syscalls
