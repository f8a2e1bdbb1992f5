// Tests the arm64 signal frame as a handler sees it and as rt_sigreturn reads it back. An assembly routine
// loads every general register, v0-v31, FPSR, FPCR and NZCV with known values and sends itself SIGUSR1 with
// a raw tgkill `svc`; the SA_SIGINFO handler checks the siginfo, every sigcontext field, the fpsimd_context
// record (magic, size, fpsr, fpcr, v0-v31), uc_sigmask, uc_stack, the frame's place below the interrupted sp
// and the {fp, lr} record above it, then edits some saved registers, which the routine finds in place after
// the return. Then: a handler that rewrites pc, x0, sp and lr lands in another routine with those values; a
// handler that edits uc_sigmask changes the mask after the return; a frame with a bad fpsimd_context magic or
// size, or an unknown record kills the process with SIGSEGV (seen from a forked child's wait status).
#define _GNU_SOURCE
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/ucontext.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "check.h"
#include "sigframe_util.h"

#define FPSIMD_SIZE 528u
#define RT_SIGFRAME_SIZE 4688  // siginfo (128) + ucontext (4560): arch/arm64/kernel/signal.c
#define REG_TAG 0xa64f000000000000ull
#define NZCV_IN 0xa0000000ull   // N and C
#define NZCV_OUT 0x60000000ull  // Z and C, written by the handler
#define FPCR_IN 0x03000000ull   // DN and FZ
#define FPSR_IN 0x08000010ull   // QC and IXC
#define FPSR_OUT 0x08000000ull  // QC, written by the handler

struct vreg {
  uint64_t lo, hi;
};

// Read by the routine below: the v-register values to load. Written by it: the state after the signal.
struct vreg frame_vtab[32];
uint64_t frame_expect_sp;
uint64_t frame_after_x[31];
struct vreg frame_after_v[32];
uint64_t frame_after_nzcv, frame_after_fpsr, frame_after_fpcr;

