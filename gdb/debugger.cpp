// This file implements the guest threads' side of the debugger: parking at the checkpoint, stops that
// threads report (breakpoints, steps, watchpoints, signals), stopping and resuming every thread, and the
// per-vCPU debug state each thread applies to itself.
#include "gdb/debugger.h"

#include <capstone/capstone.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>

#include "emu/guest_mem.h"
#include "emu/task.h"
#include "gdb/watch.h"
#include "signals/signals.h"

namespace gdb {

namespace detail {
std::atomic<bool> g_enabled{false};
}  // namespace detail

namespace {

Debugger* g_debugger = nullptr;

// True when the instruction at pc is one Capstone knows: a step that ends where it began (a branch to
// itself) is a step, an undefined instruction there is SIGILL.
bool decodes(emu::Task& t, uint64_t pc) {
  uint32_t word = 0;
  if (emu::copy_in(t.as(), &word, pc, 4) != 0) return false;
  csh cs;
  if (cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &cs) != CS_ERR_OK) return true;
  cs_insn* insn = nullptr;
  const size_t n = cs_disasm(cs, reinterpret_cast<const uint8_t*>(&word), 4, pc, 1, &insn);
  if (n) cs_free(insn, n);
  cs_close(&cs);
  return n == 1;
}

void clear_vcpu(emu::Vcpu& cpu) {
  if (cpu.single_stepping()) cpu.set_single_step(false);
  if (cpu.has_breakpoints()) cpu.set_breakpoints({});
  if (cpu.watch_bypass()) cpu.set_watch_bypass(false);
  if (cpu.debug_generation != 0) cpu.set_watched_pages({});
  cpu.debug_generation = 0;
}

}  // namespace

Debugger* Debugger::instance() {
  return g_debugger;
}

void Debugger::install(Debugger* d) {
  g_debugger = d;
  detail::g_enabled.store(true, std::memory_order_release);
}

// --- guest threads ---

void Debugger::park_locked(std::unique_lock<std::mutex>& lk, emu::Task& t) {
  const int tid = t.tid();
  auto must_wait = [&] { return attached_ && (stopped_ || thread_locked(tid).action == Action::kStop); };
  if (!must_wait()) return;
  emu::RunLock& rl = t.proc().run_lock();
  const bool held = rl.held_by(&t.cpu());
  if (held) {
    lk.unlock();
    rl.release(&t.cpu());
    lk.lock();
  }
  thread_locked(tid).parked = true;
  cv_.notify_all();
  cv_.wait(lk, [&] { return !must_wait(); });
  thread_locked(tid).parked = false;
  if (held) {
    lk.unlock();
    rl.acquire(&t.cpu(), true);
    lk.lock();
  }
}

Debugger::Thread& Debugger::thread_locked(int tid) {
  auto it = threads_.find(tid);
  if (it == threads_.end()) {
    it = threads_.emplace(tid, Thread{}).first;
    it->second.action = default_action_;
  }
  return it->second;
}

void Debugger::checkpoint(emu::Task& t) {
  emu::Vcpu& cpu = t.cpu();
  if (&t.proc() != proc_) {  // a CLONE_VM child process shares the vCPU pool, not the debugger
    clear_vcpu(cpu);
    return;
  }
  std::unique_lock lk(mu_);
  park_locked(lk, t);
  Thread& th = thread_locked(t.tid());
  const uint64_t pc = cpu.pc();
  if (th.step_through && pc != th.step_from) th.step_through = false;  // a handler came first: no access
  const bool step = (attached_ && th.action == Action::kStep) || th.step_through;
  if (step) th.step_from = pc;
  const int sig = th.resume_sig;
  th.resume_sig = 0;
  if (sig != 0) th.pass_once = sig;
  const bool through = th.step_through;
  std::vector<uint64_t> bps;
  std::vector<std::pair<uint64_t, int>> pages;
  const uint64_t gen = generation_;
  const bool resync = cpu.debug_generation != gen;
  if (resync) {
    bps = breakpoints_;
    pages = watched_pages_locked();
  }
  lk.unlock();
  if (resync) {
    cpu.set_breakpoints(std::move(bps));
    cpu.set_watched_pages(std::move(pages));
    cpu.debug_generation = gen;
  }
  if (cpu.watch_bypass() != through) cpu.set_watch_bypass(through);
  if (step || cpu.single_stepping()) cpu.set_single_step(step);
  if (sig != 0) (void)signals::send_to_thread(t, signals::user_siginfo(sig, guest::kSI_USER));
}

bool Debugger::on_stop(emu::Task& t, const emu::StopInfo& stop) {
  if (&t.proc() != proc_) return false;
  emu::Vcpu& cpu = t.cpu();
  const uint64_t pc = cpu.pc();
  if (stop.kind == emu::StopKind::kUndefined && cpu.single_stepping()) {
    std::unique_lock lk(mu_);
    Thread& th = thread_locked(t.tid());
    if (pc == th.step_from && !decodes(t, pc)) return false;  // an undefined instruction: SIGILL
    const bool through = th.step_through;
    th.step_through = false;
    const bool for_gdb = attached_ && th.action == Action::kStep;
    lk.unlock();
    if (through) cpu.set_watch_bypass(false);
    cpu.set_single_step(false);
    if (for_gdb) report(t, {StopEvent::Kind::kStep, 0, guest::kSIGTRAP}, true);
    return true;
  }
  if (stop.kind == emu::StopKind::kFault && stop.watched) return on_watch_fault(t, stop);
  {
    std::lock_guard lk(mu_);
    Thread& th = thread_locked(t.tid());
    if (th.step_through) {  // the stepped access did not complete (a fault, a kick before it): start over
      th.step_through = false;
      cpu.set_watch_bypass(false);
    }
  }
  if (stop.kind == emu::StopKind::kRequest && cpu.has_breakpoints() && cpu.breakpoint_at(pc))
    report(t, {StopEvent::Kind::kBreakpoint, 0, guest::kSIGTRAP}, true);
  return false;
}

