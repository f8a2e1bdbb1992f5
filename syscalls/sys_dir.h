// Directory and name syscalls: getdents64, the working directory, chroot, and creating, linking, renaming,
// removing and reading names.
#pragma once

#include <span>
#include <string_view>

#include "syscalls/dispatch.h"

namespace syscalls {

SysResult sys_getdents64(Task& t, int fd, GuestPtr<uint8_t> dirp, uint64_t count);
SysResult sys_getcwd(Task& t, GuestPtr<char> buf, uint64_t size);
SysResult sys_chdir(Task& t, GuestCStr path);
SysResult sys_fchdir(Task& t, int fd);
SysResult sys_chroot(Task& t, GuestCStr path);
SysResult sys_mkdirat(Task& t, int dirfd, GuestCStr path, uint32_t mode);
SysResult sys_mknodat(Task& t, int dirfd, GuestCStr path, uint32_t mode, uint32_t dev);
SysResult sys_unlinkat(Task& t, int dirfd, GuestCStr path, int flags);
SysResult sys_renameat(Task& t, int olddirfd, GuestCStr oldpath, int newdirfd, GuestCStr newpath);
SysResult sys_renameat2(Task& t, int olddirfd, GuestCStr oldpath, int newdirfd, GuestCStr newpath,
                        uint32_t flags);
SysResult sys_symlinkat(Task& t, GuestCStr target, int newdirfd, GuestCStr linkpath);
SysResult sys_linkat(Task& t, int olddirfd, GuestCStr oldpath, int newdirfd, GuestCStr newpath, int flags);
SysResult sys_readlinkat(Task& t, int dirfd, GuestCStr path, GuestPtr<char> buf, int bufsiz);

// Removes from a getdents64 buffer the entries whose name is a number for which `hide` is true (pure).
// Returns the new length of the buffer.
size_t filter_dirents(std::span<uint8_t> buf, bool (*hide)(int));

// True for a host directory path that lists the descriptors of process `pid`: /proc/<pid>/fd,
// /proc/<pid>/fdinfo and the same under /proc/<pid>/task/<tid> (pure).
bool is_proc_fd_dir(std::string_view host_path, int pid);

}  // namespace syscalls
