// This file implements a guest thread's run loop and process exit.
#include "emu/task.h"

#include <fmt/format.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/futex.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <shared_mutex>

#include "emu/crash_report.h"
#include "emu/fault_access.h"
#include "emu/guest_mem.h"
#include "emu/parallel_atomics.h"
#include "gdb/hooks.h"
#include "signals/host_signals.h"
#include "signals/mq_notify.h"
#include "signals/safe_syscall.h"
#include "signals/signalfd.h"
#include "signals/signals.h"
#include "signals/stats.h"
#include "signals/timers.h"
#include "syscalls/fd_util.h"
#include "syscalls/proc_mem.h"

namespace emu {

Task* Process::find_thread(int tid) {
  std::lock_guard lk(threads_mu_);
  auto it = threads_.find(tid);
  return it == threads_.end() ? nullptr : it->second;
}

void Process::add_thread(Task* t) {
  std::lock_guard lk(threads_mu_);
  if (threads_.empty()) main_tid_ = t->tid();
  threads_[t->tid()] = t;
}

bool Process::remove_thread_unless_last(Task* t) {
  std::lock_guard lk(threads_mu_);
  if (threads_.size() == 1 && threads_.begin()->second == t) return false;
  threads_.erase(t->tid());
  if (t->tid() != host_pid()) {
    // Pruned as it grows, so a process that ends many threads keeps a short record (one host call per ended
    // thread at most).
    if (leaving_.size() >= 16) std::erase_if(leaving_, [this](int tid) { return host_thread_gone(tid); });
    leaving_.push_back(t->tid());
  }
  return true;
}

bool Process::host_thread_gone(int tid) const {
  return ::syscall(SYS_tgkill, host_pid(), tid, 0) != 0 && errno == ESRCH;
}

bool Process::wait_host_threads_gone(std::span<const int> tids, std::chrono::nanoseconds bound) const {
  // Yields, not sleeps: the guest's timer slack (PR_SET_TIMERSLACK, the host thread's own) stretches every
  // sleep of this thread, to seconds if the guest asks.
  const auto give_up = std::chrono::steady_clock::now() + bound;
  for (int tid : tids) {
    while (tid != 0 && !host_thread_gone(tid)) {
      if (std::chrono::steady_clock::now() >= give_up) return false;
      sched_yield();
    }
  }
  return true;
}

void Process::settle_leaving_threads() {
  std::vector<int> tids;
  {
    std::lock_guard lk(threads_mu_);
    tids.swap(leaving_);
  }
  (void)wait_host_threads_gone(tids, std::chrono::seconds(1));
}

size_t Process::thread_count() {
  std::lock_guard lk(threads_mu_);
  return threads_.size();
}

std::unique_ptr<Vcpu> Process::take_vcpu(Task* owner) {
  std::unique_ptr<Vcpu> cpu;
  {
    std::lock_guard lk(threads_mu_);
    if (!idle_cpus_.empty()) {
      cpu = std::move(idle_cpus_.back());
      idle_cpus_.pop_back();
    }
  }
  if (!cpu) return std::make_unique<Vcpu>(as(), owner);
  cpu->set_task(owner);
  cpu->take_requests();
  return cpu;
}

void Process::recycle_vcpu(std::unique_ptr<Vcpu> cpu) {
  cpu->set_idle(this);
  std::lock_guard lk(threads_mu_);
  idle_cpus_.push_back(std::move(cpu));
}

const std::string& self_exe_path() {
  static const std::string path = [] {
    char buf[PATH_MAX];
    const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string("/proc/self/exe");
  }();
  return path;
}

namespace {

std::shared_ptr<signals::SignalHandlers> copy_handlers(signals::ProcessSignals& ps) {
  auto h = std::make_shared<signals::SignalHandlers>();
  std::lock_guard lk(ps.sig_lock);
  std::copy(std::begin(ps.actions), std::end(ps.actions), std::begin(h->actions));
  return h;
}

}  // namespace

Process::Process(Process& parent, bool share_sighand)
    : exe_path(parent.exe_path),
      cmdline(parent.cmdline),
      auxv(parent.auxv),
      opts_(parent.opts_),
      sysroot_(parent.sysroot_),
      mem_(parent.mem_),
      signals_(share_sighand ? parent.signals_.handlers : copy_handlers(parent.signals_)) {
  sigreturn_trampoline = parent.sigreturn_trampoline;
  cwd_by_host_path.store(parent.cwd_by_host_path.load(std::memory_order_relaxed), std::memory_order_relaxed);
  {
    std::lock_guard lk(*parent.signalfds.mu);
    signalfds.fds = parent.signalfds.fds;
    signalfds.active.store(!signalfds.fds.empty(), std::memory_order_release);
  }
  join_family();
}

void Process::release_all_robust_futexes() {
  for_each_thread([](Task& t) { t.release_robust_futexes(); });
}

void Process::prepare_fork() {
  // Lock order: the family's, sig_lock, threads_mu_, the address space, the run lock's internal mutex.
  mem_->family_mu.lock();
  signals_.sig_lock.lock();
  threads_mu_.lock();
  as().lock().lock();
  run_lock().lock_internal();
  signals::Park::lock_pool();
  as().tb_share().prepare_fork();
}

void Process::after_fork_parent() {
  as().tb_share().after_fork_parent();
  signals::Park::unlock_pool();
  run_lock().unlock_internal();
  as().lock().unlock();
  threads_mu_.unlock();
  signals_.sig_lock.unlock();
  mem_->family_mu.unlock();
}

void Process::after_fork_child(Task* self) {
  {
    std::vector<int> sharing{self->cpu().share_slot()};
    for (const auto& v : idle_cpus_) sharing.push_back(v->share_slot());
    if (as().tb_share().after_fork_child(sharing)) as().invalidate_code();  // alone: no gate to close
  }
  signals::Park::unlock_pool();
  if (gdb::enabled()) gdb::after_fork_child();  // a forked child runs without the debugger
  set_host_pid(static_cast<int>(::getpid()));
  run_lock().reset_after_fork(&self->cpu());
  threads_.clear();
  leaving_.clear();  // only the calling thread came through the fork
  self->set_tid(static_cast<int>(::getpid()));
  main_tid_ = self->tid();
  // fork(2): the child starts with no pending signals; its mask and actions are the parent's.
  signals_.shared = signals::PendingQueue();
  signals_.queued = 0;
  self->sig().pending = signals::PendingQueue();
  // The intake thread did not survive the fork; the child needs its own for its children's SIGCHLD.
  signals::reset_timers_after_fork(*this);
  signals::reset_mq_notify_after_fork(*this);
  signals::reset_owner_proxies_after_fork(*this);
  signals::signalfd_after_fork(*this);
  syscalls::clear_reserved_tids();
  syscalls::proc_mem_after_fork();
  threads_[self->tid()] = self;
  threads_mu_.unlock();
  as().reset_lock_after_fork();
  as().forget_locks_after_fork();
  std::vector<Vcpu*> vcpus{&self->cpu()};
  for (const auto& v : idle_cpus_) vcpus.push_back(v.get());
  as().gate().reset_after_fork(vcpus);
  futexes().reset_after_fork();
  signals_.sig_lock.unlock();
  // The child's memory is its own: the relatives' Process objects in it are copies no thread runs.
  mem_->family.assign(1, this);
  mem_->family_size.store(1, std::memory_order_release);
  mem_->family_mu.unlock();
  signals::restart_host_signal_intake(*this);  // with the thread registered (see main.cpp)
}

Task::~Task() {
  signals::Park::recycle(park_);
  if (cpu_) proc_.recycle_vcpu(std::move(cpu_));
}

void Task::request_death() {
  exit_requested_.store(true, std::memory_order_release);
  uint8_t none = Vcpu::kDeathNone;
  cpu_->death().compare_exchange_strong(none, Vcpu::kDeathRequested, std::memory_order_seq_cst);
  cpu_->request(Vcpu::kRequestExit);  // out of guest code, to the top of run()'s loop
  set_interrupt(true);                // out of any wait (the exit request keeps it set: recompute_locked)
  wake();
  proc_.run_lock().nudge(cpu_.get());  // out of a wait for the run lock
}

void Task::wake() {
  park_.unpark();
  if (in_safe_syscall_.load(std::memory_order_seq_cst) && interrupted())
    signals::send_wake_signal(proc_.host_pid(), tid_);
}

// Guest code runs without the run lock, in parallel with the other threads' (emu/parallel_atomics.cpp,
// emu/code_gate.h); what a stop leaves to do (a signal to deliver, a fault to turn into one) is done under
// it, as system calls are (Vcpu::on_interrupt). Where parallel atomics are not available, guest code runs
// under the run lock too, one thread at a time, and a thread gives it up when asked to yield.
void Task::run() {
  RunLock& lock = proc_.run_lock();
  Vcpu* self = cpu_.get();
  while (!exiting_) {
    // The top of the loop is a safe point: nothing of the emulator is held here but, one thread at a time
    // (serial), the run lock, which an ending process's eviction passes on.
    if (self->death_requested()) {
      if (lock.held_by(self)) lock.release(self);
      self->park_if_dying();
    }
    if (gdb::enabled()) gdb::checkpoint(*this);
    const bool serial = !parallel_guest_code();
    if (serial && !lock.held_by(self)) lock.acquire(self, false);
    if (!serial && lock.held_by(self)) lock.release(self);
    const StopInfo stop = cpu_->run();
    if (gdb::enabled() && gdb::on_stop(*this, stop)) continue;
    if (stop.kind == StopKind::kNone || stop.kind == StopKind::kSyscallStop ||
        stop.kind == StopKind::kThreadExit)
      continue;
    if (stop.kind == StopKind::kRequest) {
      const uint32_t req = cpu_->take_requests();  // a sync needs nothing more: run() resyncs
      if (serial && (req & Vcpu::kRequestYield)) {
        lock.release(self);
        lock.acquire(self, interrupted());
      }
      if (!interrupted()) continue;
    }
    if (!lock.held_by(self)) lock.acquire(self, true);
    if (stop.kind == StopKind::kRequest) {
      signals::handle_signals(*this, false);
    } else {
      deliver_fault_signal(stop);
    }
    if (!serial) lock.release(self);
  }
  if (lock.held_by(self)) lock.release(self);
}

void Task::exit_thread(int status, int kill_signal) {
  if (clear_child_tid != 0) {
    // An atomic store: the word is a futex that other threads read (pthread_join's wait) while this one
    // exits.
    bool cleared = false;
    {
      std::shared_lock lk(as().lock());
      if (as().accessible_locked(clear_child_tid, 4, PROT_WRITE)) {
        auto* word = reinterpret_cast<uint32_t*>(as().host(clear_child_tid));
        const uint32_t zero = 0;
        if (clear_child_tid & 3) {
          cleared = fault_copy(word, &zero, sizeof zero) == 0;
        } else {
          // A store that a fault cannot kill (fault_access.h): a swap until it takes.
          uint32_t cur;
          int swapped = fault_load32(word, &cur) ? 0 : -1;
          while (swapped == 0) swapped = fault_cas32(word, &cur, 0);
          cleared = swapped > 0;
        }
      }
    }
    if (cleared) proc_.futexes().wake(clear_child_tid, 1, ~0u);
  }
  release_robust_futexes();
  signals::end_owner_proxies(proc_, tid_);
  // The last thread ends the process still registered: prepare_death takes its vCPU out of the code gate
  // and the run lock like every other thread's, and a CLONE_VM child's helper finds its Task to delete.
  // (Unregistered first, it left a vCPU in the gate naming a process the helper then freed.)
  if (!proc_.remove_thread_unless_last(this)) {
    if (kill_signal != 0) signals::die_with_signal(kill_signal);
    exit_group(status);
  }
  exiting_ = true;
  cpu_->stop(StopKind::kThreadExit);
}

// A synchronous fault becomes the guest signal Linux would send, with the ESR an EL0 exception would have.
void Task::deliver_fault_signal(const StopInfo& stop) {
  constexpr uint64_t kIl = 1ull << 25;
  constexpr uint32_t kExcpDataAbort = 4;  // QEMU's EXCP_DATA_ABORT, as Unicorn's interrupt hook reports it
  guest::siginfo si{};
  signals::FaultDetail detail;
  const uint64_t pc = cpu_->pc();
  if (stop.kind == StopKind::kFault) {
    const bool fetch = stop.access == PROT_EXEC;
    // A host fault's address is exact already (Vcpu::classify_host_fault); a softmmu fault gives the page.
    uint64_t addr = pc;
    if (!fetch) addr = stop.exact ? stop.fault_addr : exact_fault_address(*cpu_, pc, stop.fault_addr);
    si.si_signo = stop.past_eof ? guest::kSIGBUS : guest::kSIGSEGV;
    si.si_code = stop.past_eof ? guest::kBUS_ADRERR : stop.mapped ? guest::kSEGV_ACCERR : guest::kSEGV_MAPERR;
    si.fields.sigfault.addr = addr;
    const uint64_t fsc = stop.mapped ? 0x0f : 0x07;  // permission / translation fault, level 3
    detail.address = addr;
    detail.esr =
        ((fetch ? 0x20ull : 0x24ull) << 26) | kIl | (stop.access == PROT_WRITE ? 1ull << 6 : 0) | fsc;
  } else if (stop.kind == StopKind::kOtherException && stop.intno == kExcpDataAbort) {
    // Refused TLB fills end as kFault, so a data abort here is an alignment fault (an exclusive or atomic
    // access off its size): do_alignment_fault's SIGBUS/BUS_ADRALN at the access address, DFSC 0x21.
    const uint64_t addr = exact_fault_address(*cpu_, pc, 0);
    si.si_signo = guest::kSIGBUS;
    si.si_code = guest::kBUS_ADRALN;
    si.fields.sigfault.addr = addr;
    detail.address = addr;
    detail.esr = (0x24ull << 26) | kIl | 0x21;
  } else if (stop.kind == StopKind::kBreakpoint) {
    uint32_t insn = 0;
    (void)copy_in(as(), &insn, pc, 4);
    si.si_signo = guest::kSIGTRAP;
    si.si_code = guest::kTRAP_BRKPT;
    si.fields.sigfault.addr = pc;
    detail.esr = (0x3cull << 26) | kIl | ((insn >> 5) & 0xffff);
  } else {
    si.si_signo = guest::kSIGILL;
    si.si_code = guest::kILL_ILLOPC;
    si.fields.sigfault.addr = pc;
    detail.esr = kIl;
  }
  if (getenv("A64RUN_FAULT_REPORT")) print_crash_report(*cpu_, stop, si.si_signo);
  signals::deliver_fault(*this, si, detail);
}

void Task::exit_group(int status) {
  // The run lock and futex queues may live on in a CLONE_VM relative (a vfork child's parent, for one).
  proc_.prepare_death();
  if (gdb::enabled()) gdb::on_exit(status);
  signals::print_stats_at_exit();
  fflush(stdout);
  fflush(stderr);
  _exit(status & 0xff);
}

}  // namespace emu

