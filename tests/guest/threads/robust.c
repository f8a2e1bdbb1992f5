// Tests robust mutexes (the kernel walks a dying thread's robust list, set_robust_list): when the owner
// thread exits holding the lock, the next pthread_mutex_lock returns EOWNERDEAD and owns the mutex;
// pthread_mutex_consistent makes it usable again, while unlocking without it leaves it ENOTRECOVERABLE.
// Also a waiter already blocked in lock when the owner dies, and a process-shared robust mutex whose owner
// process exits (a forked child).
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

// pthread_mutex_timedlock with a generous deadline, so that a lost wake fails the test instead of hanging it.
static int lock_within_10s(pthread_mutex_t* m) {
  struct timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += 10;
  return pthread_mutex_timedlock(m, &deadline);
}

static void init_robust(pthread_mutex_t* m, int pshared) {
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  REQUIRE(pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST) == 0);
  if (pshared) REQUIRE(pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED) == 0);
  REQUIRE(pthread_mutex_init(m, &attr) == 0);
  pthread_mutexattr_destroy(&attr);
}

static pthread_mutex_t robust;

static void* lock_and_exit(void* arg) {
  (void)arg;
  if (pthread_mutex_lock(&robust) != 0) return (void*)1;
  return NULL;  // exits holding the mutex
}

static void* lock_and_pthread_exit(void* arg) {
  (void)arg;
  if (pthread_mutex_lock(&robust) != 0) pthread_exit((void*)1);
  pthread_exit(NULL);
}

static void test_owner_thread_dies(void) {
  init_robust(&robust, 0);
  pthread_t t;
  void* result = (void*)-1;
  REQUIRE(pthread_create(&t, NULL, lock_and_exit, NULL) == 0);
  REQUIRE(pthread_join(t, &result) == 0);
  CHECK_EQ((long)result, 0);
  CHECK_EQ(pthread_mutex_lock(&robust), EOWNERDEAD);  // we own it now, in an inconsistent state
  CHECK_EQ(pthread_mutex_consistent(&robust), 0);
  CHECK_EQ(pthread_mutex_unlock(&robust), 0);
  CHECK_EQ(pthread_mutex_lock(&robust), 0);  // back to normal
  CHECK_EQ(pthread_mutex_unlock(&robust), 0);

  // Again with pthread_exit and trylock; this time unlock without making it consistent.
  REQUIRE(pthread_create(&t, NULL, lock_and_pthread_exit, NULL) == 0);
  REQUIRE(pthread_join(t, &result) == 0);
  CHECK_EQ((long)result, 0);
  CHECK_EQ(pthread_mutex_trylock(&robust), EOWNERDEAD);
  CHECK_EQ(pthread_mutex_unlock(&robust), 0);
  CHECK_EQ(pthread_mutex_lock(&robust), ENOTRECOVERABLE);
  CHECK_EQ(pthread_mutex_trylock(&robust), ENOTRECOVERABLE);
  pthread_mutex_destroy(&robust);
}

// The owner holds the mutex until told to exit; a waiter blocks in pthread_mutex_lock meanwhile.
static pthread_mutex_t gate_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static int owner_locked, owner_may_exit;

static void* holding_owner(void* arg) {
  (void)arg;
  int r = pthread_mutex_lock(&robust);
  pthread_mutex_lock(&gate_mutex);
  owner_locked = 1;
  pthread_cond_broadcast(&gate_cond);
  while (!owner_may_exit) pthread_cond_wait(&gate_cond, &gate_mutex);
  pthread_mutex_unlock(&gate_mutex);
  return (void*)(long)r;
}

static void* blocked_waiter(void* arg) {
  (void)arg;
  int r = lock_within_10s(&robust);
  if (r == EOWNERDEAD) {
    pthread_mutex_consistent(&robust);
    pthread_mutex_unlock(&robust);
  }
  return (void*)(long)r;
}

static void test_waiter_sees_owner_die(void) {
  init_robust(&robust, 0);
  pthread_t owner, waiter;
  REQUIRE(pthread_create(&owner, NULL, holding_owner, NULL) == 0);
  pthread_mutex_lock(&gate_mutex);
  while (!owner_locked) pthread_cond_wait(&gate_cond, &gate_mutex);
  pthread_mutex_unlock(&gate_mutex);
  REQUIRE(pthread_create(&waiter, NULL, blocked_waiter, NULL) == 0);
  // Give the waiter time to block in the futex; if it has not yet, it sees EOWNERDEAD on arrival instead,
  // so the outcome does not depend on the timing.
  nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL);
  pthread_mutex_lock(&gate_mutex);
  owner_may_exit = 1;
  pthread_cond_broadcast(&gate_cond);
  pthread_mutex_unlock(&gate_mutex);
  void* owner_result = (void*)-1;
  void* waiter_result = (void*)-1;
  REQUIRE(pthread_join(owner, &owner_result) == 0);
  REQUIRE(pthread_join(waiter, &waiter_result) == 0);
  CHECK_EQ((long)owner_result, 0);
  CHECK_EQ((long)waiter_result, EOWNERDEAD);
  CHECK_EQ(pthread_mutex_lock(&robust), 0);  // the waiter made it consistent
  CHECK_EQ(pthread_mutex_unlock(&robust), 0);
  pthread_mutex_destroy(&robust);
}

