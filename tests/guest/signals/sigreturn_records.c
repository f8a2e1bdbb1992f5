// Tests the records rt_sigreturn accepts in __reserved as arch/arm64/kernel/signal.c parse_user_sigframe
// does: a handler appends a 32-byte esr_context (skipped whatever its size), or an extra_context whose data
// (an esr_context) follows its terminator, and the return must work. Then a frame Linux refuses: its mask and
// registers are loaded before the check, so the SIGSEGV handler sees the frame's x19, pc and mask.
#define _GNU_SOURCE
#include <asm/sigcontext.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/ucontext.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

// The terminator of the record list in __reserved (the first record with magic 0), or NULL.
static unsigned char* find_end(mcontext_t* mc) {
  unsigned char* p = (unsigned char*)mc->__reserved;
  unsigned char* end = p + sizeof(mc->__reserved);
  while (p + 8 <= end) {
    uint32_t m, size;
    memcpy(&m, p, 4);
    memcpy(&size, p + 4, 4);
    if (m == 0) return p;
    if (size < 8) return NULL;
    p += size;
  }
  return NULL;
}

static void put_u32(unsigned char* p, uint32_t v) {
  memcpy(p, &v, 4);
}
static void put_u64(unsigned char* p, uint64_t v) {
  memcpy(p, &v, 8);
}

static int kind;
static volatile int handled;

static void edit_handler(int sig, siginfo_t* info, void* ucv) {
  (void)sig;
  (void)info;
  ucontext_t* uc = ucv;
  unsigned char* p = find_end(&uc->uc_mcontext);
  unsigned char* end = (unsigned char*)uc->uc_mcontext.__reserved + sizeof(uc->uc_mcontext.__reserved);
  if (!p || p + 96 > end) return;  // no room: the check after the return fails
  memset(p, 0, 96);
  if (kind == 0) {  // esr_context of 32 bytes, then the terminator
    put_u32(p, ESR_MAGIC);
    put_u32(p + 4, 32);
    put_u64(p + 8, 0x92000047);
  } else {  // extra_context, its terminator, then its data: an esr_context and a terminator
    put_u32(p, EXTRA_MAGIC);
    put_u32(p + 4, 32);
    put_u64(p + 8, (uint64_t)(uintptr_t)(p + 48));
    put_u32(p + 16, 32);
    put_u32(p + 48, ESR_MAGIC);
    put_u32(p + 52, 16);
  }
  handled = 1;
}

// The child raises SIGUSR1 with a handler that edits its frame; it exits 0 only if the return worked.
static void test_accepted(int k, const char* what) {
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    kind = k;
    struct sigaction sa = {0};
    sa.sa_sigaction = edit_handler;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGUSR1, &sa, NULL);
    raise(SIGUSR1);
    _exit(handled ? 0 : 4);
  }
  int status = 0;
  CHECK_EQ(waitpid(pid, &status, 0), pid);
  if (!CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0)) NOTE("%s: status 0x%x", what, status);
}

static volatile uint64_t bad_pc;
static void corrupt_handler(int sig, siginfo_t* info, void* ucv) {
  (void)sig;
  (void)info;
  ucontext_t* uc = ucv;
  uint32_t bad = 0xdeadbeef;  // the fpsimd_context magic
  memcpy(uc->uc_mcontext.__reserved, &bad, 4);
  uc->uc_mcontext.regs[19] = 0x1919;
  uc->uc_mcontext.pc += 4;
  bad_pc = uc->uc_mcontext.pc;
  sigaddset(&uc->uc_sigmask, SIGUSR2);
}

static void segv_handler(int sig, siginfo_t* info, void* ucv) {
  (void)sig;
  (void)info;
  ucontext_t* uc = ucv;
  int bits = 0;
  if (uc->uc_mcontext.regs[19] != 0x1919) bits |= 1;
  if (uc->uc_mcontext.pc != bad_pc) bits |= 2;
  if (!sigismember(&uc->uc_sigmask, SIGUSR2)) bits |= 4;  // the mask when SIGSEGV came: the frame's
  _exit(bits == 0 ? 0 : 10 + bits);
}

// A refused frame still loads its registers and mask: the SIGSEGV handler's frame shows them.
static void test_refused_loads(void) {
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    static char altstack[65536];
    stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack};
    sigaltstack(&ss, NULL);
    struct sigaction sa = {0};
    sa.sa_sigaction = segv_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigaction(SIGSEGV, &sa, NULL);
    sa.sa_sigaction = corrupt_handler;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGUSR1, &sa, NULL);
    raise(SIGUSR1);
    _exit(3);
  }
  int status = 0;
  CHECK_EQ(waitpid(pid, &status, 0), pid);
  if (!CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0)) NOTE("refused frame: status 0x%x", status);
}

int main(void) {
  // qemu-aarch64's target_restore_sigframe has no case for ESR_MAGIC and refuses any esr_context as an
  // unknown record (Linux skips it), so both frames get SIGSEGV there.
  if (!on_reference_qemu()) {
    test_accepted(0, "esr_context of 32 bytes");
    test_accepted(1, "extra_context");
  }
  test_refused_loads();
  return check_done();
}
