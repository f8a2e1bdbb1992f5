// This file implements userfaultfd as the host's: the guest's pages are host pages of the window, so a guest
// access to a registered missing (or write-protected, or minor) page is a host page fault of the thread that
// runs it, which the host reports on the descriptor and resolves with the guest handler's UFFDIO_COPY and
// friends. The addresses in the ioctl structs are moved into the window on the way in, and those in the
// messages read from the descriptor back out of it.
//
// A thread blocks in such a fault as on Linux. Guest code runs without the run lock, so a fault there never
// holds up the handler; a system call whose own copy faults on a registered page would (its handler holds
// the run lock the handler thread needs), which is why UFFD_USER_MODE_ONLY-like behaviour is not emulated.
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <set>
#include <vector>

#include "signals/fd_wait.h"
#include "signals/safe_syscall.h"
#include "syscalls/abi/errno.h"
#include "syscalls/fd_util.h"
#include "syscalls/host_call.h"
#include "syscalls/sys_userfaultfd.h"

namespace syscalls {
namespace {

using guest::from_host;

// Descriptors this process got as userfaultfds (userfaultfd(2), USERFAULTFD_IOC_NEW). A number may have been
// closed and reused since: a read checks what it names. Syscall handlers run one at a time under the run
// lock, which guards the set (never touched with the lock released).
std::set<int> g_uffds;
std::atomic<bool> g_any{false};

constexpr uint32_t kIocNew = 0xaa00;  // USERFAULTFD_IOC_NEW, _IO(0xaa, 0) on /dev/userfaultfd
// UFFDIO_MOVE (Linux 6.8) and UFFDIO_POISON (6.6) are newer than Debian 12's headers.
constexpr uint32_t kUffdioMove = 0x05;
constexpr uint32_t kUffdioPoison = 0x08;

void remember(int fd) {
  if (fd < 0) return;
  g_uffds.insert(fd);
  g_any.store(true, std::memory_order_relaxed);
}

uint64_t to_host(Task& t, uint64_t g) {
  return g < t.as().size() ? reinterpret_cast<uint64_t>(t.as().host(g))
                           : reinterpret_cast<uint64_t>(kHostFaultAddr);
}
uint64_t to_guest(Task& t, uint64_t h) {
  const auto base = reinterpret_cast<uint64_t>(t.as().base());
  return h >= base && h - base < t.as().size() ? h - base : h;
}

// The struct each request carries, and the offsets of the addresses in it (at most two: dst and src).
struct Shape {
  uint32_t nr;
  uint32_t size;
  int addr_fields;
  uint32_t addr_offset[2];
  bool out;  // the kernel writes some of it back
};
constexpr Shape kShapes[] = {
    {_IOC_NR(UFFDIO_API), sizeof(uffdio_api), 0, {0, 0}, true},
    {_IOC_NR(UFFDIO_REGISTER), sizeof(uffdio_register), 1, {0, 0}, true},
    {_IOC_NR(UFFDIO_UNREGISTER), sizeof(uffdio_range), 1, {0, 0}, false},
    {_IOC_NR(UFFDIO_WAKE), sizeof(uffdio_range), 1, {0, 0}, false},
    {_IOC_NR(UFFDIO_COPY), sizeof(uffdio_copy), 2, {0, 8}, true},
    {_IOC_NR(UFFDIO_ZEROPAGE), sizeof(uffdio_zeropage), 1, {0, 0}, true},
    {kUffdioMove, 40, 2, {0, 8}, true},  // struct uffdio_move: dst, src, len, mode, move
    {_IOC_NR(UFFDIO_WRITEPROTECT), sizeof(uffdio_writeprotect), 1, {0, 0}, false},
    {_IOC_NR(UFFDIO_CONTINUE), sizeof(uffdio_continue), 1, {0, 0}, true},
    {kUffdioPoison, 32, 1, {0, 0}, true},  // struct uffdio_poison: range, mode, updated
};

// The addresses a message carries, moved out of the window (linux/userfaultfd.h's struct uffd_msg).
void message_to_guest(Task& t, uffd_msg* m) {
  switch (m->event) {
    case UFFD_EVENT_PAGEFAULT:
      m->arg.pagefault.address = to_guest(t, m->arg.pagefault.address);
      break;
    case UFFD_EVENT_REMAP:
      m->arg.remap.from = to_guest(t, m->arg.remap.from);
      m->arg.remap.to = to_guest(t, m->arg.remap.to);
      break;
    case UFFD_EVENT_REMOVE:
    case UFFD_EVENT_UNMAP:
      m->arg.remove.start = to_guest(t, m->arg.remove.start);
      m->arg.remove.end = to_guest(t, m->arg.remove.end);
      break;
    case UFFD_EVENT_FORK:
      remember(static_cast<int>(m->arg.fork.ufd));
      break;
    default:
      break;
  }
}

}  // namespace

SysResult sys_userfaultfd(Task&, int flags) {
  const int64_t fd = from_host(::syscall(SYS_userfaultfd, flags));
  if (fd >= 0) remember(static_cast<int>(fd));
  return fd;
}

int64_t userfaultfd_ioctl(Task& t, int fd, uint32_t cmd, uint64_t arg) {
  if (cmd == kIocNew) {  // /dev/userfaultfd: a new userfaultfd, flags as userfaultfd(2)'s
    const int64_t r = from_host(::ioctl(fd, cmd, arg));
    if (r >= 0) remember(static_cast<int>(r));
    return r;
  }
  const Shape* s = nullptr;
  for (const Shape& shape : kShapes) {
    if (_IOC_NR(cmd) == shape.nr && _IOC_SIZE(cmd) == shape.size) s = &shape;
  }
  if (s == nullptr) return from_host(::ioctl(fd, cmd, kHostFaultAddr));  // not a request: the host says so
  alignas(8) uint8_t g[64] = {}, h[64] = {};
  if (emu::copy_in(t.as(), g, arg, s->size) != 0) return ::fcntl(fd, F_GETFD) < 0 ? -EBADF : -EFAULT;
  memcpy(h, g, s->size);
  for (int i = 0; i < s->addr_fields; ++i) {
    uint64_t a;
    memcpy(&a, h + s->addr_offset[i], sizeof a);
    a = to_host(t, a);
    memcpy(h + s->addr_offset[i], &a, sizeof a);
  }
  int64_t r;
  {
    // A copy or move may wait for the pages (and wake waiters): no run lock held meanwhile.
    emu::RunLockReleaser unlocked(t.proc().run_lock(), &t.cpu());
    r = from_host(::ioctl(fd, cmd, h));
  }
  if (!s->out) return r;
  // What the kernel wrote back, with the guest's addresses where they were.
  for (int i = 0; i < s->addr_fields; ++i) memcpy(h + s->addr_offset[i], g + s->addr_offset[i], 8);
  if (emu::copy_out(t.as(), arg, h, s->size) != 0) return -EFAULT;
  return r;
}

bool userfaultfd_active() {
  return g_any.load(std::memory_order_relaxed);
}

int64_t userfaultfd_read(Task& t, int fd, uint64_t buf, uint64_t count) {
  if (g_uffds.count(fd) == 0 || fd_path(fd) != "anon_inode:[userfaultfd]") return kNotUserfaultfd;
  const uint64_t n = std::min<uint64_t>(count / sizeof(uffd_msg), 64);
  if (n == 0) return -EINVAL;  // the kernel wants room for one message
  std::vector<uffd_msg> msgs(n);
  const int64_t r = signals::safe_fd_call(t, SYS_read, {fd, POLLIN}, reinterpret_cast<long>(msgs.data()),
                                          static_cast<long>(n * sizeof(uffd_msg)));
  if (r <= 0) return r;
  const uint64_t got = static_cast<uint64_t>(r) / sizeof(uffd_msg);
  for (uint64_t i = 0; i < got; ++i) message_to_guest(t, &msgs[i]);
  return emu::copy_out(t.as(), buf, msgs.data(), static_cast<uint64_t>(r)) != 0 ? -EFAULT : r;
}

}  // namespace syscalls
