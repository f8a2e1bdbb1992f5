// This file is the libFuzzer entry point for the guest argument decoders that need no guest: control-message
// chains both ways (walked as the kernel walks them), iovec length clamping, siginfo layouts and conversions,
// open flags, and the struct conversions of syscalls/abi. The first input byte picks the decoder, the rest is
// the guest's bytes; each check states a property that Linux's own decoding has.
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <vector>

#include "syscalls/abi/cmsg.h"
#include "syscalls/abi/epoll.h"
#include "syscalls/abi/fcntl.h"
#include "syscalls/abi/iovec.h"
#include "syscalls/abi/ipc.h"
#include "syscalls/abi/mqueue.h"
#include "syscalls/abi/siginfo.h"
#include "syscalls/abi/termios.h"
#include "syscalls/abi/time_abi.h"
#include "syscalls/abi/types.h"
#include "tests/fuzz/cmsg_walk.h"

namespace {

using guest::fuzz::CmsgHeader;
using guest::fuzz::walk_cmsgs;

[[noreturn]] void fail(const char* what) {
  fprintf(stderr, "syscall_args_fuzzer: %s\n", what);
  abort();
}

// A struct of the payload, zero-filled past its end.
template <typename T>
T take(std::span<const uint8_t> p, size_t at = 0) {
  T v{};
  if (at < p.size()) memcpy(&v, p.data() + at, std::min(sizeof v, p.size() - at));
  return v;
}

// The bytes of a struct: what copy_out hands the guest, padding included (a conversion must not leave
// indeterminate bytes there), so equality is meant byte for byte.
template <typename T>
std::array<uint8_t, sizeof(T)> bytes_of(const T& v) {
  std::array<uint8_t, sizeof(T)> out;
  memcpy(out.data(), &v, sizeof v);
  return out;
}

bool fd_ok(int fd) {
  return fd % 7 != 3;  // stands for a64run's reserved descriptors
}

// sendmsg: the host chain has the guest's headers and payloads where the kernel would find them, and a
// chain the kernel refuses (EINVAL) is refused at the same header. EBADF only for a refused fd in an
// SCM_RIGHTS message the kernel reads (scm_fp_copy: at most SCM_MAX_FD fds in all, else EINVAL first).
void cmsgs_out(std::span<const uint8_t> g) {
  std::vector<uint8_t> h(g.size(), 0xee);
  const int64_t r = guest::cmsgs_to_host(g, h, fd_ok);
  const std::vector<CmsgHeader> gw = walk_cmsgs(g);
  bool refused_fd = false;
  uint64_t fds = 0;
  for (const CmsgHeader& c : gw) {
    if (c.bad) break;
    if (c.level != SOL_SOCKET || c.type != SCM_RIGHTS) continue;
    const uint64_t n = (c.len - sizeof(::cmsghdr)) / sizeof(int32_t);
    if ((fds += n) > guest::fuzz::kScmMaxFd) break;
    for (uint64_t i = 0; i < n && !refused_fd; ++i)
      refused_fd = !fd_ok(take<int32_t>(g, c.off + sizeof(::cmsghdr) + 4 * i));
    if (refused_fd) break;
  }
  if ((r == -EBADF) != refused_fd) fail(refused_fd ? "a refused fd passed" : "EBADF without a refused fd");
  if (r == -EBADF) return;
  if (r != 0) fail("cmsgs_to_host returned neither 0 nor -EBADF");
  if (walk_cmsgs(h) != gw) fail("the host chain walks differently from the guest's");
  for (const CmsgHeader& c : gw) {
    if (!c.bad && memcmp(h.data() + c.off, g.data() + c.off, c.len) != 0)
      fail("a message changed on its way");
  }
}

// recvmsg: the guest gets the host's messages at the same offsets, and as many bytes as both buffers hold.
void cmsgs_in(std::span<const uint8_t> p) {
  const size_t guest_size = take<uint16_t>(p) % 1024;
  const std::span<const uint8_t> h = p.size() > 2 ? p.subspan(2) : std::span<const uint8_t>();
  std::vector<uint8_t> g(guest_size, 0xee);
  const uint64_t n = guest::cmsgs_to_guest(h, g);
  if (n != std::min(h.size(), g.size())) fail("cmsgs_to_guest wrote an unexpected length");
  const std::vector<CmsgHeader> hw = walk_cmsgs(h.first(n));
  if (walk_cmsgs(std::span<const uint8_t>(g.data(), n)) != hw) fail("the guest chain walks differently");
  for (const CmsgHeader& c : hw) {
    if (!c.bad && memcmp(g.data() + c.off, h.data() + c.off, c.len) != 0)
      fail("a message changed on its way");
  }
}

// import_iovec: EINVAL for a negative length; otherwise every length is kept, in order, until the total
// reaches MAX_RW_COUNT.
void iovecs(std::span<const uint8_t> p) {
  std::vector<guest::iovec> v(std::min<size_t>(p.size() / sizeof(guest::iovec), guest::kUIO_MAXIOV));
  if (!v.empty()) memcpy(v.data(), p.data(), v.size() * sizeof(guest::iovec));
  const std::vector<guest::iovec> before = v;
  const int64_t r = guest::clamp_iovecs(v);
  const bool negative = std::any_of(before.begin(), before.end(), [](const guest::iovec& x) {
    return static_cast<int64_t>(x.iov_len) < 0;
  });
  if (negative) {
    if (r != -EINVAL) fail("a negative iovec length was not EINVAL");
    return;
  }
  uint64_t left = guest::kMaxRwCount;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i].iov_base != before[i].iov_base || v[i].iov_len != std::min(before[i].iov_len, left))
      fail("an iovec clamped differently from the kernel");
    left -= v[i].iov_len;
  }
  if (r != static_cast<int64_t>(guest::kMaxRwCount - left)) fail("iovec total wrong");
}

