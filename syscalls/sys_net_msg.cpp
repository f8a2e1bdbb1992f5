// This file implements socket data transfer (sendto, recvfrom, sendmsg, recvmsg, sendmmsg, recvmmsg): guest
// msghdrs become host msghdrs whose iovecs point into guest memory, control messages are converted header by
// header, and a blocking call is the host's, made as a safe system call that a guest signal ends.
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <span>
#include <vector>

#include "emu/task.h"
#include "signals/fd_wait.h"
#include "signals/signals.h"
#include "syscalls/abi/cmsg.h"
#include "syscalls/abi/errno.h"
#include "syscalls/fd_util.h"
#include "syscalls/host_call.h"
#include "syscalls/proc_mem.h"
#include "syscalls/sys_file.h"
#include "syscalls/sys_net.h"
#include "syscalls/sys_poll.h"

namespace syscalls {
namespace {

using guest::from_host;

// linux/socket.h: set only by the kernel's compat entry points; native callers get EINVAL.
constexpr uint32_t kMsgCmsgCompat = 0x80000000;
// Control buffers are copied through the emulator; Linux caps a sent one at optmem_max (ENOBUFS), far below
// this, and a received one needs a few hundred bytes (SCM_MAX_FD = 253 fds).
constexpr uint64_t kMaxControl = 1 << 20;

bool fd_ok_for_guest(int fd) {
  return !is_reserved_fd(fd);
}

// The descriptors a received message installed may be /proc/PID/mem files (syscalls/proc_mem.h).
void note_received_fds(::msghdr& m) {
  if (m.msg_control == nullptr) return;
  for (::cmsghdr* c = CMSG_FIRSTHDR(&m); c != nullptr; c = CMSG_NXTHDR(&m, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS || c->cmsg_len < CMSG_LEN(0)) continue;
    const size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < n; ++i) {
      int fd;
      memcpy(&fd, CMSG_DATA(c) + i * sizeof fd, sizeof fd);
      proc_mem_note_fd(fd);
    }
  }
}

// A guest message as a host msghdr: iovecs into guest memory, the name and control data in local buffers.
class HostMsg {
 public:
  HostMsg() = default;
  HostMsg(const HostMsg&) = delete;
  HostMsg& operator=(const HostMsg&) = delete;

  // copy_msghdr_from_user and, for a send, the control data. Returns 0 or -errno.
  int64_t import(Task& t, const guest::msghdr& g, bool sending);
  // ____sys_recvmsg's copy-out: the sender's address, msg_flags, and the control data with its length.
  int64_t export_recv(Task& t, uint64_t msg_addr, const guest::msghdr& g);
  uint64_t total() const { return total_; }

  ::msghdr msg{};

