// Tests the calls that wait for signals: sigtimedwait times out with EAGAIN after the timeout (not before,
// not much after), polls with a zero timeout, takes pending signals lowest first, rejects a bad timeout, ends
// with EINTR for a handled signal outside its set, and receives a process-directed kill() while every other
// thread blocks the signal; sigwaitinfo wakes on a pthread_kill from another thread; sigsuspend waits with a
// temporary mask, runs the handler under it and restores the old mask; pause (ppoll with no fds in glibc)
// returns EINTR after a handler. An ignored signal that the waiter blocks is still taken by sigtimedwait.
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

static volatile int usr1_runs, usr2_runs;
static sigset_t mask_in_handler;
static void on_usr1(int sig) {
  (void)sig;
  usr1_runs++;
  pthread_sigmask(SIG_BLOCK, NULL, &mask_in_handler);
}
static void on_usr2(int sig) {
  (void)sig;
  usr2_runs++;
}

static sigset_t set_of(int a, int b) {
  sigset_t s;
  sigemptyset(&s);
  if (a) sigaddset(&s, a);
  if (b) sigaddset(&s, b);
  return s;
}

// Sends `sig` to `target` after `delay_ms` from a helper thread.
struct delayed {
  pthread_t target, thread;
  int sig, delay_ms, to_process;
};
static void* delayed_main(void* arg) {
  struct delayed* d = arg;
  sleep_ms(d->delay_ms);
  if (d->to_process) {
    kill(getpid(), d->sig);
  } else {
    pthread_kill(d->target, d->sig);
  }
  return NULL;
}
static void send_later(struct delayed* d, int sig, int delay_ms) {
  d->target = pthread_self();
  d->sig = sig;
  d->delay_ms = delay_ms;
  REQUIRE(pthread_create(&d->thread, NULL, delayed_main, d) == 0);
}

static void test_sigtimedwait(void) {
  sigset_t both = set_of(SIGUSR1, SIGUSR2);
  REQUIRE_SYS(sigprocmask(SIG_BLOCK, &both, NULL));
  struct timespec t150 = {0, 150000000};
  double t0 = now_ms();
  CHECK_ERRNO(sigtimedwait(&both, NULL, &t150), EAGAIN);
  double waited = now_ms() - t0;
  CHECK_GE(waited, 150);
  CHECK_LT(waited, 1500);

  struct timespec zero = {0, 0};
  t0 = now_ms();
  CHECK_ERRNO(sigtimedwait(&both, NULL, &zero), EAGAIN);
  CHECK_LT(now_ms() - t0, 100);

  struct timespec bad = {0, 1000000000};
  CHECK_ERRNO(sigtimedwait(&both, NULL, &bad), EINVAL);

  // Pending signals: lowest first, siginfo filled, zero timeout returns at once.
  syscall(SYS_tgkill, getpid(), gettid(), SIGUSR2);
  syscall(SYS_tgkill, getpid(), gettid(), SIGUSR1);
  siginfo_t si;
  CHECK_EQ(sigtimedwait(&both, &si, &zero), SIGUSR1);
  CHECK_EQ(si.si_signo, SIGUSR1);
  CHECK_EQ(si.si_code, SI_USER);  // the kernel's SI_TKILL, which glibc's sigtimedwait folds into SI_USER
  CHECK_EQ(si.si_pid, getpid());
  CHECK_EQ(sigtimedwait(&both, &si, &zero), SIGUSR2);
  CHECK_ERRNO(sigtimedwait(&both, &si, &zero), EAGAIN);

  // sigwaitinfo: woken by another thread.
  struct delayed d;
  t0 = now_ms();  // before the sender starts its delay, which may begin before pthread_create returns
  send_later(&d, SIGUSR2, 100);
  CHECK_EQ(sigwaitinfo(&both, &si), SIGUSR2);
  CHECK_GE(now_ms() - t0, 90);
  pthread_join(d.thread, NULL);
  CHECK_EQ(usr2_runs, 0);  // taken, not handled

  // A handled signal outside the set ends the wait with EINTR.
  sigset_t only1 = set_of(SIGUSR1, 0);
  sigset_t only2 = set_of(SIGUSR2, 0);
  REQUIRE_SYS(sigprocmask(SIG_UNBLOCK, &only2, NULL));
  struct timespec t5s = {5, 0};
  t0 = now_ms();
  send_later(&d, SIGUSR2, 100);
  CHECK_ERRNO(sigtimedwait(&only1, &si, &t5s), EINTR);
  CHECK_GE(now_ms() - t0, 90);
  CHECK_LT(now_ms() - t0, 4000);
  CHECK_EQ(usr2_runs, 1);
  pthread_join(d.thread, NULL);
  REQUIRE_SYS(sigprocmask(SIG_UNBLOCK, &both, NULL));
}

// kill(getpid()) while every thread blocks SIGUSR1 and one waits for it in sigwaitinfo: that one gets it.
static _Atomic int waiter_ready;
static volatile int waiter_got;
static void* waiter_main(void* arg) {
  (void)arg;
  sigset_t s = set_of(SIGUSR1, 0);
  siginfo_t si;
  atomic_store(&waiter_ready, 1);
  waiter_got = sigwaitinfo(&s, &si) == SIGUSR1 && si.si_code == SI_USER;
  return NULL;
}

