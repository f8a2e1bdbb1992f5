// Tests a64run's slow-core signal model: with --signal-delay-pre-ack-us=PRE the time from tgkill() to the
// handler's first instruction is at least PRE us, and with --signal-delay-post-ack-us=POST the time from the
// handler's last instruction to the return of tgkill() (through rt_sigreturn) is at least POST us; both stay
// below the delay plus a generous 100 ms. A handler that raises the signal again also sees the delay per
// delivery. With "exec" as third argument the program re-executes itself once (without "exec") to check that
// an exec'd a64run keeps the delays.
// usage: signal_delay PRE_US POST_US [exec]   (signal_delay.sh adds the options; the qemu lane passes 0 0)
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static volatile int64_t entry_ns, leave_ns;
static volatile int nested;

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void on_usr1(int sig) {
  (void)sig;
  entry_ns = now_ns();
  leave_ns = now_ns();
}

// Raises SIGUSR2 from inside its own handler once: two deliveries and two sigreturns in one tgkill.
static void on_usr2(int sig) {
  if (nested++ == 0) syscall(SYS_tgkill, getpid(), gettid(), sig);
}

static int cmp(const void* a, const void* b) {
  int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  REQUIRE(argc >= 3);
  const int64_t pre_us = atoll(argv[1]), post_us = atoll(argv[2]);
  struct sigaction sa = {.sa_handler = on_usr1};
  CHECK_SYS(sigaction(SIGUSR1, &sa, NULL));
  sa.sa_handler = on_usr2;
  sa.sa_flags = SA_NODEFER;
  CHECK_SYS(sigaction(SIGUSR2, &sa, NULL));

  enum { kIters = 20 };
  int64_t pre[kIters], post[kIters];
  for (int i = 0; i < kIters; i++) {
    const int64_t t0 = now_ns();
    CHECK_SYS(syscall(SYS_tgkill, getpid(), gettid(), SIGUSR1));
    const int64_t t1 = now_ns();
    pre[i] = (entry_ns - t0) / 1000;
    post[i] = (t1 - leave_ns) / 1000;
  }
  qsort(pre, kIters, sizeof pre[0], cmp);
  qsort(post, kIters, sizeof post[0], cmp);
  printf("tgkill to handler entry: min %lld us, median %lld us (delay %lld us)\n", (long long)pre[0],
         (long long)pre[kIters / 2], (long long)pre_us);
  printf("handler return to tgkill return: min %lld us, median %lld us (delay %lld us)\n", (long long)post[0],
         (long long)post[kIters / 2], (long long)post_us);
  CHECK_GE(pre[0], pre_us);
  CHECK_LT(pre[kIters / 2], pre_us + 100000);
  CHECK_GE(post[0], post_us);
  CHECK_LT(post[kIters / 2], post_us + 100000);

  // Two nested deliveries pay the delays twice.
  const int64_t t0 = now_ns();
  CHECK_SYS(syscall(SYS_tgkill, getpid(), gettid(), SIGUSR2));
  const int64_t nested_us = (now_ns() - t0) / 1000;
  CHECK_EQ(nested, 2);
  CHECK_GE(nested_us, 2 * (pre_us + post_us));

  if (argc > 3 && strcmp(argv[3], "exec") == 0) {
    fflush(stdout);
    if (check_failures) return check_done();
    execl("/proc/self/exe", argv[0], argv[1], argv[2], (char*)NULL);
    CHECK(!"execl");
  }
  return check_done();
}
