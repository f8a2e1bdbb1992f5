// This file implements a guest thread's run loop and process exit.
#include "emu/task.h"

#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/futex.h>

#include <cstdio>
#include <shared_mutex>

#include "emu/crash_report.h"
#include "emu/guest_mem.h"

namespace emu {

std::string Process::host_path(const std::string& guest_path) const {
  if (opts_.sysroot.empty() || guest_path.empty() || guest_path[0] != '/') return guest_path;
  // Files (the loader, libraries, ld.so.cache) come from the sysroot when it has them; directories stay the
  // host's, so `ls /` under -L lists the real root rather than the sysroot's.
  std::string in_root = opts_.sysroot + guest_path;
  struct stat st {};
  if (::stat(in_root.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) return in_root;
  return guest_path;
}

void Process::add_thread(Task* t) {
  std::lock_guard lk(threads_mu_);
  threads_[t->tid()] = t;
}

size_t Process::remove_thread(Task* t) {
  std::lock_guard lk(threads_mu_);
  threads_.erase(t->tid());
  return threads_.size();
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
  if (!cpu) return std::make_unique<Vcpu>(*as_, owner);
  cpu->set_task(owner);
  cpu->take_requests();
  return cpu;
}

void Process::recycle_vcpu(std::unique_ptr<Vcpu> cpu) {
  cpu->set_task(nullptr);
  std::lock_guard lk(threads_mu_);
  idle_cpus_.push_back(std::move(cpu));
}

void Process::prepare_fork() {
  futexes_.lock_all();
  as_->lock().lock();
  threads_mu_.lock();
  run_lock_.lock_internal();
}

void Process::after_fork_parent() {
  run_lock_.unlock_internal();
  threads_mu_.unlock();
  as_->lock().unlock();
  futexes_.unlock_all();
}

void Process::after_fork_child(Task* self) {
  run_lock_.reset_after_fork(&self->cpu());
  threads_.clear();
  self->set_tid(static_cast<int>(::getpid()));
  threads_[self->tid()] = self;
  threads_mu_.unlock();
  as_->reset_lock_after_fork();
  futexes_.reset_after_fork();
}

Task::~Task() {
  if (cpu_) proc_.recycle_vcpu(std::move(cpu_));
}

void Task::run() {
  RunLock& lock = proc_.run_lock();
  lock.acquire(cpu_.get(), false);
  while (!exiting_) {
    const StopInfo stop = cpu_->run();
    switch (stop.kind) {
      case StopKind::kNone:
      case StopKind::kSyscallStop:
      case StopKind::kThreadExit:
        break;
      case StopKind::kRequest: {
        const uint32_t req = cpu_->take_requests();
        if (req & Vcpu::kRequestYield) {
          lock.release(cpu_.get());
          lock.acquire(cpu_.get(), false);
        }
        break;
      }
      case StopKind::kFault:
      case StopKind::kUndefined:
      case StopKind::kBreakpoint:
      case StopKind::kOtherException:
        lock.release(cpu_.get());
        report_fault_and_exit(stop);
    }
  }
  lock.release(cpu_.get());
}

void Task::exit_thread(int status) {
  if (clear_child_tid != 0) {
    const uint32_t zero = 0;
    if (copy_out(as(), clear_child_tid, &zero, sizeof zero) == 0) proc_.futexes().wake(clear_child_tid, 1, ~0u);
  }
  release_robust_futexes();
  if (vfork_child_ || proc_.remove_thread(this) == 0) exit_group(status);
  exiting_ = true;
  cpu_->stop(StopKind::kThreadExit);
}

void Task::report_fault_and_exit(const StopInfo& stop) {
  // Until guest signal delivery exists, a synchronous fault ends the program like an unhandled signal would,
  // with a report that names the instruction.
  int sig = SIGSEGV;
  if (stop.kind == StopKind::kUndefined || stop.kind == StopKind::kOtherException) sig = SIGILL;
  if (stop.kind == StopKind::kBreakpoint) sig = SIGTRAP;
  print_crash_report(*cpu_, stop, sig);
  exit_group(128 + sig);
}

void Task::exit_group(int status) {
  // A vfork child shares the parent's emulator: leave the run lock free for the parent's threads.
  if (vfork_child_) proc_.run_lock().release(cpu_.get());
  fflush(stdout);
  fflush(stderr);
  _exit(status & 0xff);
}

}  // namespace emu

namespace emu {

// Walks the robust list (set_robust_list) at thread death: every futex the dying thread still owns gets
// FUTEX_OWNER_DIED and one waiter is woken, as kernel/futex/core.c's exit_robust_list does.
void Task::release_robust_futexes() {
  if (robust_list == 0) return;
  struct Head {
    uint64_t next;
    int64_t futex_offset;
    uint64_t pending;
  } head{};
  if (copy_in(as(), &head, robust_list, sizeof head) != 0) return;
  auto release = [&](uint64_t entry) {
    const uint64_t uaddr = entry + static_cast<uint64_t>(head.futex_offset);
    if (uaddr & 3) return;
    std::shared_lock lk(as().lock());
    if (!as().accessible_locked(uaddr, 4, PROT_READ | PROT_WRITE)) return;
    auto* word = reinterpret_cast<uint32_t*>(as().host(uaddr));
    uint32_t cur = __atomic_load_n(word, __ATOMIC_RELAXED);
    do {
      if ((cur & FUTEX_TID_MASK) != static_cast<uint32_t>(tid_)) return;
    } while (!__atomic_compare_exchange_n(word, &cur, (cur & FUTEX_WAITERS) | FUTEX_OWNER_DIED, false,
                                          __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
    lk.unlock();
    if (cur & FUTEX_WAITERS) proc_.futexes().wake(uaddr, 1, ~0u);
  };
  uint64_t entry = head.next;
  for (int limit = 0; entry != robust_list && entry != 0 && limit < 2048; ++limit) {
    uint64_t next = 0;
    if (copy_in(as(), &next, entry & ~uint64_t{1}, sizeof next) != 0) break;
    if ((entry & ~uint64_t{1}) != head.pending) release(entry & ~uint64_t{1});
    entry = next;
  }
  if (head.pending) release(head.pending & ~uint64_t{1});
}

}  // namespace emu
