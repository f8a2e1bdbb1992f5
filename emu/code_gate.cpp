// This file implements the code gate's stop-the-world for address-space changes.
#include "emu/code_gate.h"

#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>

#include "emu/vcpu.h"
#include "signals/park.h"

namespace emu {

void CodeGate::add(Vcpu* v) {
  std::lock_guard lk(mu_);
  vcpus_.push_back(v);
}

void CodeGate::remove(Vcpu* v) {
  std::lock_guard lk(mu_);
  std::erase(vcpus_, v);
}

void CodeGate::reset_after_fork(const std::vector<Vcpu*>& survivors) {
  new (&mu_) std::mutex();
  new (&writer_mu_) std::mutex();
  closed_.store(0, std::memory_order_relaxed);
  waiters_.store(0, std::memory_order_relaxed);
  vcpus_ = survivors;
}

// Invariant (no lost wake): a waiter counts itself in waiters_ before its last look at closed_ and its
// FUTEX_WAIT (which sleeps only while closed_ is still 1); reopen stores closed_ = 0 before it reads
// waiters_. All four are sequentially consistent, so either reopen sees the waiter counted and wakes it, or
// the waiter's look sees the gate open. A reopen with nobody waiting (a lone thread's mprotect) makes no
// system call.
void CodeGate::wait_open() {
  while (closed_.load(std::memory_order_acquire) != 0) {
    waiters_.fetch_add(1, std::memory_order_seq_cst);
    if (closed_.load(std::memory_order_seq_cst) != 0)
      ::syscall(SYS_futex, &closed_, FUTEX_WAIT_PRIVATE, 1, nullptr, nullptr, 0);
    waiters_.fetch_sub(1, std::memory_order_relaxed);
  }
}

void CodeGate::close() {
  writer_mu_.lock();
  closed_.store(1, std::memory_order_seq_cst);
  // The walk holds mu_ throughout: a vCPU leaves the list only in remove(), which its destructor calls, so
  // none is freed while this thread looks at it (a CLONE_VM child's helper frees that child's vCPUs at any
  // time: a copy of the list walked without the lock reached freed ones). A vCPU in code never takes mu_.
  std::lock_guard lk(mu_);
  // A vCPU in code either sees the gate closed when it next enters, or is kicked out here; one that is in
  // code now leaves at its next translated block. Each marks itself in code, then reads the gate; this
  // thread closed the gate, then reads the marks: one side sees the other.
  for (Vcpu* v : vcpus_) {
    if (v->in_code()) v->request(Vcpu::kRequestSync);
  }
  int self_pid = 0;  // asked of the host only when some vCPU is still in code
  for (Vcpu* v : vcpus_) {
    if (!v->in_code()) continue;
    if (self_pid == 0) self_pid = static_cast<int>(::getpid());
    // A CLONE_VM relative's vCPU that stays in code is not running at all (its process stopped, or was
    // killed): it is given as long as a kick is (Vcpu::kick).
    const uint64_t give_up = v->host_pid() == self_pid ? UINT64_MAX : signals::now_ns() + 20'000'000;
    for (int spin = 0; v->in_code(); ++spin) {
      if (spin < 64) {
        __builtin_ia32_pause();
      } else {
        sched_yield();
        if (signals::now_ns() > give_up) break;
      }
    }
  }
}

void CodeGate::reopen() {
  closed_.store(0, std::memory_order_seq_cst);
  if (waiters_.load(std::memory_order_seq_cst) != 0)
    ::syscall(SYS_futex, &closed_, FUTEX_WAKE_PRIVATE, INT32_MAX, nullptr, nullptr, 0);
  writer_mu_.unlock();
}

}  // namespace emu