namespace emu {

// Walks the robust list (set_robust_list) at thread death: every futex the dying thread still owns gets
// FUTEX_OWNER_DIED and one waiter is woken, as kernel/futex/core.c's exit_robust_list does.
void Task::release_robust_futexes() {
  const uint64_t list = robust_list.load(std::memory_order_relaxed);
  if (list == 0) return;
  struct Head {
    uint64_t next;
    int64_t futex_offset;
    uint64_t pending;
  } head{};
  if (copy_in(as(), &head, list, sizeof head) != 0) return;
  auto release = [&](uint64_t entry) {
    const uint64_t uaddr = entry + static_cast<uint64_t>(head.futex_offset);
    if (uaddr & 3) return;
    std::shared_lock lk(as().lock());
    if (!as().accessible_locked(uaddr, 4, PROT_READ | PROT_WRITE)) return;
    auto* word = reinterpret_cast<uint32_t*>(as().host(uaddr));
    uint32_t cur;
    if (!fault_load32(word, &cur)) return;
    int swapped;
    do {
      if ((cur & FUTEX_TID_MASK) != static_cast<uint32_t>(tid_)) return;
    } while ((swapped = fault_cas32(word, &cur, (cur & FUTEX_WAITERS) | FUTEX_OWNER_DIED)) == 0);
    if (swapped < 0) return;
    lk.unlock();
    if (!(cur & FUTEX_WAITERS)) return;
    proc_.futexes().wake(uaddr, 1, ~0u);
    if (as().is_shared(uaddr)) ::syscall(SYS_futex, as().host(uaddr), FUTEX_WAKE, 1, nullptr, nullptr, 0);
  };
  uint64_t entry = head.next;
  for (int limit = 0; entry != list && entry != 0 && limit < 2048; ++limit) {
    uint64_t next = 0;
    if (copy_in(as(), &next, entry & ~uint64_t{1}, sizeof next) != 0) break;
    if ((entry & ~uint64_t{1}) != head.pending) release(entry & ~uint64_t{1});
    entry = next;
  }
  if (head.pending) release(head.pending & ~uint64_t{1});
}

}  // namespace emu