 private:
  ::sockaddr_storage name_{};
  HostIovecs iov_;
  std::vector<uint8_t> control_;
  uint64_t total_ = 0;
};

int64_t HostMsg::import(Task& t, const guest::msghdr& g, bool sending) {
  int32_t namelen = g.msg_name == 0 ? 0 : static_cast<int32_t>(g.msg_namelen);
  if (namelen < 0) return -EINVAL;
  namelen = std::min<int32_t>(namelen, sizeof name_);
  if (g.msg_name != 0 && namelen > 0) {
    if (sending && emu::copy_in(t.as(), &name_, g.msg_name, static_cast<size_t>(namelen)) != 0)
      return -EFAULT;
    msg.msg_name = &name_;
    msg.msg_namelen = sending ? static_cast<socklen_t>(namelen) : sizeof name_;
  }
  if (g.msg_iovlen > static_cast<uint64_t>(guest::kUIO_MAXIOV)) return -EMSGSIZE;
  const int prot = sending ? PROT_READ : PROT_WRITE;
  if (const int64_t e = iov_.import(t.as(), g.msg_iov, g.msg_iovlen, prot); e != 0) return e;
  msg.msg_iov = const_cast<::iovec*>(iov_.data());
  msg.msg_iovlen = static_cast<size_t>(iov_.count());
  for (int i = 0; i < iov_.count(); ++i) total_ += iov_.data()[i].iov_len;
  if (g.msg_controllen == 0) return 0;
  if (sending && g.msg_controllen > std::min<uint64_t>(INT_MAX, kMaxControl)) return -ENOBUFS;
  control_.resize(std::min(g.msg_controllen, kMaxControl));
  msg.msg_control = g.msg_control == 0 && !sending ? nullptr : control_.data();
  msg.msg_controllen = control_.size();
  if (!sending) return 0;
  std::vector<uint8_t> raw(control_.size());
  if (emu::copy_in(t.as(), raw.data(), g.msg_control, raw.size()) != 0) return -EFAULT;
  return guest::cmsgs_to_host(raw, control_, fd_ok_for_guest);
}

int64_t HostMsg::export_recv(Task& t, uint64_t msg_addr, const guest::msghdr& g) {
  if (g.msg_name != 0) {
    const uint64_t ulen = msg_addr + offsetof(guest::msghdr, msg_namelen);
    if (const int64_t e = sockaddr_out(t, name_, msg.msg_name ? msg.msg_namelen : 0, g.msg_name, ulen);
        e != 0) {
      return e;
    }
  }
  const uint32_t flags = static_cast<uint32_t>(msg.msg_flags) & ~kMsgCmsgCompat;
  if (emu::copy_out(t.as(), msg_addr + offsetof(guest::msghdr, msg_flags), &flags, sizeof flags) != 0)
    return -EFAULT;
  const uint64_t used = msg.msg_control != nullptr ? msg.msg_controllen : 0;
  note_received_fds(msg);
  if (used > 0) {
    std::vector<uint8_t> out(used);
    guest::cmsgs_to_guest(std::span<const uint8_t>(control_.data(), used), out);
    if (emu::copy_out(t.as(), g.msg_control, out.data(), out.size()) != 0) return -EFAULT;
  }
  const uint64_t at = msg_addr + offsetof(guest::msghdr, msg_controllen);
  return emu::copy_out(t.as(), at, &used, sizeof used) != 0 ? -EFAULT : 0;
}

// One send or receive with Linux's blocking rules. On a blocking socket a receive first tries with
// MSG_DONTWAIT and looks again for a moment (signals::look_again), as a blocking read does; then the call,
// and a send at once, is the host's own blocking call made as a safe system call (signals::safe_fd_call), so
// that every rule is the host kernel's (a stream send that goes on until everything is sent, MSG_WAITALL, a
// datagram send that waits for room in an unconnected peer, MSG_OOB, MSG_ERRQUEUE, SO_RCVTIMEO and
// SO_SNDTIMEO) and a guest signal ends it like any other wait. A MSG_WAITALL receive on a stream socket that
// found part of what it wants goes on for the rest; a signal or timeout then returns the partial count.
class Transfer {
 public:
  Transfer(Task& t, int fd, ::msghdr& m, uint32_t flags, bool sending, uint64_t total)
      : t_(t), fd_(fd), m_(m), flags_(flags), sending_(sending), total_(total) {}
  int64_t run();

 private:
  int64_t once(uint32_t flags) {
    emu::RunLockReleaser unlocked(t_.proc().run_lock(), &t_.cpu());
    return from_host(::syscall(sending_ ? SYS_sendmsg : SYS_recvmsg, fd_, &m_, static_cast<int>(flags)));
  }
  int64_t blocking() {
    return signals::safe_fd_call(t_, sending_ ? SYS_sendmsg : SYS_recvmsg, {fd_, sending_ ? POLLOUT : POLLIN},
                                 reinterpret_cast<long>(&m_), static_cast<long>(flags_));
  }
  bool stream();
  bool wants_more(int64_t n) const;
  void advance(uint64_t n);
  int64_t partial_or(int64_t err);

