// Tests clone with the thread flags as a runtime without glibc's pthread_create makes it (Go's newosproc):
// the new thread starts with its creator's signal mask (copy_process copies `blocked`; Go blocks every signal
// around clone and unblocks them in the new thread once it is ready), and CLONE_PARENT_SETTID and
// CLONE_CHILD_SETTID are written before the new thread runs its first instruction and before clone returns.
// CLONE_CHILD_CLEARTID then wakes the creator when the thread exits.
//
// The threads share the creator's TLS (no CLONE_SETTLS): they use only raw system calls and atomics.
#define _GNU_SOURCE
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

enum { kStack = 64 * 1024, kRounds = 50 };

struct Child {
  _Atomic int parent_tid;  // CLONE_PARENT_SETTID
  _Atomic int child_tid;   // CLONE_CHILD_SETTID, then CLONE_CHILD_CLEARTID
  int seen_parent_tid;     // what the thread found at its first instruction
  int seen_child_tid;
  int own_tid;
  uint64_t mask;  // the thread's signal mask as it started
};

static int child_main(void* arg) {
  struct Child* c = arg;
  c->seen_parent_tid = atomic_load(&c->parent_tid);
  c->seen_child_tid = atomic_load(&c->child_tid);
  c->own_tid = (int)syscall(SYS_gettid);
  uint64_t mask = 0;
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, NULL, &mask, sizeof mask);
  c->mask = mask;
  syscall(SYS_exit, 0);  // this thread only: exit_group would end the test
  return 0;
}

// Waits for the kernel to clear child_tid at thread exit (CLONE_CHILD_CLEARTID), as pthread_join does.
static void wait_exit(struct Child* c) {
  int tid;
  while ((tid = atomic_load(&c->child_tid)) != 0) syscall(SYS_futex, &c->child_tid, FUTEX_WAIT, tid, NULL);
}

static uint64_t bit(int sig) {
  return 1ull << (sig - 1);
}

int main(void) {
  const int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM |
                    CLONE_PARENT_SETTID | CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID;
  char* stack = mmap(NULL, kStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(stack != MAP_FAILED);
  // Masks the way Go's newosproc leaves them around clone (all blocked but the unblockable), and one that
  // a test can tell from the default.
  sigset_t masks[2];
  sigfillset(&masks[0]);
  sigemptyset(&masks[1]);
  sigaddset(&masks[1], SIGUSR1);
  sigaddset(&masks[1], SIGRTMIN + 3);
  int bad_parent = 0, bad_child = 0, bad_ret = 0, bad_mask = 0;
  for (int round = 0; round < kRounds; round++) {
    sigset_t old;
    sigprocmask(SIG_SETMASK, &masks[round % 2], &old);
    uint64_t want = 0;
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, NULL, &want, sizeof want);
    CHECK_EQ(want & bit(SIGUSR1), bit(SIGUSR1));
    struct Child c = {0};
    int tid = clone(child_main, stack + kStack, flags, &c, &c.parent_tid, NULL, &c.child_tid);
    sigprocmask(SIG_SETMASK, &old, NULL);
    REQUIRE(tid > 0);
    // Clone has returned: the parent's copy is there already.
    if (atomic_load(&c.parent_tid) != tid) bad_ret++;
    wait_exit(&c);
    if (c.seen_parent_tid != tid || c.own_tid != tid) bad_parent++;
    if (c.seen_child_tid != tid) bad_child++;
    if (c.mask != want) {
      if (bad_mask++ == 0)
        NOTE("thread started with mask %#llx, creator had %#llx", (unsigned long long)c.mask,
             (unsigned long long)want);
    }
  }
  CHECK_EQ(bad_ret, 0);
  CHECK_EQ(bad_parent, 0);
  CHECK_EQ(bad_child, 0);
  CHECK_EQ(bad_mask, 0);
  return check_done();
}
