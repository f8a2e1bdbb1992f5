/* Prints, as C++ static_asserts on guest::, the arm64 layouts that only glibc's headers declare (socket
   structs, dirent64) and the socket constants. Built and run by tests/unit/abi/gen_arm64_golden.sh. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/un.h>

#define SIZE(g, k) printf("static_assert(sizeof(guest::%s) == %zu);\n", #g, sizeof(k))
#define OFF(g, gf, k, kf) printf("static_assert(offsetof(guest::%s, %s) == %zu);\n", #g, #gf, offsetof(k, kf))
#define SAME(g, k, f) OFF(g, f, k, f)
#define VAL(g, k) printf("static_assert(same_value<guest::%s, %lldLL>);\n", #g, (long long)(k))

int main(void) {
  SIZE(msghdr, struct msghdr);
  SAME(msghdr, struct msghdr, msg_namelen);
  SAME(msghdr, struct msghdr, msg_iov);
  SAME(msghdr, struct msghdr, msg_iovlen);
  SAME(msghdr, struct msghdr, msg_control);
  SAME(msghdr, struct msghdr, msg_controllen);
  SAME(msghdr, struct msghdr, msg_flags);
  SIZE(mmsghdr, struct mmsghdr);
  SAME(mmsghdr, struct mmsghdr, msg_len);
  SIZE(cmsghdr, struct cmsghdr);
  SAME(cmsghdr, struct cmsghdr, cmsg_level);
  SAME(cmsghdr, struct cmsghdr, cmsg_type);
  printf("static_assert(guest::cmsg_space(4) == %zu && guest::cmsg_len(4) == %zu);\n", (size_t)CMSG_SPACE(4),
         (size_t)CMSG_LEN(4));
  SIZE(ucred, struct ucred);
  SAME(ucred, struct ucred, gid);
  SIZE(linger, struct linger);
  SAME(linger, struct linger, l_linger);
  VAL(kSockaddrUnSize, sizeof(struct sockaddr_un));
  VAL(kSockaddrStorageSize, sizeof(struct sockaddr_storage));
  VAL(kDirent64NameOffset, offsetof(struct dirent64, d_name));
  OFF(linux_dirent64, d_reclen, struct dirent64, d_reclen);
  OFF(linux_dirent64, d_type, struct dirent64, d_type);
  VAL(kAF_UNIX, AF_UNIX);
  VAL(kAF_INET6, AF_INET6);
  VAL(kAF_NETLINK, AF_NETLINK);
  VAL(kAF_PACKET, AF_PACKET);
  VAL(kSOCK_STREAM, SOCK_STREAM);
  VAL(kSOCK_DGRAM, SOCK_DGRAM);
  VAL(kSOCK_SEQPACKET, SOCK_SEQPACKET);
  VAL(kSOCK_PACKET, SOCK_PACKET);
  VAL(kSOCK_NONBLOCK, SOCK_NONBLOCK);
  VAL(kSOCK_CLOEXEC, SOCK_CLOEXEC);
  VAL(kSCM_RIGHTS, SCM_RIGHTS);
  VAL(kSCM_CREDENTIALS, SCM_CREDENTIALS);
  VAL(kMSG_PEEK, MSG_PEEK);
  VAL(kMSG_DONTWAIT, MSG_DONTWAIT);
  VAL(kMSG_WAITALL, MSG_WAITALL);
  VAL(kMSG_NOSIGNAL, MSG_NOSIGNAL);
  VAL(kMSG_WAITFORONE, MSG_WAITFORONE);
  VAL(kMSG_ZEROCOPY, MSG_ZEROCOPY);
  VAL(kMSG_CMSG_CLOEXEC, MSG_CMSG_CLOEXEC);
  VAL(kSHUT_RDWR, SHUT_RDWR);
  return 0;
}
