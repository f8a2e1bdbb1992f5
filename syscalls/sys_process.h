// Process and identity syscalls: exit, exit_group, ids, uname, rlimits, prctl, set_tid_address, robust lists.
#pragma once

#include <sys/utsname.h>

#include "syscalls/dispatch.h"

namespace syscalls {

SysResult sys_exit(Task& t, int status);
SysResult sys_exit_group(Task& t, int status);
SysResult sys_getpid(Task& t);
SysResult sys_getppid(Task& t);
SysResult sys_gettid(Task& t);
SysResult sys_set_tid_address(Task& t, uint64_t tidptr);
SysResult sys_set_robust_list(Task& t, uint64_t head, uint64_t len);
SysResult sys_get_robust_list(Task& t, int pid, GuestPtr<uint64_t> head, GuestPtr<uint64_t> len);
// unshare(CLONE_FILES) for a guest with one thread (unshare, close_range's CLOSE_RANGE_UNSHARE): a copy of
// the descriptor table when another process shares it, with a64run's signal worker moved to the copy.
SysResult unshare_files(Task& t);
SysResult sys_uname(Task& t, GuestPtr<struct utsname> buf);
SysResult sys_getuid(Task& t);
SysResult sys_geteuid(Task& t);
SysResult sys_getgid(Task& t);
SysResult sys_getegid(Task& t);
SysResult sys_getresuid(Task& t, GuestPtr<uint32_t> r, GuestPtr<uint32_t> e, GuestPtr<uint32_t> s);
SysResult sys_getresgid(Task& t, GuestPtr<uint32_t> r, GuestPtr<uint32_t> e, GuestPtr<uint32_t> s);
SysResult sys_setuid(Task& t, uint32_t uid);
SysResult sys_setgid(Task& t, uint32_t gid);
SysResult sys_setreuid(Task& t, uint32_t r, uint32_t e);
SysResult sys_setregid(Task& t, uint32_t r, uint32_t e);
SysResult sys_setresuid(Task& t, uint32_t r, uint32_t e, uint32_t s);
SysResult sys_setresgid(Task& t, uint32_t r, uint32_t e, uint32_t s);
SysResult sys_setfsuid(Task& t, uint32_t uid);
SysResult sys_setfsgid(Task& t, uint32_t gid);
SysResult sys_getgroups(Task& t, int size, GuestPtr<uint32_t> list);
SysResult sys_setgroups(Task& t, int size, GuestPtr<const uint32_t> list);
SysResult sys_capget(Task& t, uint64_t header, uint64_t data);
SysResult sys_capset(Task& t, uint64_t header, uint64_t data);
SysResult sys_unshare(Task& t, uint64_t flags);
SysResult sys_setns(Task& t, int fd, int nstype);
SysResult sys_sethostname(Task& t, uint64_t name, int64_t len);
SysResult sys_setdomainname(Task& t, uint64_t name, int64_t len);
SysResult sys_vhangup(Task& t);
SysResult sys_getpgid(Task& t, int pid);
SysResult sys_setpgid(Task& t, int pid, int pgid);
SysResult sys_getsid(Task& t, int pid);
SysResult sys_setsid(Task& t);
SysResult sys_prlimit64(Task& t, int pid, int resource, GuestPtr<const uint64_t> new_limit,
                        GuestPtr<uint64_t> old_limit);
SysResult sys_getrlimit(Task& t, int resource, GuestPtr<uint64_t> rlim);
SysResult sys_setrlimit(Task& t, int resource, GuestPtr<const uint64_t> rlim);
SysResult sys_prctl(Task& t, int option, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5);
SysResult sys_personality(Task& t, uint32_t persona);
// The guest's persona (personality(2)), cached from the host's; its flags READ_IMPLIES_EXEC and
// STICKY_TIMEOUTS change what mmap, mprotect, select and poll do.
uint32_t guest_personality();
void set_cached_personality(uint32_t persona);
inline constexpr uint32_t kReadImpliesExec = 0x0400000;
inline constexpr uint32_t kStickyTimeouts = 0x4000000;

}  // namespace syscalls
