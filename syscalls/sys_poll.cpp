// This file implements ppoll and pselect6 on host polls that also watch the thread's wake fd (so a guest
// signal ends the wait at once), with their temporary signal masks and the timeout write-back of fs/select.c.
#include "syscalls/sys_poll.h"

#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <mutex>

#include "emu/task.h"
#include "signals/fd_wait.h"
#include "signals/park.h"
#include "signals/signals.h"
#include "syscalls/abi/time_abi.h"
#include "syscalls/fd_util.h"
#include "syscalls/sys_process.h"

namespace syscalls {
namespace {

// fs/select.c: which poll bits count as readable, writable and exceptional for select.
constexpr short kPollInSet = POLLIN | POLLRDNORM | POLLRDBAND | POLLHUP | POLLERR;
constexpr short kPollOutSet = POLLOUT | POLLWRNORM | POLLWRBAND | POLLERR;
constexpr short kPollExSet = POLLPRI;

// The RLIMIT_NOFILE soft limit: ppoll refuses more fds, and select looks at no fd beyond it (the kernel's
// bound is the fd table's size, which the limit bounds).
uint64_t nofile_limit() {
  rlimit rl{};
  if (::getrlimit(RLIMIT_NOFILE, &rl) != 0) return 1024;
  return rl.rlim_cur;
}

bool bit_set(const std::vector<uint64_t>& set, int fd) {
  return !set.empty() && (set[static_cast<size_t>(fd) / 64] >> (fd % 64) & 1);
}

void set_bit(std::vector<uint64_t>& set, int fd) {
  set[static_cast<size_t>(fd) / 64] |= uint64_t{1} << (fd % 64);
}

// Polls once without waiting; then, if nothing was ready, waits interruptibly. `extra` counts entries that
// are ready without the host (reserved fds, POLLNVAL). Returns the ready count, 0 on timeout, -errno, or
// kERESTARTNOHAND when a signal ended the wait. Linux looks at the fds before it looks for a signal, so ready
// fds win over a pending one.
int64_t wait_poll(Task& t, std::vector<::pollfd>& fds, int extra, const Timeout& to) {
  const int r = ::poll(fds.data(), fds.size(), 0);
  if (r < 0) return -errno;
  if (r + extra > 0) return r + extra;
  if (to.zero) return t.interrupted() ? signals::kERESTARTNOHAND : 0;
  const int64_t w = signals::poll_interruptible(t, fds.data(), fds.size(), to.deadline_ptr());
  return w == -EINTR ? signals::kERESTARTNOHAND : w;
}

// do_sys_poll: the guest's pollfds in, one wait, revents out (written even when a signal ended the wait).
SysResult do_poll(Task& t, uint64_t ufds, uint32_t nfds, const Timeout& to) {
  if (nfds > nofile_limit()) return -EINVAL;
  std::vector<guest::pollfd> g(nfds);
  if (emu::copy_in(t.as(), g.data(), ufds, g.size() * sizeof(guest::pollfd)) != 0) return -EFAULT;
  std::vector<::pollfd> h(nfds);
  int reserved = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    h[i] = guest::to_host(g[i]);
    h[i].revents = 0;
    // The emulator's own fds are closed as far as the guest can tell: POLLNVAL, and the host skips them.
    if (g[i].fd >= 0 && is_reserved_fd(g[i].fd)) {
      h[i].fd = -1;
      ++reserved;
    }
  }
  const int64_t r = wait_poll(t, h, reserved, to);
  for (size_t i = 0; i < g.size(); ++i) {
    const int16_t revents = h[i].fd < 0 && g[i].fd >= 0 ? guest::kPOLLNVAL : h[i].revents;
    const uint64_t at = ufds + i * sizeof(guest::pollfd) + offsetof(guest::pollfd, revents);
    if (emu::copy_out(t.as(), at, &revents, sizeof revents) != 0) return -EFAULT;
  }
  return r;
}

// do_select's wait. A poll result that matches no set (POLLHUP on an fd watched only for writing or
// exceptions) can never start to match, so those fds leave the poll set rather than wake it again and again.
int64_t wait_select(Task& t, std::vector<::pollfd>& fds, const SelectSets& sets, const Timeout& to,
                    SelectSets* result) {
  int64_t r = ::poll(fds.data(), fds.size(), 0);
  if (r < 0) return -errno;
  while (true) {
    if (r > 0) {
      const int64_t n = pollfds_to_select(fds, sets, result);
      if (n != 0) return n;
      std::erase_if(fds, [](const ::pollfd& p) { return p.revents != 0; });
    }
    if (to.zero) return t.interrupted() ? signals::kERESTARTNOHAND : 0;
    r = signals::poll_interruptible(t, fds.data(), fds.size(), to.deadline_ptr());
    if (r == -EINTR) return signals::kERESTARTNOHAND;
    if (r <= 0) return r;
  }
}

int64_t read_set(Task& t, uint64_t addr, uint64_t words, std::vector<uint64_t>* out) {
  if (addr == 0) return 0;
  out->assign(words, 0);
  return emu::copy_in(t.as(), out->data(), addr, words * sizeof(uint64_t)) != 0 ? -EFAULT : 0;
}

int64_t write_set(Task& t, uint64_t addr, const std::vector<uint64_t>& set) {
  if (addr == 0) return 0;
  return emu::copy_out(t.as(), addr, set.data(), set.size() * sizeof(uint64_t)) != 0 ? -EFAULT : 0;
}

// core_sys_select: the sets in, one wait, the result sets out (not when a signal ended the wait).
SysResult do_select(Task& t, int nfds, uint64_t inp, uint64_t outp, uint64_t exp, const Timeout& to) {
  if (nfds < 0) return -EINVAL;
  const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(static_cast<uint64_t>(nfds), nofile_limit()));
  const uint64_t words = guest::fd_set_words(n);
  SelectSets sets;
  if (read_set(t, inp, words, &sets.in) != 0 || read_set(t, outp, words, &sets.out) != 0 ||
      read_set(t, exp, words, &sets.ex) != 0) {
    return -EFAULT;
  }
  std::vector<::pollfd> fds = select_to_pollfds(sets, n);
  for (const ::pollfd& p : fds) {
    if (is_reserved_fd(p.fd)) return -EBADF;
  }
  SelectSets result{std::vector<uint64_t>(sets.in.size()), std::vector<uint64_t>(sets.out.size()),
                    std::vector<uint64_t>(sets.ex.size())};
  const int64_t r = wait_select(t, fds, sets, to, &result);
  if (r < 0) return r;
  if (write_set(t, inp, result.in) != 0 || write_set(t, outp, result.out) != 0 ||
      write_set(t, exp, result.ex) != 0) {
    return -EFAULT;
  }
  return r;
}

}  // namespace

