// A POSIX timer's expiry against its re-arm or deletion, round after round while a busy second timer keeps
// a64run's intake thread working. The expiry the host has made (timer_gettime reads 0 left) is pending when
// timer_gettime returns; after timer_settime or timer_delete it still shows in sigpending, and is dropped
// when dequeued (Linux 6.13+), however late the intake thread took the host signal. Each round waits a
// different time after the expiry, so the re-arm lands at every stage of the signal's way to the guest. Then
// a re-arm that fires at once while the earlier arming's signal is queued: exactly the new arming's one
// signal comes. No fork: it runs in every lane, ThreadSanitizer's too.
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static volatile sig_atomic_t g_hits, g_noise;
static volatile int g_sig, g_code, g_value;

static void on_signal(int sig, siginfo_t* si, void* uc) {
  (void)uc;
  g_hits++;
  g_sig = sig;
  g_code = si->si_code;
  g_value = si->si_value.sival_int;
}

static void on_noise(int sig) {
  (void)sig;
  g_noise++;
}

static timer_t make_timer(int sig, int value) {
  struct sigevent ev;
  memset(&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_SIGNAL;
  ev.sigev_signo = sig;
  ev.sigev_value.sival_int = value;
  timer_t id = 0;
  REQUIRE_SYS(timer_create(CLOCK_MONOTONIC, &ev, &id));
  return id;
}

static void arm(timer_t id, long value_ns, long interval_ns) {
  struct itimerspec its = {{0, interval_ns}, {value_ns / 1000000000, value_ns % 1000000000}};
  CHECK_SYS(timer_settime(id, 0, &its, NULL));
}

// Until the host has fired the one-shot timer: timer_gettime reads nothing left.
static void wait_expired(timer_t t) {
  struct itimerspec left;
  do {
    CHECK_SYS(timer_gettime(t, &left));
  } while (left.it_value.tv_sec != 0 || left.it_value.tv_nsec != 0);
}

// A CLOCK_THREAD_CPUTIME_ID timer measures the thread that created it, whichever thread arms it: one made
// by a spinning thread and armed (twice) by the main thread, which sleeps, expires on the spinner's time.
static timer_t g_cpu_timer;
static volatile int g_cpu_timer_ready, g_cpu_fired, g_spin_stop;
static void on_cpu_timer(int sig) {
  (void)sig;
  g_cpu_fired = 1;
}

static void* spinner(void* arg) {
  (void)arg;
  struct sigevent ev;
  memset(&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_SIGNAL;
  ev.sigev_signo = SIGRTMIN + 3;
  if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &g_cpu_timer) != 0) return NULL;
  g_cpu_timer_ready = 1;
  volatile uint64_t x = 1;
  while (!g_spin_stop) x = x * 6364136223846793005ull + 1;
  return NULL;
}

static void test_thread_cpu_clock(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_cpu_timer;
  REQUIRE_SYS(sigaction(SIGRTMIN + 3, &sa, NULL));
  pthread_t th;
  REQUIRE(pthread_create(&th, NULL, spinner, NULL) == 0);
  while (!g_cpu_timer_ready) usleep(1000);
  arm(g_cpu_timer, 3600L * 1000000000L, 0);
  arm(g_cpu_timer, 20000000, 0);  // 20 ms of the spinner's CPU time
  struct timespec nap = {0, 5000000};
  for (int i = 0; i < 1000 && !g_cpu_fired; i++) nanosleep(&nap, NULL);  // up to 5 s
  CHECK(g_cpu_fired);
  g_spin_stop = 1;
  pthread_join(th, NULL);
  CHECK_SYS(timer_delete(g_cpu_timer));
}

int main(void) {
  test_thread_cpu_clock();
  const int sig = SIGRTMIN + 1, noise_sig = SIGRTMIN + 2;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO;
  REQUIRE_SYS(sigaction(sig, &sa, NULL));
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_noise;
  REQUIRE_SYS(sigaction(noise_sig, &sa, NULL));
  timer_t noise = make_timer(noise_sig, 0);
  arm(noise, 100000, 100000);

  sigset_t block, old, pending;
  sigemptyset(&block);
  sigaddset(&block, sig);
  const int rounds = 400;
  int seen_expired = 0, shown = 0, delivered = 0;
  for (int i = 0; i < rounds; i++) {
    timer_t t = make_timer(sig, 7);
    sigprocmask(SIG_BLOCK, &block, &old);
    g_hits = 0;
    arm(t, 1000, 0);
    wait_expired(t);
    sigpending(&pending);
    seen_expired += sigismember(&pending, sig);
    for (volatile int spin = 0; spin < (i % 20) * 500; spin++) {
    }
    if (i % 2 == 0) {
      arm(t, 3600L * 1000000000L, 0);
    } else {
      CHECK_SYS(timer_delete(t));
    }
    sigpending(&pending);
    shown += sigismember(&pending, sig);
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (g_hits) NOTE("round %d: signal %d code %d delivered", i, g_sig, g_code);
    delivered += g_hits;
    if (i % 2 == 0) CHECK_SYS(timer_delete(t));
  }
  CHECK_EQ(seen_expired, rounds);
  CHECK_EQ(shown, rounds);
  // qemu-aarch64 7.2 takes the host signal into its own queue at once, so re-arming cannot drop it there.
  if (!on_reference_qemu()) CHECK_EQ(delivered, 0);

  // A re-arm that fires at once, with the earlier arming's expiry queued: that signal becomes the new
  // arming's (Linux's per-timer sigqueue), delivered once, with no overrun from the old arming.
  for (int i = 0; i < 50; i++) {
    timer_t t = make_timer(sig, 9);
    sigprocmask(SIG_BLOCK, &block, &old);
    g_hits = 0;
    arm(t, 1000, 0);
    wait_expired(t);
    arm(t, 1000, 0);
    wait_expired(t);
    sigprocmask(SIG_SETMASK, &old, NULL);
    CHECK_EQ(g_hits, 1);
    CHECK_EQ(g_code, SI_TIMER);
    CHECK_EQ(g_value, 9);
    CHECK_SYS(timer_delete(t));
  }

  arm(noise, 0, 0);
  CHECK_SYS(timer_delete(noise));
  CHECK_GT(g_noise, 0);
  return check_done();
}
