// Guest socket structs (msghdr, cmsghdr, mmsghdr, ucred, linger), cmsg arithmetic, and socket constants.
#pragma once

#include <linux/netlink.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cstddef>
#include <cstdint>

namespace guest {

// include/linux/socket.h (user_msghdr): pointers are guest addresses the handler translates.
struct msghdr {
  uint64_t msg_name;
  uint32_t msg_namelen;
  uint32_t pad0;  // implicit alignment padding
  uint64_t msg_iov;
  uint64_t msg_iovlen;
  uint64_t msg_control;
  uint64_t msg_controllen;
  uint32_t msg_flags;
  uint32_t pad1;  // implicit tail padding
};
static_assert(sizeof(msghdr) == 56 && offsetof(msghdr, msg_namelen) == 8 && offsetof(msghdr, msg_iov) == 16 &&
              offsetof(msghdr, msg_iovlen) == 24 && offsetof(msghdr, msg_control) == 32 &&
              offsetof(msghdr, msg_controllen) == 40 && offsetof(msghdr, msg_flags) == 48);

// include/linux/socket.h: sendmmsg/recvmmsg entries.
struct mmsghdr {
  msghdr msg_hdr;
  uint32_t msg_len;
  uint32_t pad;  // implicit tail padding
};
static_assert(sizeof(mmsghdr) == 64 && offsetof(mmsghdr, msg_len) == 56);

// include/linux/socket.h: cmsg_len is __kernel_size_t and CMSG_ALIGN rounds to sizeof(long) = 8, on arm64
// and on x86-64 alike, so a control buffer has the same byte layout on both (fds in SCM_RIGHTS, ucred in
// SCM_CREDENTIALS and timeval/timespec payloads included).
struct cmsghdr {
  uint64_t cmsg_len;
  int32_t cmsg_level;
  int32_t cmsg_type;
};
static_assert(sizeof(cmsghdr) == 16 && offsetof(cmsghdr, cmsg_level) == 8 &&
              offsetof(cmsghdr, cmsg_type) == 12);

constexpr uint64_t cmsg_align(uint64_t len) {
  return (len + 7) & ~uint64_t{7};
}
constexpr uint64_t cmsg_space(uint64_t len) {
  return cmsg_align(sizeof(cmsghdr)) + cmsg_align(len);
}
constexpr uint64_t cmsg_len(uint64_t len) {
  return cmsg_align(sizeof(cmsghdr)) + len;
}
static_assert(cmsg_space(4) == CMSG_SPACE(4) && cmsg_len(4) == CMSG_LEN(4) &&
              cmsg_space(12) == CMSG_SPACE(12) && sizeof(::cmsghdr) == sizeof(cmsghdr));

// include/linux/socket.h: SO_PEERCRED and SCM_CREDENTIALS.
struct ucred {
  int32_t pid;
  uint32_t uid;
  uint32_t gid;
};
static_assert(sizeof(ucred) == 12 && offsetof(ucred, uid) == 4 && offsetof(ucred, gid) == 8);

// include/linux/socket.h: SO_LINGER.
struct linger {
  int32_t l_onoff;
  int32_t l_linger;
};
static_assert(sizeof(linger) == 8 && offsetof(linger, l_linger) == 4);

// Socket addresses (linux/socket.h, linux/un.h, linux/in.h, linux/in6.h, linux/netlink.h) are made of
// byte-sized and 16/32-bit fields with a 16-bit family first; they are identical on every Linux architecture,
// so addresses pass between guest and host as bytes. These sizes pin that on the host side.
inline constexpr uint32_t kSockaddrUnSize = 110;
inline constexpr uint32_t kSockaddrStorageSize = 128;
static_assert(sizeof(::sockaddr) == 16 && sizeof(::sockaddr_un) == kSockaddrUnSize &&
              offsetof(::sockaddr_un, sun_path) == 2 && sizeof(::sockaddr_in) == 16 &&
              sizeof(::sockaddr_in6) == 28 && sizeof(::sockaddr_storage) == kSockaddrStorageSize &&
              sizeof(::sockaddr_nl) == 12);

// linux/socket.h and linux/net.h: families and types (MIPS is the only arch with different SOCK_* values).
inline constexpr int32_t kAF_UNSPEC = 0;
inline constexpr int32_t kAF_UNIX = 1;
inline constexpr int32_t kAF_INET = 2;
inline constexpr int32_t kAF_INET6 = 10;
inline constexpr int32_t kAF_NETLINK = 16;
inline constexpr int32_t kAF_PACKET = 17;
inline constexpr int32_t kSOCK_STREAM = 1;
inline constexpr int32_t kSOCK_DGRAM = 2;
inline constexpr int32_t kSOCK_RAW = 3;
inline constexpr int32_t kSOCK_RDM = 4;
inline constexpr int32_t kSOCK_SEQPACKET = 5;
inline constexpr int32_t kSOCK_PACKET = 10;
inline constexpr int32_t kSOCK_TYPE_MASK = 0xf;
inline constexpr int32_t kSOCK_NONBLOCK = 04000;    // = O_NONBLOCK
inline constexpr int32_t kSOCK_CLOEXEC = 02000000;  // = O_CLOEXEC
static_assert(kAF_UNSPEC == AF_UNSPEC && kAF_UNIX == AF_UNIX && kAF_INET == AF_INET &&
              kAF_INET6 == AF_INET6 && kAF_NETLINK == AF_NETLINK && kAF_PACKET == AF_PACKET);
static_assert(kSOCK_STREAM == SOCK_STREAM && kSOCK_DGRAM == SOCK_DGRAM && kSOCK_RAW == SOCK_RAW &&
              kSOCK_RDM == SOCK_RDM && kSOCK_SEQPACKET == SOCK_SEQPACKET && kSOCK_PACKET == SOCK_PACKET &&
              kSOCK_NONBLOCK == SOCK_NONBLOCK && kSOCK_CLOEXEC == SOCK_CLOEXEC);

inline constexpr int32_t kSHUT_RD = 0;
inline constexpr int32_t kSHUT_WR = 1;
inline constexpr int32_t kSHUT_RDWR = 2;
static_assert(kSHUT_RD == SHUT_RD && kSHUT_WR == SHUT_WR && kSHUT_RDWR == SHUT_RDWR);

// asm-generic/socket.h: arm64 and x86-64 both include it unchanged (alpha, mips, parisc and sparc differ),
// so option numbers pass through. On 64-bit, SO_RCVTIMEO etc. are the _OLD numbers (time_t is 64-bit).
inline constexpr int32_t kSOL_SOCKET = 1;
inline constexpr int32_t kSO_DEBUG = 1;
inline constexpr int32_t kSO_REUSEADDR = 2;
inline constexpr int32_t kSO_TYPE = 3;
inline constexpr int32_t kSO_ERROR = 4;
inline constexpr int32_t kSO_DONTROUTE = 5;
inline constexpr int32_t kSO_BROADCAST = 6;
inline constexpr int32_t kSO_SNDBUF = 7;
inline constexpr int32_t kSO_RCVBUF = 8;
inline constexpr int32_t kSO_KEEPALIVE = 9;
inline constexpr int32_t kSO_OOBINLINE = 10;
inline constexpr int32_t kSO_NO_CHECK = 11;
inline constexpr int32_t kSO_PRIORITY = 12;
inline constexpr int32_t kSO_LINGER = 13;
inline constexpr int32_t kSO_BSDCOMPAT = 14;
inline constexpr int32_t kSO_REUSEPORT = 15;
inline constexpr int32_t kSO_PASSCRED = 16;
inline constexpr int32_t kSO_PEERCRED = 17;
inline constexpr int32_t kSO_RCVLOWAT = 18;
inline constexpr int32_t kSO_SNDLOWAT = 19;
inline constexpr int32_t kSO_RCVTIMEO = 20;
inline constexpr int32_t kSO_SNDTIMEO = 21;
inline constexpr int32_t kSO_BINDTODEVICE = 25;
inline constexpr int32_t kSO_ATTACH_FILTER = 26;
inline constexpr int32_t kSO_DETACH_FILTER = 27;
inline constexpr int32_t kSO_PEERNAME = 28;
inline constexpr int32_t kSO_TIMESTAMP = 29;
inline constexpr int32_t kSO_ACCEPTCONN = 30;
inline constexpr int32_t kSO_PEERSEC = 31;
inline constexpr int32_t kSO_SNDBUFFORCE = 32;
inline constexpr int32_t kSO_RCVBUFFORCE = 33;
inline constexpr int32_t kSO_PASSSEC = 34;
inline constexpr int32_t kSO_TIMESTAMPNS = 35;
inline constexpr int32_t kSO_MARK = 36;
inline constexpr int32_t kSO_TIMESTAMPING = 37;
inline constexpr int32_t kSO_PROTOCOL = 38;
inline constexpr int32_t kSO_DOMAIN = 39;
inline constexpr int32_t kSO_RXQ_OVFL = 40;
inline constexpr int32_t kSO_PEEK_OFF = 42;
inline constexpr int32_t kSO_BUSY_POLL = 46;
inline constexpr int32_t kSO_INCOMING_CPU = 49;
inline constexpr int32_t kSO_ATTACH_BPF = 50;
inline constexpr int32_t kSO_COOKIE = 57;
inline constexpr int32_t kSO_PEERGROUPS = 59;
inline constexpr int32_t kSO_ZEROCOPY = 60;
inline constexpr int32_t kSO_TXTIME = 61;
inline constexpr int32_t kSO_BINDTOIFINDEX = 62;
inline constexpr int32_t kSO_TIMESTAMP_NEW = 63;
inline constexpr int32_t kSO_TIMESTAMPNS_NEW = 64;
inline constexpr int32_t kSO_TIMESTAMPING_NEW = 65;
inline constexpr int32_t kSO_RCVTIMEO_NEW = 66;
inline constexpr int32_t kSO_SNDTIMEO_NEW = 67;
inline constexpr int32_t kSCM_RIGHTS = 1;
inline constexpr int32_t kSCM_CREDENTIALS = 2;
inline constexpr int32_t kSCM_SECURITY = 3;
inline constexpr int32_t kSCM_TIMESTAMP = kSO_TIMESTAMP;
inline constexpr int32_t kSCM_TIMESTAMPNS = kSO_TIMESTAMPNS;
static_assert(kSOL_SOCKET == SOL_SOCKET && kSO_DEBUG == SO_DEBUG && kSO_REUSEADDR == SO_REUSEADDR &&
              kSO_TYPE == SO_TYPE && kSO_ERROR == SO_ERROR && kSO_DONTROUTE == SO_DONTROUTE &&
              kSO_BROADCAST == SO_BROADCAST && kSO_SNDBUF == SO_SNDBUF && kSO_RCVBUF == SO_RCVBUF &&
              kSO_KEEPALIVE == SO_KEEPALIVE && kSO_OOBINLINE == SO_OOBINLINE && kSO_NO_CHECK == SO_NO_CHECK &&
              kSO_PRIORITY == SO_PRIORITY && kSO_LINGER == SO_LINGER && kSO_BSDCOMPAT == SO_BSDCOMPAT &&
              kSO_REUSEPORT == SO_REUSEPORT && kSO_PASSCRED == SO_PASSCRED && kSO_PEERCRED == SO_PEERCRED &&
              kSO_RCVLOWAT == SO_RCVLOWAT && kSO_SNDLOWAT == SO_SNDLOWAT && kSO_RCVTIMEO == SO_RCVTIMEO &&
              kSO_SNDTIMEO == SO_SNDTIMEO && kSO_BINDTODEVICE == SO_BINDTODEVICE &&
              kSO_ATTACH_FILTER == SO_ATTACH_FILTER && kSO_DETACH_FILTER == SO_DETACH_FILTER &&
              kSO_PEERNAME == SO_PEERNAME && kSO_TIMESTAMP == SO_TIMESTAMP &&
              kSO_ACCEPTCONN == SO_ACCEPTCONN && kSO_PEERSEC == SO_PEERSEC &&
              kSO_SNDBUFFORCE == SO_SNDBUFFORCE && kSO_RCVBUFFORCE == SO_RCVBUFFORCE &&
              kSO_PASSSEC == SO_PASSSEC && kSO_TIMESTAMPNS == SO_TIMESTAMPNS && kSO_MARK == SO_MARK &&
              kSO_TIMESTAMPING == SO_TIMESTAMPING && kSO_PROTOCOL == SO_PROTOCOL && kSO_DOMAIN == SO_DOMAIN &&
              kSO_RXQ_OVFL == SO_RXQ_OVFL && kSO_PEEK_OFF == SO_PEEK_OFF && kSO_BUSY_POLL == SO_BUSY_POLL &&
              kSO_INCOMING_CPU == SO_INCOMING_CPU && kSO_ATTACH_BPF == SO_ATTACH_BPF &&
              kSO_COOKIE == SO_COOKIE && kSO_PEERGROUPS == SO_PEERGROUPS && kSO_ZEROCOPY == SO_ZEROCOPY &&
              kSO_TXTIME == SO_TXTIME && kSO_BINDTOIFINDEX == SO_BINDTOIFINDEX &&
              kSO_TIMESTAMP_NEW == SO_TIMESTAMP_NEW && kSO_TIMESTAMPNS_NEW == SO_TIMESTAMPNS_NEW &&
              kSO_TIMESTAMPING_NEW == SO_TIMESTAMPING_NEW && kSO_RCVTIMEO_NEW == SO_RCVTIMEO_NEW &&
              kSO_SNDTIMEO_NEW == SO_SNDTIMEO_NEW);
static_assert(kSCM_RIGHTS == SCM_RIGHTS && kSCM_CREDENTIALS == SCM_CREDENTIALS &&
              kSCM_TIMESTAMP == SCM_TIMESTAMP && kSCM_TIMESTAMPNS == SCM_TIMESTAMPNS);

// linux/socket.h: send/recv flags (arch-independent).
inline constexpr uint32_t kMSG_OOB = 0x1;
inline constexpr uint32_t kMSG_PEEK = 0x2;
inline constexpr uint32_t kMSG_DONTROUTE = 0x4;
inline constexpr uint32_t kMSG_CTRUNC = 0x8;
inline constexpr uint32_t kMSG_PROXY = 0x10;
inline constexpr uint32_t kMSG_TRUNC = 0x20;
inline constexpr uint32_t kMSG_DONTWAIT = 0x40;
inline constexpr uint32_t kMSG_EOR = 0x80;
inline constexpr uint32_t kMSG_WAITALL = 0x100;
inline constexpr uint32_t kMSG_FIN = 0x200;
inline constexpr uint32_t kMSG_SYN = 0x400;
inline constexpr uint32_t kMSG_CONFIRM = 0x800;
inline constexpr uint32_t kMSG_RST = 0x1000;
inline constexpr uint32_t kMSG_ERRQUEUE = 0x2000;
inline constexpr uint32_t kMSG_NOSIGNAL = 0x4000;
inline constexpr uint32_t kMSG_MORE = 0x8000;
inline constexpr uint32_t kMSG_WAITFORONE = 0x10000;
inline constexpr uint32_t kMSG_BATCH = 0x40000;
inline constexpr uint32_t kMSG_ZEROCOPY = 0x4000000;
inline constexpr uint32_t kMSG_FASTOPEN = 0x20000000;
inline constexpr uint32_t kMSG_CMSG_CLOEXEC = 0x40000000;
static_assert(kMSG_OOB == MSG_OOB && kMSG_PEEK == MSG_PEEK && kMSG_DONTROUTE == MSG_DONTROUTE &&
              kMSG_CTRUNC == MSG_CTRUNC && kMSG_PROXY == MSG_PROXY && kMSG_TRUNC == MSG_TRUNC &&
              kMSG_DONTWAIT == MSG_DONTWAIT && kMSG_EOR == MSG_EOR && kMSG_WAITALL == MSG_WAITALL &&
              kMSG_FIN == MSG_FIN && kMSG_SYN == MSG_SYN && kMSG_CONFIRM == MSG_CONFIRM &&
              kMSG_RST == MSG_RST && kMSG_ERRQUEUE == MSG_ERRQUEUE && kMSG_NOSIGNAL == MSG_NOSIGNAL &&
              kMSG_MORE == MSG_MORE && kMSG_WAITFORONE == MSG_WAITFORONE && kMSG_BATCH == MSG_BATCH &&
              kMSG_ZEROCOPY == MSG_ZEROCOPY && kMSG_FASTOPEN == MSG_FASTOPEN &&
              kMSG_CMSG_CLOEXEC == MSG_CMSG_CLOEXEC);

// asm-generic/sockios.h (both architectures).
inline constexpr uint32_t kFIOSETOWN = 0x8901;
inline constexpr uint32_t kSIOCSPGRP = 0x8902;
inline constexpr uint32_t kFIOGETOWN = 0x8903;
inline constexpr uint32_t kSIOCGPGRP = 0x8904;
inline constexpr uint32_t kSIOCATMARK = 0x8905;
inline constexpr uint32_t kSIOCGSTAMP = 0x8906;  // SIOCGSTAMP_OLD (= SIOCGSTAMP on 64-bit)
inline constexpr uint32_t kSIOCGSTAMPNS = 0x8907;
static_assert(kFIOSETOWN == FIOSETOWN && kSIOCSPGRP == SIOCSPGRP && kFIOGETOWN == FIOGETOWN &&
              kSIOCGPGRP == SIOCGPGRP && kSIOCATMARK == SIOCATMARK && kSIOCGSTAMP == SIOCGSTAMP_OLD &&
              kSIOCGSTAMPNS == SIOCGSTAMPNS_OLD);

}  // namespace guest
