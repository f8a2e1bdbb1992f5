// This file implements futex operations on shared memory through the host's futexes.
#include "syscalls/host_futex.h"

#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "signals/signals.h"

namespace syscalls {
namespace {

constexpr uint32_t kFutex32 = 2;  // FUTEX2_SIZE_U32

uint32_t* host_word(Task& t, uint64_t uaddr) {
  return reinterpret_cast<uint32_t*>(emu::host_range(t.as(), uaddr, 4, PROT_READ));
}

}  // namespace

int64_t host_futex_wait(Task& t, uint64_t uaddr, uint32_t val, const timespec* deadline, clockid_t clock) {
  uint32_t* word = host_word(t, uaddr);
  if (word == nullptr) return -EFAULT;
  // The guest's word last: futex_waitv returns the index of the last futex woken, so when a wake of the word
  // (which the waker counted) and one of the park (a signal) both land, the result says the word's, and the
  // wait returns 0 as Linux's does for a counted wake (LTP rt_sigqueueinfo01: a checkpoint wake lost).
  struct futex_waitv w[2] = {};
  w[0].uaddr = reinterpret_cast<uint64_t>(t.park().word());
  w[0].val = 0;
  w[0].flags = kFutex32 | FUTEX_PRIVATE_FLAG;
  w[1].uaddr = reinterpret_cast<uint64_t>(word);
  w[1].val = val;
  w[1].flags = kFutex32;
  emu::RunLockReleaser unlocked(t.proc().run_lock(), &t.cpu());
  while (true) {
    if (t.interrupted()) return signals::kERESTARTSYS;
    const long r = ::syscall(SYS_futex_waitv, w, 2, 0, deadline, clock);
    if (r == 1) return 0;
    if (r == 0 || (r < 0 && errno == EAGAIN && __atomic_load_n(word, __ATOMIC_ACQUIRE) == val)) {
      t.park().consume();  // a wake() of this thread: the loop checks why
      continue;
    }
    if (r < 0 && errno == EINTR) continue;
    return r < 0 ? -errno : 0;
  }
}

int64_t host_futex_other(Task& t, uint64_t uaddr, int op, uint32_t val, uint64_t val2, uint64_t uaddr2,
                         uint32_t val3) {
  uint32_t* w1 = host_word(t, uaddr);
  if (w1 == nullptr) return -EFAULT;
  const int cmd = op & FUTEX_CMD_MASK;
  uint32_t* w2 = nullptr;
  if (cmd == FUTEX_REQUEUE || cmd == FUTEX_CMP_REQUEUE || cmd == FUTEX_WAKE_OP) {
    w2 = host_word(t, uaddr2);
    if (w2 == nullptr) return -EFAULT;
  }
  const long r = ::syscall(SYS_futex, w1, op, val, val2, w2, val3);
  return r < 0 ? -errno : r;
}

}  // namespace syscalls
