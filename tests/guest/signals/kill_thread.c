// Tests a process-directed signal sent to a thread's id, and a futex wake that races with a signal.
// kill() and rt_sigqueueinfo() with the id of a thread other than the main one signal the whole process,
// and Linux's complete_signal tries the thread the id names first: the handler runs on that thread, before
// the sender's next step can see it missing (LTP rt_sigqueueinfo01 joins the thread and then looks). Then
// 400 rounds of LTP's checkpoint pattern on a MAP_SHARED futex: the waiter waits with a timeout and waits
// again on EINTR; the waker signals it and then calls FUTEX_WAKE until one waiter is counted as woken. A
// wake that the kernel counted must wake the waiter (futex_wait returns 0 even if a signal came too): a lost
// one leaves the waiter to time out after 2 s.
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static _Atomic int handler_tid;
static _Atomic int handler_value;
static _Atomic int handled;

static void on_signal(int sig, siginfo_t* si, void* uc) {
  (void)sig;
  (void)uc;
  atomic_store(&handler_tid, (int)syscall(SYS_gettid));
  atomic_store(&handler_value, si->si_code == SI_QUEUE ? si->si_value.sival_int : -1);
  atomic_fetch_add(&handled, 1);
}

static _Atomic int target_tid;
static _Atomic int release_target;

static void* target_main(void* arg) {
  (void)arg;
  atomic_store(&target_tid, (int)syscall(SYS_gettid));
  while (!atomic_load(&release_target)) usleep(1000);
  return NULL;
}

// Sends SIGUSR1 to the target thread's id with kill (queue = 0) or rt_sigqueueinfo (queue = 1).
static void signal_to_thread_id(int queue) {
  atomic_store(&handled, 0);
  atomic_store(&handler_tid, 0);
  atomic_store(&release_target, 0);
  atomic_store(&target_tid, 0);
  pthread_t th;
  REQUIRE(pthread_create(&th, NULL, target_main, NULL) == 0);
  while (atomic_load(&target_tid) == 0) usleep(1000);
  const int tid = atomic_load(&target_tid);
  if (queue) {
    siginfo_t si = {0};
    si.si_code = SI_QUEUE;
    si.si_pid = getpid();
    si.si_uid = getuid();
    si.si_value.sival_int = 777;
    CHECK_SYS(syscall(SYS_rt_sigqueueinfo, tid, SIGUSR1, &si));
  } else {
    CHECK_SYS(kill(tid, SIGUSR1));
  }
  for (int i = 0; i < 2000 && atomic_load(&handled) == 0; i++) usleep(1000);
  atomic_store(&release_target, 1);
  REQUIRE(pthread_join(th, NULL) == 0);
  CHECK_EQ(atomic_load(&handled), 1);
  CHECK_EQ(atomic_load(&handler_tid), tid);
  if (queue) CHECK_EQ(atomic_load(&handler_value), 777);
}

#define ROUNDS 400

static uint32_t* shared_word;
static _Atomic int waiter_tid;
static _Atomic int rounds_done;
static _Atomic int waiter_failed;

static void* waiter_main(void* arg) {
  (void)arg;
  atomic_store(&waiter_tid, (int)syscall(SYS_gettid));
  for (int i = 0; i < ROUNDS; i++) {
    const struct timespec limit = {2, 0};
    long r;
    do {
      r = syscall(SYS_futex, shared_word, FUTEX_WAIT, *shared_word, &limit, NULL, 0);
    } while (r == -1 && errno == EINTR);
    if (r != 0) {
      atomic_store(&waiter_failed, errno);
      return NULL;
    }
    atomic_fetch_add(&rounds_done, 1);
  }
  return NULL;
}

static void counted_wake_is_never_lost(void) {
  shared_word = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  REQUIRE(shared_word != MAP_FAILED);
  atomic_store(&handled, 0);
  pthread_t th;
  REQUIRE(pthread_create(&th, NULL, waiter_main, NULL) == 0);
  while (atomic_load(&waiter_tid) == 0) usleep(1000);
  int lost = 0;
  for (int i = 0; i < ROUNDS && !lost; i++) {
    CHECK_SYS(syscall(SYS_tgkill, getpid(), atomic_load(&waiter_tid), SIGUSR1));
    long woken = 0;
    for (int spins = 0; woken == 0; spins++) {
      woken = syscall(SYS_futex, shared_word, FUTEX_WAKE, 1, NULL, NULL, 0);
      if (woken == 0) usleep(10);
      if (spins > 200000 || atomic_load(&waiter_failed)) {
        lost = 1;
        break;
      }
    }
    // The next round starts once the waiter counted this one (or gave up).
    while (!lost && atomic_load(&rounds_done) <= i && !atomic_load(&waiter_failed)) usleep(10);
    if (atomic_load(&waiter_failed)) lost = 1;
  }
  REQUIRE(pthread_join(th, NULL) == 0);
  CHECK(!lost);
  CHECK_EQ(atomic_load(&waiter_failed), 0);
  CHECK_EQ(atomic_load(&rounds_done), ROUNDS);
  CHECK_EQ(atomic_load(&handled), ROUNDS);
  munmap(shared_word, 4096);
}

int main(void) {
  struct sigaction sa = {0};
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO;
  REQUIRE_SYS(sigaction(SIGUSR1, &sa, NULL));
  signal_to_thread_id(0);
  signal_to_thread_id(1);
  counted_wake_is_never_lost();
  return check_done();
}
