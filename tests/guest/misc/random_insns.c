// Runs 3,000 random instruction words, one at a time, each on a code page whose other words are BRK but
// the one before it (which sets the last register), with every general register and SP pointing into
// memory that is not mapped: whatever a word does,
// the guest must get a signal or fall through to the BRK after it, and a64run must go on (a word a guest
// can run may not crash or hang the emulator). Known words first: a NOP falls through, UDF is SIGILL at
// its PC, a load through a register SIGSEGV at its address, BRK SIGTRAP at its PC, a branch lands on the
// BRK it names. Words that would run forever in place (a branch to itself, WFI, WFE) and SVC (a system
// call with random arguments) are left out. Each word is written to the page and the page's code made
// visible (`__builtin___clear_cache`), as a JIT does, so this also runs a64run's code invalidation 3,000
// times. Counts of each outcome are printed; they differ between engines, whose CPUs differ: of 20,000
// words, qemu-aarch64 7.2 ran 238 that a64run refuses (SVE and MTE, which a64run's HWCAPs do not claim),
// and gave SIGBUS for 19 misaligned LDAPUR/STLUR to unmapped memory where a64run (whose HWCAPs claim
// LSE2's unaligned accesses) gives SIGSEGV.
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <ucontext.h>
#include <unistd.h>

#include "check.h"

#define RESERVE (1ul << 30)
#define WORDS 3000
#define FELL_THROUGH 100      // an outcome: SIGTRAP at the BRK after the word
#define BRK_MARK 0xd42eeee0u  // brk #0x7777

static sigjmp_buf jump;
static uint64_t saved_tp;
static volatile int got_sig;
static volatile uintptr_t got_addr, got_pc;

static void on_signal(int sig, siginfo_t* si, void* ctx) {
  // The word may have written TPIDR_EL0, which siglongjmp's pointer guard reads through.
  __asm__ volatile("msr tpidr_el0, %0" : : "r"(saved_tp));
  got_sig = sig;
  got_addr = (uintptr_t)si->si_addr;
  got_pc = ((ucontext_t*)ctx)->uc_mcontext.pc;
  siglongjmp(jump, 1);
}

// Whether the word runs forever where it is (a branch to itself, WFE/WFI and their timed forms) or is SVC.
static int left_out(uint32_t w) {
  if ((w & 0x7fffffffu) == 0x14000000u) return 1;                        // B or BL to itself
  if ((w & 0xff00001fu) == 0x54000000u && !(w & 0x00ffffe0u)) return 1;  // B.cond to itself
  if ((w & 0x7e000000u) == 0x34000000u && !(w & 0x00ffffe0u)) return 1;  // CBZ/CBNZ to itself
  if ((w & 0x7e000000u) == 0x36000000u && !(w & 0x0007ffe0u)) return 1;  // TBZ/TBNZ to itself
  if ((w & 0xffffff9fu) == 0xd503201fu && (w & 0x40u)) return 1;         // WFE (0x5f), WFI (0x7f)
  if ((w & 0xffffffc0u) == 0xd5031000u) return 1;                        // WFET, WFIT
  if ((w & 0xffe0001fu) == 0xd4000001u) return 1;                        // SVC
  return 0;
}

static uint32_t* code;
static uint64_t poison;

// Runs the word at code[1], after code[0]'s `mov x16, x17` (x16 held the page's address for the branch to
// it); the outcome: a signal number, or FELL_THROUGH.
static int run_word(uint32_t word) {
  code[0] = 0xaa1103f0u;  // mov x16, x17
  code[1] = word;
  code[2] = BRK_MARK;
  __builtin___clear_cache((char*)code, (char*)(code + 3));
  got_sig = 0;
  struct itimerval guard = {{0, 0}, {0, 200 * 1000}};  // a word that still never ends: SIGALRM
  setitimer(ITIMER_REAL, &guard, NULL);
  if (sigsetjmp(jump, 1) == 0) {
    register uint64_t target __asm__("x16") = (uint64_t)code;
    register uint64_t p __asm__("x17") = poison;
    __asm__ volatile(
        "mov x0, x17\n mov x1, x17\n mov x2, x17\n mov x3, x17\n mov x4, x17\n mov x5, x17\n"
        "mov x6, x17\n mov x7, x17\n mov x8, x17\n mov x9, x17\n mov x10, x17\n mov x11, x17\n"
        "mov x12, x17\n mov x13, x17\n mov x14, x17\n mov x15, x17\n mov x18, x17\n mov x19, x17\n"
        "mov x20, x17\n mov x21, x17\n mov x22, x17\n mov x23, x17\n mov x24, x17\n mov x25, x17\n"
        "mov x26, x17\n mov x27, x17\n mov x28, x17\n mov x29, x17\n mov x30, x17\n mov sp, x17\n"
        "msr nzcv, xzr\n br x16\n"
        :
        : "r"(target), "r"(p)
        : "memory");
    __builtin_unreachable();
  }
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  __asm__ volatile("msr fpcr, xzr");  // the word may have changed the rounding mode or FZ
  if (got_sig == SIGTRAP && got_pc == (uintptr_t)(code + 2)) return FELL_THROUGH;
  return got_sig;
}

