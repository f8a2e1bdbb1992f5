// Sockets: creation, addresses, connection set-up, options (sys_net.cpp) and data transfer with guest
// msghdr, iovec and control-message translation (sys_net_msg.cpp).
#pragma once

#include <sys/socket.h>
#include <time.h>

#include <cstdint>

#include "syscalls/abi/socket.h"
#include "syscalls/abi/types.h"
#include "syscalls/dispatch.h"

namespace syscalls {

// One sendmsg or recvmsg (per `sending`) of `m`, whose iovecs hold `total` bytes, on socket fd with Linux's
// blocking rules, which are the host's: a blocking call is the host's, made as a safe system call that a
// guest signal ends (a blocking stream send, or a MSG_WAITALL receive, goes on until done, a signal or a
// timeout: then the partial count). Returns bytes moved, -errno, or a restart code.
int64_t sock_transfer(Task& t, int fd, ::msghdr& m, uint32_t flags, bool sending, uint64_t total);

// Whether a guest socket call should block: neither MSG_DONTWAIT nor O_NONBLOCK on the file. -errno for a
// bad fd.
int64_t sock_blocking(int fd, uint32_t msg_flags);

// move_addr_to_kernel for a host call: the guest sockaddr (at most sizeof(sockaddr_storage) bytes of it, the
// host judges `len` itself) copied into *buf, nullptr for a NULL one, or kHostFaultAddr when it does not
// copy.
const ::sockaddr* sockaddr_for_host(Task& t, uint64_t addr, int64_t len, ::sockaddr_storage* buf);
// move_addr_to_user: `klen` bytes of address to the guest, truncated to the guest's *ulen, which then gets
// klen. Returns 0, -EINVAL or -EFAULT.
int64_t sockaddr_out(Task& t, const ::sockaddr_storage& addr, uint32_t klen, uint64_t uaddr, uint64_t ulen);

SysResult sys_socket(Task& t, int domain, int type, int protocol);
SysResult sys_socketpair(Task& t, int domain, int type, int protocol, GuestPtr<int32_t> sv);
SysResult sys_bind(Task& t, int fd, GuestPtr<const uint8_t> addr, int addrlen);
SysResult sys_listen(Task& t, int fd, int backlog);
SysResult sys_accept(Task& t, int fd, GuestPtr<uint8_t> addr, GuestPtr<int32_t> addrlen);
SysResult sys_accept4(Task& t, int fd, GuestPtr<uint8_t> addr, GuestPtr<int32_t> addrlen, int flags);
SysResult sys_connect(Task& t, int fd, GuestPtr<const uint8_t> addr, int addrlen);
SysResult sys_getsockname(Task& t, int fd, GuestPtr<uint8_t> addr, GuestPtr<int32_t> addrlen);
SysResult sys_getpeername(Task& t, int fd, GuestPtr<uint8_t> addr, GuestPtr<int32_t> addrlen);
SysResult sys_setsockopt(Task& t, int fd, int level, int optname, GuestPtr<const uint8_t> optval, int optlen);
SysResult sys_getsockopt(Task& t, int fd, int level, int optname, GuestPtr<uint8_t> optval,
                         GuestPtr<int32_t> optlen);
SysResult sys_shutdown(Task& t, int fd, int how);

SysResult sys_sendto(Task& t, int fd, GuestPtr<const uint8_t> buf, uint64_t len, uint32_t flags,
                     GuestPtr<const uint8_t> addr, int addrlen);
SysResult sys_recvfrom(Task& t, int fd, GuestPtr<uint8_t> buf, uint64_t len, uint32_t flags,
                       GuestPtr<uint8_t> addr, GuestPtr<int32_t> addrlen);
SysResult sys_sendmsg(Task& t, int fd, GuestPtr<const guest::msghdr> msg, uint32_t flags);
SysResult sys_recvmsg(Task& t, int fd, GuestPtr<guest::msghdr> msg, uint32_t flags);
SysResult sys_sendmmsg(Task& t, int fd, GuestPtr<guest::mmsghdr> msgvec, uint32_t vlen, uint32_t flags);
SysResult sys_recvmmsg(Task& t, int fd, GuestPtr<guest::mmsghdr> msgvec, uint32_t vlen, uint32_t flags,
                       GuestPtr<guest::timespec> timeout);

}  // namespace syscalls