  Task& t_;
  int fd_;
  ::msghdr& m_;
  uint32_t flags_;
  bool sending_;
  uint64_t total_;
  uint64_t done_ = 0;
  int stream_ = -1;
  std::vector<::iovec> iov_;  // the remaining iovecs once a partial transfer advanced them
  bool advanced_ = false;
  ::msghdr first_{};  // a receive's name, control and flags as its first chunk left them
};

bool Transfer::stream() {
  if (stream_ < 0) {
    int type = 0;
    socklen_t len = sizeof type;
    stream_ = ::getsockopt(fd_, SOL_SOCKET, SO_TYPE, &type, &len) == 0 && type == SOCK_STREAM;
  }
  return stream_ == 1;
}

// A MSG_WAITALL receive that got part of what it asked for waits for the rest (tcp_recvmsg).
bool Transfer::wants_more(int64_t n) const {
  return done_ < total_ && n > 0 && (flags_ & guest::kMSG_WAITALL) && !(flags_ & guest::kMSG_PEEK);
}

// Drops n received bytes from the front; later chunks carry no name or control data.
void Transfer::advance(uint64_t n) {
  if (!advanced_) {
    advanced_ = true;
    first_ = m_;
    iov_.assign(m_.msg_iov, m_.msg_iov + m_.msg_iovlen);
    m_.msg_name = nullptr;
    m_.msg_namelen = 0;
    m_.msg_control = nullptr;
    m_.msg_controllen = 0;
  }
  auto it = iov_.begin();
  while (it != iov_.end() && n >= it->iov_len) n -= (it++)->iov_len;
  iov_.erase(iov_.begin(), it);
  if (!iov_.empty()) {
    iov_.front().iov_base = static_cast<uint8_t*>(iov_.front().iov_base) + n;
    iov_.front().iov_len -= n;
  }
  m_.msg_iov = iov_.data();
  m_.msg_iovlen = iov_.size();
}

// What the call returns once it stops: bytes already moved win over the error or signal that stopped it.
int64_t Transfer::partial_or(int64_t err) {
  if (done_ == 0) return err;
  if (advanced_) {
    m_.msg_name = first_.msg_name;
    m_.msg_namelen = first_.msg_namelen;
    m_.msg_control = first_.msg_control;
    m_.msg_controllen = first_.msg_controllen;
    m_.msg_flags = first_.msg_flags;
  }
  return static_cast<int64_t>(done_);
}

int64_t Transfer::run() {
  const int64_t blocks = sock_blocking(fd_, flags_);
  if (blocks < 0) return blocks;
  if (blocks == 0) return once(flags_);
  if (!sending_) {
    int64_t n = once(flags_ | guest::kMSG_DONTWAIT);
    if (n == -EAGAIN) {
      n = signals::look_again(t_, [&] {
        return from_host(::syscall(SYS_recvmsg, fd_, &m_, static_cast<int>(flags_ | guest::kMSG_DONTWAIT)));
      });
    }
    if (n != -EAGAIN) {
      if (n < 0) return n;
      done_ = static_cast<uint64_t>(n);
      if (!wants_more(n) || !stream()) return n;
      advance(static_cast<uint64_t>(n));
    }
  }
  const int64_t r = blocking();
  if (r < 0) return partial_or(r);
  done_ += static_cast<uint64_t>(r);
  return partial_or(0);
}

}  // namespace

int64_t sock_transfer(Task& t, int fd, ::msghdr& m, uint32_t flags, bool sending, uint64_t total) {
  return Transfer(t, fd, m, flags, sending, total).run();
}

SysResult sys_sendto(Task& t, int fd, GuestPtr<const uint8_t> buf, uint64_t len, uint32_t flags,
                     GuestPtr<const uint8_t> addr, int addrlen) {
  if (is_reserved_fd(fd)) return -EBADF;
  len = std::min(len, kMaxRwCount);
  const HostTransfer b = host_transfer(t.as(), buf.addr, len, PROT_READ);
  len = b.len;
  ::iovec iov{b.ptr, len};
  ::msghdr m{};
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  ::sockaddr_storage ss;
  if (!addr.null()) {
    if (addrlen < 0 || addrlen > static_cast<int>(sizeof ss)) return -EINVAL;  // move_addr_to_kernel
    m.msg_name = const_cast<::sockaddr*>(sockaddr_for_host(t, addr.addr, addrlen, &ss));
    m.msg_namelen = static_cast<socklen_t>(addrlen);
  }
  return sock_transfer(t, fd, m, flags, true, len);
}

// recvfrom(2): the sender's address is written only after data arrived (move_addr_to_user).
SysResult sys_recvfrom(Task& t, int fd, GuestPtr<uint8_t> buf, uint64_t len, uint32_t flags,
                       GuestPtr<uint8_t> addr, GuestPtr<int32_t> addrlen) {
  if (is_reserved_fd(fd)) return -EBADF;
  len = std::min(len, kMaxRwCount);
  const HostTransfer b = host_transfer(t.as(), buf.addr, len, PROT_WRITE);
  len = b.len;
  ::iovec iov{b.ptr, len};
  ::msghdr m{};
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  ::sockaddr_storage ss{};
  if (!addr.null()) {
    m.msg_name = &ss;
    m.msg_namelen = sizeof ss;
  }
  const int64_t r = sock_transfer(t, fd, m, flags, false, len);
  if (r < 0 || addr.null()) return r;
  if (const int64_t e = sockaddr_out(t, ss, m.msg_namelen, addr.addr, addrlen.addr); e != 0) return e;
  return r;
}

SysResult sys_sendmsg(Task& t, int fd, GuestPtr<const guest::msghdr> msg, uint32_t flags) {
  if (flags & kMsgCmsgCompat) return -EINVAL;
  if (is_reserved_fd(fd)) return -EBADF;
  guest::msghdr g{};
  if (msg.read(t.as(), &g) != 0) return -EFAULT;
  HostMsg hm;
  if (const int64_t e = hm.import(t, g, true); e != 0) return e;
  return sock_transfer(t, fd, hm.msg, flags, true, hm.total());
}

