// This file implements the memory syscalls on top of emu::AddressSpace.
#include "syscalls/sys_mm.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <linux/membarrier.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <shared_mutex>
#include <string>
#include <vector>

#include "syscalls/fd_util.h"
#include "syscalls/host_call.h"
#include "syscalls/sys_process.h"

namespace syscalls {

// brk(2): returns the new break, or the old one when it cannot move (the raw syscall never fails).
SysResult sys_brk(Task& t, uint64_t addr) {
  return static_cast<SysResult>(t.as().brk(addr));
}

namespace {

// MAP_HUGETLB's page size: log2 in bits 26-31 of the flags, 0 for the default (2 MiB, the arm64 default with
// 4 KiB pages, and the host's). A size the host has no pool for is EINVAL, as hstate_sizelog finds none.
int64_t huge_page_shift(int flags) {
  int shift = (flags >> MAP_HUGE_SHIFT) & MAP_HUGE_MASK;
  if (shift == 0) shift = 21;
  if (shift < 12 || shift > 40) return -EINVAL;
  const std::string pool =
      "/sys/kernel/mm/hugepages/hugepages-" + std::to_string((uint64_t{1} << shift) >> 10) + "kB";
  return ::access(pool.c_str(), F_OK) == 0 ? shift : -EINVAL;
}

// include/linux/mman.h's LEGACY_MAP_MASK as arm64 has it: no MAP_32BIT; MAP_HUGE_2MB and MAP_HUGE_1GB,
// whose bits hold MAP_UNINITIALIZED's (bit 26). The flags every file takes: MAP_SHARED_VALIDATE refuses any
// other with EOPNOTSUPP, but MAP_SYNC, which the file's filesystem decides (the host's mmap of the file is
// asked with it).
constexpr int kLegacyMapMask = MAP_SHARED | MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS | MAP_DENYWRITE |
                               MAP_EXECUTABLE | MAP_GROWSDOWN | MAP_LOCKED | MAP_NORESERVE | MAP_POPULATE |
                               MAP_NONBLOCK | MAP_STACK | MAP_HUGETLB | (21 << 26) | (30 << 26);
constexpr int kMapDroppable = 0x08;  // a MAP_TYPE value (Linux 6.11)

}  // namespace

// mmap(2): anonymous, file-backed private and shared, MAP_FIXED, MAP_FIXED_NOREPLACE, hints, MAP_GROWSDOWN.
SysResult sys_mmap(Task& t, uint64_t addr, uint64_t len, int prot, int flags, int fd, uint64_t offset) {
  emu::MapSource src;
  if (!(flags & MAP_ANONYMOUS)) {
    // In Linux's order: the fd (an O_PATH one is no file to map), the length, the mapping type, the access
    // mode, and only then whether the file can be mapped at all.
    if (is_reserved_fd(fd)) return -EBADF;
    const int acc = ::fcntl(fd, F_GETFL);
    if (acc < 0) return -errno;
    if (acc & O_PATH) return -EBADF;
    if (len == 0) return -EINVAL;
    const int type = flags & 0x0f;  // MAP_TYPE
    if (type != MAP_SHARED && type != MAP_PRIVATE && type != MAP_SHARED_VALIDATE) return -EINVAL;
    if (type == MAP_SHARED_VALIDATE && (flags & ~(kLegacyMapMask | MAP_SYNC))) return -EOPNOTSUPP;
    if (type != MAP_PRIVATE && (prot & PROT_WRITE) && (acc & O_ACCMODE) != O_RDWR) return -EACCES;
    if ((acc & O_ACCMODE) == O_WRONLY) return -EACCES;
    struct stat st {};
    if (::fstat(fd, &st) != 0) return -errno;
    if (S_ISDIR(st.st_mode)) return -ENODEV;
    if (flags & MAP_GROWSDOWN) return -EINVAL;  // a file mapping never grows
    if (flags & MAP_SYNC) src.host_flags = MAP_SYNC | (type == MAP_SHARED_VALIDATE ? MAP_SHARED_VALIDATE : 0);
    src.host_fd = fd;
    src.offset = offset;
    src.dev = st.st_dev;
    src.inode = st.st_ino;
    src.name = fd_path(fd);
    struct statfs fs {};
    if (::fstatfs(fd, &fs) == 0 && fs.f_type == HUGETLBFS_MAGIC) {
      src.huge_shift = static_cast<uint8_t>(std::countr_zero(static_cast<uint64_t>(st.st_blksize)));
    } else if (flags & MAP_HUGETLB) {
      return -EINVAL;  // ksys_mmap_pgoff: MAP_HUGETLB needs a hugetlbfs file or none
    }
  } else if (flags & MAP_HUGETLB) {
    // (An anonymous hugetlb mapping is one of a hugetlbfs file in Linux: MAP_SHARED_VALIDATE is a type.)
    const int64_t shift = huge_page_shift(flags);
    if (shift < 0) return shift;
    src.huge_shift = static_cast<uint8_t>(shift);
  } else {
    // do_mmap's types of anonymous memory: shared (never growing), private, and droppable (private pages
    // the kernel may take back, which a child does not inherit: never locked, huge or growing).
    switch (flags & 0x0f) {
      case MAP_SHARED:
        if (flags & MAP_GROWSDOWN) return -EINVAL;
        break;
      case MAP_PRIVATE:
        break;
      case kMapDroppable:
        if ((flags & (MAP_LOCKED | MAP_GROWSDOWN)) != 0) return -EINVAL;
        src.droppable = true;
        flags = (flags & ~0x0f) | MAP_PRIVATE;
        break;
      default:
        return -EINVAL;
    }
  }
  // READ_IMPLIES_EXEC (personality), unless the file's mount forbids execution.
  if ((prot & PROT_READ) && (guest_personality() & kReadImpliesExec)) {
    struct statvfs vfs {};
    if (src.host_fd < 0 || ::fstatvfs(src.host_fd, &vfs) != 0 || !(vfs.f_flag & ST_NOEXEC)) prot |= PROT_EXEC;
  }
  const int64_t r = t.as().mmap(addr, len, prot, flags, src);
  // MAP_LOCKED: the host pages are locked as Linux locks the guest's (best effort, as Linux's populate).
  if (r >= 0 && (flags & MAP_LOCKED)) {
    const auto at = static_cast<uint64_t>(r);
    if (emu::lock_new_mapping(t.as().host(at), emu::page_up(len), 0, src.host_fd >= 0) == 0)
      t.as().mark_locked(at, at + emu::page_up(len), true);
  }
  return r;
}

SysResult sys_munmap(Task& t, uint64_t addr, uint64_t len) {
  return t.as().munmap(addr, len);
}
SysResult sys_mprotect(Task& t, uint64_t addr, uint64_t len, int prot) {
  if ((prot & PROT_READ) && (guest_personality() & kReadImpliesExec)) prot |= PROT_EXEC;
  return t.as().mprotect(addr, len, prot);
}
SysResult sys_mremap(Task& t, uint64_t old_addr, uint64_t old_len, uint64_t new_len, int flags,
                     uint64_t new_addr) {
  return t.as().mremap(old_addr, old_len, new_len, flags, new_addr);
}
// mseal(2) (Linux 6.10), do_mseal's checks in order: the address untagged (bits 56-63 from bit 55), no flags,
// page alignment, a length that rounds up to 0 from near 2^64, a range that wraps; an empty range is done.
SysResult sys_mseal(Task& t, uint64_t start, uint64_t len, uint64_t flags) {
  start = emu::untagged_addr(start);
  if (flags != 0) return -EINVAL;
  if (start & emu::kPageMask) return -EINVAL;
  const uint64_t rounded = emu::page_up(len);
  if (len != 0 && rounded == 0) return -EINVAL;
  if (start + rounded < start) return -EINVAL;
  if (rounded == 0) return 0;
  return t.as().mseal(start, rounded);
}

SysResult sys_madvise(Task& t, uint64_t addr, uint64_t len, int advice) {
  return t.as().madvise(addr, len, advice);
}
SysResult sys_remap_file_pages(Task& t, uint64_t start, uint64_t size, uint64_t prot, uint64_t pgoff,
                               uint64_t flags) {
  return t.as().remap_file_pages(start, size, prot, pgoff, flags);
}
SysResult sys_msync(Task& t, uint64_t addr, uint64_t len, int flags) {
  return t.as().msync(addr, len, flags);
}

// mincore(2): residency from the host's view of the same pages, in Linux's order: the range must be a user
// range (ENOMEM), the vector too (EFAULT, even for no pages); then a page of results at a time, each run of
// mapped pages copied out before a hole ends the call with ENOMEM.
SysResult sys_mincore(Task& t, uint64_t addr, uint64_t len, GuestPtr<uint8_t> vec) {
  if (addr & emu::kPageMask) return -EINVAL;
  if (!emu::user_range_ok(addr, len)) return -ENOMEM;
  uint64_t pages = (len >> 12) + ((len & emu::kPageMask) != 0);
  if (!emu::user_range_ok(vec.addr, pages)) return -EFAULT;
  unsigned char out[emu::kPageSize];
  uint64_t to = vec.addr;
  while (pages > 0) {
    uint64_t n = std::min<uint64_t>(pages, sizeof out);
    {
      std::shared_lock lk(t.as().lock());
      n = t.as().reach_locked(addr, n * emu::kPageSize, 0).usable / emu::kPageSize;
      if (n == 0) return -ENOMEM;
      if (::mincore(t.as().host(addr), n * emu::kPageSize, out) != 0) return -errno;
    }
    if (emu::copy_out(t.as(), to, out, n) != 0) return -EFAULT;
    pages -= n;
    to += n;
    addr += n * emu::kPageSize;
  }
  return 0;
}

// The mlock family acts on the host pages behind the guest range (RLIMIT_MEMLOCK applies as on Linux), as
// raw system calls: AddressSanitizer's mlock interceptors do nothing. The range is whole pages of mapped
// guest memory, or ENOMEM.
namespace {

SysResult lock_call(Task& t, long nr, uint64_t addr, uint64_t len, long flags = 0) {
  // do_mlock's arithmetic: the length grows by the offset into the first page, then rounds up (to 0 within
  // a page of 2^64: nothing to lock, as on Linux).
  const uint64_t start = emu::page_down(addr);
  const uint64_t span = emu::page_up(len + (addr & emu::kPageMask));
  emu::AddressSpace& as = t.as();
  if (span == 0)
    return ::syscall(nr, start < as.size() ? as.host(start) : as.base(), 0, flags) == 0 ? 0 : -errno;
  if (start + span < start) {
    // A range that wraps: the answer depends on the caller's privilege (mlock checks RLIMIT_MEMLOCK first,
    // ENOMEM, unless CAP_IPC_LOCK, then EINVAL): the host's own answer for a range that wraps the same way.
    constexpr uint64_t kLastPage = ~emu::kPageMask;
    return ::syscall(nr, kLastPage, span, flags) == 0 ? 0 : -errno;
  }
  {
    std::shared_lock lk(as.lock());
    if (!as.accessible_locked(start, span, 0)) return -ENOMEM;
    if (::syscall(nr, as.host(start), span, flags) != 0) return -errno;
  }
  as.mark_locked(start, start + span, nr != SYS_munlock);
  return 0;
}

}  // namespace

SysResult sys_mlock(Task& t, uint64_t addr, uint64_t len) {
  return lock_call(t, SYS_mlock, addr, len);
}
// mlock2(2): mlock with MLOCK_ONFAULT, the one flag Linux knows.
SysResult sys_mlock2(Task& t, uint64_t addr, uint64_t len, int flags) {
  if (flags & ~MLOCK_ONFAULT) return -EINVAL;
  return lock_call(t, SYS_mlock2, addr, len, flags);
}
SysResult sys_munlock(Task& t, uint64_t addr, uint64_t len) {
  return lock_call(t, SYS_munlock, addr, len);
}
// mlockall(2): MCL_CURRENT goes to the host; MCL_FUTURE stays the guest's (AddressSpace::lock_all), after
// the host's can_do_mlock check (an empty mlock answers EPERM where the guest may not lock at all).
SysResult sys_mlockall(Task& t, int flags) {
  if (flags == 0 || flags == MCL_ONFAULT || (flags & ~(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT)))
    return -EINVAL;
  if (::syscall(SYS_mlock, t.as().base(), 0) != 0) return -errno;
  if ((flags & MCL_CURRENT) && ::syscall(SYS_mlockall, flags & ~MCL_FUTURE) != 0) return -errno;
  t.as().lock_all((flags & MCL_CURRENT) != 0,
                  (flags & MCL_FUTURE) ? ((flags & MCL_ONFAULT) ? MLOCK_ONFAULT : 0) : -1);
  return 0;
}
SysResult sys_munlockall(Task& t) {
  if (::syscall(SYS_munlockall) != 0) return -errno;
  t.as().unlock_all();
  return 0;
}

// cachestat(2): the host's page cache counts for the range (both structs are u64 fields only).
SysResult sys_cachestat(Task& t, int fd, uint64_t range, uint64_t cstat, uint32_t flags) {
  constexpr long kSysCachestat = 451;  // x86-64's number too (Linux 6.5); Debian 12's headers predate it
  if (is_reserved_fd(fd)) return -EBADF;
  uint64_t r[2];
  void* rp = emu::copy_in(t.as(), r, range, sizeof r) == 0 ? static_cast<void*>(r) : kHostFaultAddr;
  uint64_t out[5] = {};
  if (::syscall(kSysCachestat, fd, rp, out, flags) != 0) return -errno;
  return emu::copy_out(t.as(), cstat, out, sizeof out) != 0 ? -EFAULT : 0;
}

// membarrier(2): the guest's threads are the host process's threads, so the host's barriers on them are
// the guest's. The rseq commands are refused (EINVAL), as by a kernel without rseq: a64run has no rseq,
// and MEMBARRIER_CMD_QUERY leaves them out.
SysResult sys_membarrier(Task&, int cmd, uint32_t flags, int cpu_id) {
  constexpr int kRseqCommands =
      MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ | MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ;
  if (cmd & kRseqCommands) return -EINVAL;
  const long r = ::syscall(SYS_membarrier, cmd, flags, cpu_id);
  if (r < 0) return -errno;
  return cmd == MEMBARRIER_CMD_QUERY ? (r & ~kRseqCommands) : r;
}

}  // namespace syscalls
