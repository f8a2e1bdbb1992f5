// This file implements the stub's side of the Debugger: attaching and detaching, stopping and resuming
// every thread, the stopped threads' registers, and the breakpoint and watchpoint lists the vCPUs apply.
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <fstream>

#include "emu/task.h"
#include "gdb/debugger.h"
#include "signals/signals.h"
#include "syscalls/procfs.h"

namespace gdb {
namespace {

// How long the stub waits for every thread to park before it reports a stop with stragglers, and how long a
// register access waits for one thread to park.
constexpr auto kStopPatience = std::chrono::seconds(1);
constexpr auto kThreadPatience = std::chrono::milliseconds(200);
constexpr uint64_t kMaxWatchLen = 4096;

int main_tid(emu::Process& proc) {
  int tid = 0;
  proc.for_each_thread([&](emu::Task& t) {
    if (tid == 0) tid = t.tid();
  });
  return tid;
}

}  // namespace

void Debugger::attach(StopEvent::Kind why) {
  std::lock_guard lk(mu_);
  attached_ = true;
  default_action_ = Action::kContinue;
  for (auto& [tid, th] : threads_) th.action = Action::kContinue;
  if (!stopped_) begin_stop_locked({why, main_tid(*proc_), why == StopEvent::Kind::kStart ? 5 : 2});
}

void Debugger::detach() {
  std::lock_guard lk(mu_);
  attached_ = false;
  stopped_ = false;
  breakpoints_.clear();
  watchpoints_.clear();
  ++generation_;
  pass_signals_ = 0;
  default_action_ = Action::kContinue;
  for (auto& [tid, th] : threads_) {
    th.action = Action::kContinue;
    th.resume_sig = 0;
    th.pass_once = 0;
  }
  set_debug_stop_all(false);
  cv_.notify_all();
}

void Debugger::interrupt() {
  std::lock_guard lk(mu_);
  if (!attached_ || stopped_) return;
  begin_stop_locked({StopEvent::Kind::kInterrupt, main_tid(*proc_), 2});
}

bool Debugger::all_parked_locked() {
  bool all = true;
  proc_->for_each_thread([&](emu::Task& t) {
    auto it = threads_.find(t.tid());
    if (it == threads_.end() || !it->second.parked) all = false;
  });
  return all;
}

bool Debugger::wait_stopped(StopEvent* ev) {
  std::unique_lock lk(mu_);
  if (!stopped_) return false;
  cv_.wait_for(lk, kStopPatience, [&] { return all_parked_locked(); });
  *ev = event_;
  return true;
}

// Threads the request names get their action; the others the default one (kStop when there is none, as
// vCont says). Threads that have never passed a checkpoint (new since) take the default when they do.
void Debugger::resume(const Resume& r) {
  std::lock_guard lk(mu_);
  Action dflt = Action::kStop;
  int dflt_sig = 0;
  for (const Resume::One& one : r.actions) {
    if (one.tid == 0) {
      dflt = one.action;
      dflt_sig = one.sig;
    }
  }
  std::vector<int> live;
  proc_->for_each_thread([&](emu::Task& t) { live.push_back(t.tid()); });
  std::erase_if(threads_,
                [&](const auto& kv) { return std::find(live.begin(), live.end(), kv.first) == live.end(); });
  for (const int tid : live) {
    Thread& th = thread_locked(tid);
    th.action = dflt;
    th.resume_sig = dflt == Action::kStop ? 0 : dflt_sig;
    for (const Resume::One& one : r.actions) {
      if (one.tid != tid) continue;
      th.action = one.action;
      th.resume_sig = one.sig;
    }
  }
  default_action_ = dflt;
  stopped_ = false;
  set_debug_stop_all(false);
  cv_.notify_all();
}

std::vector<int> Debugger::thread_ids() {
  std::vector<int> ids;
  proc_->for_each_thread([&](emu::Task& t) { ids.push_back(t.tid()); });
  return ids;
}

bool Debugger::thread_alive(int tid) {
  return proc_->find_thread(tid) != nullptr;
}

std::string Debugger::thread_name(int tid) {
  std::ifstream f("/proc/" + std::to_string(proc_->host_pid()) + "/task/" + std::to_string(tid) + "/comm");
  std::string name;
  std::getline(f, name);
  // What the guest itself would read in /proc/self/comm: the program's name until it renames the thread.
  const std::string& exe = emu::self_exe_path();
  return syscalls::guest_comm(name, exe.substr(exe.rfind('/') + 1).substr(0, 15), proc_->opts().program);
}

// A parked thread's vCPU is idle, and it cannot leave the park without mu_, which is held here: the stub
// has its registers to itself.
bool Debugger::read_registers(int tid, emu::CpuState* out) {
  std::unique_lock lk(mu_);
  auto parked = [&] {
    auto it = threads_.find(tid);
    return it != threads_.end() && it->second.parked;
  };
  if (!cv_.wait_for(lk, kThreadPatience, parked)) return false;
  emu::Task* t = proc_->find_thread(tid);
  if (t == nullptr) return false;
  emu::save_cpu_state(t->cpu(), out);
  return true;
}

bool Debugger::write_registers(int tid, const emu::CpuState& in) {
  std::unique_lock lk(mu_);
  auto parked = [&] {
    auto it = threads_.find(tid);
    return it != threads_.end() && it->second.parked;
  };
  if (!cv_.wait_for(lk, kThreadPatience, parked)) return false;
  emu::Task* t = proc_->find_thread(tid);
  if (t == nullptr) return false;
  emu::restore_cpu_state(t->cpu(), in);
  return true;
}

bool Debugger::add_breakpoint(uint64_t addr) {
  if ((addr & 3) != 0 || addr >= proc_->as().size()) return false;
  std::lock_guard lk(mu_);
  if (std::find(breakpoints_.begin(), breakpoints_.end(), addr) == breakpoints_.end()) {
    breakpoints_.push_back(addr);
    ++generation_;
  }
  return true;
}

bool Debugger::remove_breakpoint(uint64_t addr) {
  std::lock_guard lk(mu_);
  const auto it = std::find(breakpoints_.begin(), breakpoints_.end(), addr);
  if (it != breakpoints_.end()) {
    breakpoints_.erase(it);
    ++generation_;
  }
  return true;
}

bool Debugger::add_watchpoint(const Watchpoint& w) {
  if (w.len == 0 || w.len > kMaxWatchLen || w.addr >= proc_->as().size() ||
      w.len > proc_->as().size() - w.addr)
    return false;
  std::lock_guard lk(mu_);
  watchpoints_.push_back(w);
  ++generation_;
  return true;
}

bool Debugger::remove_watchpoint(const Watchpoint& w) {
  std::lock_guard lk(mu_);
  const auto it = std::find_if(watchpoints_.begin(), watchpoints_.end(), [&](const Watchpoint& x) {
    return x.addr == w.addr && x.len == w.len && x.type == w.type;
  });
  if (it != watchpoints_.end()) {
    watchpoints_.erase(it);
    ++generation_;
  }
  return true;
}

void Debugger::set_pass_signals(uint64_t mask) {
  std::lock_guard lk(mu_);
  pass_signals_ = mask;
}

void Debugger::forget_after_fork() {
  new (&mu_) std::mutex();
  new (&cv_) std::condition_variable();
  attached_ = false;
  stopped_ = false;
  threads_.clear();
  breakpoints_.clear();
  watchpoints_.clear();
  ++generation_;
  event_fd_ = -1;
}

}  // namespace gdb
