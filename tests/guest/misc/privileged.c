// Tests that the system instructions Linux refuses at EL0 give SIGILL at their own PC, leaving the state
// they would have changed alone, and that the ones Linux lets EL0 run (the flags, FPCR, TPIDR_EL0, the CPU
// ID registers it emulates, the virtual counter, EL0 cache maintenance) still run. Unicorn runs guest code
// at EL1, where each refused instruction would run (emu/insn_filter.cpp).
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>
#include <ucontext.h>

#include "check.h"

static sigjmp_buf jump;
static volatile int got_sig, got_code;
static volatile uintptr_t got_addr, got_pc;

static void on_signal(int sig, siginfo_t* si, void* ctx) {
  got_sig = sig;
  got_code = si->si_code;
  got_addr = (uintptr_t)si->si_addr;
  got_pc = ((ucontext_t*)ctx)->uc_mcontext.pc;
  siglongjmp(jump, 1);
}

static char buffer[256] __attribute__((aligned(256)));

// Runs `text` (x0 = buffer, x1 scratch); the signal it raised (0 if none), with the checks on the frame.
#define RUN(text)                                                 \
  ({                                                              \
    got_sig = 0;                                                  \
    got_pc = got_addr = 0;                                        \
    if (sigsetjmp(jump, 1) == 0) {                                \
      register uint64_t x0 __asm__("x0") = (uint64_t)buffer;      \
      __asm__ volatile(text : "+r"(x0) : : "x1", "x8", "memory"); \
    }                                                             \
    got_sig;                                                      \
  })

#define REFUSED(name, text)                                                           \
  do {                                                                                \
    if (!CHECK_EQ(RUN(text), SIGILL)) NOTE("%s ran", name);                           \
    CHECK_EQ(got_addr, got_pc);                                                       \
    /* qemu 7.2 gap: it reports ILL_ILLOPN; Linux's do_el0_undef sends ILL_ILLOPC. */ \
    if (!on_reference_qemu()) CHECK_EQ(got_code, ILL_ILLOPC);                         \
  } while (0)

