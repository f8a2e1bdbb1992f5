// A stress test for the lifetime of a CLONE_VM child's emulator state: children of clone(CLONE_VM|SIGCHLD)
// come and go (each mapping and unmapping memory of its own, then ending by exit_group or by the exit of its
// only thread) while a thread of the parent maps and unmaps in a loop. Every munmap of accessible pages stops
// the vCPUs of everyone in the memory (the code gate walks all their vCPUs), and every child's end frees its
// process's emulator state: a walk that reached a freed vCPU or process was a use after free
// (AddressSanitizer: 3 of 3 runs of the exit variant, and a fuzz seed). The children use raw system calls
// only (they share the parent's TLS).
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

enum { kStackSize = 64 * 1024, kRounds = 40, kStacks = 8 };

static atomic_int stop_mapping;
static atomic_long mappings;

static void* mapper(void* arg) {
  (void)arg;
  while (!atomic_load(&stop_mapping)) {
    char* p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return (void*)1;
    p[0] = 1;
    if (munmap(p, 4096) != 0) return (void*)1;
    atomic_fetch_add(&mappings, 1);
  }
  return NULL;
}

static int child(void* arg) {
  long round = (long)arg;
  for (int i = 0; i < 3; i++) {
    long p = syscall(SYS_mmap, 0, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p < 0 && p > -4096) syscall(SYS_exit_group, 100);
    *(volatile char*)p = (char)round;
    syscall(SYS_munmap, p, 8192);
  }
  // The process ends with its last thread: by exit_group, or by exit (its only thread's).
  syscall(round % 3 ? SYS_exit_group : SYS_exit, (int)(round & 63));
  return 0;
}

int main(void) {
  if (on_reference_qemu()) {
    // qemu-aarch64 7.2 accepts CLONE_VM only with the full thread flag set (linux-user/syscall.c do_fork).
    NOTE("skipped under qemu: clone(CLONE_VM) without CLONE_THREAD is EINVAL in qemu 7.2");
    return check_done();
  }
  static char* stacks[kStacks];
  for (int i = 0; i < kStacks; i++) {
    stacks[i] =
        mmap(NULL, kStackSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    REQUIRE(stacks[i] != MAP_FAILED);
  }
  pthread_t th;
  REQUIRE(pthread_create(&th, NULL, mapper, NULL) == 0);
  int right_status = 0;
  for (long round = 0; round < kRounds; round++) {
    // A few children at a time, so that exits overlap each other and the mapper's munmaps.
    pid_t pids[kStacks];
    for (int i = 0; i < kStacks; i++) {
      pids[i] = clone(child, stacks[i] + kStackSize, CLONE_VM | SIGCHLD, (void*)(round * kStacks + i));
      REQUIRE(pids[i] > 0);
    }
    for (int i = 0; i < kStacks; i++) {
      int status;
      REQUIRE(waitpid(pids[i], &status, 0) == pids[i]);
      right_status += WIFEXITED(status) && WEXITSTATUS(status) == ((round * kStacks + i) & 63);
    }
    if (round == 20 && atomic_load(&mappings) == 0) NOTE("the mapper has not run yet");
  }
  atomic_store(&stop_mapping, 1);
  void* mapper_failed;
  REQUIRE(pthread_join(th, &mapper_failed) == 0);
  CHECK(mapper_failed == NULL);
  CHECK_EQ(right_status, kRounds * kStacks);
  CHECK_GT(atomic_load(&mappings), 0);
  return check_done();
}
