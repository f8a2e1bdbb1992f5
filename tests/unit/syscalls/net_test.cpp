// This file tests the control-message chain conversion of syscalls/abi/cmsg.h that sendmsg and recvmsg use:
// headers and payloads land at the same offsets, several messages in one chain, SCM_RIGHTS fds vetted
// (a reserved fd is EBADF), malformed chains passed on for the host to refuse, short buffers, and a round
// trip through a host socketpair that really passes an fd.
#include "syscalls/abi/cmsg.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace {

// The cmsg types of a host chain, walked with the host's own macros (outside namespace guest, where
// `struct cmsghdr` in CMSG_FIRSTHDR would name guest::cmsghdr).
std::vector<int> host_cmsg_types(std::vector<uint8_t>& chain) {
  ::msghdr m{};
  m.msg_control = chain.data();
  m.msg_controllen = chain.size();
  std::vector<int> types;
  for (::cmsghdr* c = CMSG_FIRSTHDR(&m); c != nullptr; c = CMSG_NXTHDR(&m, c)) types.push_back(c->cmsg_type);
  return types;
}

}  // namespace

namespace guest {
namespace {

bool any_fd(int) {
  return true;
}
bool not_99(int fd) {
  return fd != 99;
}

// Appends one guest control message to buf.
void put(std::vector<uint8_t>& buf, int32_t level, int32_t type, const void* data, uint64_t len) {
  const size_t at = buf.size();
  buf.resize(at + cmsg_space(len));
  const cmsghdr h{cmsg_len(len), level, type};
  std::memcpy(buf.data() + at, &h, sizeof h);
  std::memcpy(buf.data() + at + sizeof h, data, len);
}

TEST(CmsgTest, ChainConvertsInPlace) {
  std::vector<uint8_t> g;
  const int32_t fds[3] = {4, 5, 6};
  put(g, kSOL_SOCKET, kSCM_RIGHTS, fds, sizeof fds);
  const ucred cred{100, 1000, 1000};
  put(g, kSOL_SOCKET, kSCM_CREDENTIALS, &cred, sizeof cred);
  std::vector<uint8_t> h(g.size(), 0xee);
  ASSERT_EQ(cmsgs_to_host(g, h, any_fd), 0);
  EXPECT_EQ(h, g);  // the layouts are the same, so the bytes are too

  EXPECT_EQ(host_cmsg_types(h), (std::vector<int>{SCM_RIGHTS, SCM_CREDENTIALS}));

  std::vector<uint8_t> back(g.size());
  EXPECT_EQ(cmsgs_to_guest(h, back), g.size());
  EXPECT_EQ(back, g);
}

TEST(CmsgTest, ReservedFdIsEbadf) {
  std::vector<uint8_t> g;
  const int32_t fds[2] = {3, 99};
  put(g, kSOL_SOCKET, kSCM_RIGHTS, fds, sizeof fds);
  std::vector<uint8_t> h(g.size());
  EXPECT_EQ(cmsgs_to_host(g, h, not_99), -EBADF);
  // Not SCM_RIGHTS: the payload is not fds.
  std::vector<uint8_t> other;
  put(other, 41 /* SOL_IPV6 */, kSCM_RIGHTS, fds, sizeof fds);
  std::vector<uint8_t> h2(other.size());
  EXPECT_EQ(cmsgs_to_host(other, h2, not_99), 0);
}

TEST(CmsgTest, MalformedChainIsCopiedForTheHostToRefuse) {
  std::vector<uint8_t> g;
  const int32_t fd = 3;
  put(g, kSOL_SOCKET, kSCM_RIGHTS, &fd, sizeof fd);
  cmsghdr bad{8, kSOL_SOCKET, kSCM_RIGHTS};  // shorter than a header
  const size_t at = g.size();
  g.resize(at + sizeof bad);
  std::memcpy(g.data() + at, &bad, sizeof bad);
  std::vector<uint8_t> h(g.size());
  ASSERT_EQ(cmsgs_to_host(g, h, any_fd), 0);
  EXPECT_EQ(h, g);
  // cmsg_len past the end.
  std::vector<uint8_t> g2(sizeof(cmsghdr) + 8);
  const cmsghdr over{1000, kSOL_SOCKET, kSCM_RIGHTS};
  std::memcpy(g2.data(), &over, sizeof over);
  std::vector<uint8_t> h2(g2.size());
  ASSERT_EQ(cmsgs_to_host(g2, h2, any_fd), 0);
  EXPECT_EQ(h2, g2);
}

TEST(CmsgTest, ShortBuffersHaveNoHeader) {
  const std::vector<uint8_t> g(10, 0x11);
  std::vector<uint8_t> h(g.size(), 0x22);
  EXPECT_EQ(cmsgs_to_host(g, h, any_fd), 0);
  EXPECT_EQ(h, std::vector<uint8_t>(10, 0));
  std::vector<uint8_t> out(4);
  EXPECT_EQ(cmsgs_to_guest(std::vector<uint8_t>{}, out), 0u);
}

// Found by syscall_args_fuzzer: an empty chain (empty spans, whose data may be null) converts to nothing
// without handing memset a null pointer (UBSan).
TEST(CmsgTest, EmptyChain) {
  EXPECT_EQ(cmsgs_to_host({}, {}, any_fd), 0);
  EXPECT_EQ(cmsgs_to_guest({}, {}), 0u);
}

// scm_fp_copy refuses more than SCM_MAX_FD (253) fds in all with EINVAL before it looks one up, so fds past
// that are left for the host to refuse, and a reserved fd among them is not EBADF.
TEST(CmsgTest, FdsPastScmMaxFdAreNotVetted) {
  std::vector<int32_t> fds(254, 3);
  fds.back() = 99;
  std::vector<uint8_t> g;
  put(g, kSOL_SOCKET, kSCM_RIGHTS, fds.data(), fds.size() * sizeof(int32_t));
  std::vector<uint8_t> h(g.size());
  EXPECT_EQ(cmsgs_to_host(g, h, not_99), 0);
  EXPECT_EQ(h, g);
  // 253 in all, over two messages: every one is vetted.
  std::vector<uint8_t> two;
  put(two, kSOL_SOCKET, kSCM_RIGHTS, fds.data(), 200 * sizeof(int32_t));
  put(two, kSOL_SOCKET, kSCM_RIGHTS, fds.data() + 201, 53 * sizeof(int32_t));
  std::vector<uint8_t> h2(two.size());
  EXPECT_EQ(cmsgs_to_host(two, h2, not_99), -EBADF);
  // 254 in all: the second message is the host's to refuse.
  std::vector<uint8_t> over;
  put(over, kSOL_SOCKET, kSCM_RIGHTS, fds.data(), 200 * sizeof(int32_t));
  put(over, kSOL_SOCKET, kSCM_RIGHTS, fds.data() + 200, 54 * sizeof(int32_t));
  std::vector<uint8_t> h3(over.size());
  EXPECT_EQ(cmsgs_to_host(over, h3, not_99), 0);
}

// The converted chain goes through a real host sendmsg, and the host's answer converts back.
TEST(CmsgTest, RoundTripThroughHostSocketpair) {
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  std::vector<uint8_t> g;
  put(g, kSOL_SOCKET, kSCM_RIGHTS, &p[1], sizeof(int));
  std::vector<uint8_t> h(g.size());
  ASSERT_EQ(cmsgs_to_host(g, h, any_fd), 0);
  char byte = 'q';
  ::iovec iov{&byte, 1};
  ::msghdr m{};
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  m.msg_control = h.data();
  m.msg_controllen = h.size();
  ASSERT_EQ(::sendmsg(sv[0], &m, MSG_NOSIGNAL), 1);

  std::vector<uint8_t> rh(64);
  m.msg_control = rh.data();
  m.msg_controllen = rh.size();
  ASSERT_EQ(::recvmsg(sv[1], &m, MSG_CMSG_CLOEXEC), 1);
  std::vector<uint8_t> rg(m.msg_controllen);
  ASSERT_EQ(cmsgs_to_guest(std::span<const uint8_t>(rh.data(), m.msg_controllen), rg),
            cmsg_space(sizeof(int)));
  cmsghdr got;
  std::memcpy(&got, rg.data(), sizeof got);
  EXPECT_EQ(got.cmsg_level, kSOL_SOCKET);
  EXPECT_EQ(got.cmsg_type, kSCM_RIGHTS);
  EXPECT_EQ(got.cmsg_len, cmsg_len(sizeof(int)));
  int fd;
  std::memcpy(&fd, rg.data() + sizeof got, sizeof fd);
  EXPECT_EQ(::write(fd, "x", 1), 1);
  char c;
  EXPECT_EQ(::read(p[0], &c, 1), 1);
  ::close(fd);
  ::close(p[0]);
  ::close(p[1]);
  ::close(sv[0]);
  ::close(sv[1]);
}

}  // namespace
}  // namespace guest
