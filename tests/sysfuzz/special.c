// The syscall fuzzer's special operations, which are not one system call: processes and threads made with
// clone and every kind of sharing (each child makes a few calls and exits; a CLONE_VM child unmaps and maps
// while its parent goes on), a sleeping child other calls can signal and wait for, and rt_sigreturn of
// frames that are valid, slightly wrong or garbage (in a child, which either lands where the frame says
// with the registers it says, or dies of SIGSEGV).
#define _GNU_SOURCE
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "sysfuzz.h"

extern long sysfuzz_clone(unsigned long flags, void* stack, int* ptid, void* tls, int* ctid, int (*fn)(void*),
                          void* arg);

// Children run on stacks in this private mapping (not the arena: resets remake the arena under them).
#define CHILD_STACKS 8
#define CHILD_STACK_SIZE (64 * 1024)
static uint8_t* g_stacks;
static int g_ctid[CHILD_STACKS];

static uint8_t* child_stack(int i) {
  if (!g_stacks) {
    const int64_t p = raw6(SYS_mmap, 0, CHILD_STACKS * CHILD_STACK_SIZE, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p < 0) return 0;
    g_stacks = (uint8_t*)p;
  }
  return g_stacks + (uint64_t)(i + 1) * CHILD_STACK_SIZE;
}

static int sleeper_main(void* arg) {
  (void)arg;
  const struct { int64_t s, ns; } ts = {1, 0};
  for (;;) raw2(SYS_nanosleep, &ts, 0);
  return 0;
}

void start_sleeper(struct fuzz* f) {
  if (f->sleeper > 0) {
    raw2(SYS_kill, f->sleeper, SIGKILL);
    raw4(SYS_wait4, f->sleeper, 0, __WALL, 0);
  }
  const long pid = sysfuzz_clone(SIGCHLD, 0, 0, 0, 0, sleeper_main, 0);
  f->sleeper = pid > 0 ? (int)pid : 0;
}

// What a child does: a few memory calls in MM_ZONE (the parent's memory when shared) and identity calls.
struct child_plan {
  uint64_t seed;
  int calls;
};
static struct child_plan g_plans[CHILD_STACKS];

