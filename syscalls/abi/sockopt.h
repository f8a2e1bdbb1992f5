// Guest socket option values that carry pointers (classic BPF programs: struct sock_fprog) and their numbers.
#pragma once

#include <linux/filter.h>
#include <sys/socket.h>

#include <cstddef>
#include <cstdint>

namespace guest {

// linux/filter.h: one classic BPF instruction, the same bytes everywhere (BPF is architecture-neutral).
struct sock_filter {
  uint16_t code;
  uint8_t jt;
  uint8_t jf;
  uint32_t k;
};
static_assert(sizeof(sock_filter) == 8 && sizeof(::sock_filter) == 8 && offsetof(sock_filter, k) == 4);

// linux/filter.h: a program; `filter` is a guest address, so the value is rebuilt for the host.
struct sock_fprog {
  uint16_t len;  // instructions
  uint16_t pad0;
  uint32_t pad1;    // implicit alignment padding
  uint64_t filter;  // guest address of len sock_filter
};
static_assert(sizeof(sock_fprog) == 16 && offsetof(sock_fprog, filter) == 8 && sizeof(::sock_fprog) == 16);

// asm-generic/socket.h: the SOL_SOCKET options whose value is a struct sock_fprog (SO_ATTACH_FILTER is
// socket.h's kSO_ATTACH_FILTER = 26).
inline constexpr int32_t kSO_ATTACH_REUSEPORT_CBPF = 51;
static_assert(kSO_ATTACH_REUSEPORT_CBPF == SO_ATTACH_REUSEPORT_CBPF);

inline ::sock_fprog to_host(const sock_fprog& g, ::sock_filter* host_filter) {
  ::sock_fprog h{};
  h.len = g.len;
  h.filter = host_filter;
  return h;
}

}  // namespace guest