// siginfo: the layout is one the kernel defines; host -> guest -> host -> guest is a fixed point.
void siginfos(std::span<const uint8_t> p) {
  const auto h = take<::siginfo_t>(p);
  const guest::siginfo g = guest::to_guest(h);
  const guest::siginfo g2 = guest::to_guest(guest::to_host(g));
  if (bytes_of(g) != bytes_of(g2)) fail("siginfo does not survive a round trip");
  if (g.si_signo != h.si_signo || g.si_code != h.si_code || g.si_errno != h.si_errno)
    fail("siginfo header fields changed");
  const auto gi = take<guest::siginfo>(p);
  const guest::siginfo g3 = guest::to_guest(guest::to_host(gi));
  if (g3.si_signo != gi.si_signo || g3.si_code != gi.si_code) fail("guest siginfo header changed");
  (void)guest::siginfo_layout(take<int32_t>(p), take<int32_t>(p, 4));
}

void open_flags(std::span<const uint8_t> p) {
  const auto g = take<uint32_t>(p);
  if (guest::guest_open_flags(guest::host_open_flags(g)) != g)
    fail("open flags guest -> host not a bijection");
  const auto h = take<int32_t>(p, 4);
  if (guest::host_open_flags(guest::guest_open_flags(h)) != h)
    fail("open flags host -> guest not a bijection");
}

// Conversions whose guest and host layouts carry the same fields: guest -> host -> guest is the identity.
template <typename G>
void exact(std::span<const uint8_t> p, const char* what) {
  const auto g = take<G>(p);
  const G back = guest::to_guest(guest::to_host(g));
  if (bytes_of(g) != bytes_of(back)) fail(what);
}

// With padding or fields only one side has: one round trip reaches a fixed point.
template <typename G>
void fixpoint(std::span<const uint8_t> p, const char* what) {
  const G once = guest::to_guest(guest::to_host(take<G>(p)));
  const G twice = guest::to_guest(guest::to_host(once));
  if (bytes_of(once) != bytes_of(twice)) fail(what);
}

void structs(uint8_t which, std::span<const uint8_t> p) {
  switch (which % 12) {
    case 0:
      return exact<guest::timespec>(p, "timespec");
    case 1:
      return exact<guest::timeval>(p, "timeval");
    case 2:
      return exact<guest::itimerspec>(p, "itimerspec");
    case 3:
      return exact<guest::itimerval>(p, "itimerval");
    case 4:
      return exact<guest::winsize>(p, "winsize");
    case 5:
      return exact<guest::timezone>(p, "timezone");
    case 6:
      return fixpoint<guest::epoll_event>(p, "epoll_event");
    case 7:
      return fixpoint<guest::flock>(p, "flock");
    case 8:
      return fixpoint<guest::mq_attr>(p, "mq_attr");
    case 9:
      return fixpoint<guest::shmid64_ds>(p, "shmid64_ds");
    case 10:
      return fixpoint<guest::semid64_ds>(p, "semid64_ds");
    default:
      return fixpoint<guest::msqid64_ds>(p, "msqid64_ds");
  }
}

// Length and value rules that bound what the kernel reads or accepts.
void bounds(std::span<const uint8_t> p) {
  const auto size = take<uint32_t>(p);
  const uint32_t n = guest::sched_attr_read_size(size);
  if (n > guest::kSchedAttrMaxSize || n < sizeof(uint32_t)) fail("sched_attr read size out of bounds");
  const auto ts = take<guest::timespec>(p, 4);
  if (guest::timespec_valid(ts) != (ts.tv_sec >= 0 && ts.tv_nsec >= 0 && ts.tv_nsec < 1000000000))
    fail("timespec_valid");
  (void)guest::classify_sleep_clock(take<int32_t>(p, 20));
  (void)guest::getrandom_flags_valid(take<uint32_t>(p, 24));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::span<const uint8_t> p(data + 1, size - 1);
  switch (data[0] % 8) {
    case 0:
      cmsgs_out(p);
      break;
    case 1:
      cmsgs_in(p);
      break;
    case 2:
      iovecs(p);
      break;
    case 3:
      siginfos(p);
      break;
    case 4:
      open_flags(p);
      break;
    case 5:
      bounds(p);
      break;
    default:
      structs(data[0] / 8, p);
      break;
  }
  return 0;
}
