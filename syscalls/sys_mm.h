// Memory syscalls: brk, mmap, munmap, mprotect, mremap, madvise, msync, mincore, mlock family.
#pragma once

#include "syscalls/dispatch.h"

namespace syscalls {

SysResult sys_brk(Task& t, uint64_t addr);
SysResult sys_mmap(Task& t, uint64_t addr, uint64_t len, int prot, int flags, int fd, uint64_t offset);
SysResult sys_munmap(Task& t, uint64_t addr, uint64_t len);
SysResult sys_mprotect(Task& t, uint64_t addr, uint64_t len, int prot);
SysResult sys_mremap(Task& t, uint64_t old_addr, uint64_t old_len, uint64_t new_len, int flags,
                     uint64_t new_addr);
SysResult sys_madvise(Task& t, uint64_t addr, uint64_t len, int advice);
SysResult sys_mseal(Task& t, uint64_t start, uint64_t len, uint64_t flags);
SysResult sys_remap_file_pages(Task& t, uint64_t start, uint64_t size, uint64_t prot, uint64_t pgoff,
                               uint64_t flags);
SysResult sys_msync(Task& t, uint64_t addr, uint64_t len, int flags);
SysResult sys_mincore(Task& t, uint64_t addr, uint64_t len, GuestPtr<uint8_t> vec);
SysResult sys_mlock(Task& t, uint64_t addr, uint64_t len);
SysResult sys_munlock(Task& t, uint64_t addr, uint64_t len);
SysResult sys_mlockall(Task& t, int flags);
SysResult sys_munlockall(Task& t);
SysResult sys_mlock2(Task& t, uint64_t addr, uint64_t len, int flags);
SysResult sys_cachestat(Task& t, int fd, uint64_t range, uint64_t cstat, uint32_t flags);
SysResult sys_membarrier(Task& t, int cmd, uint32_t flags, int cpu_id);

}  // namespace syscalls
