// The end of a process whose memory another process shares (clone(CLONE_VM) without CLONE_THREAD).
//
// Such a family shares more than the guest's memory: the emulator's own heap, its allocator's locks (glibc's
// arenas, AddressSanitizer's), the code gate's mutex, the run lock. The host ends a process's threads
// wherever they are, so a thread that dies inside a system call, a translation or an allocation leaves what
// it held locked for good, and the next relative to need it waits forever (a munmap behind a code gate a
// killed child held; a translation behind an allocator lock).
//
// The invariant: a process of a family ends only with each of its threads at a safe point, a place where it
// holds nothing of the shared memory: the top of Task::run's loop or a wait for the run lock (where the
// thread parks, Vcpu::death), or the thread that ends the process, in its system call. Its intake thread
// parks too (signals/host_signals.cpp: it sets busy, then looks at dying()), and it and its worker hold
// nothing once busy is 0 again (they wait for the next signal). So:
// - exit_group, a fatal signal, a SIGKILL to itself: prepare_death claims the end, asks the other threads
//   to park (request_death: kicked out of guest code, woken from any wait) and waits until each has;
// - a SIGKILL from a relative (kill, tgkill, sigqueue, pidfd_send_signal, a group): the sender does the same
//   for the target (kill_from_relative), then sends the host's SIGKILL to a process that is all parked.
// The end is claimed once: a thread that finds it claimed by another (two exits at once, an exit and a
// relative's SIGKILL) parks, and the first ending goes on; as on Linux, a process already exiting keeps its
// status. A thread that does not park within kParkWait (stopped, or in a host call that no signal ends) is
// ended where it is, as before. A process alone in its memory ends at once: the host takes every thread
// together and nothing outlives them.
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include "emu/task.h"
#include "signals/park.h"

namespace emu {

namespace {

constexpr std::chrono::milliseconds kParkWait{200};
constexpr std::chrono::milliseconds kRenudge{2};

}  // namespace

void Process::join_family() {
  std::lock_guard lk(mem_->family_mu);
  mem_->family.push_back(this);
  mem_->family_size.store(static_cast<int>(mem_->family.size()), std::memory_order_release);
}

Process::~Process() {
  std::lock_guard lk(mem_->family_mu);
  auto& f = mem_->family;
  f.erase(std::remove(f.begin(), f.end(), this), f.end());
  mem_->family_size.store(static_cast<int>(f.size()), std::memory_order_release);
}

void Process::stop_threads_for_death(int except) {
  dying_.store(true, std::memory_order_seq_cst);
  // The thread that acts on host signals (the intake thread itself until the process has a worker).
  const int self = ::gettid();
  const bool on_intake = __atomic_load_n(&intake.worker, __ATOMIC_ACQUIRE) == self ||
                         __atomic_load_n(&intake.tid, __ATOMIC_ACQUIRE) == self;
  const uint64_t start = signals::now_ns();
  const uint64_t give_up = start + std::chrono::nanoseconds(kParkWait).count();
  uint64_t next_nudge = 0;
  while (true) {
    // Asked again every kRenudge: a thread may have been between its look at the request and a wait.
    const uint64_t now = signals::now_ns();
    const bool nudge = now >= next_nudge;
    if (nudge) next_nudge = now + std::chrono::nanoseconds(kRenudge).count();
    bool all_parked = true;
    for_each_thread([&](Task& t) {
      if (t.tid() == except || t.cpu().death().load(std::memory_order_seq_cst) == Vcpu::kDeathParked) return;
      all_parked = false;
      if (nudge) t.request_death();
    });
    // The intake thread: dying_ is set (seq_cst) before this look at busy, and it sets busy before its look
    // at dying_, so either it sees dying_ and parks idle, or this sees it busy and waits for its worker.
    // (The thread that acts on host signals, ending the process from one, does not wait for its own 0.)
    if (!on_intake && intake.busy.load(std::memory_order_seq_cst) != 0) all_parked = false;
    if (all_parked || now >= give_up) return;
    // Yields, not sleeps: the guest's timer slack (PR_SET_TIMERSLACK) would stretch a sleep to seconds.
    sched_yield();
  }
}

void Process::end_in_memory() {
  release_all_robust_futexes();
  // Every thread of this process is marked before any leaves the queue: one that comes out of a wait now
  // must not take the run lock and die with it (the host kills them at any point from here on).
  std::vector<const signals::Park*> parks;
  for_each_thread([&](Task& t) {
    parks.push_back(&t.park());
    t.cpu().run_evicted().store(true, std::memory_order_relaxed);
  });
  mem_->futexes.drop_waiters(
      [&](const signals::Park* p) { return std::find(parks.begin(), parks.end(), p) != parks.end(); });
  mem_->run_lock.evict([this](const Vcpu* v) { return v->task() != nullptr && v->process() == this; });
  // Nor may a relative's code gate wait for them (the host may kill them in guest code).
  for_each_thread([&](Task& t) { as().gate().remove(&t.cpu()); });
}

void Process::prepare_death() {
  if (shares_memory()) {
    if (!claim_death()) {
      // Another thread, or a relative's SIGKILL, is ending this process: this thread is at a safe point too.
      if (Task* self = find_thread(::gettid())) self->cpu().park_for_death();
      while (true) ::pause();
    }
    stop_threads_for_death(::gettid());
  }
  end_in_memory();
}

bool Process::kill_from_relative() {
  if (execing.load(std::memory_order_acquire)) return false;
  if (!claim_death()) return true;  // it is ending already, with the status it chose
  stop_threads_for_death(0);
  end_in_memory();
  ::kill(host_pid(), SIGKILL);
  return true;
}

}  // namespace emu