// void frame_raise(pid, tid, sig): x3-x7, x9-x30 = REG_TAG | n, v0-v31 from frame_vtab, FPCR_IN, FPSR_IN,
// NZCV_IN, then tgkill(pid, tid, sig) by svc; afterwards stores x0-x30, v0-v31, nzcv, fpsr and fpcr.
__asm__(
    ".text\n"
    ".global frame_raise\n"
    ".type frame_raise, %function\n"
    "frame_raise:\n"
    "  stp x29, x30, [sp, #-176]!\n"
    "  stp x19, x20, [sp, #16]\n"
    "  stp x21, x22, [sp, #32]\n"
    "  stp x23, x24, [sp, #48]\n"
    "  stp x25, x26, [sp, #64]\n"
    "  stp x27, x28, [sp, #80]\n"
    "  stp d8, d9, [sp, #96]\n"
    "  stp d10, d11, [sp, #112]\n"
    "  stp d12, d13, [sp, #128]\n"
    "  stp d14, d15, [sp, #144]\n"
    "  mrs x9, fpcr\n"
    "  str x9, [sp, #160]\n"
    "  mov x10, sp\n"
    "  adrp x9, frame_expect_sp\n"
    "  str x10, [x9, :lo12:frame_expect_sp]\n"
    "  adrp x9, frame_vtab\n"
    "  add x9, x9, :lo12:frame_vtab\n"
    "  ld1 {v0.2d-v3.2d}, [x9], #64\n"
    "  ld1 {v4.2d-v7.2d}, [x9], #64\n"
    "  ld1 {v8.2d-v11.2d}, [x9], #64\n"
    "  ld1 {v12.2d-v15.2d}, [x9], #64\n"
    "  ld1 {v16.2d-v19.2d}, [x9], #64\n"
    "  ld1 {v20.2d-v23.2d}, [x9], #64\n"
    "  ld1 {v24.2d-v27.2d}, [x9], #64\n"
    "  ld1 {v28.2d-v31.2d}, [x9], #64\n"
    "  movz x9, #0x0300, lsl #16\n"
    "  msr fpcr, x9\n"
    "  movz x9, #0x0800, lsl #16\n"
    "  movk x9, #0x0010\n"
    "  msr fpsr, x9\n"
    "  movz x9, #0xa000, lsl #16\n"
    "  msr nzcv, x9\n"
#define SETREG(n) "  movz x" #n ", #" #n "\n  movk x" #n ", #0xa64f, lsl #48\n"
    SETREG(3) SETREG(4) SETREG(5) SETREG(6) SETREG(7) SETREG(9) SETREG(10) SETREG(11) SETREG(12)
        SETREG(13) SETREG(14) SETREG(15) SETREG(16) SETREG(17) SETREG(18) SETREG(19) SETREG(20)
            SETREG(21) SETREG(22) SETREG(23) SETREG(24) SETREG(25) SETREG(26) SETREG(27) SETREG(28)
                SETREG(29) SETREG(30)
    "  mov x8, #131\n"  // __NR_tgkill
    "  svc #0\n"
    ".global frame_svc_return\n"
    "frame_svc_return:\n"
    "  stp x9, x10, [sp, #-16]!\n"
    "  adrp x9, frame_after_x\n"
    "  add x9, x9, :lo12:frame_after_x\n"
    "  stp x0, x1, [x9, #0]\n"
    "  stp x2, x3, [x9, #16]\n"
    "  stp x4, x5, [x9, #32]\n"
    "  stp x6, x7, [x9, #48]\n"
    "  str x8, [x9, #64]\n"
    "  stp x11, x12, [x9, #88]\n"
    "  stp x13, x14, [x9, #104]\n"
    "  stp x15, x16, [x9, #120]\n"
    "  stp x17, x18, [x9, #136]\n"
    "  stp x19, x20, [x9, #152]\n"
    "  stp x21, x22, [x9, #168]\n"
    "  stp x23, x24, [x9, #184]\n"
    "  stp x25, x26, [x9, #200]\n"
    "  stp x27, x28, [x9, #216]\n"
    "  stp x29, x30, [x9, #232]\n"
    "  ldp x10, x11, [sp], #16\n"
    "  stp x10, x11, [x9, #72]\n"
    "  mrs x10, nzcv\n"
    "  adrp x9, frame_after_nzcv\n"
    "  str x10, [x9, :lo12:frame_after_nzcv]\n"
    "  mrs x10, fpsr\n"
    "  adrp x9, frame_after_fpsr\n"
    "  str x10, [x9, :lo12:frame_after_fpsr]\n"
    "  mrs x10, fpcr\n"
    "  adrp x9, frame_after_fpcr\n"
    "  str x10, [x9, :lo12:frame_after_fpcr]\n"
    "  adrp x9, frame_after_v\n"
    "  add x9, x9, :lo12:frame_after_v\n"
    "  st1 {v0.2d-v3.2d}, [x9], #64\n"
    "  st1 {v4.2d-v7.2d}, [x9], #64\n"
    "  st1 {v8.2d-v11.2d}, [x9], #64\n"
    "  st1 {v12.2d-v15.2d}, [x9], #64\n"
    "  st1 {v16.2d-v19.2d}, [x9], #64\n"
    "  st1 {v20.2d-v23.2d}, [x9], #64\n"
    "  st1 {v24.2d-v27.2d}, [x9], #64\n"
    "  st1 {v28.2d-v31.2d}, [x9], #64\n"
    "  ldr x9, [sp, #160]\n"
    "  msr fpcr, x9\n"
    "  ldp x19, x20, [sp, #16]\n"
    "  ldp x21, x22, [sp, #32]\n"
    "  ldp x23, x24, [sp, #48]\n"
    "  ldp x25, x26, [sp, #64]\n"
    "  ldp x27, x28, [sp, #80]\n"
    "  ldp d8, d9, [sp, #96]\n"
    "  ldp d10, d11, [sp, #112]\n"
    "  ldp d12, d13, [sp, #128]\n"
    "  ldp d14, d15, [sp, #144]\n"
    "  ldp x29, x30, [sp], #176\n"
    "  ret\n"
    ".size frame_raise, .-frame_raise\n");