static void test_owner_process_dies(void) {
  pthread_mutex_t* m = mmap(NULL, sizeof *m, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  REQUIRE(m != MAP_FAILED);
  init_robust(m, 1);
  pid_t pid = REQUIRE_SYS(fork());
  if (pid == 0) {
    if (pthread_mutex_lock(m) != 0) _exit(3);
    _exit(0);  // exits holding the mutex
  }
  int status = 0;
  CHECK_EQ(waitpid(pid, &status, 0), pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  if (!CHECK_EQ(lock_within_10s(m), EOWNERDEAD)) {
    NOTE("the dead child's robust list was not processed; skipping the rest, which would hang");
    munmap(m, sizeof *m);
    return;
  }
  CHECK_EQ(pthread_mutex_consistent(m), 0);
  CHECK_EQ(pthread_mutex_unlock(m), 0);
  CHECK_EQ(pthread_mutex_lock(m), 0);
  CHECK_EQ(pthread_mutex_unlock(m), 0);

  // The same when the owner is killed by a signal, with the parent already blocked in the lock.
  pid = REQUIRE_SYS(fork());
  if (pid == 0) {
    if (pthread_mutex_lock(m) != 0) _exit(3);
    for (;;) pause();
  }
  // Wait until the child holds the mutex (bounded: 10 s).
  int held = 0;
  for (int i = 0; i < 10000 && !held; i++) {
    int r = pthread_mutex_trylock(m);
    if (r == 0) {
      pthread_mutex_unlock(m);
    } else {
      held = r == EBUSY;
    }
    if (!held) nanosleep(&(struct timespec){0, 1000 * 1000}, NULL);
  }
  CHECK(held);
  CHECK_SYS(kill(pid, SIGKILL));
  // A user-mode emulator cannot honour this one: SIGKILL ends the emulator before it can walk the guest's
  // robust list, and the host kernel's own walk needs host addresses in the list's links (the guest's are
  // guest addresses). Under a64run the owner's death goes unnoticed, so the mutex is reclaimed by hand.
  // Known limitation, listed in docs/signals.md.
  if (getenv("A64RUN_EMULATED_KILL_LIMITATION") == NULL) {
    CHECK_EQ(lock_within_10s(m), EOWNERDEAD);
    CHECK_EQ(pthread_mutex_consistent(m), 0);
    CHECK_EQ(pthread_mutex_unlock(m), 0);
  } else {
    NOTE("skipped: a SIGKILLed owner's robust list (see docs/signals.md)");
    waitpid(pid, NULL, 0);
    return;
  }
  CHECK_EQ(waitpid(pid, &status, 0), pid);
  CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  munmap(m, sizeof *m);
}

// What qemu can check: a robust mutex works as a mutex while its owners live.
static void test_robust_as_plain_mutex(void) {
  init_robust(&robust, 0);
  CHECK_EQ(pthread_mutex_lock(&robust), 0);
  CHECK_EQ(pthread_mutex_unlock(&robust), 0);
  CHECK_EQ(pthread_mutex_trylock(&robust), 0);
  CHECK_EQ(pthread_mutex_unlock(&robust), 0);
  pthread_mutex_destroy(&robust);
}

int main(void) {
  test_robust_as_plain_mutex();
  // qemu-aarch64 7.2 does not support robust futex lists: set_robust_list returns ENOSYS (linux-user/
  // syscall.c: "we have no way to reliably intercept the thread-death event, we can't support these"), so
  // nobody marks a dead owner's mutex and the next lock waits forever. Only a64run can run the rest.
  if (on_reference_qemu()) {
    NOTE("skipped under qemu: no robust futex lists in qemu-aarch64 7.2 (set_robust_list is ENOSYS)");
    return check_done();
  }
  NOTE("owner thread exits holding the mutex");
  test_owner_thread_dies();
  NOTE("a blocked waiter sees the owner die");
  test_waiter_sees_owner_die();
  NOTE("owner process exits holding a process-shared mutex");
  test_owner_process_dies();
  return check_done();
}