int main(void) {
  __asm__ volatile("mrs %0, tpidr_el0" : "=r"(saved_tp));
  static char altstack[64 * 1024];
  stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack};
  REQUIRE_SYS(sigaltstack(&ss, NULL));
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigfillset(&sa.sa_mask);
  const int sigs[] = {SIGILL, SIGSEGV, SIGBUS, SIGFPE, SIGTRAP, SIGSYS, SIGALRM};
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) REQUIRE_SYS(sigaction(sigs[i], &sa, NULL));

  // 1 GiB of nothing (at 2^39 where it is free), the code page in its middle: every PC-relative target of
  // a word (up to 128 MiB away) and every register-based address (registers hold `poison`, 64 MiB into it)
  // is unmapped, but the page itself.
  char* r = mmap((void*)(1ul << 39), RESERVE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  REQUIRE(r != MAP_FAILED);
  code = mmap(r + RESERVE / 2, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
              MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  REQUIRE(code != MAP_FAILED);
  for (int i = 0; i < 1024; i++) code[i] = BRK_MARK;
  poison = (uint64_t)(r + (64ul << 20));

  // Known words.
  CHECK_EQ(run_word(0xd503201fu), FELL_THROUGH);  // nop
  CHECK_EQ(run_word(0x00000000u), SIGILL);        // udf #0
  CHECK_EQ(got_pc, (uintptr_t)(code + 1));
  CHECK_EQ(run_word(0xf9400020u), SIGSEGV);  // ldr x0, [x1]
  CHECK_EQ(got_addr, poison);
  CHECK_EQ(run_word(0xd4200020u), SIGTRAP);  // brk #1
  CHECK_EQ(got_pc, (uintptr_t)(code + 1));
  CHECK_EQ(run_word(0x14000003u), SIGTRAP);  // b .+12
  CHECK_EQ(got_pc, (uintptr_t)(code + 4));
  CHECK_EQ(run_word(0xb8004600u), SIGSEGV);  // str w0, [x16], #4: x16 too is the poison
  CHECK_EQ(got_addr, poison);
  CHECK_EQ(run_word(0xd61f0020u), SIGSEGV);  // br x1
  CHECK_EQ(got_addr, poison);
  CHECK_EQ(run_word(0xf81f0fe0u), SIGSEGV);       // str x0, [sp, #-16]!
  CHECK_EQ(run_word(0xd51bd040u), FELL_THROUGH);  // msr tpidr_el0, x0 (put back after each word)

  unsigned counts[128] = {0};
  uint64_t x = 0x2545f4914f6cdd1dull;
  int ran = 0;
  while (ran < WORDS) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const uint32_t w = (uint32_t)(x >> 16);
    if (left_out(w)) continue;
    const int outcome = run_word(w);
    counts[outcome < 128 ? outcome : 0]++;
    ran++;
    // A word's own signal number or the fall-through: nothing else reaches here.
    if (!(outcome == FELL_THROUGH || outcome == SIGILL || outcome == SIGSEGV || outcome == SIGBUS ||
          outcome == SIGFPE || outcome == SIGTRAP || outcome == SIGSYS || outcome == SIGALRM)) {
      CHECK_EQ(outcome, FELL_THROUGH);
      NOTE("word %#x", w);
    }
  }
  NOTE("%d words: fell through %u, SIGILL %u, SIGSEGV %u, SIGBUS %u, SIGTRAP %u, SIGFPE %u, SIGALRM %u", ran,
       counts[FELL_THROUGH], counts[SIGILL], counts[SIGSEGV], counts[SIGBUS], counts[SIGTRAP], counts[SIGFPE],
       counts[SIGALRM]);
  // Random words are mostly loads and stores (through unmapped registers) and unallocated encodings.
  CHECK_GE(counts[SIGSEGV], WORDS / 10);
  CHECK_GE(counts[SIGILL], WORDS / 20);
  CHECK_GE(counts[FELL_THROUGH], WORDS / 20);
  return check_done();
}
