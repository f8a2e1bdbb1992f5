// This file implements signalfds: the registry of pipes, their readiness byte, and read().
#include "signals/signalfd.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "emu/guest_mem.h"
#include "emu/task.h"
#include "signals/fd_wait.h"
#include "signals/host_signals.h"
#include "signals/signals.h"
#include "syscalls/abi/siginfo.h"
#include "syscalls/fd_util.h"

namespace signals {
namespace {

// linux/signalfd.h: 128 bytes, fixed-width fields, the same on every architecture.
struct SignalfdSiginfo {
  uint32_t ssi_signo;
  int32_t ssi_errno;
  int32_t ssi_code;
  uint32_t ssi_pid;
  uint32_t ssi_uid;
  int32_t ssi_fd;
  uint32_t ssi_tid;
  uint32_t ssi_band;
  uint32_t ssi_overrun;
  uint32_t ssi_trapno;
  int32_t ssi_status;
  int32_t ssi_int;
  uint64_t ssi_ptr;
  uint64_t ssi_utime;
  uint64_t ssi_stime;
  uint64_t ssi_addr;
  uint16_t ssi_addr_lsb;
  uint16_t pad2;
  int32_t ssi_syscall;
  uint64_t ssi_call_addr;
  uint32_t ssi_arch;
  uint8_t pad[28];
};
static_assert(sizeof(SignalfdSiginfo) == 128 && offsetof(SignalfdSiginfo, ssi_ptr) == 48 &&
              offsetof(SignalfdSiginfo, ssi_addr) == 72 && offsetof(SignalfdSiginfo, ssi_syscall) == 84 &&
              offsetof(SignalfdSiginfo, ssi_call_addr) == 88 && offsetof(SignalfdSiginfo, ssi_arch) == 96);

// a64run's own read end: a separate open of the pipe (not a dup), so the guest's O_NONBLOCK changes never
// make a drain block.
int open_own_read_end(int pipe_rfd) {
  const std::string path = "/proc/self/fd/" + std::to_string(pipe_rfd);
  return ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
}

bool identify(int fd, dev_t* dev, ino_t* ino) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode)) return false;
  *dev = st.st_dev;
  *ino = st.st_ino;
  return true;
}

Signalfd* find_locked(SignalfdTable& tab, int fd) {
  dev_t dev;
  ino_t ino;
  if (!identify(fd, &dev, &ino)) return nullptr;
  for (Signalfd& s : tab.fds) {
    if (s.dev == dev && s.ino == ino) return &s;
  }
  return nullptr;
}

void set_ready_locked(Signalfd& s, bool ready) {
  if (ready == s.ready) return;
  char c = 0;
  if (ready) {
    (void)!::write(s.wfd, &c, 1);
  } else {
    (void)!::read(s.rfd, &c, 1);
  }
  s.ready = ready;
}

uint64_t pending_anywhere_locked(emu::Process& proc) {
  uint64_t pending = proc.signals().shared.set();
  proc.for_each_thread([&](emu::Task& t) { pending |= t.sig().pending.set(); });
  return pending;
}

// Calls fn(fd, dev, ino) for every open guest descriptor (a64run's reserved ones aside).
template <typename Fn>
void for_each_guest_fd(Fn fn) {
  DIR* d = ::opendir("/proc/self/fd");
  if (d == nullptr) return;
  while (dirent* e = ::readdir(d)) {
    const int fd = std::atoi(e->d_name);
    dev_t dev;
    ino_t ino;
    if (e->d_name[0] == '.' || syscalls::is_reserved_fd(fd) || fd == ::dirfd(d) || !identify(fd, &dev, &ino))
      continue;
    fn(fd, dev, ino);
  }
  ::closedir(d);
}

