// I/O-readiness signals aimed at one guest thread (fcntl F_SETOWN_EX with F_OWNER_TID naming a thread of
// this process). The host would send them to that thread's host thread, which blocks every asynchronous
// host signal, so they would stay pending there. Instead the host owner is a proxy: a host thread of
// a64run's, one per (guest thread, guest F_SETSIG signal) in use, and the host's F_SETSIG is the owner
// signal. The host keeps both on the open file description as Linux keeps the guest's (so dup, fork,
// SCM_RIGHTS and close share and drop them as Linux does, and si_fd is the descriptor whose O_ASYNC made
// the registration); the proxy takes the owner signal (si_code the POLL_* reason, si_band, si_fd) and
// queues for its guest thread exactly what fs/fcntl.c's send_sigio_to_task queues. F_GETOWN, F_GETOWN_EX
// and F_GETSIG map a proxy back to the guest thread and signal it stands for.
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

#include "syscalls/abi/fcntl.h"

namespace emu {
class Process;
}

namespace signals {

// One proxy thread: it stands for owner guest_tid with F_SETSIG guest_sig. Entries stay after the thread
// ends (its guest thread exited, or it belongs to a fork parent): a description still names its host tid,
// which F_GETOWN_EX maps back, as Linux reports a dead owner's tid.
struct OwnerProxy {
  int host_tid = 0;
  int guest_tid = 0;
  int guest_sig = 0;
  bool live = false;  // the thread runs in this host process and takes the owner signal
};

// A process's proxies (emu::Process::fasync_owners).
struct FasyncOwnerTable {
  std::mutex* mu =
      new std::mutex;  // leaked on purpose: a fork child replaces it (another thread may hold it)
  std::vector<OwnerProxy> proxies;  // GUARDED_BY(*mu)
};

// The host signal every proxied description carries as its host F_SETSIG.
int owner_host_signal();

// fcntl(2)'s owner and signal commands on host descriptor fd, for proc's guest. Each returns what Linux's
// returns (a negative errno on failure).
int64_t fcntl_setown(emu::Process& proc, int fd, uint64_t arg);
int64_t fcntl_getown(emu::Process& proc, int fd);
int64_t fcntl_setown_ex(emu::Process& proc, int fd, const guest::f_owner_ex& owner);
int64_t fcntl_getown_ex(emu::Process& proc, int fd, guest::f_owner_ex* owner);
int64_t fcntl_setsig(emu::Process& proc, int fd, uint64_t sig);
int64_t fcntl_getsig(emu::Process& proc, int fd);

// Guest thread tid exits: its proxies end, so the host drops what it would send them, as Linux drops a
// signal for a dead owner.
void end_owner_proxies(emu::Process& proc, int tid);
// fork(2): the child has none of the parent's proxy threads (the parent's still serve the descriptions the
// child shares), and the table's lock may have been held by another thread of the parent.
void reset_owner_proxies_after_fork(emu::Process& proc);

}  // namespace signals