void frame_raise(long pid, long tid, long sig);
extern char frame_svc_return[];

// What the handler saw, copied out for checks in main (the handler itself only copies and edits).
static siginfo_t seen_info;
static ucontext_t seen_uc;
static uint64_t seen_record[2];
static uint64_t seen_info_addr, seen_uc_addr, seen_return_insns[2];
static sigset_t seen_mask_in_handler;

static void layout_handler(int sig, siginfo_t* info, void* ucv) {
  (void)sig;
  ucontext_t* uc = ucv;
  seen_info = *info;
  seen_uc = *uc;
  seen_info_addr = (uint64_t)info;
  seen_uc_addr = (uint64_t)uc;
  memcpy(seen_record, (const char*)info + RT_SIGFRAME_SIZE, sizeof seen_record);
  const uint32_t* ret = __builtin_return_address(0);
  seen_return_insns[0] = ret[0];
  seen_return_insns[1] = ret[1];
  sigprocmask(SIG_BLOCK, NULL, &seen_mask_in_handler);
  // Edits that rt_sigreturn must carry back: x19, x3, v8, v31.hi, fpsr and the flags.
  uc->uc_mcontext.regs[19] = 0x1919;
  uc->uc_mcontext.regs[3] = 0x0303;
  unsigned char* fp = (unsigned char*)find_record(&uc->uc_mcontext, FPSIMD_MAGIC);
  if (fp) {
    struct vreg v8 = {0x8888, 0x8080};
    memcpy(fp + 16 + 8 * 16, &v8, sizeof v8);
    uint64_t hi = 0x3131;
    memcpy(fp + 16 + 31 * 16 + 8, &hi, sizeof hi);
    uint32_t fpsr = FPSR_OUT;
    memcpy(fp + 8, &fpsr, 4);
  }
  uc->uc_mcontext.pstate = (uc->uc_mcontext.pstate & ~0xf0000000ull) | NZCV_OUT;
}

static void check_sigcontext(void) {
  const mcontext_t* mc = &seen_uc.uc_mcontext;
  CHECK_EQ(mc->regs[0], 0);  // tgkill's result: the signal comes at syscall exit
  CHECK_EQ(mc->regs[1], gettid());
  CHECK_EQ(mc->regs[2], SIGUSR1);
  CHECK_EQ(mc->regs[8], 131);
  for (int n = 3; n <= 30; n++) {
    if (n == 8) continue;
    if (!CHECK_EQ(mc->regs[n], REG_TAG | n)) NOTE("x%d", n);
  }
  CHECK_EQ(mc->sp, frame_expect_sp);
  CHECK_EQ(mc->pc, (uint64_t)frame_svc_return);
  CHECK_EQ(mc->pstate & 0xf0000000ull, NZCV_IN);
  CHECK_EQ(mc->pstate & 0x3cf, 0);  // EL0t, D/A/I/F clear
  CHECK_EQ(mc->pstate & 0x10, 0);   // not AArch32
  CHECK_EQ(mc->fault_address, 0);   // not a fault
  // The frame: siginfo at sp, ucontext right after it, the {fp, lr} record just below the old sp.
  CHECK_EQ(seen_info_addr % 16, 0);
  CHECK_EQ(seen_uc_addr, seen_info_addr + 128);
  CHECK_EQ(seen_info_addr, frame_expect_sp - 16 - RT_SIGFRAME_SIZE);
  CHECK_EQ(seen_record[0], REG_TAG | 29);
  CHECK_EQ(seen_record[1], REG_TAG | 30);
  // x30 in the handler: the sigreturn trampoline (mov x8, #139; svc #0).
  CHECK_EQ(seen_return_insns[0], 0xd2801168);
  CHECK_EQ(seen_return_insns[1], 0xd4000001);
}

