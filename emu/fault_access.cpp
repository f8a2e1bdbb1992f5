// This file implements guest memory accesses that survive a fault: the routines and their fixups, to which
// the SIGSEGV/SIGBUS handler (emu/host_fault.cpp) moves a fault.
#include "emu/fault_access.h"

#include <ucontext.h>

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

// The handler's note for last_fault_signal: a plain thread-local int (initial-exec in the static binary).
thread_local int t_last_fault_signal = 0;

// Each faulting instruction and where it resumes.
const char* const kFixups[][2] = {{a64run_fault_copy_insn, a64run_fault_copy_fixup},
                                  {a64run_fault_load32_insn, a64run_fault_load32_fixup},
                                  {a64run_fault_cas32_insn, a64run_fault_cas32_fixup}};

}  // namespace

// From the SIGSEGV/SIGBUS handler (emu/host_fault.cpp): it reads the frame and the table, nothing else.
__attribute__((no_sanitize("thread", "address"))) bool take_fault_access_fixup(ucontext_t* uc, int sig) {
  greg_t& pc = uc->uc_mcontext.gregs[REG_RIP];
  for (const auto& f : kFixups) {
    if (reinterpret_cast<const char*>(pc) == f[0]) {
      pc = reinterpret_cast<greg_t>(f[1]);
      t_last_fault_signal = sig;
      return true;
    }
  }
  return false;
}

int last_fault_signal() {
  return t_last_fault_signal;
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