int64_t TempSigmask::install(Task& t, uint64_t mask_addr, uint64_t sigsetsize) {
  if (mask_addr == 0) return 0;
  if (sigsetsize != guest::kSigsetSize) return -EINVAL;
  guest::sigset_t mask;
  if (emu::copy_in(t.as(), &mask, mask_addr, sizeof mask) != 0) return -EFAULT;
  signals::ProcessSignals& ps = t.proc().signals();
  std::lock_guard lk(ps.sig_lock);
  signals::ThreadSignals& ts = t.sig();
  // A call restarted after a signal that ran no handler finds its temporary mask still installed (the signal
  // layer keeps it across the restart), and saved_mask already holds the thread's own mask.
  if (!ts.has_saved_mask) {
    ts.saved_mask = ts.blocked;
    ts.has_saved_mask = true;
  }
  signals::set_blocked_locked(t, mask);
  installed_ = true;
  return 0;
}

void TempSigmask::finish(Task& t, bool interrupted) {
  if (!installed_ || interrupted) return;
  signals::ProcessSignals& ps = t.proc().signals();
  std::lock_guard lk(ps.sig_lock);
  signals::ThreadSignals& ts = t.sig();
  if (ts.has_saved_mask) {
    ts.has_saved_mask = false;
    signals::set_blocked_locked(t, ts.saved_mask);
  }
}

Timeout Timeout::after(const timespec& rel) {
  Timeout to;
  to.infinite = false;
  to.zero = rel.tv_sec == 0 && rel.tv_nsec == 0;
  const timespec now = signals::now(CLOCK_MONOTONIC);
  timespec r = rel;
  // timespec64_add_safe: a deadline past the end of time saturates.
  if (r.tv_sec > INT64_MAX / 2 - now.tv_sec) r.tv_sec = INT64_MAX / 2 - now.tv_sec;
  to.deadline = signals::add(now, r);
  return to;
}

Timeout Timeout::from_ms(int32_t ms) {
  if (ms < 0) return Timeout{};
  return after(timespec{ms / 1000, (ms % 1000) * 1'000'000L});
}

int64_t read_timeout(Task& t, uint64_t ts_addr, Timeout* out) {
  *out = Timeout{};
  if (ts_addr == 0) return 0;
  guest::timespec g{};
  if (emu::copy_in(t.as(), &g, ts_addr, sizeof g) != 0) return -EFAULT;
  if (!guest::timespec_valid(g)) return -EINVAL;
  *out = Timeout::after(guest::to_host(g));
  return 0;
}

