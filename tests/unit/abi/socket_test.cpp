// Tests guest msghdr/cmsghdr arithmetic by passing a guest-built SCM_RIGHTS control buffer to the host.
#include "syscalls/abi/socket.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

namespace {

TEST(SocketAbiTest, CmsgArithmeticMatchesArm64) {
  EXPECT_EQ(guest::cmsg_align(1), 8u);
  EXPECT_EQ(guest::cmsg_align(8), 8u);
  EXPECT_EQ(guest::cmsg_len(sizeof(int)), 20u);
  EXPECT_EQ(guest::cmsg_space(sizeof(int)), 24u);
  EXPECT_EQ(guest::cmsg_space(2 * sizeof(int)), 24u);
  EXPECT_EQ(guest::cmsg_space(3 * sizeof(int)), 32u);
}

// A control buffer laid out with guest::cmsghdr is accepted by the host kernel unchanged.
TEST(SocketAbiTest, GuestControlBufferPassesAnFd) {
  int sv[2];
  ASSERT_EQ(::socketpair(guest::kAF_UNIX, guest::kSOCK_STREAM | guest::kSOCK_CLOEXEC, 0, sv), 0);
  int pipefd[2];
  ASSERT_EQ(::pipe(pipefd), 0);

  alignas(8) unsigned char control[guest::cmsg_space(sizeof(int))] = {};
  guest::cmsghdr header{guest::cmsg_len(sizeof(int)), guest::kSOL_SOCKET, guest::kSCM_RIGHTS};
  std::memcpy(control, &header, sizeof(header));
  std::memcpy(control + guest::cmsg_align(sizeof(guest::cmsghdr)), &pipefd[1], sizeof(int));
  char byte = 'z';
  ::iovec iov{&byte, 1};
  ::msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof(control);
  ASSERT_EQ(::sendmsg(sv[0], &msg, guest::kMSG_NOSIGNAL), 1);

  alignas(8) unsigned char in_control[guest::cmsg_space(sizeof(int))] = {};
  char in_byte = 0;
  ::iovec in_iov{&in_byte, 1};
  ::msghdr in{};
  in.msg_iov = &in_iov;
  in.msg_iovlen = 1;
  in.msg_control = in_control;
  in.msg_controllen = sizeof(in_control);
  ASSERT_EQ(::recvmsg(sv[1], &in, guest::kMSG_CMSG_CLOEXEC), 1);
  guest::cmsghdr got{};
  std::memcpy(&got, in_control, sizeof(got));
  EXPECT_EQ(got.cmsg_len, guest::cmsg_len(sizeof(int)));
  EXPECT_EQ(got.cmsg_level, guest::kSOL_SOCKET);
  EXPECT_EQ(got.cmsg_type, guest::kSCM_RIGHTS);
  int passed = -1;
  std::memcpy(&passed, in_control + guest::cmsg_align(sizeof(guest::cmsghdr)), sizeof(int));
  ASSERT_GE(passed, 0);
  ASSERT_EQ(::write(passed, "k", 1), 1);
  char out = 0;
  ASSERT_EQ(::read(pipefd[0], &out, 1), 1);
  EXPECT_EQ(out, 'k');
  for (int fd : {sv[0], sv[1], pipefd[0], pipefd[1], passed}) ::close(fd);
}

TEST(SocketAbiTest, PeercredMatchesGuestUcred) {
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  guest::ucred cred{};
  socklen_t len = sizeof(cred);
  ASSERT_EQ(::getsockopt(sv[0], guest::kSOL_SOCKET, guest::kSO_PEERCRED, &cred, &len), 0);
  EXPECT_EQ(len, sizeof(guest::ucred));
  EXPECT_EQ(cred.pid, ::getpid());
  EXPECT_EQ(cred.uid, ::getuid());
  EXPECT_EQ(cred.gid, ::getgid());
  ::close(sv[0]);
  ::close(sv[1]);
}

}  // namespace
