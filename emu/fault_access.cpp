// This file implements guest memory accesses that survive a fault: the routines, their fixups and the
// SIGSEGV/SIGBUS handler that moves a fault to them.
#include "emu/fault_access.h"

#include <signal.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

#include "signals/host_signals.h"
#include "signals/safe_syscall.h"

// Each routine faults, if at all, at its `_insn` label, and resumes at its `_fixup` label:
// - a64run_fault_copy(dst, src, n): rep movsb, whose registers are exact at a fault (rcx the bytes left);
//   returns rcx.
// - a64run_fault_load32(p, out): 0, or -1 after a fault.
// - a64run_fault_cas32(p, expected, desired): 1 swapped, 0 not (*expected updated), -1 after a fault.
asm(R"(
  .text
  .globl a64run_fault_copy
  .globl a64run_fault_copy_insn
  .globl a64run_fault_copy_fixup
  .type a64run_fault_copy, @function
  .p2align 4
a64run_fault_copy:
  movq %rdx, %rcx
a64run_fault_copy_insn:
  rep movsb
a64run_fault_copy_fixup:
  movq %rcx, %rax
  ret
  .size a64run_fault_copy, .-a64run_fault_copy

  .globl a64run_fault_load32
  .globl a64run_fault_load32_insn
  .globl a64run_fault_load32_fixup
  .type a64run_fault_load32, @function
  .p2align 4
a64run_fault_load32:
a64run_fault_load32_insn:
  movl (%rdi), %eax
  movl %eax, (%rsi)
  xorl %eax, %eax
  ret
a64run_fault_load32_fixup:
  movl $-1, %eax
  ret
  .size a64run_fault_load32, .-a64run_fault_load32

  .globl a64run_fault_cas32
  .globl a64run_fault_cas32_insn
  .globl a64run_fault_cas32_fixup
  .type a64run_fault_cas32, @function
  .p2align 4
a64run_fault_cas32:
  movl (%rsi), %eax
a64run_fault_cas32_insn:
  lock cmpxchgl %edx, (%rdi)
  jne 1f
  movl $1, %eax
  ret
1:
  movl %eax, (%rsi)
  xorl %eax, %eax
  ret
a64run_fault_cas32_fixup:
  movl $-1, %eax
  ret
  .size a64run_fault_cas32, .-a64run_fault_cas32

)");

extern "C" {
size_t a64run_fault_copy(void* dst, const void* src, size_t n);
int a64run_fault_load32(const uint32_t* p, uint32_t* out);
int a64run_fault_cas32(uint32_t* p, uint32_t* expected, uint32_t desired);
extern const char a64run_fault_copy_insn[], a64run_fault_copy_fixup[];
extern const char a64run_fault_load32_insn[], a64run_fault_load32_fixup[];
extern const char a64run_fault_cas32_insn[], a64run_fault_cas32_fixup[];
}

namespace emu {
namespace {

struct KernelSigaction {
  uint64_t handler;
  uint64_t flags;
  uint64_t restorer;
  uint64_t mask;
};

// Each faulting instruction and where it resumes.
const char* const kFixups[][2] = {{a64run_fault_copy_insn, a64run_fault_copy_fixup},
                                  {a64run_fault_load32_insn, a64run_fault_load32_fixup},
                                  {a64run_fault_cas32_insn, a64run_fault_cas32_fixup}};

// The handlers that were there before (a sanitizer's, or SIG_DFL), by signal: SIGSEGV 0, SIGBUS 1.
KernelSigaction g_previous[2];
std::atomic<bool> g_installed{false};

// A raw handler: it reads the frame and the table, and calls nothing but the previous handler.
__attribute__((no_sanitize("thread", "address"))) void on_fault(int sig, siginfo_t* si, void* ctx) {
  auto* uc = static_cast<ucontext_t*>(ctx);
  greg_t& pc = uc->uc_mcontext.gregs[REG_RIP];
  // Sent, not a fault (kill, sigqueue, tgkill from elsewhere): the guest's, through the intake thread.
  if (si->si_code <= 0) {
    const int saved_errno = errno;
    signals::forward_to_intake(*si);
    errno = saved_errno;
    return;
  }
  for (const auto& f : kFixups) {
    if (reinterpret_cast<const char*>(pc) == f[0]) {
      pc = reinterpret_cast<greg_t>(f[1]);
      return;
    }
  }
  // A fault in a64run itself: the handler before this one decides, or the default action (the instruction
  // faults again on the way back, and ends the process with the signal).
  const KernelSigaction& prev = g_previous[sig == SIGSEGV ? 0 : 1];
  if (prev.handler != reinterpret_cast<uint64_t>(SIG_DFL) &&
      prev.handler != reinterpret_cast<uint64_t>(SIG_IGN)) {
    if (prev.flags & SA_SIGINFO) {
      reinterpret_cast<void (*)(int, siginfo_t*, void*)>(prev.handler)(sig, si, ctx);
    } else {
      reinterpret_cast<void (*)(int)>(prev.handler)(sig);
    }
    return;
  }
  const KernelSigaction dfl{reinterpret_cast<uint64_t>(SIG_DFL), 0, 0, 0};
  ::syscall(SYS_rt_sigaction, sig, &dfl, nullptr, sizeof dfl.mask);
}

}  // namespace

void install_fault_handler() {
  if (g_installed.exchange(true)) return;
  for (int i = 0; i < 2; ++i) {
    const int sig = i == 0 ? SIGSEGV : SIGBUS;
    ::syscall(SYS_rt_sigaction, sig, nullptr, &g_previous[i], sizeof g_previous[i].mask);
    KernelSigaction sa = g_previous[i];
    sa.handler = reinterpret_cast<uint64_t>(&on_fault);
    // The previous handler's restorer and flags stay (SA_ONSTACK, for a sanitizer's stack overflow report).
    sa.flags |= SA_SIGINFO;
    if (!(sa.flags & 0x04000000 /* SA_RESTORER */)) {
      sa.flags |= 0x04000000;
      sa.restorer = signals::raw_restorer();
    }
    ::syscall(SYS_rt_sigaction, sig, &sa, nullptr, sizeof sa.mask);
  }
}

size_t fault_copy(void* dst, const void* src, size_t n) {
  return a64run_fault_copy(dst, src, n);
}

bool fault_load32(const uint32_t* p, uint32_t* out) {
  return a64run_fault_load32(p, out) == 0;
}

int fault_cas32(uint32_t* p, uint32_t* expected, uint32_t desired) {
  return a64run_fault_cas32(p, expected, desired);
}

}  // namespace emu