SysResult finish_timeout(Task& t, uint64_t ts_addr, const Timeout& to, SysResult r) {
  if (ts_addr == 0 || to.infinite || to.zero) return r;
  if (guest_personality() & kStickyTimeouts) return r;  // poll_select_finish: the timeout stays as given
  const guest::timespec left =
      guest::to_guest(signals::sub_clamped(to.deadline, signals::now(CLOCK_MONOTONIC)));
  if (emu::copy_out(t.as(), ts_addr, &left, sizeof left) != 0 && r == signals::kERESTARTNOHAND) return -EINTR;
  return r;
}

std::vector<::pollfd> select_to_pollfds(const SelectSets& sets, uint32_t nfds) {
  std::vector<::pollfd> fds;
  const uint64_t words = guest::fd_set_words(nfds);
  for (uint64_t w = 0; w < words; ++w) {
    const uint64_t in = sets.in.empty() ? 0 : sets.in[w];
    const uint64_t out = sets.out.empty() ? 0 : sets.out[w];
    const uint64_t ex = sets.ex.empty() ? 0 : sets.ex[w];
    uint64_t any = in | out | ex;
    if (w == words - 1 && nfds % 64 != 0) any &= (uint64_t{1} << (nfds % 64)) - 1;
    while (any != 0) {
      const int bit = __builtin_ctzll(any);
      any &= any - 1;
      short events = 0;
      if (in >> bit & 1) events |= POLLIN | POLLRDNORM | POLLRDBAND;
      if (out >> bit & 1) events |= POLLOUT | POLLWRNORM | POLLWRBAND;
      if (ex >> bit & 1) events |= POLLPRI;
      fds.push_back({static_cast<int>(w * 64 + static_cast<uint64_t>(bit)), events, 0});
    }
  }
  return fds;
}

int64_t pollfds_to_select(std::span<const ::pollfd> fds, const SelectSets& sets, SelectSets* result) {
  std::fill(result->in.begin(), result->in.end(), 0);
  std::fill(result->out.begin(), result->out.end(), 0);
  std::fill(result->ex.begin(), result->ex.end(), 0);
  int64_t count = 0;
  for (const ::pollfd& p : fds) {
    if (p.revents & POLLNVAL) return -EBADF;
    if (bit_set(sets.in, p.fd) && (p.revents & kPollInSet)) {
      set_bit(result->in, p.fd);
      ++count;
    }
    if (bit_set(sets.out, p.fd) && (p.revents & kPollOutSet)) {
      set_bit(result->out, p.fd);
      ++count;
    }
    if (bit_set(sets.ex, p.fd) && (p.revents & kPollExSet)) {
      set_bit(result->ex, p.fd);
      ++count;
    }
  }
  return count;
}

// ppoll(2): Linux returns -ERESTARTNOHAND on a signal, so a handler sees EINTR and nothing else restarts it.
SysResult sys_ppoll(Task& t, GuestPtr<guest::pollfd> ufds, uint32_t nfds, GuestPtr<guest::timespec> tsp,
                    GuestPtr<const uint64_t> sigmask, uint64_t sigsetsize) {
  Timeout to;
  if (const int64_t e = read_timeout(t, tsp.addr, &to); e != 0) return e;
  TempSigmask mask;
  if (const int64_t e = mask.install(t, sigmask.addr, sigsetsize); e != 0) return e;
  const SysResult r = do_poll(t, ufds.addr, nfds, to);
  mask.finish(t, r == signals::kERESTARTNOHAND);
  return finish_timeout(t, tsp.addr, to, r);
}

// pselect6(2): select and pselect in one call; the raw syscall writes the time left back, as select(2) does.
SysResult sys_pselect6(Task& t, int nfds, GuestPtr<uint64_t> inp, GuestPtr<uint64_t> outp,
                       GuestPtr<uint64_t> exp, GuestPtr<guest::timespec> tsp,
                       GuestPtr<const guest::sigset_argpack> sig) {
  guest::sigset_argpack pack{};
  if (!sig.null() && sig.read(t.as(), &pack) != 0) return -EFAULT;
  Timeout to;
  if (const int64_t e = read_timeout(t, tsp.addr, &to); e != 0) return e;
  TempSigmask mask;
  if (const int64_t e = mask.install(t, pack.p, pack.size); e != 0) return e;
  const SysResult r = do_select(t, nfds, inp.addr, outp.addr, exp.addr, to);
  mask.finish(t, r == signals::kERESTARTNOHAND);
  return finish_timeout(t, tsp.addr, to, r);
}

}  // namespace syscalls
