// This file converts control-message chains between the guest's layout and the host's.
#include "syscalls/abi/cmsg.h"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace guest {
namespace {

constexpr uint64_t kHeader = cmsg_align(sizeof(cmsghdr));
constexpr uint64_t kScmMaxFd = 253;  // include/net/scm.h SCM_MAX_FD
static_assert(kHeader == sizeof(cmsghdr) && CMSG_ALIGN(sizeof(::cmsghdr)) == kHeader);

// CMSG_OK for the header at `off` of a chain of `size` bytes, whose cmsg_len is `len`.
bool header_ok(uint64_t off, uint64_t size, uint64_t len) {
  return len >= sizeof(cmsghdr) && len <= size - off;
}

bool rights_ok(std::span<const uint8_t> payload, bool (*fd_ok)(int fd)) {
  for (uint64_t i = 0; i + sizeof(int32_t) <= payload.size(); i += sizeof(int32_t)) {
    int32_t fd;
    std::memcpy(&fd, payload.data() + i, sizeof fd);
    if (!fd_ok(fd)) return false;
  }
  return true;
}

}  // namespace

int64_t cmsgs_to_host(std::span<const uint8_t> g, std::span<uint8_t> h, bool (*fd_ok)(int fd)) {
  std::fill(h.begin(), h.end(), uint8_t{0});  // memset's pointer may not be null, an empty span's may
  uint64_t off = 0;
  uint64_t fds = 0;  // SCM_RIGHTS fds so far; past SCM_MAX_FD the host refuses the chain (EINVAL) unvetted
  // CMSG_NXTHDR: a next header exists only when it fits whole in what is left.
  while (g.size() >= kHeader && off <= g.size() - kHeader) {
    cmsghdr gh;
    std::memcpy(&gh, g.data() + off, sizeof gh);
    if (!header_ok(off, g.size(), gh.cmsg_len)) {
      std::memcpy(h.data() + off, g.data() + off, g.size() - off);
      return 0;
    }
    ::cmsghdr hh{};
    hh.cmsg_len = gh.cmsg_len;
    hh.cmsg_level = gh.cmsg_level;
    hh.cmsg_type = gh.cmsg_type;
    std::memcpy(h.data() + off, &hh, sizeof hh);
    const std::span<const uint8_t> payload = g.subspan(off + kHeader, gh.cmsg_len - kHeader);
    std::memcpy(h.data() + off + kHeader, payload.data(), payload.size());
    if (gh.cmsg_level == kSOL_SOCKET && gh.cmsg_type == kSCM_RIGHTS && fds <= kScmMaxFd) {
      // scm_fp_copy: more than SCM_MAX_FD fds in all is EINVAL before any fd is looked up.
      fds += payload.size() / sizeof(int32_t);
      if (fds <= kScmMaxFd && !rights_ok(payload, fd_ok)) return -EBADF;
    }
    const uint64_t step = cmsg_align(gh.cmsg_len);
    if (step > g.size() - off) break;
    off += step;
  }
  return 0;
}

uint64_t cmsgs_to_guest(std::span<const uint8_t> h, std::span<uint8_t> g) {
  const uint64_t size = std::min<uint64_t>(h.size(), g.size());
  uint64_t off = 0;
  while (size >= kHeader && off <= size - kHeader) {
    ::cmsghdr hh;
    std::memcpy(&hh, h.data() + off, sizeof hh);
    if (!header_ok(off, size, hh.cmsg_len)) break;
    cmsghdr gh{};
    gh.cmsg_len = hh.cmsg_len;
    gh.cmsg_level = hh.cmsg_level;
    gh.cmsg_type = hh.cmsg_type;
    std::memcpy(g.data() + off, &gh, sizeof gh);
    std::memcpy(g.data() + off + kHeader, h.data() + off + kHeader, hh.cmsg_len - kHeader);
    const uint64_t step = cmsg_align(hh.cmsg_len);
    if (step > size - off) {
      off = size;
      break;
    }
    off += step;
  }
  // The kernel's put_cmsg never leaves a partial header, but copy any tail as is rather than drop bytes.
  if (off < size) std::memcpy(g.data() + off, h.data() + off, size - off);
  return size;
}

}  // namespace guest