static void check_fpsimd(void) {
  const unsigned char* fp = find_record(&seen_uc.uc_mcontext, FPSIMD_MAGIC);
  if (!CHECK(fp != NULL)) return;
  CHECK_EQ(fp - (const unsigned char*)seen_uc.uc_mcontext.__reserved, 0);  // the first record
  uint32_t size, fpsr, fpcr;
  memcpy(&size, fp + 4, 4);
  memcpy(&fpsr, fp + 8, 4);
  memcpy(&fpcr, fp + 12, 4);
  CHECK_EQ(size, FPSIMD_SIZE);
  CHECK_EQ(fpsr, FPSR_IN);
  CHECK_EQ(fpcr, FPCR_IN);
  CHECK_MEMEQ(fp + 16, frame_vtab, sizeof frame_vtab);
  // No esr_context for a signal that is not a fault, and the record list ends with its terminator.
  CHECK(find_record(&seen_uc.uc_mcontext, ESR_MAGIC) == NULL);
  CHECK(find_record(&seen_uc.uc_mcontext, 0) != NULL);
}

// A CPU with SVE (qemu's default "max" CPU) adds an sve_context with the Z registers, and rt_sigreturn then
// takes v0-v31 from it, not from fpsimd_context: the handler's fpsimd edits are then not expected back.
static int frame_has_sve_registers(void) {
  const unsigned char* sve = find_record(&seen_uc.uc_mcontext, SVE_MAGIC);
  uint32_t size = 0;
  if (sve) memcpy(&size, sve + 4, 4);
  return size > 16;
}

static void check_after_return(void) {
  for (int n = 0; n <= 30; n++) {
    uint64_t want = REG_TAG | n;
    if (n == 0) want = 0;
    if (n == 1) want = gettid();
    if (n == 2) want = SIGUSR1;
    if (n == 8) want = 131;
    if (n == 19) want = 0x1919;
    if (n == 3) want = 0x0303;
    if (!CHECK_EQ(frame_after_x[n], want)) NOTE("x%d after sigreturn", n);
  }
  struct vreg want_v[32];
  memcpy(want_v, frame_vtab, sizeof want_v);
  if (!frame_has_sve_registers()) {
    want_v[8] = (struct vreg){0x8888, 0x8080};
    want_v[31].hi = 0x3131;
  } else {
    NOTE("the frame carries SVE registers: v-register edits in fpsimd_context are not checked");
  }
  CHECK_MEMEQ(frame_after_v, want_v, sizeof want_v);
  CHECK_EQ(frame_after_nzcv, NZCV_OUT);
  CHECK_EQ(frame_after_fpsr, FPSR_OUT);
  CHECK_EQ(frame_after_fpcr, FPCR_IN);
}

static void test_layout(void) {
  for (int i = 0; i < 32; i++) {
    frame_vtab[i].lo = 0x5600000000000000ull | (uint64_t)i << 8 | 0x11;
    frame_vtab[i].hi = 0x7800000000000000ull | (uint64_t)i << 8 | 0x22;
  }
  struct sigaction sa = {0};
  sa.sa_sigaction = layout_handler;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGHUP);
  REQUIRE_SYS(sigaction(SIGUSR1, &sa, NULL));
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR2);
  sigaddset(&block, SIGRTMIN + 5);
  REQUIRE_SYS(sigprocmask(SIG_BLOCK, &block, &old));

  frame_raise(getpid(), gettid(), SIGUSR1);

  CHECK_EQ(seen_info.si_signo, SIGUSR1);
  CHECK_EQ(seen_info.si_code, SI_TKILL);
  CHECK_EQ(seen_info.si_errno, 0);
  CHECK_EQ(seen_info.si_pid, getpid());
  CHECK_EQ(seen_info.si_uid, getuid());
  CHECK_EQ(seen_uc.uc_flags, 0);
  CHECK(seen_uc.uc_link == NULL);
  CHECK(sigismember(&seen_uc.uc_sigmask, SIGUSR2) == 1);
  CHECK(sigismember(&seen_uc.uc_sigmask, SIGRTMIN + 5) == 1);
  CHECK(sigismember(&seen_uc.uc_sigmask, SIGUSR1) == 0);
  CHECK(sigismember(&seen_uc.uc_sigmask, SIGHUP) == 0);
  // The handler runs with sa_mask and the signal itself added.
  CHECK(sigismember(&seen_mask_in_handler, SIGUSR1) == 1);
  CHECK(sigismember(&seen_mask_in_handler, SIGHUP) == 1);
  CHECK(sigismember(&seen_mask_in_handler, SIGUSR2) == 1);
  // No altstack: uc_stack says SS_DISABLE.
  CHECK_EQ(seen_uc.uc_stack.ss_flags, SS_DISABLE);
  CHECK(seen_uc.uc_stack.ss_sp == NULL);
  CHECK_EQ(seen_uc.uc_stack.ss_size, 0);
  check_sigcontext();
  check_fpsimd();
  check_after_return();
  sigset_t now;
  sigprocmask(SIG_BLOCK, NULL, &now);
  CHECK(sigismember(&now, SIGUSR1) == 0);
  CHECK(sigismember(&now, SIGHUP) == 0);
  REQUIRE_SYS(sigprocmask(SIG_SETMASK, &old, NULL));
}

