// File data syscalls: vector and positional I/O, zero-copy transfers (sendfile, splice, tee, vmsplice,
// copy_file_range), truncation, allocation, syncing and read-ahead advice.
#pragma once

#include <sys/uio.h>

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "syscalls/abi/iovec.h"
#include "syscalls/abi/types.h"
#include "syscalls/dispatch.h"

namespace syscalls {

// The kernel's MAX_RW_COUNT (INT_MAX rounded down to a page): one call moves at most this many bytes.
inline constexpr uint64_t kMaxRwCount = 0x7ffff000;

static_assert(kMaxRwCount == guest::kMaxRwCount);
using guest::clamp_iovecs;  // syscalls/abi/iovec.h

// A guest iovec array as host iovecs pointing into the guest window.
class HostIovecs {
 public:
  // Copies in `count` guest iovecs from `addr` and checks that every (clamped) buffer is mapped with `prot`.
  // Returns 0, -EINVAL (more than UIO_MAXIOV, or a bad length) or -EFAULT.
  int64_t import(emu::AddressSpace& as, uint64_t addr, uint64_t count, int prot);
  const ::iovec* data() const { return count_ <= inline_.size() ? inline_.data() : heap_.data(); }
  int count() const { return static_cast<int>(count_); }
  // The guest's lengths added up, as clamped to MAX_RW_COUNT (before any stop at a fault).
  uint64_t total() const { return total_; }

 private:
  std::array<::iovec, 8> inline_{};
  std::vector<::iovec> heap_;
  size_t count_ = 0;
  uint64_t total_ = 0;
};

SysResult sys_readv(Task& t, int fd, GuestPtr<const guest::iovec> iov, uint64_t count);
SysResult sys_writev(Task& t, int fd, GuestPtr<const guest::iovec> iov, uint64_t count);
SysResult sys_pread64(Task& t, int fd, GuestPtr<uint8_t> buf, uint64_t count, int64_t pos);
SysResult sys_pwrite64(Task& t, int fd, GuestPtr<const uint8_t> buf, uint64_t count, int64_t pos);
SysResult sys_preadv(Task& t, int fd, GuestPtr<const guest::iovec> iov, uint64_t count, int64_t pos_l,
                     uint64_t pos_h);
SysResult sys_pwritev(Task& t, int fd, GuestPtr<const guest::iovec> iov, uint64_t count, int64_t pos_l,
                      uint64_t pos_h);
SysResult sys_preadv2(Task& t, int fd, GuestPtr<const guest::iovec> iov, uint64_t count, int64_t pos_l,
                      uint64_t pos_h, int flags);
SysResult sys_pwritev2(Task& t, int fd, GuestPtr<const guest::iovec> iov, uint64_t count, int64_t pos_l,
                       uint64_t pos_h, int flags);

SysResult sys_sendfile(Task& t, int out_fd, int in_fd, GuestPtr<int64_t> offset, uint64_t count);
SysResult sys_copy_file_range(Task& t, int fd_in, GuestPtr<int64_t> off_in, int fd_out,
                              GuestPtr<int64_t> off_out, uint64_t len, uint32_t flags);
SysResult sys_splice(Task& t, int fd_in, GuestPtr<int64_t> off_in, int fd_out, GuestPtr<int64_t> off_out,
                     uint64_t len, uint32_t flags);
SysResult sys_tee(Task& t, int fd_in, int fd_out, uint64_t len, uint32_t flags);
SysResult sys_vmsplice(Task& t, int fd, GuestPtr<const guest::iovec> iov, uint64_t count, uint32_t flags);

SysResult sys_truncate(Task& t, GuestCStr path, int64_t length);
SysResult sys_ftruncate(Task& t, int fd, int64_t length);
SysResult sys_fallocate(Task& t, int fd, int mode, int64_t offset, int64_t len);
SysResult sys_fsync(Task& t, int fd);
SysResult sys_fdatasync(Task& t, int fd);
SysResult sys_sync(Task& t);
SysResult sys_syncfs(Task& t, int fd);
SysResult sys_sync_file_range(Task& t, int fd, int64_t offset, int64_t nbytes, uint32_t flags);
SysResult sys_fadvise64(Task& t, int fd, int64_t offset, int64_t len, int advice);
SysResult sys_readahead(Task& t, int fd, int64_t offset, uint64_t count);

}  // namespace syscalls
