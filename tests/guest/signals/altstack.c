// Tests sigaltstack: an SA_ONSTACK handler runs on the alternate stack (its locals lie inside it), sees
// SS_ONSTACK from sigaltstack and the altstack in its frame's uc_stack, and may not change the altstack while
// on it (EPERM); a handler without SA_ONSTACK stays on the thread's stack; SS_DISABLE turns the altstack off;
// sizes below MINSIGSTKSZ fail with ENOMEM and unknown modes with EINVAL; SS_AUTODISARM disarms the altstack
// while the handler runs and sigreturn puts it back. A handler that overflows the altstack into a guard page
// kills the process with SIGSEGV even though SIGSEGV has a handler: its frame would go on the faulting stack
// (checked from a forked child).
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/ucontext.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define ALT_SIZE (64 * 1024)
#define ARM64_MINSIGSTKSZ 5120  // arch/arm64/include/uapi/asm/signal.h
#ifndef SS_AUTODISARM
#define SS_AUTODISARM (1U << 31)  // include/uapi/linux/signal.h
#endif

static char* alt_base;
static volatile uintptr_t handler_local;
static stack_t inside_ss, frame_ss;
static int inside_set_errno;

static void handler(int sig, siginfo_t* info, void* ucv) {
  (void)sig;
  (void)info;
  volatile char local = 0;
  handler_local = (uintptr_t)&local;
  sigaltstack(NULL, &inside_ss);
  frame_ss = ((ucontext_t*)ucv)->uc_stack;
  stack_t other = {.ss_sp = alt_base, .ss_size = ALT_SIZE, .ss_flags = 0};
  inside_set_errno = sigaltstack(&other, NULL) == 0 ? 0 : errno;
}

static void install(int sig, int flags) {
  struct sigaction sa = {0};
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO | flags;
  REQUIRE_SYS(sigaction(sig, &sa, NULL));
}

static int on_alt(uintptr_t p) {
  return p >= (uintptr_t)alt_base && p < (uintptr_t)alt_base + ALT_SIZE;
}

static void test_onstack(void) {
  stack_t ss = {.ss_sp = alt_base, .ss_size = ALT_SIZE, .ss_flags = 0};
  stack_t old;
  REQUIRE_SYS(sigaltstack(&ss, &old));
  CHECK_EQ(old.ss_flags, SS_DISABLE);
  install(SIGUSR1, SA_ONSTACK);
  raise(SIGUSR1);
  CHECK(on_alt(handler_local));
  CHECK_EQ(inside_ss.ss_flags, SS_ONSTACK);
  CHECK(inside_ss.ss_sp == alt_base);
  CHECK_EQ(inside_ss.ss_size, ALT_SIZE);
  CHECK(frame_ss.ss_sp == alt_base);
  CHECK_EQ(frame_ss.ss_size, ALT_SIZE);
  CHECK_EQ(frame_ss.ss_flags, 0);  // the thread was not on the altstack when the signal came
  CHECK_EQ(inside_set_errno, EPERM);
  // Outside the handler: not on it.
  REQUIRE_SYS(sigaltstack(NULL, &old));
  CHECK_EQ(old.ss_flags, 0);
  CHECK(old.ss_sp == alt_base);

  // Without SA_ONSTACK the handler stays on the thread's stack (and may change the altstack).
  install(SIGUSR1, 0);
  raise(SIGUSR1);
  CHECK(!on_alt(handler_local));
  CHECK_EQ(inside_ss.ss_flags, 0);
  CHECK_EQ(inside_set_errno, 0);

  // SS_DISABLE: SA_ONSTACK handlers run on the thread's stack again.
  stack_t off = {.ss_flags = SS_DISABLE};
  REQUIRE_SYS(sigaltstack(&off, NULL));
  REQUIRE_SYS(sigaltstack(NULL, &old));
  CHECK_EQ(old.ss_flags, SS_DISABLE);
  install(SIGUSR1, SA_ONSTACK);
  raise(SIGUSR1);
  CHECK(!on_alt(handler_local));
  CHECK_EQ(inside_ss.ss_flags, SS_DISABLE);
  CHECK_EQ(frame_ss.ss_flags, SS_DISABLE);
}

