// Probe 2: kill() to a process whose four threads sleep in nanosleep: time to the first EINTR, and how
// many sleeps the one signal ended (a process-directed signal interrupts exactly one thread, so the
// count must be 1).
//
// The main thread blocks SIGUSR1, so only the four sleepers are eligible. Each iteration waits until all
// four are armed (about to sleep) plus a settle delay, sends kill(getpid(), SIGUSR1), records when the
// first sleeper saw EINTR, then waits 20 ms more for any further (wrong) EINTRs.
// Usage: eintr4 [iterations]
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>

#include "common.h"

enum { kThreads = 4 };

static atomic_int g_armed[kThreads];
static atomic_llong g_first_at;
static atomic_int g_count;
static atomic_int g_stop;

static void on_usr1(int sig) {
  (void)sig;
}

static void* sleeper(void* arg) {
  int id = (int)(intptr_t)arg;
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  pthread_sigmask(SIG_UNBLOCK, &usr1, NULL);
  while (!atomic_load(&g_stop)) {
    atomic_store(&g_armed[id], 1);
    struct timespec ts = {.tv_sec = 30};
    int r = nanosleep(&ts, NULL);
    if (r != 0 && errno == EINTR) {
      int64_t t = now_ns();
      long long zero = 0;
      atomic_compare_exchange_strong(&g_first_at, &zero, t);
      atomic_store(&g_armed[id], 0);
      atomic_fetch_add(&g_count, 1);
    }
  }
  return NULL;
}

static int all_armed(int64_t timeout_ns) {
  int64_t deadline = now_ns() + timeout_ns;
  for (;;) {
    int armed = 0;
    for (int i = 0; i < kThreads; i++) armed += atomic_load(&g_armed[i]);
    if (armed == kThreads) return 1;
    if (now_ns() > deadline) return 0;
    sleep_ns(20000);
  }
}

int main(int argc, char** argv) {
  probe_init();
  int iters = arg_count(argc, argv, 1, 30);
  struct sigaction sa = {.sa_handler = on_usr1};
  sigemptyset(&sa.sa_mask);
  sigaction(SIGUSR1, &sa, NULL);
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &usr1, NULL);

  pthread_t th[kThreads];
  for (int i = 0; i < kThreads; i++) {
    int err = pthread_create(&th[i], NULL, sleeper, (void*)(intptr_t)i);
    if (err != 0) {
      fail("eintr", "pthread_create: %s", strerror(err));
      _exit(1);
    }
  }
  int64_t* lat = calloc((size_t)iters, sizeof *lat);
  int n = 0, max_count = 0, rc = 0;
  for (int i = 0; i < iters; i++) {
    if (!all_armed(2000000000LL)) {
      fail("eintr", "the sleepers did not re-arm within 2 s (iteration %d)", i);
      rc = 1;
      break;
    }
    sleep_ns(500000 + (int64_t)(i % 4) * 500000);
    atomic_store(&g_count, 0);
    atomic_store(&g_first_at, 0);
    int64_t t0 = now_ns();
    kill(getpid(), SIGUSR1);
    int64_t deadline = t0 + 2000000000LL;
    while (atomic_load(&g_count) == 0 && now_ns() < deadline) sleep_ns(20000);
    if (atomic_load(&g_count) == 0) {
      fail("eintr", "no sleeper returned EINTR within 2 s of kill (iteration %d)", i);
      rc = 1;
      break;
    }
    lat[n++] = atomic_load(&g_first_at) - t0;
    sleep_ns(20000000);
    int count = atomic_load(&g_count);
    if (count > max_count) max_count = count;
  }
  if (n > 0) {
    samples_us("eintr.first", lat, n);
    result_us("eintr.first.p50", pct(lat, n, 50));
    result_us("eintr.first.max", lat[n - 1]);
    printf("RESULT eintr.count.max=%d unit=count\n", max_count);
    if (max_count != 1) {
      fail("eintr.count", "one kill() interrupted up to %d sleeping threads (must be 1)", max_count);
      rc = 1;
    }
  }
  fflush(stdout);
  // The sleepers stay parked; exit_group ends them.
  _exit(rc);
}
