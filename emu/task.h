// Process and Task: a guest process (address space, run lock, identity, options) and one guest thread
// (its vCPU and thread-level state). One host thread runs each Task.
#pragma once

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "emu/address_space.h"
#include "emu/futex.h"
#include "emu/run_lock.h"
#include "emu/sysroot.h"
#include "emu/vcpu.h"
#include "signals/fasync_owner.h"
#include "signals/host_signals.h"
#include "signals/mq_notify.h"
#include "signals/park.h"
#include "signals/signal_state.h"
#include "signals/signalfd.h"
#include "signals/timers.h"

namespace syscalls::seccomp {
struct Filter;
}  // namespace syscalls::seccomp

namespace emu {

// What the command line asked for.
struct Options {
  std::string sysroot;            // -L / A64RUN_LD_PREFIX; empty for none
  bool strace = false;            // --strace
  std::string signal_stats;       // --signal-stats: "-" for stderr, else a JSON file path
  std::string gdb;                // -g / A64RUN_GDB: where the gdb stub listens; empty for none
  std::string program;            // host path of the guest executable
  int program_fd = -1;            // the executable's descriptor when the kernel passed one (binfmt_misc O)
  std::vector<std::string> argv;  // guest argv (argv[0] may come from -0)
  std::vector<std::string> envp;  // guest environment
  // The blocked and ignored signals the program starts with, as execve(2) keeps them: those a64run itself
  // was started with (a host parent's: nohup's SIGHUP, a shell's SIGINT for a background job), or, when a
  // guest execve re-executes a64run, the exec'ing thread's (--exec-signal-state, given by a64run to itself).
  uint64_t exec_blocked = 0;
  uint64_t exec_ignored = 0;
  // The seccomp filters an execve keeps (--exec-seccomp, read at start: syscalls/seccomp.h).
  std::shared_ptr<const syscalls::seccomp::Filter> exec_seccomp;
  // The pending signals an execve keeps (--exec-pending, read at start: signals.h).
  signals::ExecPending exec_pending;
  // The exec'ing process entered its working directory by a host path inside the sysroot
  // (Process::cwd_by_host_path; --exec-host-cwd, given by a64run to itself).
  bool exec_host_cwd = false;
};

// a64run's own executable, resolved at start: /proc/self/exe stops resolving once the guest's main thread
// (the host thread-group leader) has exited, and an execve from another thread must still find it.
const std::string& self_exe_path();

class Process;

// What the threads of a process, and the processes a CLONE_VM clone makes, share: the guest address space,
// the run lock over the guest code that runs in it, and the private futex queues (Linux keys a private
// futex by its mm).
struct SharedMemory {
  explicit SharedMemory(std::unique_ptr<AddressSpace> a) : as(std::move(a)) {}
  std::unique_ptr<AddressSpace> as;
  RunLock run_lock;
  FutexTable futexes;
  // The processes that live in this memory (the first, and its CLONE_VM children), for a SIGKILL between
  // them (Process::kill_from_relative). A Process joins in its constructor and leaves in its destructor;
  // family_size mirrors the list's length for readers that must not take the lock (a dying thread).
  std::mutex family_mu;
  std::vector<Process*> family;  // GUARDED_BY(family_mu)
  std::atomic<int> family_size{0};
};

class Process {
 public:
  // The first process of this a64run; it becomes the calling thread's current().
  Process(Options opts, std::unique_ptr<AddressSpace> as)
      : opts_(std::move(opts)), sysroot_(opts_.sysroot), mem_(std::make_shared<SharedMemory>(std::move(as))) {
    current_ = this;
    set_host_pid(static_cast<int>(::getpid()));
    cwd_by_host_path.store(opts_.exec_host_cwd, std::memory_order_relaxed);
    join_family();
  }
  // The process a clone with CLONE_VM but without CLONE_THREAD makes: its memory is the parent's, its
  // signal actions too under CLONE_SIGHAND (copied otherwise); its threads, pending signals, timers and
  // signalfds are its own.
  Process(Process& parent, bool share_sighand);
  ~Process();
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;
  // The process the calling host thread emulates. Per thread, not global: a CLONE_VM child is another
  // host process in the same memory, with a Process of its own. Each emulator thread sets it at its start.
  // Always inlined: the wake signal's handler (not instrumented by ThreadSanitizer) reads it.
  [[gnu::always_inline]] static Process* current() { return current_; }
  static void set_current(Process* p) { current_ = p; }
  // At process death (exit_group, a fatal signal): every thread's robust futexes get FUTEX_OWNER_DIED, so
  // another process sharing them sees EOWNERDEAD.
  void release_all_robust_futexes();
  // The process is about to end (exit_group, a fatal signal): its robust futexes are released, and its
  // threads leave the run lock and the futex queues, which a CLONE_VM relative lives on with. Where a
  // relative shares the memory, the other threads are first parked at safe points (emu/process_death.cpp),
  // and a thread that finds the end claimed already (by another thread, or by a relative's SIGKILL) parks.
  void prepare_death();
  // A SIGKILL from a process of the same memory (emu/process_death.cpp): this process ends with every thread
  // at a safe point, so that no lock of the shared memory dies held. False when the process no longer runs
  // in this memory (it has exec'd): the caller sends the host's SIGKILL.
  bool kill_from_relative();
  // Calls fn for the other process of this memory whose host pid, or one of whose thread ids, is `id`, under
  // the family lock (so the process cannot be freed meanwhile); false when there is none.
  template <typename F>
  bool with_relative(int id, F&& fn) {
    std::lock_guard lk(mem_->family_mu);
    for (Process* p : mem_->family) {
      if (p == this || p->execing.load(std::memory_order_acquire)) continue;
      if (p->host_pid() == id || p->find_thread(id) != nullptr) {
        fn(*p);
        return true;
      }
    }
    return false;
  }
  // Every process of this memory but this one (under the family lock).
  template <typename F>
  void for_each_relative(F&& fn) {
    std::lock_guard lk(mem_->family_mu);
    for (Process* p : mem_->family) {
      if (p != this && !p->execing.load(std::memory_order_acquire)) fn(*p);
    }
  }
  bool shares_memory() const { return mem_->family_size.load(std::memory_order_acquire) > 1; }
  // True from the moment this process's end is claimed: its threads park at their next safe point.
  bool dying() const { return dying_.load(std::memory_order_seq_cst); }