static void test_errors(void) {
  stack_t tiny = {.ss_sp = alt_base, .ss_size = 2047, .ss_flags = 0};
  CHECK_ERRNO(sigaltstack(&tiny, NULL), ENOMEM);
  // qemu 7.2 gap: its aarch64 TARGET_MINSIGSTKSZ is the generic 2048, not arm64's 5120.
  if (!on_reference_qemu()) {
    stack_t small = {.ss_sp = alt_base, .ss_size = ARM64_MINSIGSTKSZ - 1, .ss_flags = 0};
    CHECK_ERRNO(sigaltstack(&small, NULL), ENOMEM);
  }
  stack_t min = {.ss_sp = alt_base, .ss_size = ARM64_MINSIGSTKSZ, .ss_flags = 0};
  CHECK_SYS(sigaltstack(&min, NULL));
  stack_t bad = {.ss_sp = alt_base, .ss_size = ALT_SIZE, .ss_flags = 7};
  CHECK_ERRNO(sigaltstack(&bad, NULL), EINVAL);
  // A failed call leaves the old altstack in place.
  stack_t old;
  CHECK_SYS(sigaltstack(NULL, &old));
  CHECK_EQ(old.ss_size, ARM64_MINSIGSTKSZ);
  CHECK_ERRNO(sigaltstack((stack_t*)8, NULL), EFAULT);
  stack_t off = {.ss_flags = SS_DISABLE};
  CHECK_SYS(sigaltstack(&off, NULL));
}

static void test_autodisarm(void) {
  // qemu 7.2 gap: its sigaltstack rejects SS_AUTODISARM with EINVAL.
  if (on_reference_qemu()) {
    NOTE("skipped under qemu: SS_AUTODISARM (qemu 7.2 does not implement it)");
    return;
  }
  stack_t ss = {.ss_sp = alt_base, .ss_size = ALT_SIZE, .ss_flags = SS_AUTODISARM};
  REQUIRE_SYS(sigaltstack(&ss, NULL));
  stack_t old;
  CHECK_SYS(sigaltstack(NULL, &old));
  CHECK_EQ((unsigned)old.ss_flags, SS_AUTODISARM);
  install(SIGUSR1, SA_ONSTACK);
  raise(SIGUSR1);
  CHECK(on_alt(handler_local));
  CHECK_EQ(inside_ss.ss_flags, SS_DISABLE);  // disarmed while the handler runs
  CHECK_EQ(inside_set_errno, 0);             // so it may be changed there (sigreturn restores the saved one)
  CHECK_SYS(sigaltstack(NULL, &old));
  CHECK_EQ((unsigned)old.ss_flags, SS_AUTODISARM);
  CHECK(old.ss_sp == alt_base);
  CHECK_EQ(old.ss_size, ALT_SIZE);
  stack_t off = {.ss_flags = SS_DISABLE};
  CHECK_SYS(sigaltstack(&off, NULL));
  // Disabled with the flag: the query gives both back (do_sigaltstack keeps the flag bits).
  stack_t off_autodisarm = {.ss_flags = SS_DISABLE | SS_AUTODISARM};
  CHECK_SYS(sigaltstack(&off_autodisarm, NULL));
  CHECK_SYS(sigaltstack(NULL, &old));
  CHECK_EQ((unsigned)old.ss_flags, SS_DISABLE | SS_AUTODISARM);
  CHECK(old.ss_sp == NULL);
  CHECK_EQ(old.ss_size, 0);
  CHECK_SYS(sigaltstack(&off, NULL));
}

// Recurses with 1 KiB frames until the stack runs out.
static volatile long depth_limit = 1L << 30;
static __attribute__((noinline)) long recurse(long depth) {
  volatile char pad[1024];
  pad[0] = (char)depth;
  if (depth >= depth_limit) return pad[0];
  return recurse(depth + 1) + pad[0];
}
static void overflow_handler(int sig) {
  (void)sig;
  recurse(0);
}
static void segv_handler(int sig) {
  (void)sig;
  _exit(4);  // would mean a frame was built on the overflowed stack
}

static void test_overflow(void) {
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    // [guard page][altstack]: the overflow runs into PROT_NONE.
    char* m = mmap(NULL, 4096 + 16384, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED || mprotect(m, 4096, PROT_NONE) != 0) _exit(2);
    stack_t ss = {.ss_sp = m + 4096, .ss_size = 16384, .ss_flags = 0};
    if (sigaltstack(&ss, NULL) != 0) _exit(2);
    struct sigaction sa = {0};
    sa.sa_handler = overflow_handler;
    sa.sa_flags = SA_ONSTACK;
    sigaction(SIGUSR1, &sa, NULL);
    // SIGSEGV's handler would run on the thread's stack, which is now the guard page: no frame fits.
    sa.sa_handler = segv_handler;
    sa.sa_flags = 0;
    sigaction(SIGSEGV, &sa, NULL);
    raise(SIGUSR1);
    _exit(3);
  }
  int status = 0;
  CHECK_EQ(waitpid(pid, &status, 0), pid);
  if (!CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV)) NOTE("status 0x%x", status);
}

int main(void) {
  alt_base = mmap(NULL, ALT_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(alt_base != MAP_FAILED);
  test_onstack();
  test_errors();
  test_autodisarm();
  test_overflow();
  return check_done();
}