// rewrite_raise(pid, tid, sig): sends the signal by svc with the original sp saved; the handler sends it to
// rewrite_landing with new x0, sp and lr, which records them, puts sp back and returns 1. Returns 0 if the
// svc returned normally.
uint64_t rewrite_saved_sp, rewrite_landed_x0, rewrite_landed_sp, rewrite_landed_lr, rewrite_landed_x19;
__asm__(
    ".text\n"
    ".global rewrite_raise\n"
    ".type rewrite_raise, %function\n"
    "rewrite_raise:\n"
    "  stp x29, x30, [sp, #-32]!\n"
    "  stp x19, x20, [sp, #16]\n"
    "  mov x19, #0x1234\n"
    "  mov x10, sp\n"
    "  adrp x9, rewrite_saved_sp\n"
    "  str x10, [x9, :lo12:rewrite_saved_sp]\n"
    "  mov x8, #131\n"
    "  svc #0\n"
    "  mov x0, #0\n"
    "  b 1f\n"
    ".global rewrite_landing\n"
    "rewrite_landing:\n"
    "  adrp x9, rewrite_landed_x0\n"
    "  str x0, [x9, :lo12:rewrite_landed_x0]\n"
    "  mov x10, sp\n"
    "  adrp x9, rewrite_landed_sp\n"
    "  str x10, [x9, :lo12:rewrite_landed_sp]\n"
    "  adrp x9, rewrite_landed_lr\n"
    "  str x30, [x9, :lo12:rewrite_landed_lr]\n"
    "  adrp x9, rewrite_landed_x19\n"
    "  str x19, [x9, :lo12:rewrite_landed_x19]\n"
    "  adrp x9, rewrite_saved_sp\n"
    "  ldr x10, [x9, :lo12:rewrite_saved_sp]\n"
    "  mov sp, x10\n"
    "  mov x0, #1\n"
    "1:\n"
    "  ldp x19, x20, [sp, #16]\n"
    "  ldp x29, x30, [sp], #32\n"
    "  ret\n"
    ".size rewrite_raise, .-rewrite_raise\n");
uint64_t rewrite_raise(long pid, long tid, long sig);
extern char rewrite_landing[];

static char rewrite_stack[8192] __attribute__((aligned(16)));
static int add_usr2_to_mask, drop_usr2_from_mask;
static volatile sig_atomic_t usr2_runs;

static void rewrite_handler(int sig, siginfo_t* info, void* ucv) {
  (void)sig;
  (void)info;
  ucontext_t* uc = ucv;
  uc->uc_mcontext.pc = (uint64_t)rewrite_landing;
  uc->uc_mcontext.regs[0] = 42;
  uc->uc_mcontext.regs[30] = 0x7777;
  uc->uc_mcontext.sp = (uint64_t)(rewrite_stack + sizeof rewrite_stack - 64);
  if (add_usr2_to_mask) sigaddset(&uc->uc_sigmask, SIGUSR2);
  if (drop_usr2_from_mask) sigdelset(&uc->uc_sigmask, SIGUSR2);
}

