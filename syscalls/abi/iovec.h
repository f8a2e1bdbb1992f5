// The kernel's length rules for a guest iovec array (lib/iov_iter.c __import_iovec), pure so that the
// argument fuzzer drives them without a guest.
#pragma once

#include <cerrno>
#include <cstdint>
#include <span>

#include "syscalls/abi/time_abi.h"
#include "syscalls/abi/types.h"

namespace guest {

// Checks guest iovec lengths as the kernel's import_iovec does and clamps them so that their sum is at most
// kMaxRwCount. Returns the clamped total or -EINVAL (a length that is negative as ssize_t).
inline int64_t clamp_iovecs(std::span<iovec> iov) {
  uint64_t total = 0;
  for (iovec& v : iov) {
    if (static_cast<int64_t>(v.iov_len) < 0) return -EINVAL;
    if (v.iov_len > kMaxRwCount - total) v.iov_len = kMaxRwCount - total;
    total += v.iov_len;
  }
  return static_cast<int64_t>(total);
}

}  // namespace guest
