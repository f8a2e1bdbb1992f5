// A signal storm: 100,000 signals (A64RUN_STORM_SIGNALS overrides the number) from three sender threads to
// three receiver threads that compute, yield and sleep in turn. Each sender alternates RT signals with its
// index as si_value (to one receiver with rt_tgsigqueueinfo, or to the process with sigqueue) and standard
// SIGUSR1 (pthread_kill). No RT signal may be lost: every receiver counts them per sender and the totals must
// match what each sender queued exactly (EAGAIN from RLIMIT_SIGPENDING is retried, not counted). Standard
// signals coalesce, so only their handler's running is checked. A watchdog ends a deadlocked run.
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define SENDERS 3
#define RECEIVERS 3
#define WATCHDOG_S 50

static long total_signals = 100000;
static _Atomic long rt_received[SENDERS];
static _Atomic long rt_sent[SENDERS];
static _Atomic long usr1_received;
static _Atomic int receivers_ready;
static _Atomic int stop_receivers;
static _Atomic int receiver_tids[RECEIVERS];
static _Atomic int finished;

static void on_rt(int sig, siginfo_t* si, void* uc) {
  (void)sig;
  (void)uc;
  const int sender = si->si_value.sival_int;
  if (sender >= 0 && sender < SENDERS)
    atomic_fetch_add_explicit(&rt_received[sender], 1, memory_order_relaxed);
}
static void on_usr1(int sig) {
  (void)sig;
  atomic_fetch_add_explicit(&usr1_received, 1, memory_order_relaxed);
}

static void* receiver_main(void* arg) {
  const int idx = (int)(intptr_t)arg;
  atomic_store(&receiver_tids[idx], gettid());
  sigset_t unblock;
  sigemptyset(&unblock);
  sigaddset(&unblock, SIGUSR1);
  sigaddset(&unblock, SIGRTMIN);
  sigaddset(&unblock, SIGRTMIN + 1);
  pthread_sigmask(SIG_UNBLOCK, &unblock, NULL);
  atomic_fetch_add(&receivers_ready, 1);
  volatile uint64_t work = 0;
  while (!atomic_load(&stop_receivers)) {
    if (idx == 0) {
      for (int i = 0; i < 1000; i++) work += i;  // runs guest code: signals arrive at block boundaries
    } else if (idx == 1) {
      sched_yield();
    } else {
      struct timespec ts = {0, 200000};  // sleeps: signals end the sleep early
      nanosleep(&ts, NULL);
    }
  }
  return NULL;
}

static int queue_rt(int sender, int to_process, int target_tid, int sig) {
  if (to_process) return sigqueue(getpid(), sig, (union sigval){.sival_int = sender});
  siginfo_t si;
  memset(&si, 0, sizeof si);
  si.si_signo = sig;
  si.si_code = SI_QUEUE;
  si.si_pid = getpid();
  si.si_uid = getuid();
  si.si_value.sival_int = sender;
  return (int)syscall(SYS_rt_tgsigqueueinfo, getpid(), target_tid, sig, &si);
}

static pthread_t receivers[RECEIVERS];
static void* sender_main(void* arg) {
  const int me = (int)(intptr_t)arg;
  const long mine = total_signals / SENDERS;
  for (long i = 0; i < mine; i++) {
    const int target = (int)((i + me) % RECEIVERS);
    if (i % 2 == 0) {
      pthread_kill(receivers[target], SIGUSR1);
      continue;
    }
    const int to_process = (i / 2) % 3 == 0;
    const int sig = SIGRTMIN + (int)((i / 2) % 2);
    while (queue_rt(me, to_process, atomic_load(&receiver_tids[target]), sig) != 0) {
      if (errno != EAGAIN) {
        NOTE("sender %d: queueing failed with errno %d", me, errno);
        return NULL;
      }
      sched_yield();  // the queue is at RLIMIT_SIGPENDING: let the receivers drain it
    }
    atomic_fetch_add_explicit(&rt_sent[me], 1, memory_order_relaxed);
  }
  return NULL;
}