SysResult sys_recvmsg(Task& t, int fd, GuestPtr<guest::msghdr> msg, uint32_t flags) {
  if (flags & kMsgCmsgCompat) return -EINVAL;
  if (is_reserved_fd(fd)) return -EBADF;
  guest::msghdr g{};
  if (msg.read(t.as(), &g) != 0) return -EFAULT;
  HostMsg hm;
  if (const int64_t e = hm.import(t, g, false); e != 0) return e;
  const int64_t r = sock_transfer(t, fd, hm.msg, flags, false, hm.total());
  if (r < 0) return r;
  if (const int64_t e = hm.export_recv(t, msg.addr, g); e != 0) return e;
  return r;
}

// sendmmsg(2) (__sys_sendmmsg): each message is one sendmsg, MSG_EOR taken from its msg_flags; a short send
// ends the batch; an error is returned only when no message went.
SysResult sys_sendmmsg(Task& t, int fd, GuestPtr<guest::mmsghdr> msgvec, uint32_t vlen, uint32_t flags) {
  if (flags & kMsgCmsgCompat) return -EINVAL;
  if (is_reserved_fd(fd)) return -EBADF;
  vlen = std::min<uint32_t>(vlen, guest::kUIO_MAXIOV);
  uint32_t sent = 0;
  int64_t err = 0;
  while (sent < vlen) {
    const uint64_t entry = msgvec.addr + uint64_t{sent} * sizeof(guest::mmsghdr);
    guest::msghdr g{};
    if (emu::copy_in(t.as(), &g, entry, sizeof g) != 0) {
      err = -EFAULT;
      break;
    }
    HostMsg hm;
    if ((err = hm.import(t, g, true)) != 0) break;
    const uint32_t f = flags | (g.msg_flags & guest::kMSG_EOR) | (sent + 1 < vlen ? guest::kMSG_BATCH : 0);
    const int64_t n = sock_transfer(t, fd, hm.msg, f, true, hm.total());
    if (n < 0) {
      err = n;
      break;
    }
    const auto msg_len = static_cast<uint32_t>(n);
    if (emu::copy_out(t.as(), entry + offsetof(guest::mmsghdr, msg_len), &msg_len, sizeof msg_len) != 0) {
      err = -EFAULT;
      break;
    }
    ++sent;
    if (static_cast<uint64_t>(n) < hm.total()) break;
  }
  return sent > 0 ? sent : err;
}

// recvmmsg(2) (do_recvmmsg): each message is one recvmsg; MSG_WAITFORONE stops waiting after the first. As on
// Linux, the timeout is looked at only after each message, never during a blocking receive.
SysResult sys_recvmmsg(Task& t, int fd, GuestPtr<guest::mmsghdr> msgvec, uint32_t vlen, uint32_t flags,
                       GuestPtr<guest::timespec> timeout) {
  Timeout to;
  if (const int64_t e = read_timeout(t, timeout.addr, &to); e != 0) return e;
  if (flags & kMsgCmsgCompat) return -EINVAL;
  if (is_reserved_fd(fd)) return -EBADF;
  vlen = std::min<uint32_t>(vlen, guest::kUIO_MAXIOV);
  uint32_t got = 0;
  int64_t err = 0;
  while (got < vlen) {
    const uint64_t entry = msgvec.addr + uint64_t{got} * sizeof(guest::mmsghdr);
    guest::msghdr g{};
    HostMsg hm;
    if (emu::copy_in(t.as(), &g, entry, sizeof g) != 0) {
      err = -EFAULT;
    } else if ((err = hm.import(t, g, false)) == 0) {
      err = sock_transfer(t, fd, hm.msg, flags & ~guest::kMSG_WAITFORONE, false, hm.total());
      if (err >= 0) {
        const auto msg_len = static_cast<uint32_t>(err);
        err = hm.export_recv(t, entry, g);
        if (err == 0 && emu::copy_out(t.as(), entry + offsetof(guest::mmsghdr, msg_len), &msg_len, 4) != 0) {
          err = -EFAULT;
        }
      }
    }
    if (err != 0) break;
    ++got;
    if (flags & guest::kMSG_WAITFORONE) flags |= guest::kMSG_DONTWAIT;
    if (!to.infinite && !signals::before(signals::now(CLOCK_MONOTONIC), to.deadline)) break;
    if (static_cast<uint32_t>(hm.msg.msg_flags) & guest::kMSG_OOB) break;
  }
  if (got == 0 || timeout.null()) return got > 0 ? got : err;
  // The time left goes back to the guest (__sys_recvmmsg), and a fault there outweighs the messages.
  const guest::timespec left =
      guest::to_guest(signals::sub_clamped(to.deadline, signals::now(CLOCK_MONOTONIC)));
  return timeout.write(t.as(), left) != 0 ? -EFAULT : got;
}

}  // namespace syscalls
