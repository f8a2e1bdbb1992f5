// Guest pselect6 argument pack and the fd_set bit layout select(2) shares between arm64 and x86-64.
#pragma once

#include <sys/select.h>

#include <cstddef>
#include <cstdint>

namespace guest {

// fs/select.c (struct sigset_argpack): pselect6's sixth argument points at { const sigset_t *p; size_t size;
// } because the syscall has no seventh register.
struct sigset_argpack {
  uint64_t p;  // guest address of the sigset, or 0 for no temporary mask
  uint64_t size;
};
static_assert(sizeof(sigset_argpack) == 16 && offsetof(sigset_argpack, size) == 8);

// linux/posix_types.h (__kernel_fd_set) and fs/select.c: an fd_set is an array of unsigned long with fd n at
// bit n % 64 of word n / 64. Both architectures are 64-bit little-endian, so the bytes are the same; the
// kernel reads and writes whole words, FDS_BYTES(n) = 8 * ceil(n / 64).
inline constexpr uint32_t kNFDBITS = 64;
inline constexpr uint32_t kFD_SETSIZE = 1024;
static_assert(NFDBITS == kNFDBITS && FD_SETSIZE == kFD_SETSIZE && sizeof(::fd_set) * 8 == kFD_SETSIZE);

constexpr uint64_t fd_set_words(uint32_t nfds) {
  return (uint64_t{nfds} + kNFDBITS - 1) / kNFDBITS;
}

}  // namespace guest
