// The pending signals an execve keeps (signal(7): "the pending signal set is preserved across an
// execve"): the exec'ing thread's own and the process's shared ones. a64run re-executes itself for the
// guest's execve, so they travel in a memory file, as the seccomp filters do (syscalls/seccomp.cpp).
#include <cstring>

#include "emu/task.h"
#include "signals/park.h"
#include "signals/signals.h"
#include "syscalls/fd_util.h"

namespace signals {
namespace {

constexpr char kMagic[8] = {'A', '6', '4', 'P', 'E', 'N', 'D', '1'};
constexpr size_t kEntry = 1 + sizeof(guest::siginfo);  // 'T' (the thread's) or 'S' (shared), then the siginfo

}  // namespace

ExecPending kept_pending_signals(emu::Task& t) {
  ExecPending kept;
  ProcessSignals& ps = t.proc().signals();
  std::lock_guard lk(ps.sig_lock);
  for (const bool shared : {false, true}) {
    for (const PendingSignal& p : (shared ? ps.shared : t.sig().pending).items()) {
      // execve deletes the POSIX timers, and a deleted timer's queued signal goes with it.
      if (p.timer < 0) kept.push_back(ExecPendingSignal{shared, p.info});
    }
  }
  return kept;
}

int exec_pending_fd(emu::Task& t) {
  const ExecPending kept = kept_pending_signals(t);
  if (kept.empty()) return -1;
  std::string bytes(kMagic, sizeof kMagic);
  for (const ExecPendingSignal& e : kept) {
    bytes += e.shared ? 'S' : 'T';
    bytes.append(reinterpret_cast<const char*>(&e.info), sizeof e.info);
  }
  return syscalls::exec_memfd("a64run-pending", bytes);
}

bool read_exec_pending(int fd, ExecPending* out) {
  std::string bytes;
  // Far more than RLIMIT_SIGPENDING lets queue: a longer file is not a64run's.
  if (!syscalls::read_exec_memfd(fd, sizeof kMagic + kEntry * (size_t{1} << 20), &bytes)) return false;
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
  const uint64_t now = now_ns();
  for (const ExecPendingSignal& e : pending) {
    PendingQueue& q = e.shared ? ps.shared : main_thread.sig().pending;
    const size_t before = q.size();
    q.push(PendingSignal{e.info, now, -1, 0});
    ps.queued += q.size() - before;
  }
  recompute_locked(main_thread);
}

}  // namespace signals