  const Options& opts() const { return opts_; }
  AddressSpace& as() { return *mem_->as; }
  RunLock& run_lock() { return mem_->run_lock; }
  FutexTable& futexes() { return mem_->futexes; }

  signals::ProcessSignals& signals() { return signals_; }
  // Where handlers without SA_RESTORER return to: the vDSO's __kernel_rt_sigreturn (set by the loader), or
  // signals::map_trampoline.
  uint64_t sigreturn_trampoline = 0;

  // The thread registry. A Task is registered from its thread's start until that thread is done with it;
  // remove_thread_unless_last unregisters an exiting thread, unless it is the last (which ends the process
  // registered, and returns false).
  Task* find_thread(int tid);
  // Visits every thread, the main thread (tid == pid) first, under the registry lock.
  template <typename F>
  void for_each_thread(F&& fn) {
    std::lock_guard lk(threads_mu_);
    auto main = threads_.find(main_tid_);
    if (main != threads_.end()) fn(*main->second);
    for (auto& [tid, t] : threads_) {
      if (tid != main_tid_) fn(*t);
    }
  }
  void add_thread(Task* t);
  bool remove_thread_unless_last(Task* t);
  size_t thread_count();
  // Host threads on their way out: a thread that remove_thread_unless_last unregistered, other than the host
  // process's first (whose host thread stays, as Linux's zombie group leader does), still runs a64run's end
  // of it (the Task's teardown), then glibc's, and the host counts it as one of the process's threads until
  // the kernel has reaped it. A host call that needs one thread (unshare or setns of a user namespace:
  // signals::stop_host_signal_intake) first waits for them here (at most a second): a guest that joined its
  // last thread would otherwise get EINVAL where Linux gives success. The record is their host thread ids;
  // one is gone when tgkill(2) of it says ESRCH (the kernel unhashes a thread and takes it out of its
  // group in the same step, __unhash_process), and only a thread of this process can reuse the id, which
  // the waiting caller, the guest's only thread, does not start.
  void settle_leaving_threads();
  // Yields until every host thread of this process named in `tids` (0 names none) is reaped, or `bound` has
  // passed: false then. Reaped is tgkill(2)'s ESRCH (see settle_leaving_threads).
  bool wait_host_threads_gone(std::span<const int> tids, std::chrono::nanoseconds bound) const;
  // Idle vCPUs kept for reuse: creating a Unicorn instance costs ~1.6 ms, reusing one microseconds.
  std::unique_ptr<Vcpu> take_vcpu(Task* owner);
  void recycle_vcpu(std::unique_ptr<Vcpu> cpu);

  // fork: every emulator lock is taken before the host fork and released on both sides after it, so no
  // lock is inherited held; the child then keeps only the calling thread.
  void prepare_fork();
  void after_fork_parent();
  void after_fork_child(Task* self);

  // The -L rule (emu/sysroot.h, docs/sysroot.md): every guest path argument goes through it.
  const Sysroot& sysroot() const { return sysroot_; }
  // sysroot().host_path: the host path of a guest path, a final symlink followed.
  std::string host_path(const std::string& guest_path) const { return sysroot_.host_path(guest_path); }

