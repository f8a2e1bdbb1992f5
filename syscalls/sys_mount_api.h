// The new mount API (fsopen(2), fsconfig(2), fsmount(2), fspick(2), move_mount(2), open_tree(2),
// open_tree_attr, mount_setattr(2)) and the mount queries (statmount(2), listmount(2)), on the host's.
#pragma once

#include "syscalls/dispatch.h"

namespace syscalls {

SysResult sys_fsopen(Task& t, uint64_t fs_name, uint32_t flags);
SysResult sys_fsconfig(Task& t, int fd, uint32_t cmd, uint64_t key, uint64_t value, int aux);
SysResult sys_fsmount(Task& t, int fs_fd, uint32_t flags, uint32_t attr_flags);
SysResult sys_fspick(Task& t, int dirfd, uint64_t path, uint32_t flags);
SysResult sys_move_mount(Task& t, int from_dirfd, uint64_t from_path, int to_dirfd, uint64_t to_path,
                         uint32_t flags);
SysResult sys_open_tree(Task& t, int dirfd, uint64_t path, uint32_t flags);
SysResult sys_open_tree_attr(Task& t, int dirfd, uint64_t path, uint32_t flags, uint64_t attr, uint64_t size);
SysResult sys_mount_setattr(Task& t, int dirfd, uint64_t path, uint32_t flags, uint64_t attr, uint64_t size);
SysResult sys_statmount(Task& t, uint64_t req, uint64_t buf, uint64_t bufsize, uint32_t flags);
SysResult sys_listmount(Task& t, uint64_t req, uint64_t mnt_ids, uint64_t nr, uint32_t flags);

}  // namespace syscalls