static void on_usr2(int sig) {
  (void)sig;
  usr2_runs++;
}

static void test_rewrite(void) {
  struct sigaction sa = {0};
  sa.sa_sigaction = rewrite_handler;
  sa.sa_flags = SA_SIGINFO;
  REQUIRE_SYS(sigaction(SIGUSR1, &sa, NULL));
  struct sigaction sa2 = {0};
  sa2.sa_handler = on_usr2;
  REQUIRE_SYS(sigaction(SIGUSR2, &sa2, NULL));

  CHECK_EQ(rewrite_raise(getpid(), gettid(), SIGUSR1), 1);
  CHECK_EQ(rewrite_landed_x0, 42);
  CHECK_EQ(rewrite_landed_sp, (uint64_t)(rewrite_stack + sizeof rewrite_stack - 64));
  CHECK_EQ(rewrite_landed_lr, 0x7777);
  CHECK_EQ(rewrite_landed_x19, 0x1234);  // registers the handler left alone come back as they were

  // uc_sigmask written by the handler is the mask after sigreturn.
  add_usr2_to_mask = 1;
  CHECK_EQ(rewrite_raise(getpid(), gettid(), SIGUSR1), 1);
  add_usr2_to_mask = 0;
  sigset_t now;
  sigprocmask(SIG_BLOCK, NULL, &now);
  CHECK(sigismember(&now, SIGUSR2) == 1);
  // And a handler that unblocks a pending signal there gets it delivered right after the return.
  raise(SIGUSR2);
  CHECK_EQ(usr2_runs, 0);
  drop_usr2_from_mask = 1;
  CHECK_EQ(rewrite_raise(getpid(), gettid(), SIGUSR1), 1);
  drop_usr2_from_mask = 0;
  CHECK_EQ(usr2_runs, 1);
  sigprocmask(SIG_BLOCK, NULL, &now);
  CHECK(sigismember(&now, SIGUSR2) == 0);
  signal(SIGUSR1, SIG_DFL);
  signal(SIGUSR2, SIG_DFL);
}

static int corrupt_kind;
static void corrupt_handler(int sig, siginfo_t* info, void* ucv) {
  (void)sig;
  (void)info;
  ucontext_t* uc = ucv;
  unsigned char* rec = uc->uc_mcontext.__reserved;
  if (corrupt_kind == 0) {
    uint32_t bad = 0xdeadbeef;  // the fpsimd_context magic
    memcpy(rec, &bad, 4);
  } else if (corrupt_kind == 1) {
    uint32_t bad = FPSIMD_SIZE - 16;  // the fpsimd_context size
    memcpy(rec + 4, &bad, 4);
  } else {
    uint32_t unknown[2] = {0x12345678, 16};  // an unknown record after fpsimd_context
    memcpy(rec + FPSIMD_SIZE, unknown, sizeof unknown);
    memset(rec + FPSIMD_SIZE + 16, 0, 8);
  }
}

// A handler corrupts its frame; the child must die of SIGSEGV at rt_sigreturn instead of returning.
static void test_corrupt_frame(int kind, const char* what) {
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    corrupt_kind = kind;
    struct sigaction sa = {0};
    sa.sa_sigaction = corrupt_handler;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGUSR1, &sa, NULL);
    raise(SIGUSR1);
    _exit(3);
  }
  int status = 0;
  CHECK_EQ(waitpid(pid, &status, 0), pid);
  if (!CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV)) NOTE("%s: status 0x%x", what, status);
}

int main(void) {
  test_layout();
  test_rewrite();
  test_corrupt_frame(0, "bad fpsimd magic");
  test_corrupt_frame(1, "bad fpsimd size");
  test_corrupt_frame(2, "unknown record");
  return check_done();
}