#define ALLOWED(name, text)                                                  \
  do {                                                                       \
    if (!CHECK_EQ(RUN(text), 0)) NOTE("%s raised signal %d", name, got_sig); \
  } while (0)

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  CHECK_EQ(sigaction(SIGILL, &sa, NULL), 0);
  CHECK_EQ(sigaction(SIGSEGV, &sa, NULL), 0);

  REFUSED("mrs sctlr_el1", "mrs x1, sctlr_el1");
  // The write would clear SCTLR_EL1 (EE, the data endianness, with it): a load afterwards still reads
  // little-endian, and the alignment of SP is still checked as before (not at all at EL0 in Linux).
  REFUSED("msr sctlr_el1", "mov x1, #1 << 25\n\tmsr sctlr_el1, x1");
  volatile uint32_t word = 0x11223344;
  CHECK_EQ(word, 0x11223344);
  REFUSED("mrs CurrentEL", "mrs x1, CurrentEL");
  REFUSED("msr spsel", "msr spsel, #0");
  REFUSED("msr daifset", "msr daifset, #2");
  REFUSED("mrs daif", "mrs x1, daif");
  REFUSED("msr pan", ".inst 0xd500409f");  // msr pan, #0
  REFUSED("msr uao", ".inst 0xd500407f");  // msr uao, #0
  REFUSED("eret", "eret");
  REFUSED("drps", ".inst 0xd6bf03e0");
  REFUSED("hvc", "hvc #0");
  REFUSED("smc", "smc #0");
  REFUSED("hlt", "hlt #0");
  REFUSED("dcps1", ".inst 0xd4a00001");
  REFUSED("dc ivac", "dc ivac, x0");
  REFUSED("dc cisw", "dc cisw, x0");
  REFUSED("ic iallu", "ic iallu");
  REFUSED("tlbi vmalle1", "tlbi vmalle1");
  REFUSED("at s1e0r", "at s1e0r, x0");
  REFUSED("sysl", ".inst 0xd5280001");
  REFUSED("mrs elr_el1", "mrs x1, elr_el1");
  REFUSED("mrs sp_el0", "mrs x1, sp_el0");
  REFUSED("msr vbar_el1", "msr vbar_el1, xzr");
  REFUSED("msr tpidrro_el0", "mrs x1, tpidrro_el0\n\tmsr tpidrro_el0, x1");
  REFUSED("msr cntfrq_el0", "mrs x1, cntfrq_el0\n\tmsr cntfrq_el0, x1");
  REFUSED("mrs cntpct_el0", "mrs x1, cntpct_el0");
  REFUSED("mrs cntv_ctl_el0", "mrs x1, cntv_ctl_el0");
  REFUSED("mrs pmccntr_el0", "mrs x1, pmccntr_el0");
  REFUSED("mrs mdscr_el1", "mrs x1, mdscr_el1");
  REFUSED("mrs ccsidr_el1", "mrs x1, ccsidr_el1");
  REFUSED("mrs id_pfr0_el1", "mrs x1, id_pfr0_el1");  // AArch32 ID space (CRm 1): not emulated
  REFUSED("msr midr_el1", ".inst 0xd5180001");        // a write to the ID space

  ALLOWED("mrs midr_el1", "mrs x1, midr_el1");
  ALLOWED("mrs mpidr_el1", "mrs x1, mpidr_el1");
  ALLOWED("mrs revidr_el1", "mrs x1, revidr_el1");
  ALLOWED("mrs id_aa64isar0_el1", "mrs x1, id_aa64isar0_el1");
  ALLOWED("mrs id_aa64pfr0_el1", "mrs x1, id_aa64pfr0_el1");
  ALLOWED("mrs ctr_el0", "mrs x1, ctr_el0");
  ALLOWED("mrs dczid_el0", "mrs x1, dczid_el0");
  ALLOWED("tpidr_el0", "mrs x1, tpidr_el0\n\tmsr tpidr_el0, x1");
  ALLOWED("mrs tpidrro_el0", "mrs x1, tpidrro_el0");
  ALLOWED("mrs cntvct_el0", "mrs x1, cntvct_el0");
  ALLOWED("mrs cntfrq_el0", "mrs x1, cntfrq_el0");
  ALLOWED("nzcv", "mrs x1, nzcv\n\tmsr nzcv, x1");
  ALLOWED("fpcr", "mrs x1, fpcr\n\tmsr fpcr, x1");
  ALLOWED("fpsr", "mrs x1, fpsr\n\tmsr fpsr, x1");
  ALLOWED("dc zva", "dc zva, x0");
  ALLOWED("dc cvau", "dc cvau, x0");
  ALLOWED("dc civac", "dc civac, x0");
  ALLOWED("ic ivau", "ic ivau, x0");
  ALLOWED("cfinv", ".inst 0xd500401f");
  ALLOWED("svc getpid", "mov x8, #172\n\tsvc #0");
  ALLOWED("nop, yield, isb, dmb", "nop\n\tyield\n\tisb\n\tdmb ish");
  // A feature the auxiliary vector claims works (HWCAP_DIT, bit 24: MRS x1, DIT).
  if (getauxval(AT_HWCAP) & (1ul << 24)) ALLOWED("mrs dit", ".inst 0xd53b42a1");

  // TPIDR_EL0 written through MSR reads back.
  uint64_t old_tp = 0, tp = 0;
  __asm__ volatile("mrs %0, tpidr_el0" : "=r"(old_tp));
  __asm__ volatile("msr tpidr_el0, %1\n\tmrs %0, tpidr_el0\n\tmsr tpidr_el0, %2"
                   : "=&r"(tp)
                   : "r"(0x1234567890ull), "r"(old_tp));
  CHECK_EQ(tp, 0x1234567890ull);
  return check_done();
}
