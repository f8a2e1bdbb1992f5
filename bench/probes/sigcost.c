// Probe 4: the cost of a signal.
//   sigcost.self   one tgkill() to the calling thread, through the handler and rt_sigreturn, back to the
//                  instruction after the syscall (a full round trip on one thread).
//   sigcost.cross  pthread_kill() from one thread to another thread that is running (spinning in user
//                  code, not sleeping): send to handler entry. The sender waits by sleeping, so the target
//                  is the only thread that wants a CPU.
// Usage: sigcost [iterations]
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common.h"

static atomic_llong g_handled_at;
static atomic_int g_stop;
static atomic_int g_spinning;

static void on_usr1(int sig) {
  (void)sig;
  atomic_store(&g_handled_at, now_ns());
}

static void* spinner(void* arg) {
  (void)arg;
  atomic_store(&g_spinning, 1);
  unsigned long spins = 0;
  while (!atomic_load_explicit(&g_stop, memory_order_relaxed)) spins++;
  return (void*)spins;
}

static void report(const char* name, int64_t* v, int n) {
  char fig[64];
  samples_us(name, v, n);
  snprintf(fig, sizeof fig, "%s.p50", name);
  result_us(fig, pct(v, n, 50));
  snprintf(fig, sizeof fig, "%s.p99", name);
  result_us(fig, pct(v, n, 99));
}

static int self_cost(int iters) {
  int64_t* v = calloc((size_t)iters, sizeof *v);
  pid_t pid = getpid();
  pid_t tid = (pid_t)syscall(SYS_gettid);
  for (int i = 0; i < iters; i++) {
    atomic_store(&g_handled_at, 0);
    int64_t t0 = now_ns();
    syscall(SYS_tgkill, pid, tid, SIGUSR1);
    int64_t t1 = now_ns();
    if (atomic_load(&g_handled_at) == 0) {
      fail("sigcost.self", "the handler had not run when tgkill to self returned (iteration %d)", i);
      free(v);
      return 1;
    }
    v[i] = t1 - t0;
  }
  report("sigcost.self", v, iters);
  free(v);
  return 0;
}

static int cross_cost(int iters) {
  pthread_t th;
  int err = pthread_create(&th, NULL, spinner, NULL);
  if (err != 0) {
    fail("sigcost.cross", "pthread_create: %s", strerror(err));
    return 1;
  }
  while (!atomic_load(&g_spinning)) sleep_ns(20000);
  int64_t* v = calloc((size_t)iters, sizeof *v);
  int n = 0;
  for (int i = 0; i < iters; i++) {
    sleep_ns(100000 + (int64_t)(i % 5) * 100000);
    atomic_store(&g_handled_at, 0);
    int64_t t0 = now_ns();
    pthread_kill(th, SIGUSR1);
    int64_t deadline = t0 + 2000000000LL;
    while (atomic_load(&g_handled_at) == 0 && now_ns() < deadline) sleep_ns(20000);
    if (atomic_load(&g_handled_at) == 0) {
      fail("sigcost.cross", "no handler entry within 2 s (iteration %d)", i);
      break;
    }
    v[n++] = atomic_load(&g_handled_at) - t0;
  }
  atomic_store(&g_stop, 1);
  pthread_join(th, NULL);
  if (n > 0) report("sigcost.cross", v, n);
  free(v);
  return n == iters ? 0 : 1;
}

int main(int argc, char** argv) {
  probe_init();
  int iters = arg_count(argc, argv, 1, 1000);
  struct sigaction sa = {.sa_handler = on_usr1};
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGUSR1, &sa, NULL) != 0) {
    fail("sigcost", "sigaction: %s", strerror(errno));
    return 1;
  }
  int rc = self_cost(iters);
  rc |= cross_cost(iters / 4 > 0 ? iters / 4 : 1);
  return rc;
}
