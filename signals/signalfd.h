// signalfd: a guest signalfd is the read end of a host pipe that a64run keeps holding one byte while a
// signal of its mask is pending, so poll, select and epoll see it readable through the host kernel; read()
// of it is a64run's and dequeues signals like sigtimedwait. A pipe (not an eventfd) because each pipe has
// an inode of its own: dup'd descriptors and ones passed by fork find the same signalfd.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "syscalls/abi/signal.h"

namespace emu {
class Process;
class Task;
}  // namespace emu

namespace signals {

struct Signalfd {
  dev_t dev = 0;
  ino_t ino = 0;
  int rfd = -1;  // a64run's own read end (reserved): drains the byte
  int wfd = -1;  // the write end (reserved)
  uint64_t mask = 0;
  bool ready = false;
};

// A process's signalfds (emu::Process::signalfds).
struct SignalfdTable {
  std::atomic<bool> active{false};
  std::mutex* mu = new std::mutex;  // after sig_lock; a fork child replaces it
  std::vector<Signalfd> fds;        // GUARDED_BY(*mu)
};

// signalfd4(2) after its checks: fd -1 makes one (returns the fd), another fd changes its mask (-EINVAL when
// fd is no signalfd).
int64_t signalfd_create_or_update(int fd, uint64_t mask, int flags);

// True when the guest has made a signalfd (cheap; guards the lookups below).
bool signalfd_active();
// read(2) of fd when it is a signalfd: the byte count, -EAGAIN, -EINVAL, -EFAULT or a restart code;
// kNotSignalfd when fd is none.
inline constexpr int64_t kNotSignalfd = INT64_MIN;
int64_t signalfd_read(emu::Task& t, int fd, uint64_t buf, uint64_t count);

// A signal was queued (sig_lock held): readiness of the signalfds whose mask has it.
void signalfd_note_queued_locked(emu::Process& proc);

// fork(2) child, or a CLONE_VM child with an fd table of its own: each signalfd gets a pipe of its own (the
// parent's is shared), under the same fd numbers.
void signalfd_after_fork(emu::Process& proc);

}  // namespace signals
