// The pending signals an execve keeps (signal(7): "the pending signal set is preserved across an
// execve"): the exec'ing thread's own and the process's shared ones. a64run re-executes itself for the
// guest's execve, so they travel in a memory file, as the seccomp filters do (syscalls/seccomp.cpp).
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "emu/task.h"
#include "signals/signals.h"
#include "syscalls/fd_util.h"

namespace signals {
namespace {

constexpr char kMagic[8] = {'A', '6', '4', 'P', 'E', 'N', 'D', '1'};
constexpr size_t kEntry = 1 + sizeof(guest::siginfo);  // 'T' (the thread's) or 'S' (shared), then the siginfo

uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace

int exec_pending_fd(emu::Task& t) {
  std::string bytes(kMagic, sizeof kMagic);
  {
    ProcessSignals& ps = t.proc().signals();
    std::lock_guard lk(ps.sig_lock);
    const auto add = [&bytes](const PendingQueue& q, char kind) {
      for (const PendingSignal& p : q.items()) {
        if (p.timer >= 0) continue;  // execve deletes the POSIX timers, and a deleted timer's signal goes
        bytes += kind;
        bytes.append(reinterpret_cast<const char*>(&p.info), sizeof p.info);
      }
    };
    add(t.sig().pending, 'T');
    add(ps.shared, 'S');
  }
  if (bytes.size() == sizeof kMagic) return -1;
  const int fd = static_cast<int>(::syscall(SYS_memfd_create, "a64run-pending", 0));
  if (fd < 0) return -errno;
  if (const int64_t err = syscalls::write_all(fd, bytes); err < 0) {
    ::close(fd);
    return static_cast<int>(err);
  }
  return fd;
}

bool read_exec_pending(int fd, ExecPending* out) {
  std::string bytes;
  char buf[16384];
  // Far more than RLIMIT_SIGPENDING lets queue: a file this long is not a64run's.
  constexpr size_t limit = sizeof kMagic + kEntry * (size_t{1} << 20);
  for (off_t off = 0;;) {
    const ssize_t n = ::pread(fd, buf, sizeof buf, off);
    if (n <= 0 || bytes.size() > limit) {
      ::close(fd);
      if (n < 0 || bytes.size() > limit) return false;
      break;
    }
    bytes.append(buf, static_cast<size_t>(n));
    off += n;
  }
  if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0 ||
      (bytes.size() - sizeof kMagic) % kEntry != 0)
    return false;
  out->clear();
  for (size_t at = sizeof kMagic; at < bytes.size(); at += kEntry) {
    ExecPendingSignal e;
    e.shared = bytes[at] == 'S';
    std::memcpy(&e.info, bytes.data() + at + 1, sizeof e.info);
    if ((bytes[at] != 'S' && bytes[at] != 'T') || e.info.si_signo < 1 || e.info.si_signo > kNumSignals)
      return false;
    out->push_back(e);
  }
  return true;
}

void apply_exec_pending(emu::Task& main_thread, const ExecPending& pending) {
  if (pending.empty()) return;
  ProcessSignals& ps = main_thread.proc().signals();
  std::lock_guard lk(ps.sig_lock);
  const uint64_t now = monotonic_ns();
  for (const ExecPendingSignal& e : pending) {
    PendingQueue& q = e.shared ? ps.shared : main_thread.sig().pending;
    const size_t before = q.size();
    q.push(PendingSignal{e.info, now, -1, 0});
    ps.queued += q.size() - before;
  }
  recompute_locked(main_thread);
}

}  // namespace signals
