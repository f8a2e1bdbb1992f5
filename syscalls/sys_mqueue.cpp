// This file implements POSIX message queues on the host's queues: a guest queue descriptor is a host one.
// mq_timedsend and mq_timedreceive are the host's calls made interruptible (ipc_wait.h; ERESTARTSYS, so
// SA_RESTART restarts them: their timeout is absolute); mq_notify registers with the host, translating
// SIGEV_SIGNAL (signals/mq_notify.h) and SIGEV_THREAD's cookie.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <climits>

#include <algorithm>
#include <vector>

#include "signals/mq_notify.h"
#include "signals/park.h"
#include "signals/safe_syscall.h"
#include "signals/signals.h"
#include "syscalls/abi/errno.h"
#include "syscalls/abi/fcntl.h"
#include "syscalls/fd_util.h"
#include "syscalls/host_call.h"
#include "syscalls/ipc_wait.h"
#include "syscalls/sys_mqueue.h"

namespace syscalls {
namespace {

using guest::from_host;

// What the polled form (ipc_wait.h) returns while the call has found nothing yet: no result of the call.
constexpr int64_t kNothingYet = int64_t{1} << 40;
// The polled form's slice: a timed host call that ends this long after it began, at the latest.
constexpr timespec kSlice{0, 2'000'000};

// prepare_timeout: the absolute CLOCK_REALTIME timeout, EFAULT or EINVAL before anything else.
int64_t read_abs_timeout(Task& t, GuestPtr<const guest::timespec> p, timespec* out) {
  guest::timespec g{};
  if (p.read(t.as(), &g) != 0) return -EFAULT;
  if (g.tv_sec < 0 || g.tv_nsec < 0 || g.tv_nsec >= 1'000'000'000) return -EINVAL;
  *out = guest::to_host(g);
  return 0;
}

// A send or receive (`nr`, with the queue, buffer, length and the third argument: the priority or a
// pointer to it) that may wait until the absolute `deadline` (nullptr: for ever).
int64_t timed_call(Task& t, long nr, int mqd, void* buf, uint64_t len, long third, const timespec* deadline) {
  const auto b = reinterpret_cast<long>(buf);
  const auto n = static_cast<long>(len);
  IpcWait w;
  w.blocking = [&]() -> int64_t {
    return signals::safe_syscall(t, nr, mqd, b, n, third, reinterpret_cast<long>(deadline));
  };
  w.nowait = [&]() -> int64_t {
    const timespec now = signals::now(CLOCK_REALTIME);
    timespec until = signals::add(now, kSlice);
    const bool last = deadline != nullptr && !signals::before(until, *deadline);
    if (last) until = *deadline;
    const int64_t r = from_host(::syscall(nr, mqd, b, n, third, &until));
    return r == -ETIMEDOUT && !last ? kNothingYet : r;
  };
  w.would_block = kNothingYet;
  const int64_t r = ipc_wait(t, w);
  return r == -EINTR ? signals::kERESTARTSYS : r;
}

// The queue's message size, or 0 when the host does not say (a bad descriptor: the call reports it).
uint64_t message_size(int mqd) {
  ::mq_attr a{};
  return ::syscall(SYS_mq_getsetattr, mqd, nullptr, &a) == 0 ? static_cast<uint64_t>(a.mq_msgsize) : 0;
}

int64_t host_notify(int mqd, const ::sigevent* ev) {
  return from_host(::syscall(SYS_mq_notify, mqd, ev));
}

}  // namespace

// mq_open(2): the attributes are read first, then the name (do_mq_open's getname).
SysResult sys_mq_open(Task& t, GuestCStr name, int oflag, uint32_t mode,
                      GuestPtr<const guest::mq_attr> attr) {
  ::mq_attr ha{};
  ::mq_attr* hap = nullptr;
  if (!attr.null()) {
    guest::mq_attr g{};
    if (attr.read(t.as(), &g) != 0) return -EFAULT;
    ha = guest::to_host(g);
    hap = &ha;
  }
  std::string n;
  if (const int64_t r = emu::read_cstring(t.as(), name.addr, PATH_MAX - 1, &n); r < 0) return r;
  return from_host(
      ::syscall(SYS_mq_open, n.c_str(), guest::host_open_flags(static_cast<uint32_t>(oflag)), mode, hap));
}

SysResult sys_mq_unlink(Task& t, GuestCStr name) {
  std::string n;
  if (const int64_t r = emu::read_cstring(t.as(), name.addr, PATH_MAX - 1, &n); r < 0) return r;
  return from_host(::syscall(SYS_mq_unlink, n.c_str()));
}

// The host reads the message from the guest's pages (an unreadable buffer reaches it as a faulting address,
// so EBADF and EMSGSIZE still come first, as in do_mq_timedsend).
SysResult sys_mq_timedsend(Task& t, int mqd, uint64_t msg, uint64_t len, uint32_t prio,
                           GuestPtr<const guest::timespec> abs_timeout) {
  timespec ts{};
  if (!abs_timeout.null()) {
    if (const int64_t r = read_abs_timeout(t, abs_timeout, &ts); r < 0) return r;
  }
  if (is_reserved_fd(mqd)) return -EBADF;
  void* buf = host_buf(t.as(), msg, len, PROT_READ);
  return timed_call(t, SYS_mq_timedsend, mqd, buf, len, prio, abs_timeout.null() ? nullptr : &ts);
}

// The host writes the message into the guest's pages when all `len` bytes are writable; otherwise into a
// bounce buffer of the queue's message size that is copied out (EFAULT then, the message taken, as Linux's
// store_msg).
SysResult sys_mq_timedreceive(Task& t, int mqd, uint64_t msg, uint64_t len, GuestPtr<uint32_t> prio,
                              GuestPtr<const guest::timespec> abs_timeout) {
  timespec ts{};
  if (!abs_timeout.null()) {
    if (const int64_t r = read_abs_timeout(t, abs_timeout, &ts); r < 0) return r;
  }
  if (is_reserved_fd(mqd)) return -EBADF;
  void* buf = emu::host_range(t.as(), msg, len, PROT_WRITE);
  std::vector<uint8_t> bounce;
  if (buf == nullptr) {
    bounce.resize(std::min(len, message_size(mqd)));
    buf = bounce.empty() ? kHostFaultAddr : bounce.data();
  }
  unsigned int hprio = 0;
  const int64_t r = timed_call(t, SYS_mq_timedreceive, mqd, buf, len, reinterpret_cast<long>(&hprio),
                               abs_timeout.null() ? nullptr : &ts);
  if (r < 0) return r;
  if (!prio.null() && prio.write(t.as(), hprio) != 0) return -EFAULT;
  if (!bounce.empty() && emu::copy_out(t.as(), msg, bounce.data(), static_cast<uint64_t>(r)) != 0)
    return -EFAULT;
  return r;
}

// do_mq_notify's order: the sigevent (EFAULT, EINVAL, SIGEV_THREAD's cookie and socket), then the queue.
SysResult sys_mq_notify(Task& t, int mqd, GuestPtr<const guest::sigevent> sevp) {
  if (sevp.null()) {
    if (is_reserved_fd(mqd)) return -EBADF;
    return host_notify(mqd, nullptr);
  }
  guest::sigevent g{};
  if (sevp.read(t.as(), &g) != 0) return -EFAULT;
  ::sigevent ev{};
  uint8_t cookie[guest::kNOTIFY_COOKIE_LEN];
  switch (g.sigev_notify) {
    case guest::kSIGEV_NONE:
      ev.sigev_notify = SIGEV_NONE;
      break;
    case guest::kSIGEV_SIGNAL:
      if (static_cast<uint32_t>(g.sigev_signo) > static_cast<uint32_t>(guest::kNSIG)) return -EINVAL;
      if (is_reserved_fd(mqd)) return -EBADF;
      return signals::mq_notify_signal(t.proc(), mqd, g.sigev_signo, g.sigev_value, &host_notify);
    case guest::kSIGEV_THREAD:
      if (emu::copy_in(t.as(), cookie, g.sigev_value, sizeof cookie) != 0) return -EFAULT;
      if (is_reserved_fd(g.sigev_signo)) return -EBADF;
      ev.sigev_notify = SIGEV_THREAD;
      ev.sigev_signo = g.sigev_signo;  // the netlink socket
      ev.sigev_value.sival_ptr = cookie;
      break;
    default:
      return -EINVAL;
  }
  if (is_reserved_fd(mqd)) return -EBADF;
  return host_notify(mqd, &ev);
}

SysResult sys_mq_getsetattr(Task& t, int mqd, GuestPtr<const guest::mq_attr> newattr,
                            GuestPtr<guest::mq_attr> oldattr) {
  ::mq_attr hn{};
  ::mq_attr ho{};
  if (!newattr.null()) {
    guest::mq_attr g{};
    if (newattr.read(t.as(), &g) != 0) return -EFAULT;
    hn = guest::to_host(g);
  }
  if (is_reserved_fd(mqd)) return -EBADF;
  const int64_t r = from_host(::syscall(SYS_mq_getsetattr, mqd, newattr.null() ? nullptr : &hn, &ho));
  if (r < 0 || oldattr.null()) return r;
  return oldattr.write(t.as(), guest::to_guest(ho)) != 0 ? -EFAULT : 0;
}

}  // namespace syscalls
