// Guest epoll_event (16 bytes on arm64, packed 12 on x86-64), its conversions and the epoll constants.
#pragma once

#include <poll.h>
#include <sys/epoll.h>

#include <cstddef>
#include <cstdint>

namespace guest {

// linux/eventpoll.h: EPOLL_PACKED applies only to x86-64, so arm64's struct is naturally aligned (4 bytes of
// padding after events) while the host's is packed. Arrays of events differ in stride (16 vs 12), so
// epoll_wait results are converted one by one.
struct epoll_event {
  uint32_t events;
  uint32_t pad;
  uint64_t data;
};
static_assert(sizeof(epoll_event) == 16 && offsetof(epoll_event, data) == 8);
static_assert(sizeof(::epoll_event) == 12, "the host is expected to be x86-64 (packed epoll_event)");

inline ::epoll_event to_host(const epoll_event& g) {
  ::epoll_event h{};
  h.events = g.events;
  h.data.u64 = g.data;
  return h;
}
inline epoll_event to_guest(const ::epoll_event& h) {
  epoll_event g{};
  g.events = h.events;
  g.data = h.data.u64;
  return g;
}

// linux/eventpoll.h (arch-independent; glibc has no EPOLLNVAL, it equals POLLNVAL).
inline constexpr int32_t kEPOLL_CLOEXEC = 02000000;
inline constexpr int32_t kEPOLL_CTL_ADD = 1;
inline constexpr int32_t kEPOLL_CTL_DEL = 2;
inline constexpr int32_t kEPOLL_CTL_MOD = 3;
inline constexpr uint32_t kEPOLLIN = 0x00000001;
inline constexpr uint32_t kEPOLLPRI = 0x00000002;
inline constexpr uint32_t kEPOLLOUT = 0x00000004;
inline constexpr uint32_t kEPOLLERR = 0x00000008;
inline constexpr uint32_t kEPOLLHUP = 0x00000010;
inline constexpr uint32_t kEPOLLNVAL = 0x00000020;
inline constexpr uint32_t kEPOLLRDNORM = 0x00000040;
inline constexpr uint32_t kEPOLLRDBAND = 0x00000080;
inline constexpr uint32_t kEPOLLWRNORM = 0x00000100;
inline constexpr uint32_t kEPOLLWRBAND = 0x00000200;
inline constexpr uint32_t kEPOLLMSG = 0x00000400;
inline constexpr uint32_t kEPOLLRDHUP = 0x00002000;
inline constexpr uint32_t kEPOLLEXCLUSIVE = 1u << 28;
inline constexpr uint32_t kEPOLLWAKEUP = 1u << 29;
inline constexpr uint32_t kEPOLLONESHOT = 1u << 30;
inline constexpr uint32_t kEPOLLET = 1u << 31;
static_assert(kEPOLL_CLOEXEC == EPOLL_CLOEXEC && kEPOLL_CTL_ADD == EPOLL_CTL_ADD &&
              kEPOLL_CTL_DEL == EPOLL_CTL_DEL && kEPOLL_CTL_MOD == EPOLL_CTL_MOD);
static_assert(kEPOLLIN == EPOLLIN && kEPOLLPRI == EPOLLPRI && kEPOLLOUT == EPOLLOUT &&
              kEPOLLERR == EPOLLERR && kEPOLLHUP == EPOLLHUP && kEPOLLNVAL == POLLNVAL &&
              kEPOLLRDNORM == EPOLLRDNORM && kEPOLLRDBAND == EPOLLRDBAND && kEPOLLWRNORM == EPOLLWRNORM &&
              kEPOLLWRBAND == EPOLLWRBAND && kEPOLLMSG == EPOLLMSG && kEPOLLRDHUP == EPOLLRDHUP &&
              kEPOLLEXCLUSIVE == EPOLLEXCLUSIVE && kEPOLLWAKEUP == EPOLLWAKEUP &&
              kEPOLLONESHOT == EPOLLONESHOT && kEPOLLET == EPOLLET);

}  // namespace guest