  // What /proc/self/{exe,cmdline,auxv} show the guest.
  std::string exe_path;
  std::string cmdline;
  std::vector<uint8_t> auxv;

  // The signals layer's per-process state: the host signal intake, POSIX timers, signalfds.
  signals::HostIntake intake;
  signals::TimerTable timers;
  signals::SignalfdTable signalfds;
  signals::MqNotifyTable mq_notifications;
  signals::FasyncOwnerTable fasync_owners;
  // Set by a CLONE_VM child's execve just before the host execve: its emulator state left in the shared
  // memory is its parent's to free once the host says the child has left it.
  std::atomic<bool> execing{false};
  // Set once the guest arms a source of signals the host sends it during its own system calls (dnotify's
  // F_NOTIFY, a lease, O_ASYNC/FIOASYNC): from then on every system call looks for a host signal on its way
  // before it returns (syscalls/dispatch.cpp), as Linux makes such a signal pending before the call returns.
  std::atomic<bool> self_signals_armed{false};
  // How the guest named its working directory when it entered it, for a directory of the sysroot, which has
  // two names: its guest path (/usr/lib) and its host path (ROOT/usr/lib, which the rule leaves as the
  // host's). As Linux's getcwd names the mount a process went through, getcwd and the /proc cwd link read the
  // host path after an absolute chdir by the host path (true), and the guest path after one by the guest path
  // (false, also at start). A relative chdir or an fchdir keeps the name. Per process (a thread that unshared
  // CLONE_FS shares it still); fork and CLONE_VM children copy it, and an execve keeps it (--exec-host-cwd).
  std::atomic<bool> cwd_by_host_path{false};
  // The host process that runs this guest process (a CLONE_VM child sets it at its start).
  int host_pid() const { return host_pid_.load(std::memory_order_acquire); }
  void set_host_pid(int pid) { host_pid_.store(pid, std::memory_order_release); }

 private:
  void join_family();
  bool host_thread_gone(int tid) const;
  // True for the one caller that ends the process (its own thread or a relative); false for every later one.
  bool claim_death() { return !death_claimed_.exchange(true, std::memory_order_acq_rel); }
  // Asks every thread but the one with host id `except` to park at a safe point, and waits until each has.
  void stop_threads_for_death(int except);
  // What prepare_death does once the threads are stopped: the robust futexes, the futex queues, the run lock
  // and the code gate.
  void end_in_memory();
  std::atomic<bool> dying_{false};
  std::atomic<bool> death_claimed_{false};
  static inline thread_local Process* current_ = nullptr;
  Options opts_;
  Sysroot sysroot_;
  std::shared_ptr<SharedMemory> mem_;
  signals::ProcessSignals signals_;
  std::atomic<int> host_pid_{0};
  int main_tid_ = 0;
  std::mutex threads_mu_;
  std::map<int, Task*> threads_;  // GUARDED_BY(threads_mu_)
  std::vector<int> leaving_;      // GUARDED_BY(threads_mu_); see settle_leaving_threads
  // Declared last, so destroyed first: the idle vCPUs name this process (Vcpu::proc_) until they are gone.
  std::vector<std::unique_ptr<Vcpu>> idle_cpus_;  // GUARDED_BY(threads_mu_)
};

class Task {
 public:
  Task(Process& proc, int tid) : proc_(proc), cpu_(proc.take_vcpu(this)), tid_(tid) {}
  // With a vCPU taken from another process's pool (a clone child's first thread; see release_cpu).
  Task(Process& proc, int tid, std::unique_ptr<Vcpu> cpu) : proc_(proc), cpu_(std::move(cpu)), tid_(tid) {
    cpu_->set_task(this);
  }
  ~Task();
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;

  Process& proc() { return proc_; }
  const Process& proc() const { return proc_; }
  AddressSpace& as() { return proc_.as(); }
  Vcpu& cpu() { return *cpu_; }
  std::unique_ptr<Vcpu> release_cpu() { return std::move(cpu_); }
  int tid() const { return tid_; }
  void set_tid(int tid) { tid_ = tid; }
  signals::Park& park() { return park_; }
  // Signal state of this thread, guarded by the process's sig_lock.
  signals::ThreadSignals& sig() { return sig_; }
  // Wakes this thread from whatever wait it is in: its park, or a safe system call (every host wait that a
  // signal ends is one: fd waits, lock waits...) when interrupted. Nothing here depends on a descriptor
  // table, which threads need not share (CLOSE_RANGE_UNSHARE).
  void wake();
  bool exit_requested() const { return exit_requested_.load(std::memory_order_acquire); }
  // From any thread of the memory: this thread's process is ending; it parks at its next safe point
  // (Vcpu::death), woken from any wait and kicked out of guest code.
  void request_death();
  // Set while the debugger holds this thread stopped (gdb/debugger.h): like a pending signal, it makes the
  // interrupt flag true (signals::recompute_locked), so a blocking wait ends. Written under sig_lock.
  bool debug_stop() const { return debug_stop_.load(std::memory_order_seq_cst); }
  void set_debug_stop(bool v) { debug_stop_.store(v, std::memory_order_seq_cst); }