// A watched page refused an access: a hit when the access touches a watched range of its kind (reported
// with the PC at the instruction, which has not run: gdb's aarch64 watchpoints are "non-steppable", so gdb
// removes them, steps, and puts them back); otherwise the access steps through with the page open.
bool Debugger::on_watch_fault(emu::Task& t, const emu::StopInfo& stop) {
  emu::Vcpu& cpu = t.cpu();
  const uint64_t pc = cpu.pc();
  const AccessRange access = decode_access(cpu, pc, stop.fault_addr);
  StopEvent ev{StopEvent::Kind::kWatch, 0, guest::kSIGTRAP};
  bool hit = false;
  {
    std::lock_guard lk(mu_);
    for (const Watchpoint& w : watchpoints_) {
      const bool kind_ok = w.type == 4 || (w.type == 2) == (stop.access == PROT_WRITE);
      if (!kind_ok || access.start >= w.addr + w.len || w.addr >= access.start + access.len) continue;
      ev.addr = std::max(w.addr, access.start);
      ev.watch = w.type == 2 ? 'w' : w.type == 3 ? 'r' : 'a';
      hit = true;
      break;
    }
    if (!hit) {
      Thread& th = thread_locked(t.tid());
      th.step_through = true;
      th.step_from = pc;
    }
  }
  if (hit) {
    report(t, ev, true);
  } else {
    cpu.set_watch_bypass(true);
    cpu.set_single_step(true);
  }
  return true;
}

int Debugger::on_signal(emu::Task& t, const guest::siginfo& info) {
  const int sig = info.si_signo;
  if (&t.proc() != proc_) return sig;
  {
    std::lock_guard lk(mu_);
    if (!attached_) return sig;
    Thread& th = thread_locked(t.tid());
    if (th.pass_once == sig) {
      th.pass_once = 0;
      return sig;
    }
    if (sig < 64 && (pass_signals_ & (uint64_t{1} << sig))) return sig;
  }
  StopEvent ev{StopEvent::Kind::kSignal, 0, sig};
  ev.info = info;
  return report(t, ev, false);
}

// "Park first": a stop in effect (another thread's) goes to the debugger first; this one follows after the
// resume, as if it had happened then. A breakpoint, step or watchpoint is dropped instead (`drop`): the
// thread has not run the instruction, so it stops there again after the resume if the breakpoint is still
// there, and a step that ends during another's stop is one gdb has given up.
int Debugger::report(emu::Task& t, StopEvent ev, bool drop) {
  std::unique_lock lk(mu_);
  if (!attached_ || (drop && stopped_)) return ev.sig;
  park_locked(lk, t);
  if (!attached_) return ev.sig;
  ev.tid = t.tid();
  begin_stop_locked(ev);
  park_locked(lk, t);
  Thread& th = thread_locked(t.tid());
  int sig = th.resume_sig;
  th.resume_sig = 0;
  if (!attached_ && ev.kind == StopEvent::Kind::kSignal) sig = ev.sig;  // detached: the signal goes on
  return sig;
}

void Debugger::begin_stop_locked(const StopEvent& ev) {
  stopped_ = true;
  event_ = ev;
  set_debug_stop_all(true);
  const uint64_t one = 1;
  if (event_fd_ >= 0) (void)!::write(event_fd_, &one, sizeof one);
  cv_.notify_all();
}

// The debug-stop mark makes each thread's waits end and its interrupt flag read true (signals::
// recompute_locked); the request bit kicks its vCPU out of guest code. Threads left stopped keep the mark.
void Debugger::set_debug_stop_all(bool on) {
  signals::ProcessSignals& ps = proc_->signals();
  std::lock_guard lk(ps.sig_lock);
  proc_->for_each_thread([&](emu::Task& t) {
    const bool stop = on || thread_locked(t.tid()).action == Action::kStop;
    if (t.debug_stop() == stop) return;
    t.set_debug_stop(stop);
    signals::recompute_locked(t);
    if (stop) {
      t.cpu().request(emu::Vcpu::kRequestDebug);
      t.wake();
    }
  });
}

std::vector<std::pair<uint64_t, int>> Debugger::watched_pages_locked() const {
  std::vector<std::pair<uint64_t, int>> pages;
  for (const Watchpoint& w : watchpoints_) {
    const int deny = w.type == 2 ? PROT_WRITE : w.type == 3 ? PROT_READ : PROT_READ | PROT_WRITE;
    for (uint64_t p = emu::page_down(w.addr); p <= emu::page_down(w.addr + w.len - 1); p += emu::kPageSize)
      pages.emplace_back(p, deny);
  }
  return pages;
}

}  // namespace gdb
