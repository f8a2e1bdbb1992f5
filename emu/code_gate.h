// CodeGate: vCPUs run guest code at the same time (emu/parallel_atomics.cpp makes their atomics host
// atomics); a change that can take memory or code away from a running vCPU (munmap, mprotect, MAP_FIXED,
// mremap, a shrinking brk, ic ivau) first stops them all. A vCPU passes the gate each time it enters guest
// code; a writer closes it, kicks every vCPU in guest code out, makes the change with none running, and
// opens it again. The vCPUs then resync their TLBs and translations on the way back in (the address space's
// generation moved). This is Linux's TLB shootdown in emulator form: after munmap returns, no other thread
// can reach the pages through a stale translation, and the host pages can go back to PROT_NONE without a
// running vCPU faulting on them.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

namespace emu {

class Vcpu;

class CodeGate {
 public:
  void add(Vcpu* v);
  void remove(Vcpu* v);
  // fork child: only these vCPUs exist (the forking thread's and the pooled ones).
  void reset_after_fork(const std::vector<Vcpu*>& survivors);

  // For a vCPU that has just marked itself in code (sequentially consistent): false while a writer holds
  // the gate; the vCPU then leaves code and waits in wait_open().
  bool open() const { return closed_.load(std::memory_order_seq_cst) == 0; }
  void wait_open();

  // Closes the gate and waits until no vCPU is in guest code. The caller must not be in guest code itself
  // (a syscall, or a hook that has cleared its in-code mark) and must hold no lock a vCPU in code may wait
  // for (the address space's: take it after this).
  void close();
  void reopen();

  class Closed {
   public:
    explicit Closed(CodeGate& g) : g_(g) { g_.close(); }
    ~Closed() { g_.reopen(); }
    Closed(const Closed&) = delete;
    Closed& operator=(const Closed&) = delete;

   private:
    CodeGate& g_;
  };

 private:
  std::mutex writer_mu_;              // one writer at a time
  std::atomic<uint32_t> closed_{0};   // futex word: 1 while a writer holds the gate
  std::atomic<uint32_t> waiters_{0};  // threads in wait_open that may sleep on closed_ (code_gate.cpp)
  // Lifetime: every vCPU of the address space (of every process in it, CLONE_VM relatives included) is in
  // vcpus_ from its constructor to its destructor (or until its dying process takes it out). close() reads
  // the vCPUs only under mu_, and remove() takes mu_: a vCPU is never freed under a writer's walk.
  std::mutex mu_;             // guards vcpus_; never taken by a vCPU in guest code
  std::vector<Vcpu*> vcpus_;  // GUARDED_BY(mu_)
};

}  // namespace emu