static void test_process_signal_to_waiter(void) {
  sigset_t s = set_of(SIGUSR1, 0);
  REQUIRE_SYS(sigprocmask(SIG_BLOCK, &s, NULL));
  pthread_t th;
  REQUIRE(pthread_create(&th, NULL, waiter_main, NULL) == 0);
  while (!atomic_load(&waiter_ready)) {
  }
  sleep_ms(50);
  kill(getpid(), SIGUSR1);
  pthread_join(th, NULL);
  CHECK_EQ(waiter_got, 1);
  CHECK_EQ(usr1_runs, 0);
  sigset_t pend;
  sigpending(&pend);
  CHECK_EQ(sigismember(&pend, SIGUSR1), 0);
  REQUIRE_SYS(sigprocmask(SIG_UNBLOCK, &s, NULL));
}

// An ignored (SIG_IGN) signal blocked by the thread that waits for it is queued and taken: sigtimedwait
// unblocks its set while it sleeps, but the mask it restores still blocks the signal (Linux's
// real_blocked), so neither a pthread_kill() nor a kill() arriving during the wait is discarded.
static void test_ignored_signal_waited(void) {
  struct sigaction ign = {0}, old;
  ign.sa_handler = SIG_IGN;
  REQUIRE_SYS(sigaction(SIGUSR2, &ign, &old));
  sigset_t s = set_of(SIGUSR2, 0);
  REQUIRE_SYS(sigprocmask(SIG_BLOCK, &s, NULL));
  struct timespec t5s = {5, 0};
  for (int to_process = 0; to_process <= 1; to_process++) {
    struct delayed d = {.to_process = to_process};
    siginfo_t si;
    send_later(&d, SIGUSR2, 100);
    CHECK_EQ(sigtimedwait(&s, &si, &t5s), SIGUSR2);
    CHECK_EQ(si.si_signo, SIGUSR2);
    pthread_join(d.thread, NULL);
  }
  sigset_t pend;
  sigpending(&pend);
  CHECK_EQ(sigismember(&pend, SIGUSR2), 0);
  REQUIRE_SYS(sigprocmask(SIG_UNBLOCK, &s, NULL));
  REQUIRE_SYS(sigaction(SIGUSR2, &old, NULL));
}

static void test_sigsuspend_and_pause(void) {
  sigset_t s = set_of(SIGUSR1, 0);
  sigset_t hup = set_of(SIGHUP, 0);
  REQUIRE_SYS(sigprocmask(SIG_BLOCK, &s, NULL));
  struct delayed d;
  double t0 = now_ms();
  send_later(&d, SIGUSR1, 100);
  usr1_runs = 0;
  CHECK_ERRNO(sigsuspend(&hup), EINTR);  // waits with only SIGHUP blocked
  CHECK_GE(now_ms() - t0, 90);
  CHECK_EQ(usr1_runs, 1);
  CHECK_EQ(sigismember(&mask_in_handler, SIGHUP), 1);  // the handler ran under the temporary mask
  CHECK_EQ(sigismember(&mask_in_handler, SIGUSR1), 1);
  sigset_t now;
  sigprocmask(SIG_BLOCK, NULL, &now);
  CHECK_EQ(sigismember(&now, SIGUSR1), 1);  // the old mask is back
  CHECK_EQ(sigismember(&now, SIGHUP), 0);
  pthread_join(d.thread, NULL);

  // A signal already pending and unblocked by the temporary mask ends sigsuspend at once.
  raise(SIGUSR1);
  CHECK_EQ(usr1_runs, 1);
  t0 = now_ms();
  CHECK_ERRNO(sigsuspend(&hup), EINTR);
  CHECK_EQ(usr1_runs, 2);
  CHECK_LT(now_ms() - t0, 1000);
  REQUIRE_SYS(sigprocmask(SIG_UNBLOCK, &s, NULL));

  // pause(): glibc's is ppoll(NULL, 0, NULL, NULL) on arm64.
  t0 = now_ms();
  send_later(&d, SIGUSR1, 100);
  CHECK_ERRNO(pause(), EINTR);
  CHECK_GE(now_ms() - t0, 90);
  CHECK_EQ(usr1_runs, 3);
  pthread_join(d.thread, NULL);
  t0 = now_ms();
  send_later(&d, SIGUSR1, 100);
  CHECK_ERRNO(syscall(SYS_ppoll, NULL, 0, NULL, NULL, 8), EINTR);
  CHECK_GE(now_ms() - t0, 90);
  CHECK_EQ(usr1_runs, 4);
  pthread_join(d.thread, NULL);
}

int main(void) {
  struct sigaction sa = {0};
  sa.sa_handler = on_usr1;
  REQUIRE_SYS(sigaction(SIGUSR1, &sa, NULL));
  sa.sa_handler = on_usr2;
  REQUIRE_SYS(sigaction(SIGUSR2, &sa, NULL));
  test_sigtimedwait();
  test_process_signal_to_waiter();
  test_ignored_signal_waited();
  test_sigsuspend_and_pause();
  return check_done();
}
