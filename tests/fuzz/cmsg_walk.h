// A reference walk of a control-message chain by the kernel's rules (for_each_cmsghdr with CMSG_OK, as
// __scm_send walks it), for the argument fuzzer and the cmsg unit tests.
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace guest::fuzz {

inline constexpr uint64_t kScmMaxFd = 253;  // include/net/scm.h SCM_MAX_FD

struct CmsgHeader {
  uint64_t off = 0;
  uint64_t len = 0;
  int32_t level = 0;
  int32_t type = 0;
  bool bad = false;  // fails CMSG_OK: the kernel refuses the chain here (EINVAL)
  bool operator==(const CmsgHeader&) const = default;
};

inline std::vector<CmsgHeader> walk_cmsgs(std::span<const uint8_t> chain) {
  std::vector<CmsgHeader> out;
  const uint64_t size = chain.size();
  uint64_t off = 0;
  if (size < sizeof(::cmsghdr)) return out;  // CMSG_FIRSTHDR
  while (true) {
    ::cmsghdr c;
    memcpy(&c, chain.data() + off, sizeof c);
    CmsgHeader h{off, c.cmsg_len, c.cmsg_level, c.cmsg_type, false};
    h.bad = c.cmsg_len < sizeof(::cmsghdr) || c.cmsg_len > size - off;  // CMSG_OK
    out.push_back(h);
    if (h.bad) return out;
    const uint64_t next = off + ((c.cmsg_len + 7) & ~uint64_t{7});  // __cmsg_nxthdr
    if (next + sizeof(::cmsghdr) > size) return out;
    off = next;
  }
}

}  // namespace guest::fuzz
