// Tests what a SIGSEGV/SIGBUS handler learns about a memory fault: si_code (SEGV_MAPERR, SEGV_ACCERR,
// BUS_ADRERR), the exact si_addr, the faulting pc and fault_address in the ucontext, and that a handler
// which fixes the protection and returns re-runs the faulting instruction once (and nothing before it).
#define _GNU_SOURCE
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ucontext.h>
#include <unistd.h>

#include "check.h"
#include "sigframe_util.h"

#define kPage 4096L

static sigjmp_buf jump_back;
static volatile sig_atomic_t fault_count;
static siginfo_t last_info;
static uint64_t last_pc, last_fault_address, last_esr;
static int last_has_esr;
// When set, the handler makes this page readable and returns instead of jumping back.
static void* volatile fix_page;

static void handler(int sig, siginfo_t* info, void* ucontext) {
  (void)sig;
  ucontext_t* uc = ucontext;
  fault_count++;
  last_info = *info;
  last_pc = uc->uc_mcontext.pc;
  last_fault_address = uc->uc_mcontext.fault_address;
  last_has_esr = find_esr(&uc->uc_mcontext, (uint64_t*)&last_esr);
  if (fix_page) {
    mprotect(fix_page, kPage, PROT_READ | PROT_WRITE);
    fix_page = NULL;
    return;
  }
  siglongjmp(jump_back, 1);
}

// Performs one access and reports whether it faulted (the handler jumped back).
static int faults(volatile char* p, int write) {
  fault_count = 0;
  memset(&last_info, 0, sizeof(last_info));
  if (sigsetjmp(jump_back, 1) == 0) {
    if (write) {
      *p = 1;
    } else {
      (void)*p;
    }
    return 0;
  }
  return 1;
}

static void check_fault(const char* what, volatile char* p, int write, int sig, int code) {
  if (!CHECK(faults(p, write))) {
    fprintf(stderr, "  no fault for: %s\n", what);
    return;
  }
  int before = check_failures;
  CHECK_EQ(fault_count, 1);
  CHECK_EQ(last_info.si_signo, sig);
  CHECK_EQ(last_info.si_code, code);
  CHECK_EQ((uintptr_t)last_info.si_addr, (uintptr_t)p);
  // qemu-aarch64 7.2 leaves the previous fault's address in fault_address for a SIGBUS from a file mapping.
  if (sig != SIGBUS || !on_reference_qemu()) CHECK_EQ(last_fault_address, (uintptr_t)p);
  // ESR_EL1 for a data abort from EL0: EC 0x24; WnR (bit 6) says whether it was a write.
  if (last_has_esr) {
    CHECK_EQ(last_esr >> 26, 0x24);
    CHECK_EQ((last_esr >> 6) & 1, write);
  } else if (on_reference_qemu()) {
    static int noted;
    if (!noted++) NOTE("qemu-aarch64 7.2 puts no esr_context in the signal frame");
  } else {
    CHECK(!"the signal frame has an esr_context record for a memory fault");
  }
  if (check_failures != before) fprintf(stderr, "  for: %s\n", what);
}

extern const char fault_load_insn[];

// `add` then a load that may fault: the handler sees the load's pc, and the add must run exactly once even
// when the load is re-run after the handler returns.
static __attribute__((noinline)) uint64_t add_then_load(const volatile uint64_t* addr, uint64_t* count) {
  uint64_t value, n = 0;
  __asm__ volatile(
      "add %1, %1, #1\n"
      ".globl fault_load_insn\n"
      "fault_load_insn:\n"
      "ldr %0, [%2]\n"
      : "=&r"(value), "+r"(n)
      : "r"(addr)
      : "memory");
  *count = n;
  return value;
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO;
  REQUIRE_SYS(sigaction(SIGSEGV, &sa, NULL));
  REQUIRE_SYS(sigaction(SIGBUS, &sa, NULL));

  char* p = mmap(NULL, 3 * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(p != MAP_FAILED);
  REQUIRE_SYS(munmap(p + 2 * kPage, kPage));
  REQUIRE_SYS(mprotect(p + kPage, kPage, PROT_READ));
  CHECK(!faults(p + 10, 1));
  CHECK(!faults(p + kPage + 10, 0));
  check_fault("read of an unmapped page", p + 2 * kPage + 123, 0, SIGSEGV, SEGV_MAPERR);
  check_fault("write to an unmapped page", p + 2 * kPage + 7, 1, SIGSEGV, SEGV_MAPERR);
  check_fault("write to a PROT_READ page", p + kPage + 42, 1, SIGSEGV, SEGV_ACCERR);
  REQUIRE_SYS(mprotect(p, kPage, PROT_NONE));
  check_fault("read of a PROT_NONE page", p + 1, 0, SIGSEGV, SEGV_ACCERR);

  int fd = REQUIRE_SYS(open("short", O_CREAT | O_RDWR | O_TRUNC, 0644));
  REQUIRE(write(fd, "x", 1) == 1);
  char* file = mmap(NULL, 2 * kPage, PROT_READ, MAP_SHARED, fd, 0);
  REQUIRE(file != MAP_FAILED);
  check_fault("read past the end of a mapped file", file + kPage + 8, 0, SIGBUS, BUS_ADRERR);
  CHECK_SYS(close(fd));

  // A handler that makes the page readable and returns: the load re-runs and succeeds; the add before it
  // in the same block is not repeated.
  uint64_t* slot = (uint64_t*)p;
  REQUIRE_SYS(mprotect(p, kPage, PROT_READ | PROT_WRITE));
  slot[3] = 0x1234567890abcdefULL;
  REQUIRE_SYS(mprotect(p, kPage, PROT_NONE));
  fix_page = p;
  fault_count = 0;
  uint64_t count = 0;
  uint64_t value = add_then_load(&slot[3], &count);
  CHECK_EQ(fault_count, 1);
  CHECK_EQ(value, 0x1234567890abcdefULL);
  CHECK_EQ(count, 1);
  CHECK_EQ(last_pc, (uintptr_t)fault_load_insn);
  CHECK_EQ((uintptr_t)last_info.si_addr, (uintptr_t)&slot[3]);
  CHECK_EQ(last_info.si_code, SEGV_ACCERR);

  // The handler's signal stays usable after every siglongjmp (the saved mask was restored).
  sigset_t mask;
  CHECK_SYS(sigprocmask(SIG_BLOCK, NULL, &mask));
  CHECK(!sigismember(&mask, SIGSEGV));
  CHECK(!sigismember(&mask, SIGBUS));
  return check_done();
}
