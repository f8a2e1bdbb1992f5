// Tests guest::epoll_event conversions, including a round trip through a real host epoll instance.
#include "syscalls/abi/epoll.h"

#include <gtest/gtest.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <cstring>
#include <vector>

namespace {

TEST(EpollAbiTest, ConvertsBothWays) {
  guest::epoll_event g{};
  g.events = guest::kEPOLLIN | guest::kEPOLLET | guest::kEPOLLRDHUP;
  g.data = 0x1122334455667788;
  const ::epoll_event h = guest::to_host(g);
  EXPECT_EQ(h.events, EPOLLIN | EPOLLET | EPOLLRDHUP);
  const uint64_t host_data = h.data.u64;  // a copy: EXPECT_EQ would bind a reference to a packed field
  EXPECT_EQ(host_data, 0x1122334455667788u);
  const guest::epoll_event back = guest::to_guest(h);
  EXPECT_EQ(back.events, g.events);
  EXPECT_EQ(back.data, g.data);
  EXPECT_EQ(back.pad, 0u);
}

// arm64 glibc reads data at offset 8 and steps 16 bytes per event; the host packs them at 4 and 12.
TEST(EpollAbiTest, GuestArrayHasArm64Stride) {
  guest::epoll_event events[2]{};
  events[1].events = guest::kEPOLLOUT;
  events[1].data = 0xdeadbeefcafef00d;
  unsigned char bytes[sizeof(events)];
  std::memcpy(bytes, events, sizeof(events));
  uint32_t ev = 0;
  uint64_t data = 0;
  std::memcpy(&ev, bytes + 16, 4);
  std::memcpy(&data, bytes + 24, 8);
  EXPECT_EQ(ev, guest::kEPOLLOUT);
  EXPECT_EQ(data, 0xdeadbeefcafef00du);
  EXPECT_EQ(sizeof(::epoll_event) * 2, 24u);
}

TEST(EpollAbiTest, RoundTripsThroughHostEpoll) {
  int pipefd[2];
  ASSERT_EQ(::pipe(pipefd), 0);
  const int ep = ::epoll_create1(guest::kEPOLL_CLOEXEC);
  ASSERT_GE(ep, 0);
  guest::epoll_event want{};
  want.events = guest::kEPOLLIN;
  want.data = 0x0123456789abcdef;
  ::epoll_event h = guest::to_host(want);
  ASSERT_EQ(::epoll_ctl(ep, guest::kEPOLL_CTL_ADD, pipefd[0], &h), 0);
  ASSERT_EQ(::write(pipefd[1], "x", 1), 1);
  std::vector<::epoll_event> ready(4);
  ASSERT_EQ(::epoll_wait(ep, ready.data(), static_cast<int>(ready.size()), 1000), 1);
  const guest::epoll_event got = guest::to_guest(ready[0]);
  EXPECT_EQ(got.events, guest::kEPOLLIN);
  EXPECT_EQ(got.data, 0x0123456789abcdefu);
  ::close(ep);
  ::close(pipefd[0]);
  ::close(pipefd[1]);
}

}  // namespace
