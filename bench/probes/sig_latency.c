// Probe 1: signal-to-handler latency for a thread sleeping in nanosleep, then in clock_nanosleep with
// TIMER_ABSTIME.
//
// The sleeper sets an armed flag just before each sleep. The sender waits for it, waits a settle delay
// that walks from 200 us to 2 ms (so the signal lands at different points of an established sleep, not
// only right after the sleeper parked), reads the clock and sends SIGUSR1 with pthread_kill. The handler
// reads the clock on entry; latency = handler entry - send. The sender itself waits by sleeping, so it
// never competes with the sleeper for a CPU (or for an emulator's run lock).
// Usage: sig_latency [iterations]
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>

#include "common.h"

enum { kModeNanosleep, kModeAbstime };

static atomic_int g_armed;
static atomic_llong g_handled_at;
static atomic_int g_eintr;
static atomic_int g_stop;
static int g_mode;

static void on_usr1(int sig) {
  (void)sig;
  atomic_store(&g_handled_at, now_ns());
}

static void* sleeper(void* arg) {
  (void)arg;
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  pthread_sigmask(SIG_UNBLOCK, &usr1, NULL);
  while (!atomic_load(&g_stop)) {
    atomic_store(&g_armed, 1);
    int err;
    if (g_mode == kModeNanosleep) {
      struct timespec ts = {.tv_sec = 30};
      err = nanosleep(&ts, NULL) == 0 ? 0 : errno;
    } else {
      int64_t until = now_ns() + 30 * 1000000000LL;
      struct timespec ts = {.tv_sec = until / 1000000000, .tv_nsec = until % 1000000000};
      err = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    }
    if (err == EINTR) atomic_fetch_add(&g_eintr, 1);
  }
  return NULL;
}

// Polls *flag (sleeping 20 us between looks) until it is nonzero; false after timeout_ns.
static int wait_nonzero(atomic_llong* flag, int64_t timeout_ns) {
  int64_t deadline = now_ns() + timeout_ns;
  while (atomic_load(flag) == 0) {
    if (now_ns() > deadline) return 0;
    sleep_ns(20000);
  }
  return 1;
}

static int wait_armed(int64_t timeout_ns) {
  int64_t deadline = now_ns() + timeout_ns;
  while (atomic_load(&g_armed) == 0) {
    if (now_ns() > deadline) return 0;
    sleep_ns(20000);
  }
  return 1;
}

static int measure(const char* name, int mode, int iters) {
  g_mode = mode;
  atomic_store(&g_stop, 0);
  atomic_store(&g_armed, 0);
  atomic_store(&g_eintr, 0);
  pthread_t th;
  int err = pthread_create(&th, NULL, sleeper, NULL);
  if (err != 0) {
    fail(name, "pthread_create: %s", strerror(err));
    return 1;
  }
  int64_t* lat = calloc((size_t)iters, sizeof *lat);
  int n = 0;
  for (int i = 0; i < iters; i++) {
    if (!wait_armed(2000000000LL)) {
      fail(name, "the sleeper did not re-arm within 2 s (iteration %d)", i);
      break;
    }
    sleep_ns(200000 + (int64_t)(i % 10) * 200000);
    atomic_store(&g_armed, 0);
    atomic_store(&g_handled_at, 0);
    int64_t t0 = now_ns();
    pthread_kill(th, SIGUSR1);
    if (!wait_nonzero(&g_handled_at, 2000000000LL)) {
      fail(name, "no handler entry within 2 s of the signal (iteration %d)", i);
      break;
    }
    lat[n++] = atomic_load(&g_handled_at) - t0;
  }
  // Let the last EINTR land before counting.
  wait_armed(200000000LL);
  char fig[96];
  if (n > 0) {
    samples_us(name, lat, n);
    snprintf(fig, sizeof fig, "%s.p50", name);
    result_us(fig, pct(lat, n, 50));
    snprintf(fig, sizeof fig, "%s.max", name);
    result_us(fig, lat[n - 1]);
  }
  int eintr = atomic_load(&g_eintr);
  if (n == iters && eintr != n) fail(name, "%d signals but %d EINTR returns from the sleep", n, eintr);
  free(lat);
  if (n == iters) {
    atomic_store(&g_stop, 1);
    pthread_kill(th, SIGUSR1);
    pthread_join(th, NULL);
  } else {
    pthread_detach(th);  // a sleeper the signal did not reach stays parked; the process exit ends it
  }
  return n == iters && eintr == n ? 0 : 1;
}

int main(int argc, char** argv) {
  probe_init();
  int iters = arg_count(argc, argv, 1, 100);
  struct sigaction sa = {.sa_handler = on_usr1};
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGUSR1, &sa, NULL) != 0) {
    fail("siglat", "sigaction: %s", strerror(errno));
    return 1;
  }
  // Only the sleeper takes SIGUSR1: it inherits this mask and unblocks the signal itself.
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &usr1, NULL);
  int rc = 0;
  rc |= measure("siglat.nanosleep", kModeNanosleep, iters);
  rc |= measure("siglat.abstime", kModeAbstime, iters);
  return rc;
}