  // How the syscall being handled began and how a signal ended it (the restart rules).
  struct Restart {
    int64_t code = 0;                     // an ERESTART* code, or 0
    uint64_t orig_x0 = 0;                 // x0 at syscall entry
    std::function<int64_t(Task&)> block;  // restart_syscall's continuation (ERESTART_RESTARTBLOCK)
  } restart;
  // --signal-stats: (signal, entry time) of handlers running on this thread, innermost last.
  std::vector<std::pair<int, uint64_t>> handler_entries;

  // True when a blocking wait must end early (a signal to handle, exit_group, execve). The signals layer
  // sets it and unparks the thread.
  // Sequentially consistent: a waiter publishes that it is in a safe system call, then reads the flag; a
  // sender sets the flag, then reads whether the thread is in one. One of them always sees the other.
  bool interrupted() const { return interrupt_.load(std::memory_order_seq_cst); }
  void set_interrupt(bool v) { interrupt_.store(v, std::memory_order_seq_cst); }
  // A safe system call (signals/safe_syscall.h) reads the flag itself, last thing before it enters the host
  // call; a waker that sets the flag and then finds the thread inside sends it the wake signal.
  const volatile void* interrupt_flag() const { return &interrupt_; }
  void enter_safe_syscall() { in_safe_syscall_.store(true, std::memory_order_seq_cst); }
  void leave_safe_syscall() { in_safe_syscall_.store(false, std::memory_order_release); }
  // What the safe system calls of the current guest system call did: entered the host call, or found the
  // thread interrupted before they entered it (signals/safe_syscall.h). Reset by the dispatcher.
  void reset_safe_calls() { safe_calls_ = 0; }
  void note_safe_call(bool entered) { safe_calls_ |= entered ? 1 : 2; }
  bool safe_calls_never_entered() const { return safe_calls_ == 2; }
  uint64_t clear_child_tid = 0;          // set_tid_address / CLONE_CHILD_CLEARTID
  std::atomic<uint64_t> robust_list{0};  // set_robust_list head (get_robust_list reads another thread's)
  uint64_t robust_list_len = 0;
  // seccomp (syscalls/seccomp.h): the mode (0 none, 1 strict, 2 filter), set by this thread, or by another
  // thread's SECCOMP_FILTER_FLAG_TSYNC under sig_lock; read without the lock at every system call, and
  // only then the filter under the lock.
  std::atomic<uint32_t> seccomp_mode{0};
  std::shared_ptr<const syscalls::seccomp::Filter> seccomp_filter;  // GUARDED_BY(proc().signals().sig_lock)
  // A TSYNC from a thread with no_new_privs gives it to this one, whose host thread holds the flag: it
  // sets it itself at its next system call, before the filter runs.
  std::atomic<bool> seccomp_nnp_pending{false};
  // A new thread or process takes its creator's seccomp state (the caller holds the creator's sig_lock).
  void inherit_seccomp(const Task& from) {
    seccomp_filter = from.seccomp_filter;
    seccomp_mode.store(from.seccomp_mode.load(std::memory_order_relaxed), std::memory_order_relaxed);
    seccomp_nnp_pending.store(from.seccomp_nnp_pending.load(std::memory_order_relaxed),
                              std::memory_order_relaxed);
  }

  // Runs the thread's guest code until it exits; returns only for thread exit, never for exit_group.
  void run();
  // Ends the whole process with the guest's status (exit_group).
  [[noreturn]] void exit_group(int status);
  // exit(2): clears and wakes clear_child_tid, releases robust futexes, and leaves the run loop. The last
  // thread's exit ends the process: with `status`, or killed by `kill_signal` when it is not 0 (a thread
  // that seccomp kills).
  void exit_thread(int status, int kill_signal = 0);
  void release_robust_futexes();

 private:
  void deliver_fault_signal(const StopInfo& stop);

  Process& proc_;
  std::unique_ptr<Vcpu> cpu_;
  int tid_;
  signals::Park& park_ = signals::Park::make();
  std::atomic<bool> interrupt_{false};
  std::atomic<bool> exit_requested_{false};
  std::atomic<bool> debug_stop_{false};
  std::atomic<bool> in_safe_syscall_{false};
  uint8_t safe_calls_ = 0;  // bit 0: a safe call entered its host call; bit 1: one did not
  signals::ThreadSignals sig_;
  bool exiting_ = false;
};

}  // namespace emu
