// sigcost: what one signal costs on one pinned CPU, with the handler set up the way Go's runtime sets up its
// preemption signal (SA_SIGINFO | SA_ONSTACK | SA_RESTART, a sigaltstack per thread, every signal masked
// while the handler runs), and SIGURG, the signal Go preempts with.
//   self   a thread pinned to the CPU tgkill()s itself SIGURG; the time until tgkill returns (the kernel
//          delivers on the syscall's way out: frame, handler, rt_sigreturn, back).
//   cross  a sender thread tgkill()s a target pinned to the CPU and spinning in user code; the time until
//          the handler's first instruction stamps the clock (what Go's suspendG waits for). The sender
//          sleeps between sends, on another CPU when there is one (-s), so the target keeps running.
//   loop   ns per iteration of a fixed integer loop on the same CPU: "the core is slower" and "signals are
//          slower" are separate figures.
// Output is bench/probes/common.h's line protocol (RESULT, SAMPLES, FAIL), so bench/run uses it as its
// sigcost probe: sigcost.self.{p50,p99,max}, sigcost.cross.{p50,p99,max} in us, sigcost.loop_ns in ns. Builds
// for aarch64 (static) and natively from this one file: see README.md.
//
// usage: sigcost [-c CPU] [-s SENDER_CPU] [N]   (N self samples, N/4 cross samples; default 1000)
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static atomic_llong g_handled_at;
static atomic_int g_stop;
static atomic_int g_target_tid;

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sleep_ns(int64_t ns) {
  struct timespec ts = {.tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

static void fail(const char* what, const char* why, int err) {
  printf("FAIL %s: %s%s%s\n", what, why, err ? ": " : "", err ? strerror(err) : "");
}

static int cmp_i64(const void* a, const void* b) {
  int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
  return (x > y) - (x < y);
}

// Sorts v, prints its SAMPLES line and the p50/p99/max RESULT lines (nearest-rank percentiles).
static void report(const char* name, int64_t* v, int n) {
  qsort(v, (size_t)n, sizeof v[0], cmp_i64);
  printf("SAMPLES %s unit=us", name);
  for (int i = 0; i < n; i++) printf(" %.3f", (double)v[i] / 1e3);
  printf("\n");
  const double pcts[] = {50, 99, 100};
  const char* labels[] = {"p50", "p99", "max"};
  for (int k = 0; k < 3; k++) {
    int idx = (int)(pcts[k] / 100.0 * n + 0.999999) - 1;
    idx = idx < 0 ? 0 : idx >= n ? n - 1 : idx;
    printf("RESULT %s.%s=%.3f unit=us\n", name, labels[k], (double)v[idx] / 1e3);
  }
}

// The first thing the handler does is stamp the clock, as the cross figure defines its end.
static void on_urg(int sig, siginfo_t* info, void* uc) {
  (void)sig;
  (void)info;
  (void)uc;
  atomic_store(&g_handled_at, now_ns());
}

static int pin(int cpu) {
  if (cpu < 0) return 0;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof set, &set) == 0 ? 0 : errno;
}

// Each thread that can take the signal gets its own alternate stack, as every Go M does.
static int install_altstack(void) {
  stack_t ss = {.ss_size = 64 * 1024, .ss_flags = 0};
  ss.ss_sp = malloc(ss.ss_size);
  return ss.ss_sp && sigaltstack(&ss, NULL) == 0 ? 0 : errno;
}

static int install_handler(void) {
  struct sigaction sa = {.sa_sigaction = on_urg, .sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART};
  sigfillset(&sa.sa_mask);
  return sigaction(SIGURG, &sa, NULL) == 0 ? 0 : errno;
}

static int self_cost(int iters) {
  int64_t* v = calloc((size_t)iters, sizeof *v);
  const pid_t pid = getpid(), tid = gettid();
  for (int i = 0; i < iters; i++) {
    atomic_store(&g_handled_at, 0);
    const int64_t t0 = now_ns();
    syscall(SYS_tgkill, pid, tid, SIGURG);
    const int64_t t1 = now_ns();
    if (atomic_load(&g_handled_at) == 0) {
      fail("sigcost.self", "the handler had not run when tgkill to self returned", 0);
      free(v);
      return 1;
    }
    v[i] = t1 - t0;
  }
  report("sigcost.self", v, iters);
  free(v);
  return 0;
}

struct target_args {
  int cpu;
  int err;
};

static void* spinner(void* arg) {
  struct target_args* a = arg;
  a->err = pin(a->cpu);
  if (a->err == 0) a->err = install_altstack();
  atomic_store(&g_target_tid, a->err ? -1 : gettid());
  unsigned long spins = 0;
  while (!atomic_load_explicit(&g_stop, memory_order_relaxed)) spins++;
  return (void*)spins;
}

// Sends one signal to the spinning target and returns the time to its handler's entry, or -1 after 2 s.
static int64_t one_cross(pid_t tid) {
  atomic_store(&g_handled_at, 0);
  const int64_t t0 = now_ns();
  syscall(SYS_tgkill, getpid(), tid, SIGURG);
  const int64_t deadline = t0 + 2000000000LL;
  while (atomic_load(&g_handled_at) == 0 && now_ns() < deadline) sleep_ns(20000);
  const int64_t at = atomic_load(&g_handled_at);
  return at == 0 ? -1 : at - t0;
}

static int cross_cost(int iters, int cpu, int sender_cpu) {
  struct target_args a = {.cpu = cpu};
  pthread_t th;
  int err = pthread_create(&th, NULL, spinner, &a);
  if (err != 0) {
    fail("sigcost.cross", "pthread_create", err);
    return 1;
  }
  (void)pin(sender_cpu);
  while (atomic_load(&g_target_tid) == 0) sleep_ns(20000);
  int n = 0;
  int64_t* v = calloc((size_t)iters, sizeof *v);
  for (int i = 0; i < iters && atomic_load(&g_target_tid) > 0; i++) {
    sleep_ns(100000 + (int64_t)(i % 5) * 100000);  // land at varying points of the target's loop
    const int64_t d = one_cross(atomic_load(&g_target_tid));
    if (d < 0) {
      fail("sigcost.cross", "no handler entry within 2 s", 0);
      break;
    }
    v[n++] = d;
  }
  atomic_store(&g_stop, 1);
  pthread_join(th, NULL);
  if (a.err) fail("sigcost.cross", "target setup (affinity or sigaltstack)", a.err);
  if (n > 0) report("sigcost.cross", v, n);
  free(v);
  return n == iters ? 0 : 1;
}

// A fixed integer loop (xorshift64, 20M iterations): its ns per iteration is the core's (or the JIT's) speed.
static void loop_cost(void) {
  const int64_t iters = 20000000;
  uint64_t x = 88172645463325252ull;
  const int64_t t0 = now_ns();
  for (int64_t i = 0; i < iters; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    __asm__ volatile("" : "+r"(x));
  }
  printf("RESULT sigcost.loop_ns=%.3f unit=ns\n", (double)(now_ns() - t0) / (double)iters);
  printf("CHECK sigcost.loop=%016llx\n", (unsigned long long)x);
}

// The CPU to measure on: -c, else the first one allowed; the sender's: -s, else another allowed one.
static void pick_cpus(int* cpu, int* sender) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return;
  for (int c = 0; c < CPU_SETSIZE && *cpu < 0; c++)
    if (CPU_ISSET(c, &set)) *cpu = c;
  for (int c = 0; c < CPU_SETSIZE && *sender < 0; c++)
    if (CPU_ISSET(c, &set) && c != *cpu) *sender = c;
  if (*sender < 0) *sender = *cpu;
}

int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  int cpu = -1, sender = -1, opt;
  while ((opt = getopt(argc, argv, "c:s:")) != -1) {
    if (opt == 'c')
      cpu = atoi(optarg);
    else if (opt == 's')
      sender = atoi(optarg);
    else {
      fprintf(stderr, "usage: sigcost [-c CPU] [-s SENDER_CPU] [N]\n");
      return 2;
    }
  }
  const int iters = optind < argc && atoi(argv[optind]) > 0 ? atoi(argv[optind]) : 1000;
  pick_cpus(&cpu, &sender);
  printf("# sigcost: SIGURG, SA_SIGINFO|SA_ONSTACK|SA_RESTART, all signals masked; cpu %d, sender cpu %d\n",
         cpu, sender);
  int err = pin(cpu);
  if (err == 0) err = install_altstack();
  if (err == 0) err = install_handler();
  if (err != 0) {
    fail("sigcost", "setup (affinity, sigaltstack, sigaction)", err);
    return 1;
  }
  loop_cost();
  int rc = self_cost(iters);
  rc |= cross_cost(iters / 4 > 0 ? iters / 4 : 1, cpu, sender);
  return rc;
}