static int child_main(void* arg) {
  const struct child_plan* p = arg;
  struct rng r;
  rng_seed(&r, p->seed);
  for (int i = 0; i < p->calls; i++) {
    const uint64_t at = MM_ZONE + PAGE * rng_below(&r, MM_SIZE / PAGE - 16);
    switch (rng_below(&r, 5)) {
      case 0:
        raw2(SYS_munmap, at, PAGE * (1 + rng_below(&r, 8)));
        break;
      case 1:
        raw6(SYS_mmap, at, PAGE * (1 + rng_below(&r, 8)), PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        break;
      case 2:
        raw3(SYS_mprotect, at, PAGE * (1 + rng_below(&r, 8)), rng_below(&r, 8));
        break;
      case 3:
        raw0(SYS_getpid);
        break;
      default:
        raw0(SYS_sched_yield);
    }
  }
  return (int)(p->seed & 63);
}

static void remember_child(struct fuzz* f, int pid) {
  if (pid <= 0) return;
  if (f->nchildren == (int)(sizeof f->children / sizeof f->children[0])) reap_children(f, 1);
  f->children[f->nchildren++] = pid;
}

// clone with a kind of sharing chosen at random and some of the other flags; the child runs child_main.
// Processes are reaped later (their exit overlaps the parent's calls); threads are waited for through
// their CLONE_CHILD_CLEARTID word at the next reset.
void special_spawn(struct fuzz* f) {
  struct rng* r = &f->rng;
  int slot = (int)rng_below(r, CHILD_STACKS);
  if (g_ctid[slot] != 0) reap_children(f, 1);
  uint8_t* stack = child_stack(slot);
  if (!stack) return;
  g_plans[slot].seed = rng_next(r);
  g_plans[slot].calls = (int)rng_below(r, 6);
  unsigned long flags;
  const uint64_t kind = rng_below(r, 5);
  static const unsigned long extra[] = {CLONE_FILES,         CLONE_FS,           CLONE_SYSVSEM, CLONE_IO,
                                        CLONE_PARENT_SETTID, CLONE_CHILD_SETTID, CLONE_NEWUTS,  CLONE_NEWIPC,
                                        CLONE_NEWNET,        CLONE_UNTRACED,     CLONE_PIDFD};
  int ptid = 0;
  switch (kind) {
    case 0:  // fork
      flags = SIGCHLD;
      stack = 0;
      break;
    case 1:  // vfork on a stack of its own
      flags = CLONE_VM | CLONE_VFORK | SIGCHLD;
      break;
    case 2:  // a process in this memory
      flags = CLONE_VM | SIGCHLD | (rng_chance(r, 2) ? CLONE_SIGHAND : 0);
      break;
    case 3:  // a thread (shares this thread's TLS: the child makes raw calls only)
      flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM |
              CLONE_CHILD_CLEARTID | CLONE_PARENT_SETTID;
      break;
    default:  // a process with an odd exit signal
      flags = (rng_chance(r, 2) ? 0 : SIGUSR1) | (rng_chance(r, 2) ? CLONE_VM : 0);
      if (!(flags & CLONE_VM)) stack = 0;
  }
  if (kind != 3) {
    for (unsigned i = 0; i < sizeof extra / sizeof extra[0]; i++) {
      if (rng_chance(r, 8)) flags |= extra[i];
    }
  }
  if ((flags & CLONE_PIDFD) && (flags & CLONE_PARENT_SETTID)) flags &= ~CLONE_PARENT_SETTID;
  int pidfd = -1;
  int* ptid_arg = (flags & CLONE_PIDFD) ? &pidfd : &ptid;
  g_ctid[slot] = (flags & CLONE_CHILD_CLEARTID) ? -1 : 0;
  const long pid = sysfuzz_clone(flags, stack, ptid_arg, 0, &g_ctid[slot], child_main, &g_plans[slot]);
  if (pidfd >= 0) raw1(SYS_close, pidfd);
  if (pid <= 0) {
    g_ctid[slot] = 0;
    return;
  }
  if (kind == 3) {
    int expected = -1;  // the thread may have exited (and the kernel cleared the word) already
    __atomic_compare_exchange_n(&g_ctid[slot], &expected, (int)pid, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return;
  }
  g_ctid[slot] = 0;
  remember_child(f, (int)pid);
}

void reap_children(struct fuzz* f, int all) {
  for (int i = 0; i < f->nchildren; i++) {
    // Children exit by themselves within a few calls; a stuck one is killed.
    const int pid = f->children[i];
    if (raw4(SYS_wait4, pid, 0, __WALL | WNOHANG, 0) == 0) {
      raw2(SYS_kill, pid, SIGKILL);
      raw4(SYS_wait4, pid, 0, __WALL, 0);
    }
  }
  f->nchildren = 0;
  (void)all;
  // Threads: wait until the kernel (or emulator) cleared their CLONE_CHILD_CLEARTID word.
  for (int i = 0; i < CHILD_STACKS; i++) {
    while (__atomic_load_n(&g_ctid[i], __ATOMIC_ACQUIRE) != 0) {
      const int v = __atomic_load_n(&g_ctid[i], __ATOMIC_ACQUIRE);
      if (v == 0) break;
      const struct { int64_t s, ns; } ts = {0, 10000000};
      raw6(SYS_futex, (uint64_t)&g_ctid[i], FUTEX_WAIT, (uint64_t)v, (uint64_t)&ts, 0, 0);
    }
  }
  // Zombies of children that were not ours to track (CLONE_PARENT ones go to init).
  while (raw4(SYS_wait4, -1, 0, __WALL | WNOHANG, 0) > 0) {
  }
  if (f->sleeper > 0 && raw2(SYS_kill, f->sleeper, 0) != 0) f->sleeper = 0;
}

// --- rt_sigreturn ---

#if defined(__aarch64__)

extern void sysfuzz_landing(void);
static uint64_t g_expected[31 + 1 + 64];  // x0-x30, pc, v0-v31 the frame restores

// The frame: siginfo (128 bytes), then the ucontext: uc_flags, uc_link, uc_stack (24), uc_sigmask (8),
// 120 unused bytes, then sigcontext (fault_address, regs[31], sp, pc, pstate, __reserved[4096]).
enum {
  kFrameSize = 4688,
  kUc = 128,
  kSigmask = kUc + 40,
  kMcontext = kUc + 176,
  kRegs = kMcontext + 8,
  kSp = kMcontext + 256,
  kPc = kMcontext + 264,
  kPstate = kMcontext + 272,
  kReserved = kMcontext + 288,
};

static void put64(uint8_t* f, int off, uint64_t v) {
  memcpy(f + off, &v, 8);
}
static void put32(uint8_t* f, int off, uint32_t v) {
  memcpy(f + off, &v, 4);
}

// A valid frame, then none, one or a few of the mistakes a parser must refuse (or shrug off).
static void build_frame(struct rng* r, uint8_t* frame, uint64_t land_sp) {
  memset(frame, 0, kFrameSize);
  put32(frame, kUc + 24, 2 /* SS_DISABLE */);
  for (int i = 0; i < 31; i++) {
    g_expected[i] = rng_next(r);
    put64(frame, kRegs + 8 * i, g_expected[i]);
  }
  put64(frame, kSp, land_sp);
  put64(frame, kPc, (uint64_t)sysfuzz_landing);
  g_expected[31] = (uint64_t)sysfuzz_landing;
  put64(frame, kPstate, rng_next(r) & 0xf0000000ULL);
  put32(frame, kReserved, 0x46508001);  // FPSIMD_MAGIC
  put32(frame, kReserved + 4, 0x210);
  for (int i = 0; i < 64; i++) {
    g_expected[32 + i] = rng_next(r);
    put64(frame, kReserved + 16 + 8 * i, g_expected[32 + i]);
  }
  int off = kReserved + 0x210;
  if (rng_chance(r, 3)) {  // an esr_context record
    put32(frame, off, 0x45535201);
    put32(frame, off + 4, 16);
    off += 16;
  }
  switch (rng_below(r, 16)) {
    case 0:
      put64(frame, kPstate, rng_next(r));  // mode, DAIF and other bits
      break;
    case 1:
      put32(frame, kReserved, (uint32_t)rng_next(r));  // no FPSIMD record
      break;
    case 2:
      put32(frame, kReserved + 4, (uint32_t)rng_below(r, 0x1000));  // its size
      break;
    case 3:
      put32(frame, off + 4, 16);  // a terminator with a size
      break;
    case 4: {  // an extra_context, an SVE or ZA record, or an unknown one
      static const uint32_t magic[] = {0x45585401, 0x53564501, 0x54366345, 0x12345678};
      put32(frame, off, magic[rng_below(r, 4)]);
      put32(frame, off + 4, 16 * (uint32_t)rng_below(r, 40));
      put64(frame, off + 8, rng_next(r));
      break;
    }
    case 5:
      fill_random(r, frame + kReserved, 4096);  // garbage records
      break;
    case 6:
      fill_random(r, frame, kFrameSize);  // garbage throughout
      break;
    case 7:
      put64(frame, kPc, rng_next(r));  // a wild pc
      break;
    case 8: {  // a record running past the end of __reserved
      put32(frame, off, 0x45535201);
      put32(frame, off + 4, 0xfff0);
      break;
    }
    default:
      break;  // valid
  }
}

// In the child, after a frame was restored: the registers must be the frame's.
__attribute__((noreturn)) void sysfuzz_landed(const uint64_t* saved, uint64_t sp) {
  (void)sp;
  int bad = 0;
  for (int i = 0; i < 31; i++) bad |= saved[i] != g_expected[i];
  for (int i = 0; i < 64; i++) bad |= saved[34 + i] != g_expected[32 + i];
  raw1(SYS_exit_group, bad ? 42 : 0);
  __builtin_unreachable();
}

static int sigreturn_child(void* arg) {
  uint8_t* frame = arg;
  register uint64_t x0 __asm__("x0") = (uint64_t)frame;
  __asm__ volatile("mov sp, x0\n mov x8, #139\n svc #0\n brk #1" : : "r"(x0) : "memory");
  return 0;
}

// The frame goes on the child's stack page; the landing stack a page above it.
void special_sigreturn(struct fuzz* f) {
  uint8_t* stack = child_stack(CHILD_STACKS - 1);
  if (!stack) return;
  uint8_t* base = stack - CHILD_STACK_SIZE;
  uint8_t* frame = base + 8192;
  if (rng_chance(&f->rng, 16)) frame += 8 * (1 + rng_below(&f->rng, 1));  // misaligned
  if (rng_chance(&f->rng, 16)) frame = (uint8_t*)HOLE;                    // unmapped
  const uint64_t land_sp = (uint64_t)(base + CHILD_STACK_SIZE - 1024);
  if (frame != (uint8_t*)HOLE) build_frame(&f->rng, frame, land_sp);
  const long pid = sysfuzz_clone(SIGCHLD, 0, 0, 0, 0, sigreturn_child, frame);
  if (pid <= 0) return;
  int status = 0;
  if (raw4(SYS_wait4, pid, &status, __WALL, 0) != pid) return;
  // Landed right (0), refused or crashed (SIGSEGV; a wild pc may also die of SIGBUS or SIGILL): fine.
  if (WIFEXITED(status) && WEXITSTATUS(status) == 42) fuzz_fail(f, "rt_sigreturn restored other registers");
}

#else

void special_sigreturn(struct fuzz* f) {
  (void)f;
}

#endif