static void* watchdog_main(void* arg) {
  (void)arg;
  for (int i = 0; i < WATCHDOG_S * 10 && !atomic_load(&finished); i++) {
    struct timespec ts = {0, 100000000};
    nanosleep(&ts, NULL);
  }
  if (!atomic_load(&finished)) {
    fprintf(stderr, "storm: no progress after %d s (deadlock?); RT received:", WATCHDOG_S);
    for (int s = 0; s < SENDERS; s++) fprintf(stderr, " %ld/%ld", rt_received[s], rt_sent[s]);
    fprintf(stderr, "\n");
    _exit(3);
  }
  return NULL;
}

static long total(_Atomic long* v) {
  long n = 0;
  for (int i = 0; i < SENDERS; i++) n += atomic_load(&v[i]);
  return n;
}

int main(void) {
  const char* n = getenv("A64RUN_STORM_SIGNALS");
  if (n && atol(n) > 0) total_signals = atol(n);
  // Only the receivers take the signals: everyone else blocks them (new threads inherit the mask).
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR1);
  sigaddset(&block, SIGRTMIN);
  sigaddset(&block, SIGRTMIN + 1);
  REQUIRE(pthread_sigmask(SIG_BLOCK, &block, NULL) == 0);
  struct sigaction sa = {0};
  sa.sa_sigaction = on_rt;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  REQUIRE_SYS(sigaction(SIGRTMIN, &sa, NULL));
  REQUIRE_SYS(sigaction(SIGRTMIN + 1, &sa, NULL));
  struct sigaction su = {0};
  su.sa_handler = on_usr1;
  su.sa_flags = SA_RESTART;
  REQUIRE_SYS(sigaction(SIGUSR1, &su, NULL));

  pthread_t watchdog;
  REQUIRE(pthread_create(&watchdog, NULL, watchdog_main, NULL) == 0);
  for (int i = 0; i < RECEIVERS; i++) {
    REQUIRE(pthread_create(&receivers[i], NULL, receiver_main, (void*)(intptr_t)i) == 0);
  }
  while (atomic_load(&receivers_ready) != RECEIVERS) sched_yield();
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  pthread_t senders[SENDERS];
  for (int i = 0; i < SENDERS; i++) {
    REQUIRE(pthread_create(&senders[i], NULL, sender_main, (void*)(intptr_t)i) == 0);
  }
  for (int i = 0; i < SENDERS; i++) pthread_join(senders[i], NULL);
  // Every queued RT signal must arrive; the watchdog ends a run where some never do.
  while (total(rt_received) < total(rt_sent)) sched_yield();
  clock_gettime(CLOCK_MONOTONIC, &t1);
  atomic_store(&stop_receivers, 1);
  for (int i = 0; i < RECEIVERS; i++) pthread_kill(receivers[i], SIGUSR1);
  for (int i = 0; i < RECEIVERS; i++) pthread_join(receivers[i], NULL);
  atomic_store(&finished, 1);
  pthread_join(watchdog, NULL);

  const long per_sender = total_signals / SENDERS;
  for (int s = 0; s < SENDERS; s++) {
    CHECK_EQ(atomic_load(&rt_sent[s]), per_sender / 2);
    if (!CHECK_EQ(atomic_load(&rt_received[s]), atomic_load(&rt_sent[s]))) NOTE("sender %d", s);
  }
  CHECK_GT(atomic_load(&usr1_received), 0);
  CHECK_LE(atomic_load(&usr1_received), per_sender * SENDERS / 2 + RECEIVERS + 1);
  NOTE("%ld signals in %.2f s (%ld RT, %ld SIGUSR1 handled)", per_sender * SENDERS,
       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9, total(rt_received),
       atomic_load(&usr1_received));
  return check_done();
}
