// A stress test for SIGKILL between processes that share memory (clone(CLONE_VM|SIGCHLD) children): the
// parent kills children that are busy in system calls that allocate in the emulator (mmap, munmap, mprotect
// of pages of their own) and in new code (each child runs a function copied to a page it mapped, so the
// translator allocates too), while a thread of the parent does the same. The emulator's own memory is the
// family's: a child whose host process died while it held a lock of the allocator (glibc's arena, or
// AddressSanitizer's) left the parent waiting forever at its next translation or allocation. a64run ends a
// relative at a safe point (docs/memory.md), so every round must end, each child killed by SIGKILL.
// A relative's SIGKILL also runs the exit path Linux runs for it: the robust futex the child held gets
// FUTEX_OWNER_DIED (exit_robust_list), which the host's SIGKILL of the emulator could never give.
// The children use raw system calls only (they share the parent's TLS).
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

enum { kStackSize = 64 * 1024, kRounds = 40, kChildren = 3, kPage = 4096 };

static atomic_int stop_parent_work;
static atomic_long parent_rounds;

// `mov w0, #imm; ret`: code the translator has not seen at an address it may have seen other code at.
static void put_code(uint32_t* at, uint32_t value) {
  at[0] = 0x52800000u | ((value & 0xffffu) << 5);
  at[1] = 0xd65f03c0u;
  __builtin___clear_cache((char*)at, (char*)(at + 2));
}

// Maps a page, writes and runs a new function in it, unmaps it: a translation and the emulator's bookkeeping
// for a mapping, with raw calls only.
static int fresh_code(uint32_t value) {
  long p = syscall(SYS_mmap, 0, 2 * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p < 0 && p > -4096) return -1;
  uint32_t* code = (uint32_t*)(p + (long)(value % 2) * kPage);
  put_code(code, value);
  if (syscall(SYS_mprotect, (long)code, kPage, PROT_READ | PROT_EXEC) != 0) return -1;
  const int got = ((int (*)(void))code)();
  syscall(SYS_munmap, p, 2 * kPage);
  return got == (int)(value & 0xffff) ? 0 : -1;
}

static int child(void* arg) {
  uint32_t v = (uint32_t)(uintptr_t)arg;
  for (;;) {
    if (fresh_code(v++) != 0) syscall(SYS_exit_group, 100);
    syscall(SYS_getpid);
  }
  return 0;
}

// A robust list of one entry, as glibc builds it for a robust mutex: the futex word right after the link.
static struct {
  struct robust_list_head head;
  struct {
    struct robust_list link;
    _Atomic uint32_t word;
  } lock;
} robust;

static int robust_child(void* arg) {
  (void)arg;
  robust.head.list.next = &robust.lock.link;
  robust.lock.link.next = &robust.head.list;
  robust.head.futex_offset = (long)offsetof(typeof(robust.lock), word);
  robust.head.list_op_pending = NULL;
  syscall(SYS_set_robust_list, &robust.head, sizeof robust.head);
  atomic_store(&robust.lock.word, (uint32_t)syscall(SYS_gettid));
  for (;;) syscall(SYS_getpid);
  return 0;
}

static void owner_died_on_kill(char* stack) {
  atomic_store(&robust.lock.word, 0);
  const pid_t pid = clone(robust_child, stack + kStackSize, CLONE_VM | SIGCHLD, NULL);
  REQUIRE(pid > 0);
  while (atomic_load(&robust.lock.word) == 0) sched_yield();
  CHECK_EQ(atomic_load(&robust.lock.word), (uint32_t)pid);
  CHECK_EQ(kill(pid, SIGKILL), 0);
  int status;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  // handle_futex_death: the owner's id gives way to FUTEX_OWNER_DIED (no waiters were queued).
  CHECK_EQ(atomic_load(&robust.lock.word), (uint32_t)FUTEX_OWNER_DIED);
}

static void* parent_work(void* arg) {
  (void)arg;
  uint32_t v = 7;
  while (!atomic_load(&stop_parent_work)) {
    if (fresh_code(v++) != 0) return (void*)1;
    atomic_fetch_add(&parent_rounds, 1);
  }
  return NULL;
}

int main(void) {
  if (on_reference_qemu()) {
    // qemu-aarch64 7.2 accepts CLONE_VM only with the full thread flag set (linux-user/syscall.c do_fork).
    NOTE("skipped under qemu: clone(CLONE_VM) without CLONE_THREAD is EINVAL in qemu 7.2");
    return check_done();
  }
  static char* stacks[kChildren];
  for (int i = 0; i < kChildren; i++) {
    stacks[i] =
        mmap(NULL, kStackSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    REQUIRE(stacks[i] != MAP_FAILED);
  }
  owner_died_on_kill(stacks[0]);
  pthread_t th;
  REQUIRE(pthread_create(&th, NULL, parent_work, NULL) == 0);
  int killed = 0;
  const long n = kRounds;
  for (long round = 0; round < n; round++) {
    pid_t pids[kChildren];
    for (int i = 0; i < kChildren; i++) {
      pids[i] =
          clone(child, stacks[i] + kStackSize, CLONE_VM | SIGCHLD, (void*)(uintptr_t)(round * 1000 + i));
      REQUIRE(pids[i] > 0);
    }
    // Let them get busy, for a time that moves the kill over their loop.
    const struct timespec ts = {0, 200000 + (round % 7) * 150000};
    nanosleep(&ts, NULL);
    for (int i = 0; i < kChildren; i++) CHECK_EQ(kill(pids[i], SIGKILL), 0);
    for (int i = 0; i < kChildren; i++) {
      int status;
      REQUIRE(waitpid(pids[i], &status, 0) == pids[i]);
      killed += WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
    }
    // The parent still translates and maps after every round.
    REQUIRE(fresh_code((uint32_t)round) == 0);
  }
  atomic_store(&stop_parent_work, 1);
  void* failed;
  REQUIRE(pthread_join(th, &failed) == 0);
  CHECK(failed == NULL);
  CHECK_EQ(killed, n * kChildren);
  CHECK_GT(atomic_load(&parent_rounds), 0);
  return check_done();
}
