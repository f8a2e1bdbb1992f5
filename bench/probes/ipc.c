// Probe 5: syscall and wakeup round trips.
//   syscall.getppid  one getppid() (the cheapest real syscall), in ns
//   pipe.rtt         one byte from thread A to thread B over a pipe and back over another, in us
//   futex.rtt        FUTEX_WAKE/FUTEX_WAIT ping-pong between two threads (private futex), in us
// Each is timed in batches (the clock is read once per batch, not per operation, so a slow clock does
// not count); the figure is the median batch mean.
// Usage: ipc [scale]   (scale 1 is the full size)
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common.h"

enum { kBatches = 11 };

static int64_t median_of(int64_t* v, int n) {
  qsort(v, (size_t)n, sizeof v[0], cmp_i64);
  return v[n / 2];
}

static void getppid_cost(int per_batch) {
  int64_t batch[kBatches];
  for (int b = 0; b < kBatches; b++) {
    int64_t t0 = now_ns();
    for (int i = 0; i < per_batch; i++) syscall(SYS_getppid);
    batch[b] = (now_ns() - t0) / per_batch;
  }
  printf("RESULT syscall.getppid=%lld unit=ns\n", (long long)median_of(batch, kBatches));
}

static int g_ping[2], g_pong[2];
static int g_pipe_rounds;

static void* pipe_echo(void* arg) {
  (void)arg;
  char c;
  for (int i = 0; i < g_pipe_rounds; i++) {
    if (read(g_ping[0], &c, 1) != 1 || write(g_pong[1], &c, 1) != 1) return (void*)1;
  }
  return NULL;
}

static int pipe_rtt(int per_batch) {
  if (pipe(g_ping) != 0 || pipe(g_pong) != 0) {
    fail("pipe.rtt", "pipe: %s", strerror(errno));
    return 1;
  }
  g_pipe_rounds = per_batch * kBatches;
  pthread_t th;
  int err = pthread_create(&th, NULL, pipe_echo, NULL);
  if (err != 0) {
    fail("pipe.rtt", "pthread_create: %s", strerror(err));
    return 1;
  }
  int64_t batch[kBatches];
  char c = 'x';
  for (int b = 0; b < kBatches; b++) {
    int64_t t0 = now_ns();
    for (int i = 0; i < per_batch; i++) {
      if (write(g_ping[1], &c, 1) != 1 || read(g_pong[0], &c, 1) != 1) {
        fail("pipe.rtt", "read/write: %s", strerror(errno));
        return 1;
      }
    }
    batch[b] = (now_ns() - t0) / per_batch;
  }
  pthread_join(th, NULL);
  result_us("pipe.rtt", median_of(batch, kBatches));
  return 0;
}

static atomic_int g_word;
static int g_futex_rounds;

// Waits carry a 2 s timeout: a lost wakeup ends the probe with a FAIL line instead of a hang.
static long futex(atomic_int* addr, int op, int val) {
  static const struct timespec kLimit = {.tv_sec = 2};
  long r = syscall(SYS_futex, addr, op | FUTEX_PRIVATE_FLAG, val, op == FUTEX_WAIT ? &kLimit : NULL, NULL, 0);
  if (r != 0 && op == FUTEX_WAIT && errno == ETIMEDOUT && atomic_load(addr) == val) {
    fail("futex.rtt", "no FUTEX_WAKE reached a waiter within 2 s (lost wakeup)");
    fflush(stdout);
    _exit(1);
  }
  return r;
}

// A FUTEX_WAIT result that just means "look at the word again".
static int wait_ok(long r) {
  return r == 0 || errno == EAGAIN || errno == EINTR || errno == ETIMEDOUT;
}

// B waits for 1, answers 0; A (the measuring thread) sets 1 and waits for 0.
static void* futex_echo(void* arg) {
  (void)arg;
  for (int i = 0; i < g_futex_rounds; i++) {
    while (atomic_load(&g_word) == 0) {
      if (!wait_ok(futex(&g_word, FUTEX_WAIT, 0))) return (void*)1;
    }
    atomic_store(&g_word, 0);
    futex(&g_word, FUTEX_WAKE, 1);
  }
  return NULL;
}

static int futex_rtt(int per_batch) {
  g_futex_rounds = per_batch * kBatches;
  pthread_t th;
  int err = pthread_create(&th, NULL, futex_echo, NULL);
  if (err != 0) {
    fail("futex.rtt", "pthread_create: %s", strerror(err));
    return 1;
  }
  int64_t batch[kBatches];
  for (int b = 0; b < kBatches; b++) {
    int64_t t0 = now_ns();
    for (int i = 0; i < per_batch; i++) {
      atomic_store(&g_word, 1);
      futex(&g_word, FUTEX_WAKE, 1);
      while (atomic_load(&g_word) == 1) {
        if (!wait_ok(futex(&g_word, FUTEX_WAIT, 1))) {
          fail("futex.rtt", "futex wait: %s", strerror(errno));
          return 1;
        }
      }
    }
    batch[b] = (now_ns() - t0) / per_batch;
  }
  pthread_join(th, NULL);
  result_us("futex.rtt", median_of(batch, kBatches));
  return 0;
}

int main(int argc, char** argv) {
  probe_init();
  double scale = argc > 1 ? atof(argv[1]) : 1.0;
  if (scale <= 0) scale = 1.0;
  getppid_cost((int)(40000 * scale) + 1);
  int rc = pipe_rtt((int)(2000 * scale) + 1);
  rc |= futex_rtt((int)(2000 * scale) + 1);
  return rc;
}
