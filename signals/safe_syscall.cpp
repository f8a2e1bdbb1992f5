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
#include "signals/signals.h"

// a64run_safe_syscall(flag, nr, a1, a2, a3, a4, a5, a6): the host call unless *flag (a bool) is set, checked
// last thing before the `syscall` instruction: then kNotEntered. A wake signal that lands between the check
// and the instruction finds the pc in [start, insn], with rcx 0 (the `syscall` instruction itself sets rcx
// to the return address), and moves it to `not_entered`. One that lands during a call the kernel would
// restart (which leaves the pc on the instruction, rcx the return address) moves it to `interrupted`, which
// returns -EINTR, as does one that lands during the call (the handler's SA_RESTART does not restart a call
// it was sent to end: it moves the pc off the rewound instruction). The flag pointer lives in rbp, which
// the call preserves.
asm(R"(
  .text
  .globl a64run_safe_syscall
  .globl a64run_safe_syscall_start
  .globl a64run_safe_syscall_end
  .globl a64run_safe_syscall_interrupted
  .globl a64run_safe_syscall_not_entered
  .globl a64run_safe_syscall_insn
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
  jne a64run_safe_syscall_not_entered
  xorl %ecx, %ecx
a64run_safe_syscall_insn:
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
  .cfi_remember_state
  .cfi_adjust_cfa_offset -8
  .cfi_restore %rbp
  ret
  .cfi_restore_state
a64run_safe_syscall_not_entered:
  movq $-0x10004, %rax
  popq %rbp
  .cfi_adjust_cfa_offset -8
  .cfi_restore %rbp
  ret
  .cfi_endproc
  .size a64run_safe_syscall, .-a64run_safe_syscall

  .globl a64run_sigreturn
  .type a64run_sigreturn, @function
  .p2align 4
a64run_sigreturn:
  movq $15, %rax
  syscall
  .size a64run_sigreturn, .-a64run_sigreturn
)");

extern "C" {
long a64run_safe_syscall(const volatile void* flag, long nr, long a1, long a2, long a3, long a4, long a5,
                         long a6);
void a64run_sigreturn();
extern const char a64run_safe_syscall_start[];
extern const char a64run_safe_syscall_end[];
extern const char a64run_safe_syscall_interrupted[];
extern const char a64run_safe_syscall_not_entered[];
extern const char a64run_safe_syscall_insn[];
}

namespace signals {
namespace {

constexpr uint64_t kSA_RESTORER = 0x04000000;  // x86-64's asm/signal.h; glibc's headers leave it out
constexpr long kNotEntered = -0x10004;         // a64run_safe_syscall_not_entered's: no host call was made

// A raw handler (install_raw_handler): it touches nothing but the signal frame, and forward_to_intake's
// slots.
__attribute__((no_sanitize("thread"))) void on_wake_signal(int /*sig*/, siginfo_t* si, void* ctx) {
  if (si->si_code == SI_TKILL && si->si_pid == ::getpid()) {
    auto* uc = static_cast<ucontext_t*>(ctx);
    greg_t& pc = uc->uc_mcontext.gregs[REG_RIP];
    const auto at = static_cast<uintptr_t>(pc);
    const auto insn = reinterpret_cast<uintptr_t>(a64run_safe_syscall_insn);
    const auto end = reinterpret_cast<uintptr_t>(a64run_safe_syscall_end);
    if (at >= reinterpret_cast<uintptr_t>(a64run_safe_syscall_start) && at < end) {
      const bool entered = at == insn && static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RCX]) == end;
      pc = static_cast<greg_t>(reinterpret_cast<uintptr_t>(entered ? a64run_safe_syscall_interrupted
                                                                   : a64run_safe_syscall_not_entered));
    }
    return;
  }
  // Not a wake: a guest elsewhere sent this process SIGRTMAX - 1. The intake thread takes it as any other.
  const int saved_errno = errno;
  forward_to_intake(*si);
  errno = saved_errno;
}

}  // namespace

// A host RT signal below the timers' SIGRTMAX. Guest signals are a64run's own, so the number is free on the
// host, except that another process's kill(2) of this one with it (a guest's signal 63) may land on a thread
// that leaves it unblocked: the handler passes that on to the intake thread.
int wake_signal() {
  return SIGRTMAX - 1;
}

void install_raw_handler(int sig, void (*handler)(int, siginfo_t*, void*)) {
  KernelSigaction sa{};
  sa.handler = reinterpret_cast<uint64_t>(handler);
  sa.flags = SA_SIGINFO | SA_RESTART | kSA_RESTORER;
  sa.restorer = reinterpret_cast<uint64_t>(&a64run_sigreturn);
  sa.mask = ~uint64_t{0};
  ::syscall(SYS_rt_sigaction, sig, &sa, nullptr, sizeof sa.mask);
}

uint64_t raw_restorer() {
  return reinterpret_cast<uint64_t>(&a64run_sigreturn);
}

void init_safe_syscalls() {
  install_raw_handler(wake_signal(), &on_wake_signal);
  set_wake_signal_blocked(false);
}

void set_wake_signal_blocked(bool blocked) {
  const uint64_t set = uint64_t{1} << (wake_signal() - 1);
  ::syscall(SYS_rt_sigprocmask, blocked ? SIG_BLOCK : SIG_UNBLOCK, &set, nullptr, sizeof set);
}

int64_t safe_syscall(emu::Task& t, long nr, long a1, long a2, long a3, long a4, long a5, long a6) {
  emu::RunLockReleaser unlocked(t.proc().run_lock(), &t.cpu());
  t.enter_safe_syscall();
  const long r = a64run_safe_syscall(t.interrupt_flag(), nr, a1, a2, a3, a4, a5, a6);
  t.leave_safe_syscall();
  t.note_safe_call(r != kNotEntered);
  return r == kNotEntered ? -EINTR : r;
}

int64_t blocking_syscall(emu::Task& t, int64_t on_signal, long nr, long a1, long a2, long a3, long a4,
                         long a5) {
  while (true) {
    const int64_t r = safe_syscall(t, nr, a1, a2, a3, a4, a5);
    if (r != -EINTR) return r;
    if (t.interrupted()) return on_signal;
  }
}

void send_wake_signal(int pid, int tid) {
  ::syscall(SYS_tgkill, pid, tid, wake_signal());
}

}  // namespace signals
