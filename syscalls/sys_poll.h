// Readiness waits over guest fds: ppoll and pselect6 (arm64's only poll and select), and the pieces
// epoll_pwait and recvmmsg share with them: temporary signal masks and timeouts as CLOCK_MONOTONIC deadlines.
#pragma once

#include <time.h>

#include <cstdint>
#include <span>
#include <vector>

#include "syscalls/abi/select.h"
#include "syscalls/abi/types.h"
#include "syscalls/dispatch.h"

namespace syscalls {

// The temporary mask of ppoll, pselect6 and epoll_pwait, on sigsuspend's saved-mask mechanism: the frame of
// a handler that interrupts the wait saves the old mask, and syscall exit restores it when none runs.
class TempSigmask {
 public:
  // Installs the guest sigset at `mask_addr` (0: none). Returns 0, -EINVAL (size) or -EFAULT.
  int64_t install(Task& t, uint64_t mask_addr, uint64_t sigsetsize);
  // Puts the old mask back at once unless the call ends by a signal (`interrupted`): a pending signal the
  // temporary mask let through is then not delivered (restore_saved_sigmask_unless).
  void finish(Task& t, bool interrupted);

 private:
  bool installed_ = false;
};

// A relative timeout as a deadline on CLOCK_MONOTONIC.
struct Timeout {
  bool infinite = true;
  bool zero = false;  // poll once, never wait
  timespec deadline{};

  const timespec* deadline_ptr() const { return infinite ? nullptr : &deadline; }
  static Timeout after(const timespec& rel);
  static Timeout from_ms(int32_t ms);  // epoll_wait: negative waits forever
};

// Reads a guest timespec timeout (0: none, wait forever). Returns 0, -EFAULT or -EINVAL.
int64_t read_timeout(Task& t, uint64_t ts_addr, Timeout* out);

// poll_select_finish: writes the time left back to the guest's timespec (not for a zero timeout). If that
// fails, a call ended by a signal becomes -EINTR (it cannot restart without the update); `r` otherwise.
SysResult finish_timeout(Task& t, uint64_t ts_addr, const Timeout& to, SysResult r);

// The fds of a select(2) fd_set triple as a poll set, and back (pure: fs/select.c's POLLIN_SET, POLLOUT_SET
// and POLLEX_SET decide which revents count for which set).
struct SelectSets {
  std::vector<uint64_t> in, out, ex;  // fd_set words; empty for a null guest set
};
std::vector<::pollfd> select_to_pollfds(const SelectSets& sets, uint32_t nfds);
// Sets the result bits of `fds` in `result` (sized like `sets`, zeroed here) and returns how many are set.
int64_t pollfds_to_select(std::span<const ::pollfd> fds, const SelectSets& sets, SelectSets* result);

SysResult sys_ppoll(Task& t, GuestPtr<guest::pollfd> ufds, uint32_t nfds, GuestPtr<guest::timespec> tsp,
                    GuestPtr<const uint64_t> sigmask, uint64_t sigsetsize);
SysResult sys_pselect6(Task& t, int nfds, GuestPtr<uint64_t> inp, GuestPtr<uint64_t> outp,
                       GuestPtr<uint64_t> exp, GuestPtr<guest::timespec> tsp,
                       GuestPtr<const guest::sigset_argpack> sig);

}  // namespace syscalls