// Drops signalfds no guest descriptor refers to any more (a64run's own two ends aside).
void collect_garbage_locked(SignalfdTable& tab) {
  std::vector<Signalfd>& fds = tab.fds;
  std::vector<bool> seen(fds.size(), false);
  for_each_guest_fd([&](int, dev_t dev, ino_t ino) {
    for (size_t i = 0; i < fds.size(); ++i) seen[i] = seen[i] || (fds[i].dev == dev && fds[i].ino == ino);
  });
  for (size_t i = fds.size(); i-- > 0;) {
    if (seen[i]) continue;
    ::close(fds[i].rfd);
    ::close(fds[i].wfd);
    fds.erase(fds.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

// signalfd_copyinfo(): the fields of the siginfo's live member.
SignalfdSiginfo to_ssi(const guest::siginfo& si) {
  SignalfdSiginfo o{};
  o.ssi_signo = static_cast<uint32_t>(si.si_signo);
  o.ssi_errno = si.si_errno;
  o.ssi_code = si.si_code;
  const auto& f = si.fields;
  switch (guest::siginfo_layout(si.si_signo, si.si_code)) {
    case guest::SiginfoLayout::kKill:
      o.ssi_pid = static_cast<uint32_t>(f.kill.pid);
      o.ssi_uid = f.kill.uid;
      break;
    case guest::SiginfoLayout::kTimer:
      o.ssi_tid = static_cast<uint32_t>(f.timer.tid);
      o.ssi_overrun = static_cast<uint32_t>(f.timer.overrun);
      o.ssi_ptr = f.timer.sigval;
      o.ssi_int = static_cast<int32_t>(f.timer.sigval);
      break;
    case guest::SiginfoLayout::kPoll:
      o.ssi_band = static_cast<uint32_t>(f.sigpoll.band);
      o.ssi_fd = f.sigpoll.fd;
      break;
    case guest::SiginfoLayout::kFaultMceErr:
      o.ssi_addr_lsb = static_cast<uint16_t>(f.sigfault.u.addr_lsb);
      [[fallthrough]];
    case guest::SiginfoLayout::kFault:
    case guest::SiginfoLayout::kFaultBndErr:
    case guest::SiginfoLayout::kFaultPkuErr:
    case guest::SiginfoLayout::kFaultPerfEvent:
      o.ssi_addr = f.sigfault.addr;
      break;
    case guest::SiginfoLayout::kChld:
      o.ssi_pid = static_cast<uint32_t>(f.sigchld.pid);
      o.ssi_uid = f.sigchld.uid;
      o.ssi_status = f.sigchld.status;
      o.ssi_utime = static_cast<uint64_t>(f.sigchld.utime);
      o.ssi_stime = static_cast<uint64_t>(f.sigchld.stime);
      break;
    case guest::SiginfoLayout::kRt:
      o.ssi_pid = static_cast<uint32_t>(f.rt.pid);
      o.ssi_uid = f.rt.uid;
      o.ssi_ptr = f.rt.sigval;
      o.ssi_int = static_cast<int32_t>(f.rt.sigval);
      break;
    case guest::SiginfoLayout::kSys:
      o.ssi_call_addr = f.sigsys.call_addr;
      o.ssi_syscall = f.sigsys.syscall;
      o.ssi_arch = f.sigsys.arch;
      break;
  }
  return o;
}

// Dequeues up to `max` signals of mask for t (its own queue first, then the process's, lowest number
// first, as dequeue_signal does) and refreshes every signalfd's readiness. Runs under sig_lock.
size_t take_locked(emu::Task& t, uint64_t mask, SignalfdSiginfo* out, size_t max) {
  ProcessSignals& ps = t.proc().signals();
  size_t n = 0;
  while (n < max) {
    const uint64_t own = t.sig().pending.set() & mask, shared = ps.shared.set() & mask;
    if ((own | shared) == 0) break;
    PendingQueue& q = own ? t.sig().pending : ps.shared;
    PendingSignal p;
    const bool live = q.take(next_signal(own ? own : shared), &p);
    if (ps.queued) --ps.queued;
    if (live) out[n++] = to_ssi(p.info);
  }
  recompute_locked(t);
  signalfd_note_queued_locked(t.proc());
  return n;
}

}  // namespace

bool signalfd_active() {
  const emu::Process* proc = emu::Process::current();
  return proc != nullptr && proc->signalfds.active.load(std::memory_order_acquire);
}

int64_t signalfd_create_or_update(int fd, uint64_t mask, int flags) {
  mask &= ~guest::kUnblockableSignals;
  emu::Process& proc = *emu::Process::current();
  SignalfdTable& tab = proc.signalfds;
  // The first one: from now on a worker in this table acts on host signals (it writes readiness bytes).
  if (fd == -1 && !tab.active.load(std::memory_order_acquire) && !start_intake_worker(proc)) return -ENOMEM;
  std::lock_guard sl(proc.signals().sig_lock);
  std::lock_guard lk(*tab.mu);
  if (fd != -1) {
    Signalfd* s = find_locked(tab, fd);
    if (s == nullptr) return ::fcntl(fd, F_GETFD) < 0 ? -EBADF : -EINVAL;
    s->mask = mask;
    set_ready_locked(*s, (pending_anywhere_locked(proc) & mask) != 0);
    return fd;
  }
  collect_garbage_locked(tab);
  int p[2];
  if (::pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0) return -errno;
  const int own_r = open_own_read_end(p[0]);
  if (own_r < 0 || ::fcntl(p[0], F_SETFL, (flags & O_NONBLOCK) ? O_NONBLOCK : 0) != 0 ||
      ((flags & O_CLOEXEC) == 0 && ::fcntl(p[0], F_SETFD, 0) != 0)) {
    const int e = errno;
    ::close(p[0]);
    ::close(p[1]);
    if (own_r >= 0) ::close(own_r);
    return -e;
  }
  Signalfd s;
  identify(p[0], &s.dev, &s.ino);
  s.rfd = syscalls::make_reserved_fd(own_r);
  s.wfd = syscalls::make_reserved_fd(p[1]);
  s.mask = mask;
  set_ready_locked(s, (pending_anywhere_locked(proc) & mask) != 0);
  tab.fds.push_back(s);
  tab.active.store(true, std::memory_order_release);
  return p[0];
}

void signalfd_note_queued_locked(emu::Process& proc) {
  SignalfdTable& tab = proc.signalfds;
  if (!tab.active.load(std::memory_order_acquire)) return;
  const uint64_t pending = pending_anywhere_locked(proc);
  std::lock_guard lk(*tab.mu);
  for (Signalfd& s : tab.fds) set_ready_locked(s, (pending & s.mask) != 0);
}

// signalfd_read(): the first signal may be waited for (unless O_NONBLOCK); the rest are taken only when
// already pending. A signal that interrupts the wait restarts the read under SA_RESTART.
int64_t signalfd_read(emu::Task& t, int fd, uint64_t buf, uint64_t count) {
  uint64_t mask;
  {
    SignalfdTable& tab = t.proc().signalfds;
    std::lock_guard lk(*tab.mu);
    const Signalfd* s = find_locked(tab, fd);
    if (s == nullptr) return kNotSignalfd;
    mask = s->mask;
  }
  const size_t max = count / sizeof(SignalfdSiginfo);
  if (max == 0) return -EINVAL;
  const bool nonblock = (::fcntl(fd, F_GETFL) & O_NONBLOCK) != 0;
  std::vector<SignalfdSiginfo> got(std::min<size_t>(max, 64));
  while (true) {
    size_t n;
    {
      std::lock_guard lk(t.proc().signals().sig_lock);
      n = take_locked(t, mask, got.data(), got.size());
    }
    if (n > 0) {
      if (emu::copy_out(t.as(), buf, got.data(), n * sizeof(SignalfdSiginfo)) != 0) return -EFAULT;
      return static_cast<int64_t>(n * sizeof(SignalfdSiginfo));
    }
    if (nonblock) return -EAGAIN;
    if (const int64_t w = wait_fd(t, fd, POLLIN); w != 0) return w;
  }
}

void signalfd_after_fork(emu::Process& proc) {
  SignalfdTable& tab = proc.signalfds;
  tab.mu = new std::mutex;
  for (Signalfd& s : tab.fds) {
    int p[2];
    if (::pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0) continue;
    const dev_t old_dev = s.dev;
    const ino_t old_ino = s.ino;
    // Every guest descriptor of the parent's pipe now names the child's, with its own flags kept.
    for_each_guest_fd([&](int fd, dev_t dev, ino_t ino) {
      if (dev != old_dev || ino != old_ino) return;
      const int fl = ::fcntl(fd, F_GETFL), fdfl = ::fcntl(fd, F_GETFD);
      ::dup3(p[0], fd, (fdfl & FD_CLOEXEC) ? O_CLOEXEC : 0);
      ::fcntl(fd, F_SETFL, fl & O_NONBLOCK);
    });
    const int own_r = open_own_read_end(p[0]);
    ::dup3(own_r, s.rfd, O_CLOEXEC);  // the reserved numbers stay
    ::close(own_r);
    ::dup3(p[1], s.wfd, O_CLOEXEC);
    ::fcntl(s.wfd, F_SETFD, FD_CLOEXEC);
    ::close(p[0]);
    ::close(p[1]);
    identify(s.rfd, &s.dev, &s.ino);
    s.ready = false;
  }
}

}  // namespace signals
