// Debugger: the guest threads' side of the gdb stub (gdb/stub.h has the protocol). It keeps gdb's all-stop
// model: while the debugger looks, every guest thread of the process is stopped.
//
// A stop starts in one thread (a breakpoint, a finished step, a watchpoint, a signal about to be delivered)
// or in the stub (the interrupt byte, a new connection). Stopping the others reuses what a signal does to
// reach a thread: the request bit kRequestDebug kicks a vCPU out of guest code at its next block, and the
// thread's debug-stop mark makes its interrupt flag read true, so a blocking system call ends as for a
// signal (restarted, or EINTR where Linux's stop and continue under ptrace gives that too) and the thread
// reaches Task::run's checkpoint, where it parks. A thread parks nowhere else, holding no lock; so the stub
// reads and writes a parked thread's registers (its vCPU is idle) and guest memory without racing it. One
// that stays in a host call the signal machinery cannot end (flock, say) is a straggler: reported, but its
// registers are not available until it comes back.
//
// Lock order: mu_, then a process's sig_lock, then its thread registry. Nothing takes mu_ holding either.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "emu/cpu_state.h"
#include "gdb/hooks.h"
#include "syscalls/abi/siginfo.h"

namespace emu {
class Vcpu;
}  // namespace emu

namespace gdb {

// Why the program stopped, as the stop reply says it.
struct StopEvent {
  enum class Kind { kNone, kStart, kInterrupt, kBreakpoint, kStep, kWatch, kSignal };
  Kind kind = Kind::kNone;
  int tid = 0;
  int sig = 0;            // Linux numbering: the signal for kSignal, SIGTRAP or SIGINT otherwise
  uint64_t addr = 0;      // kWatch: the watched address the access touched
  char watch = 0;         // kWatch: 'w' write, 'r' read, 'a' access (the watchpoint's kind)
  guest::siginfo info{};  // kSignal: what qXfer:siginfo:read shows
};

enum class Action { kStop, kContinue, kStep };

// A resume request: an action for named threads, and one for every other (vCont's default).
struct Resume {
  struct One {
    int tid;  // 0 = every thread not named
    Action action;
    int sig;  // Linux numbering, 0 for none
  };
  std::vector<One> actions;
};

// A watchpoint (Z2 write, Z3 read, Z4 access).
struct Watchpoint {
  uint64_t addr;
  uint64_t len;
  int type;  // 2, 3 or 4
};

class Debugger {
 public:
  explicit Debugger(emu::Process& proc) : proc_(&proc) {}
  static Debugger* instance();  // nullptr until start()
  static void install(Debugger* d);
  emu::Process& proc() { return *proc_; }

  // --- guest threads (gdb/hooks.h) ---
  void checkpoint(emu::Task& t);
  bool on_stop(emu::Task& t, const emu::StopInfo& stop);
  int on_signal(emu::Task& t, const guest::siginfo& info);

  // --- the stub ---
  // The stub's wakeup: readable when a guest thread has begun a stop.
  int event_fd() const { return event_fd_; }
  void set_event_fd(int fd) { event_fd_ = fd; }
  // A debugger connected: stop every thread (kStart at the program's start, kInterrupt later).
  void attach(StopEvent::Kind why);
  // The debugger left (D, or its connection closed): no breakpoints, watchpoints or steps; every thread runs.
  void detach();
  // The interrupt byte while running: stop every thread, reported as SIGINT in the main thread.
  void interrupt();
  // Waits for the stop in effect to reach every thread (parked, or straggling after a while) and returns
  // its event; false if no stop is in effect.
  bool wait_stopped(StopEvent* ev);
  // Resumes per `r`. A thread with a signal to report (kept while another's stop was reported) reports it
  // after the resume, as a fresh stop.
  void resume(const Resume& r);

  // The stopped world, for the stub (only between wait_stopped and resume):
  std::vector<int> thread_ids();  // the main thread first
  bool thread_alive(int tid);
  // Registers of a parked thread; false for a straggler or an unknown thread.
  bool read_registers(int tid, emu::CpuState* out);
  bool write_registers(int tid, const emu::CpuState& in);
  std::string thread_name(int tid);
  const StopEvent& last_event() const { return event_; }

  // Breakpoints and watchpoints; applied by each vCPU at its next checkpoint.
  bool add_breakpoint(uint64_t addr);
  bool remove_breakpoint(uint64_t addr);
  bool add_watchpoint(const Watchpoint& w);
  bool remove_watchpoint(const Watchpoint& w);
  // Signals passed to the program without a stop (QPassSignals), Linux numbering.
  void set_pass_signals(uint64_t mask);

  // The fork child's copy forgets the debugger (hooks.h after_fork_child).
  void forget_after_fork();

 private:
  struct Thread {
    bool parked = false;
    Action action = Action::kContinue;
    int resume_sig = 0;         // Linux numbering: what gdb passes on resume
    int pass_once = 0;          // a signal gdb asked for on a resume, delivered without another stop
    uint64_t step_from = 0;     // PC at which the current step began
    bool step_through = false;  // stepping one access past a watched page, not for gdb
  };

  Thread& thread_locked(int tid);  // created on first sight, with the last resume's default action
  // Parks t until no stop is in effect and its own action lets it run. Releases t's run lock meanwhile.
  void park_locked(std::unique_lock<std::mutex>& lk, emu::Task& t);
  // Starts a stop with event `ev` (no stop in effect): marks every thread and kicks it.
  void begin_stop_locked(const StopEvent& ev);
  // Parks t, starts a stop for `ev`, and parks again until resumed. Returns t's resume signal (for a signal:
  // the one to deliver). With `drop`, a stop already in effect swallows the event.
  int report(emu::Task& t, StopEvent ev, bool drop);
  void set_debug_stop_all(bool on);
  bool all_parked_locked();
  bool on_watch_fault(emu::Task& t, const emu::StopInfo& stop);
  std::vector<std::pair<uint64_t, int>> watched_pages_locked() const;

  emu::Process* proc_;
  int event_fd_ = -1;
  std::mutex mu_;
  std::condition_variable cv_;
  bool attached_ = false;  // GUARDED_BY(mu_): a debugger is connected
  bool stopped_ = false;   // GUARDED_BY(mu_): a stop is in effect; threads park at their checkpoint
  StopEvent event_;        // GUARDED_BY(mu_): the stop in effect
  uint64_t stop_began_ns_ = 0;
  std::map<int, Thread> threads_;  // GUARDED_BY(mu_), by tid
  Action default_action_ = Action::kContinue;
  std::vector<uint64_t> breakpoints_;    // GUARDED_BY(mu_)
  std::vector<Watchpoint> watchpoints_;  // GUARDED_BY(mu_)
  uint64_t generation_ = 1;              // GUARDED_BY(mu_): bumped when breakpoints or watchpoints change
  uint64_t pass_signals_ = 0;            // GUARDED_BY(mu_)
};

}  // namespace gdb
