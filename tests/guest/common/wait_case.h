// One blocking call against a signal, for the interruptible-wait tests: SIGUSR1 reaches the calling thread
// 100 ms after the call begins (from a helper thread, or from a POSIX timer, whose signal comes through the
// host under a64run) and, when the call is to restart (SA_RESTART and a call the kernel restarts), the helper
// makes it able to complete 100 ms later. The call must fail with EINTR after the signal (99 ms at least),
// or complete after the unblocking (199 ms); the handler must have run once; nothing may take 5 s. A
// watchdog ends a call that never returns with a message naming it.
#ifndef A64RUN_TESTS_GUEST_COMMON_WAIT_CASE_H_
#define A64RUN_TESTS_GUEST_COMMON_WAIT_CASE_H_

#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

struct wait_case {
  const char* what;
  long (*call)(void);     // the blocking call: its result, or -errno
  void (*unblock)(void);  // run by the helper 100 ms after the signal when the call restarts
  int restarts;           // 1: SA_RESTART restarts the call; 0: EINTR whatever SA_RESTART says
  long expect;            // what a restarted call returns once unblocked
  void (*setup)(void);    // optional: before the call (fill a pipe, take a lock)
  void (*after)(void);    // optional: after the call (drain, close)
  const char* qemu_gap;   // a known qemu-aarch64 bug that makes the case fail there: skipped in that lane
};

// Where the signal comes from: the helper thread (pthread_kill), or a process-directed POSIX timer.
enum wait_source { WAIT_FROM_THREAD, WAIT_FROM_TIMER };
static enum wait_source wait_source = WAIT_FROM_THREAD;

static inline double wait_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static inline void wait_sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

// A call's result as the harness wants it: the value, or -errno.
static inline long wait_ret(long r) {
  return r < 0 ? -errno : r;
}

static volatile sig_atomic_t wait_handled;
static const char* volatile wait_current = "";
// The helper thread of the case in progress (a call may use it: another thread's CPU clock).
static pthread_t wait_helper_thread;

static void wait_on_usr1(int sig) {
  (void)sig;
  wait_handled++;
}

// The watchdog is a thread, not an alarm: a call that a signal cannot end would keep the alarm's handler
// from running too.
static volatile double wait_deadline_ms;
static void* wait_watchdog_main(void* arg) {
  (void)arg;
  while (1) {
    wait_sleep_ms(500);
    const double deadline = wait_deadline_ms;
    if (deadline > 0 && wait_now_ms() > deadline) {
      static const char msg[] = "wait_case: the call never returned: ";
      (void)!write(2, msg, sizeof msg - 1);
      (void)!write(2, wait_current, strlen(wait_current));
      (void)!write(2, "\n", 1);
      _exit(1);
    }
  }
  return NULL;
}
static void wait_start_watchdog(void) {
  static int started;
  if (started) return;
  started = 1;
  // With every signal blocked: it never takes a process-directed one.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  pthread_t th;
  REQUIRE(pthread_create(&th, NULL, wait_watchdog_main, NULL) == 0);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
}

struct wait_helper {
  pthread_t target;
  void (*unblock)(void);
};

static void* wait_helper_main(void* arg) {
  struct wait_helper* h = arg;
  if (wait_source == WAIT_FROM_TIMER) {
    // The timer's signal is process-directed: only the waiting thread may take it.
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &usr1, NULL);
  }
  wait_sleep_ms(100);
  if (wait_source == WAIT_FROM_THREAD) pthread_kill(h->target, SIGUSR1);
  if (h->unblock) {
    wait_sleep_ms(100);
    h->unblock();
  }
  return NULL;
}

// Runs c once with or without SA_RESTART on the SIGUSR1 handler and checks the outcome.
static inline void run_wait_case(const struct wait_case* c, int sa_restart) {
  if (c->qemu_gap && on_reference_qemu()) {
    NOTE("skipped under qemu: %s (%s)", c->what, c->qemu_gap);
    return;
  }
  struct sigaction sa = {0};
  sa.sa_handler = wait_on_usr1;
  sa.sa_flags = sa_restart ? SA_RESTART : 0;
  REQUIRE_SYS(sigaction(SIGUSR1, &sa, NULL));
  wait_start_watchdog();
  const int restarts = sa_restart && c->restarts;
  if (c->setup) c->setup();
  wait_handled = 0;
  wait_current = c->what;
  struct wait_helper h = {pthread_self(), restarts ? c->unblock : NULL};
  timer_t timer;
  if (wait_source == WAIT_FROM_TIMER) {
    struct sigevent ev = {0};
    ev.sigev_notify = SIGEV_SIGNAL;
    ev.sigev_signo = SIGUSR1;
    REQUIRE_SYS(timer_create(CLOCK_MONOTONIC, &ev, &timer));
  }
  // t0 first: the helper's delay may begin before pthread_create returns.
  const double t0 = wait_now_ms();
  wait_deadline_ms = t0 + 20e3;
  REQUIRE(pthread_create(&wait_helper_thread, NULL, wait_helper_main, &h) == 0);
  if (wait_source == WAIT_FROM_TIMER) {
    struct itimerspec its = {{0, 0}, {0, 100000000}};
    REQUIRE_SYS(timer_settime(timer, 0, &its, NULL));
  }
  const long r = c->call();
  const double waited = wait_now_ms() - t0;
  pthread_join(wait_helper_thread, NULL);
  wait_deadline_ms = 0;
  if (wait_source == WAIT_FROM_TIMER) timer_delete(timer);
  if (c->after) c->after();
  int ok = CHECK_EQ(wait_handled, 1);
  if (restarts) {
    ok &= CHECK_EQ(r, c->expect);
    ok &= CHECK_GE(waited, 199);
  } else {
    ok &= CHECK_EQ(r, -EINTR);
    ok &= CHECK_GE(waited, 99);
  }
  ok &= CHECK_LT(waited, 5000);
  if (!ok)
    NOTE("in %s, %s SA_RESTART (returned %ld after %.0f ms)", c->what, sa_restart ? "with" : "without", r,
         waited);
}

// Every case without and with SA_RESTART.
static inline void run_wait_cases(const struct wait_case* cases, size_t n) {
  for (size_t i = 0; i < n; i++) {
    run_wait_case(&cases[i], 0);
    run_wait_case(&cases[i], 1);
  }
}

#endif  // A64RUN_TESTS_GUEST_COMMON_WAIT_CASE_H_
