// This file implements socket set-up on host sockets: creation, addresses, listen, accept and connect (the
// host's calls, made as safe system calls), options (rebuilding the ones that carry guest pointers),
// shutdown, and the helpers the data calls of sys_net_msg.cpp share.
#include "syscalls/sys_net.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <vector>

#include "emu/task.h"
#include "signals/fd_wait.h"
#include "signals/signals.h"
#include "syscalls/abi/errno.h"
#include "syscalls/abi/sockopt.h"
#include "syscalls/fd_util.h"
#include "syscalls/host_call.h"
#include "syscalls/sys_poll.h"

namespace syscalls {
namespace {

using guest::from_host;

// getsockname/getpeername: the host fills a full sockaddr_storage, then move_addr_to_user.
template <typename Call>
SysResult get_name(Task& t, int fd, uint64_t addr, uint64_t addrlen, Call call) {
  if (is_reserved_fd(fd)) return -EBADF;
  ::sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (call(fd, reinterpret_cast<::sockaddr*>(&ss), &len) != 0) return guest::neg_errno();
  return sockaddr_out(t, ss, len, addr, addrlen);
}

// SO_ATTACH_FILTER and SO_ATTACH_REUSEPORT_CBPF: struct sock_fprog points at the program, so the value is
// rebuilt with a host pointer to the guest's instructions. A wrong optlen reaches the host, which refuses it.
SysResult set_filter(Task& t, int fd, int optname, uint64_t optval, int optlen) {
  ::sock_fprog h{};
  const void* value = &h;
  guest::sock_fprog g{};
  if (optlen >= static_cast<int>(sizeof g)) {
    if (emu::copy_in(t.as(), &g, optval, sizeof g) != 0) {
      value = kHostFaultAddr;
    } else {
      void* prog = host_buf(t.as(), g.filter, uint64_t{g.len} * sizeof(guest::sock_filter), PROT_READ);
      h = guest::to_host(g, static_cast<::sock_filter*>(prog));
    }
  }
  return from_host(::syscall(SYS_setsockopt, fd, SOL_SOCKET, optname, value, static_cast<socklen_t>(optlen)));
}

}  // namespace

int64_t sock_blocking(int fd, uint32_t msg_flags) {
  const int fl = ::fcntl(fd, F_GETFL);
  if (fl < 0) return guest::neg_errno();
  return !(msg_flags & guest::kMSG_DONTWAIT) && !(fl & O_NONBLOCK) ? 1 : 0;
}

const ::sockaddr* sockaddr_for_host(Task& t, uint64_t addr, int64_t len, ::sockaddr_storage* buf) {
  if (addr == 0) return nullptr;
  *buf = {};
  const uint64_t n = static_cast<uint64_t>(std::clamp<int64_t>(len, 0, sizeof *buf));
  if (emu::copy_in(t.as(), buf, addr, n) != 0) return static_cast<const ::sockaddr*>(kHostFaultAddr);
  return reinterpret_cast<const ::sockaddr*>(buf);
}

int64_t sockaddr_out(Task& t, const ::sockaddr_storage& addr, uint32_t klen, uint64_t uaddr, uint64_t ulen) {
  int32_t len = 0;
  if (emu::copy_in(t.as(), &len, ulen, sizeof len) != 0) return -EFAULT;
  if (len > static_cast<int32_t>(klen)) len = static_cast<int32_t>(klen);
  if (len < 0) return -EINVAL;
  if (len > 0 && emu::copy_out(t.as(), uaddr, &addr, static_cast<size_t>(len)) != 0) return -EFAULT;
  const auto full = static_cast<int32_t>(klen);
  return emu::copy_out(t.as(), ulen, &full, sizeof full) != 0 ? -EFAULT : 0;
}

SysResult sys_socket(Task&, int domain, int type, int protocol) {
  return from_host(::socket(domain, type, protocol));
}

SysResult sys_socketpair(Task& t, int domain, int type, int protocol, GuestPtr<int32_t> sv) {
  int fds[2];
  if (::socketpair(domain, type, protocol, fds) != 0) return guest::neg_errno();
  const int32_t out[2] = {fds[0], fds[1]};
  if (emu::copy_out(t.as(), sv.addr, out, sizeof out) != 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return -EFAULT;
  }
  return 0;
}

SysResult sys_bind(Task& t, int fd, GuestPtr<const uint8_t> addr, int addrlen) {
  if (is_reserved_fd(fd)) return -EBADF;
  ::sockaddr_storage ss;
  const ::sockaddr* sa = sockaddr_for_host(t, addr.addr, addrlen, &ss);
  return from_host(::syscall(SYS_bind, fd, sa, static_cast<socklen_t>(addrlen)));
}

SysResult sys_listen(Task&, int fd, int backlog) {
  if (is_reserved_fd(fd)) return -EBADF;
  return from_host(::listen(fd, backlog));
}

SysResult sys_accept(Task& t, int fd, GuestPtr<uint8_t> addr, GuestPtr<int32_t> addrlen) {
  return sys_accept4(t, fd, addr, addrlen, 0);
}

// accept4(2): the peer's address is written after the connection is taken; if that faults, the new socket is
// closed and the connection lost, as on Linux.
SysResult sys_accept4(Task& t, int fd, GuestPtr<uint8_t> addr, GuestPtr<int32_t> addrlen, int flags) {
  if (flags & ~(guest::kSOCK_CLOEXEC | guest::kSOCK_NONBLOCK)) return -EINVAL;
  if (is_reserved_fd(fd)) return -EBADF;
  ::sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  const int64_t nfd =
      signals::safe_fd_call(t, SYS_accept4, {fd, POLLIN}, addr.null() ? 0 : reinterpret_cast<long>(&ss),
                            addr.null() ? 0 : reinterpret_cast<long>(&len), flags);
  if (nfd < 0) return nfd;
  if (!addr.null()) {
    if (const int64_t e = sockaddr_out(t, ss, len, addr.addr, addrlen.addr); e != 0) {
      ::close(static_cast<int>(nfd));
      return e;
    }
  }
  return nfd;
}

SysResult sys_connect(Task& t, int fd, GuestPtr<const uint8_t> addr, int addrlen) {
  if (is_reserved_fd(fd)) return -EBADF;
  ::sockaddr_storage ss;
  const ::sockaddr* sa = sockaddr_for_host(t, addr.addr, addrlen, &ss);
  return signals::safe_fd_call(t, SYS_connect, {fd, POLLOUT}, reinterpret_cast<long>(sa), addrlen);
}

SysResult sys_getsockname(Task& t, int fd, GuestPtr<uint8_t> addr, GuestPtr<int32_t> addrlen) {
  return get_name(t, fd, addr.addr, addrlen.addr, ::getsockname);
}

SysResult sys_getpeername(Task& t, int fd, GuestPtr<uint8_t> addr, GuestPtr<int32_t> addrlen) {
  return get_name(t, fd, addr.addr, addrlen.addr, ::getpeername);
}

// setsockopt(2): option values are the same bytes on arm64 and x86-64 (ints, struct linger, timevals,
// ip_mreqn...), so the guest's buffer goes to the host as is, except programs (set_filter).
SysResult sys_setsockopt(Task& t, int fd, int level, int optname, GuestPtr<const uint8_t> optval,
                         int optlen) {
  if (optlen < 0) return -EINVAL;
  if (is_reserved_fd(fd)) return -EBADF;
  if (level == guest::kSOL_SOCKET &&
      (optname == guest::kSO_ATTACH_FILTER || optname == guest::kSO_ATTACH_REUSEPORT_CBPF)) {
    return set_filter(t, fd, optname, optval.addr, optlen);
  }
  const void* value = host_buf(t.as(), optval.addr, static_cast<uint64_t>(optlen), PROT_READ);
  return from_host(::syscall(SYS_setsockopt, fd, level, optname, value, static_cast<socklen_t>(optlen)));
}

// getsockopt(2): the value comes back through a host buffer and only the bytes the host wrote are copied out,
// so that, as on Linux, a length larger than the guest's mapped buffer is fine when the value is short. A
// buffer that is writable for its whole length (netfilter tables can be large) is written by the host
// itself; a partly mapped one larger than kMaxBounce bounces kMaxBounce bytes at most.
SysResult sys_getsockopt(Task& t, int fd, int level, int optname, GuestPtr<uint8_t> optval,
                         GuestPtr<int32_t> optlen) {
  constexpr int32_t kBounce = 4096;
  constexpr int32_t kMaxBounce = 1 << 20;
  if (is_reserved_fd(fd)) return -EBADF;
  int32_t len = 0;
  socklen_t host_len = 0;
  socklen_t* len_ptr = &host_len;
  if (optlen.read(t.as(), &len) != 0) {
    len_ptr = static_cast<socklen_t*>(kHostFaultAddr);
  } else {
    host_len = static_cast<socklen_t>(len);
  }
  std::array<uint8_t, kBounce> bounce{};
  std::vector<uint8_t> large;
  void* value = host_buf(t.as(), optval.addr, static_cast<uint64_t>(std::max(len, 0)), PROT_WRITE);
  bool bounced = false;
  if (!optval.null() && len >= 0 && (len <= kBounce || value == kHostFaultAddr)) {
    bounced = true;
    if (len <= kBounce) {
      value = bounce.data();
    } else {
      large.resize(static_cast<size_t>(std::min(len, kMaxBounce)));
      value = large.data();
      host_len = static_cast<socklen_t>(large.size());
    }
  }
  if (::syscall(SYS_getsockopt, fd, level, optname, value, len_ptr) != 0) {
    // SO_PEERSEC and SO_PEERGROUPS answer a short buffer with ERANGE and the length they need.
    const int64_t err = guest::neg_errno();
    if (err == -ERANGE && len_ptr == &host_len) (void)optlen.write(t.as(), static_cast<int32_t>(host_len));
    return err;
  }
  if (bounced && emu::copy_out(t.as(), optval.addr, value,
                               std::min<uint64_t>(host_len, static_cast<uint64_t>(std::max(len, 0)))) != 0) {
    return -EFAULT;
  }
  return optlen.write(t.as(), static_cast<int32_t>(host_len)) != 0 ? -EFAULT : 0;
}

SysResult sys_shutdown(Task&, int fd, int how) {
  if (is_reserved_fd(fd)) return -EBADF;
  return from_host(::shutdown(fd, how));
}

}  // namespace syscalls
