// This file implements safe system calls: the entry sequence, the wake signal and its handler.
#include "signals/safe_syscall.h"

#include <signal.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <cerrno>

#include "emu/run_lock.h"
#include "emu/task.h"
#include "signals/host_signals.h"

// a64run_safe_syscall(flag, nr, a1, a2, a3, a4, a5, a6): the host call unless *flag (a bool) is set, checked
// last thing before the `syscall` instruction. A wake signal that lands between the check and the instruction
// (or during a call the kernel would restart, which leaves the pc on the instruction) finds the pc in
// [start, end) and moves it to `interrupted`, which returns -EINTR; one that lands during the call ends it
// with EINTR (the handler's SA_RESTART does not restart a call it was sent to end: it moves the pc off the
// rewound instruction). The flag pointer lives in rbp, which the call preserves.
asm(R"(
  .text
  .globl a64run_safe_syscall
  .globl a64run_safe_syscall_start
  .globl a64run_safe_syscall_end
  .globl a64run_safe_syscall_interrupted
  .type a64run_safe_syscall, @function
  .p2align 4
a64run_safe_syscall:
  .cfi_startproc
  pushq %rbp
  .cfi_adjust_cfa_offset 8
  .cfi_rel_offset %rbp, 0
  movq %rdi, %rbp
  movq %rsi, %rax
  movq %rdx, %rdi
  movq %rcx, %rsi
  movq %r8, %rdx
  movq %r9, %r10
  movq 16(%rsp), %r8
  movq 24(%rsp), %r9
a64run_safe_syscall_start:
  cmpb $0, (%rbp)
  jne a64run_safe_syscall_interrupted
  syscall
a64run_safe_syscall_end:
  popq %rbp
  .cfi_remember_state
  .cfi_adjust_cfa_offset -8
  .cfi_restore %rbp
  ret
  .cfi_restore_state
a64run_safe_syscall_interrupted:
  movq $-4, %rax
  popq %rbp
  .cfi_adjust_cfa_offset -8
  .cfi_restore %rbp
  ret
  .cfi_endproc
  .size a64run_safe_syscall, .-a64run_safe_syscall
)");

extern "C" {
long a64run_safe_syscall(const volatile void* flag, long nr, long a1, long a2, long a3, long a4, long a5,
                         long a6);
extern const char a64run_safe_syscall_start[];
extern const char a64run_safe_syscall_end[];
extern const char a64run_safe_syscall_interrupted[];
}

namespace signals {
namespace {

#if defined(__SANITIZE_THREAD__)
constexpr bool kEnabled = false;
#else
constexpr bool kEnabled = true;
#endif

// The wake signal: a host RT signal below the timers' SIGRTMAX. Guest signals are a64run's own, so the
// number is free on the host, except that another process's kill(2) of this one with it (a guest's signal
// 63) may land on a thread that leaves it unblocked: the handler passes that on to the intake thread.
int wake_signal() {
  return SIGRTMAX - 1;
}

void on_wake_signal(int /*sig*/, siginfo_t* si, void* ctx) {
  if (si->si_code == SI_TKILL && si->si_pid == ::getpid()) {
    auto* uc = static_cast<ucontext_t*>(ctx);
    greg_t& pc = uc->uc_mcontext.gregs[REG_RIP];
    const auto at = static_cast<uintptr_t>(pc);
    if (at >= reinterpret_cast<uintptr_t>(a64run_safe_syscall_start) &&
        at < reinterpret_cast<uintptr_t>(a64run_safe_syscall_end)) {
      pc = static_cast<greg_t>(reinterpret_cast<uintptr_t>(a64run_safe_syscall_interrupted));
    }
    return;
  }
  // Not a wake: a guest elsewhere sent this process SIGRTMAX - 1. The intake thread takes it as any other.
  const int saved_errno = errno;
  forward_to_intake(*si);
  errno = saved_errno;
}

}  // namespace

void init_safe_syscalls() {
  if (!kEnabled) return;
  struct sigaction sa {};
  sa.sa_sigaction = &on_wake_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigfillset(&sa.sa_mask);
  ::sigaction(wake_signal(), &sa, nullptr);
  set_wake_signal_blocked(false);
}

void set_wake_signal_blocked(bool blocked) {
  if (!kEnabled) return;
  ::sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, wake_signal());
  ::pthread_sigmask(blocked ? SIG_BLOCK : SIG_UNBLOCK, &set, nullptr);
}

bool safe_syscalls_enabled() {
  return kEnabled;
}

int64_t safe_syscall(emu::Task& t, long nr, long a1, long a2, long a3, long a4, long a5, long a6) {
  emu::RunLockReleaser unlocked(t.proc().run_lock(), &t.cpu());
  t.enter_safe_syscall();
  const long r = a64run_safe_syscall(t.interrupt_flag(), nr, a1, a2, a3, a4, a5, a6);
  t.leave_safe_syscall();
  return r;
}

void send_wake_signal(int pid, int tid) {
  ::syscall(SYS_tgkill, pid, tid, wake_signal());
}

}  // namespace signals
