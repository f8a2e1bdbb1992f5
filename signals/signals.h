// The signal model's entry points: sending (thread- and process-directed, one claimer), delivery at safe
// points (syscall exit, block-hook stops) with Linux's restart rules, faults, and death by signal.
#pragma once

#include <sys/resource.h>

#include <cstdint>
#include <string>

#include "signals/signal_state.h"

namespace emu {
class Process;
class Task;
}  // namespace emu

namespace signals {

// Internal restart codes a blocking syscall returns when a signal interrupts it (include/linux/errno.h).
inline constexpr int64_t kERESTARTSYS = -512;            // restart under SA_RESTART, else -EINTR
inline constexpr int64_t kERESTARTNOINTR = -513;         // always restart
inline constexpr int64_t kERESTARTNOHAND = -514;         // restart only when no handler runs
inline constexpr int64_t kERESTART_RESTARTBLOCK = -516;  // restart through restart_syscall, else -EINTR
bool is_restart_code(int64_t r);

// For synchronous faults: what the frame's fault_address and esr_context carry.
struct FaultDetail {
  uint64_t address = 0;
  uint64_t esr = 0;
};

// Queues a signal for one thread / for the process. Returns 0 or -EAGAIN (RLIMIT_SIGPENDING).
int64_t send_to_thread(emu::Task& target, const guest::siginfo& info);
// The same for the thread of proc with id tid, found under sig_lock: -ESRCH when it has exited.
int64_t send_to_thread_id(emu::Process& proc, int tid, const guest::siginfo& info);
// `first`: the thread a kill named by its id, which Linux's complete_signal tries before the others (kill of
// the process's own pid names the main thread).
int64_t send_to_process(emu::Process& proc, const guest::siginfo& info, emu::Task* first = nullptr);
// A POSIX timer's expiry, to thread target_tid (0: the process); merges into the timer's queued signal.
// `stale`: an earlier arming's expiry (seq is not the timer's), queued only when the timer has none queued.
int64_t send_timer_signal(emu::Process& proc, int target_tid, int32_t timer, uint32_t seq,
                          const guest::siginfo& info, bool stale);
guest::siginfo user_siginfo(int sig, int code);  // si_pid/si_uid of this process
// The calling thread's real uid (cached); its set*uid calls forget the cache.
uint32_t caller_uid();
void forget_caller_uid();

// Re-evaluates whether t has a deliverable signal (its interrupt flag). Caller holds sig_lock.
void recompute_locked(emu::Task& t);
// Sets the blocked mask (SIGKILL and SIGSTOP never block) and re-evaluates.
void set_blocked_locked(emu::Task& t, sigset_t mask);

// Runs at a safe point: delivers every deliverable signal (frames nest), applying the restart rule to the
// syscall that just returned when `syscall_exit` is set (x0 holds its result, t's restart state the code).
void handle_signals(emu::Task& t, bool syscall_exit);
// A synchronous fault: forced to the thread (unblocked, default restored if ignored) and delivered now.
void deliver_fault(emu::Task& t, const guest::siginfo& info, const FaultDetail& detail);
// The same for a signal a system call forces on its thread (seccomp's SIGSYS): no fault address or ESR.
void deliver_forced(emu::Task& t, const guest::siginfo& info);
// Ends the process the way the signal would: host disposition reset, core dumps off, then the host signal.
[[noreturn]] void die_with_signal(int sig);

// rt_sigreturn: restores the frame at sp. Returns false for a corrupt frame (the caller raises SIGSEGV); the
// registers and mask of a corrupt frame are loaded all the same, as Linux loads them before its checks.
bool sigreturn(emu::Task& t);

// The sigreturn trampoline (`mov x8, #139; svc #0`), mapped once per process when there is no vDSO (whose
// __kernel_rt_sigreturn it is otherwise): x30 for handlers installed without SA_RESTORER, as on Linux.
uint64_t map_trampoline(emu::Process& proc);

// execve(2) keeps the thread's blocked signals and the signals set to SIG_IGN (every caught one is reset
// to SIG_DFL). a64run re-executes itself for an execve: exec_state_arg is the option that carries them
// (from the exec'ing thread), apply_exec_state sets them in the new program's first thread before any
// signal is taken.
std::string exec_state_arg(emu::Task& t);
// The guest's RLIMIT_SIGPENDING, kept apart from the host's (send.cpp): false while the guest has set none
// (the host's is the guest's). getrlimit and prlimit of the guest's own process read and set it; it bounds
// the RT signals queued for the guest, and an execve keeps it (exec_state_arg).
bool guest_sigpending_limit(rlimit* out);
void set_guest_sigpending_limit(const rlimit& limit);
void apply_exec_state(emu::Task& main_thread, uint64_t blocked, uint64_t ignored);
// It keeps the pending signals too, the exec'ing thread's own and the process's shared ones
// (exec_pending.cpp): exec_pending_fd writes them to a memory file the new a64run reads (--exec-pending=FD)
// before the program starts (-1: none pending; below -1: -errno); read_exec_pending reads and closes it
// (false: not such a file), apply_exec_pending queues them again, on the new program's first thread and on
// the process. The signals of POSIX timers stay behind (execve deletes the timers). A signal queued between
// exec_pending_fd and the host's execve (by another thread of the process, or from outside through the
// intake) is not in the file: that window is open. kept_pending_signals lists them (under sig_lock), the
// thread's first, for this and for an exec of a host program (HostExecSignals).
ExecPending kept_pending_signals(emu::Task& t);
int exec_pending_fd(emu::Task& t);
bool read_exec_pending(int fd, ExecPending* out);
void apply_exec_pending(emu::Task& main_thread, const ExecPending& pending);
// The host thread's blocked signals and the host's ignored ones, as a64run was started with them: a
// program a64run starts inherits them as from an execve.
void host_signal_state(uint64_t* blocked, uint64_t* ignored);

// The host kernel's struct sigaction, as rt_sigaction(2) reads and writes it.
struct KernelSigaction {
  uint64_t handler, flags, restorer, mask;
};

// An execve of a host program (sys_exec.cpp: the host runs it, as under qemu-user) inherits the host
// thread's mask and the host's ignored signals, so for the exec they become the guest's: its blocked
// signals, and SIG_IGN for exactly the signals it ignores (a64run ignores SIGPIPE for itself; its handlers
// become SIG_DFL at the exec anyway). The signals pending for the thread and the process that the guest
// blocks are queued on the host thread with their siginfo, for the host's execve to keep. Destroying it puts
// a64run's own back (and takes those copies away again), for an exec that failed.
class HostExecSignals {
 public:
  explicit HostExecSignals(emu::Task& t);
  ~HostExecSignals();
  HostExecSignals(const HostExecSignals&) = delete;
  HostExecSignals& operator=(const HostExecSignals&) = delete;

 private:
  uint64_t old_mask_ = 0;
  uint64_t changed_ = 0;   // the signals whose host action was replaced
  uint64_t requeued_ = 0;  // the pending signals queued on the host thread
  KernelSigaction old_[kNumSignals] = {};
};

}  // namespace signals
