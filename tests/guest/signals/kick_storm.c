// Signals to threads that spin in guest code, one at a time, each waited for: a signal whose handler never
// runs is a lost kick (a64run stops a running vCPU only by kicking it; nothing else ever makes a spinning
// thread leave translated code). The targets spin in three shapes of loop:
//   b      a one-instruction `b .`, left only when the stop signal's handler moves the saved PC past it;
//   chain  four blocks that branch to each other in a ring (chained translations), left the same way;
//   poll   a C loop that polls a flag and makes a system call every 256 iterations (so kicks also land on
//          a vCPU on its way back from a system call).
// Each configuration: 1, 2 or 4 spinning threads and as many senders, each sending ROUNDS signals, or as many
// as it can in SECONDS, and waiting up to 10 s for each handler run (thread-directed: tgkill to its own
// target; process-directed: kill to the process, every other thread blocking the signal, so one of the
// targets takes it), with and without SA_RESTART. Every signal must be handled, none twice.
//
// usage: kick_storm [ROUNDS [SECONDS [MAX_TARGETS]]]   (defaults 100000, 2 and 4; `make stress` runs it with
// no time limit. More spinning threads than CPUs make every round wait for the host scheduler, so on a
// small machine the time limit decides how many rounds a configuration gets.)
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "check.h"

#define MAX_TARGETS 4
#define KICK_SIG SIGUSR1
#define STOP_SIG SIGUSR2

enum loop_kind { LOOP_B, LOOP_CHAIN, LOOP_POLL };
static const char* const kLoopNames[] = {"b", "chain", "poll"};

struct target {
  pthread_t thread;
  atomic_int tid;
  atomic_long handled;  // KICK_SIG handler runs on this thread
  enum loop_kind kind;
};

static struct target g_targets[MAX_TARGETS];
static atomic_long g_handled_total;
static atomic_int g_poll_stop;
static atomic_int g_lost;

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static struct target* self_target(void) {
  const int tid = (int)syscall(SYS_gettid);
  for (int i = 0; i < MAX_TARGETS; i++) {
    if (atomic_load(&g_targets[i].tid) == tid) return &g_targets[i];
  }
  return NULL;
}

static void on_kick(int sig, siginfo_t* info, void* uc) {
  (void)sig;
  (void)info;
  (void)uc;
  struct target* t = self_target();
  if (t) atomic_fetch_add(&t->handled, 1);
  atomic_fetch_add(&g_handled_total, 1);
}

// The stop signal ends a spin: the asm loops are left by moving the interrupted PC past their branch back.
extern char kick_b_loop[], kick_b_done[], kick_chain_loop[], kick_chain_end[], kick_chain_done[];
static void on_stop(int sig, siginfo_t* info, void* ucv) {
  (void)sig;
  (void)info;
  ucontext_t* uc = ucv;
  const uintptr_t pc = (uintptr_t)uc->uc_mcontext.pc;
  if (pc >= (uintptr_t)kick_b_loop && pc < (uintptr_t)kick_b_done)
    uc->uc_mcontext.pc = (uintptr_t)kick_b_done;
  if (pc >= (uintptr_t)kick_chain_loop && pc < (uintptr_t)kick_chain_end)
    uc->uc_mcontext.pc = (uintptr_t)kick_chain_done;
}

// `b .`, and a ring of four blocks; each label is global so the stop handler can recognise the PC.
__asm__(
    ".text\n"
    ".global kick_b_loop\n.global kick_b_done\n"
    ".global kick_chain_loop\n.global kick_chain_end\n.global kick_chain_done\n"
    ".type spin_b, %function\n"
    "spin_b:\n"
    "kick_b_loop: b kick_b_loop\n"
    "kick_b_done: ret\n"
    ".type spin_chain, %function\n"
    "spin_chain:\n"
    "kick_chain_loop: add x9, x9, #1\n"
    "  b 2f\n"
    "3: add x10, x10, #1\n"
    "  b 4f\n"
    "2: add x11, x11, #1\n"
    "  b 3b\n"
    "4: eor x12, x12, x9\n"
    "  b kick_chain_loop\n"
    "kick_chain_end:\n"
    "kick_chain_done: ret\n");
void spin_b(void);
void spin_chain(void);

static void* target_main(void* arg) {
  struct target* t = arg;
  atomic_store(&t->tid, (int)syscall(SYS_gettid));
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, KICK_SIG);
  sigaddset(&set, STOP_SIG);
  pthread_sigmask(SIG_UNBLOCK, &set, NULL);
  switch (t->kind) {
    case LOOP_B:
      spin_b();
      break;
    case LOOP_CHAIN:
      spin_chain();
      break;
    case LOOP_POLL: {
      unsigned long n = 0;
      while (!atomic_load_explicit(&g_poll_stop, memory_order_relaxed)) {
        if ((++n & 255) == 0) syscall(SYS_getppid);
      }
      break;
    }
  }
  return NULL;
}

struct sender {
  pthread_t thread;
  int target;  // index of the target for thread-directed signals, -1 for process-directed
  long rounds;
  int64_t deadline;  // CLOCK_MONOTONIC ns: no new signal after it
  long sent;
};

// Waits until *counter passes `old`; false after 10 s (the signal is lost). It yields for the first few
// hundred looks, so that the next signal often lands while the target is on its way back into its loop
// (out of rt_sigreturn, into the engine: the moment a kick is easiest to lose), then sleeps in short steps
// so that a target sharing this CPU gets to run.
static int wait_handled(atomic_long* counter, long old) {
  const int64_t deadline = now_ns() + 10LL * 1000000000;
  for (int look = 0; atomic_load(counter) == old; look++) {
    if (look < 256) {
      sched_yield();
      continue;
    }
    if (now_ns() > deadline) return 0;
    const struct timespec ts = {.tv_nsec = 20000};
    nanosleep(&ts, NULL);
  }
  return 1;
}

static void* sender_main(void* arg) {
  struct sender* s = arg;
  const pid_t pid = getpid();
  for (long i = 0; i < s->rounds && !atomic_load(&g_lost) && now_ns() < s->deadline; i++) {
    s->sent++;
    if (s->target >= 0) {
      struct target* t = &g_targets[s->target];
      const long old = atomic_load(&t->handled);
      syscall(SYS_tgkill, pid, atomic_load(&t->tid), KICK_SIG);
      if (!wait_handled(&t->handled, old)) {
        fprintf(stderr, "lost: signal %ld to target %d (%s loop) not handled in 10 s\n", i, s->target,
                kLoopNames[t->kind]);
        atomic_store(&g_lost, 1);
      }
    } else {
      const long old = atomic_load(&g_handled_total);
      kill(pid, KICK_SIG);
      if (!wait_handled(&g_handled_total, old)) {
        fprintf(stderr, "lost: process-directed signal %ld not handled in 10 s\n", i);
        atomic_store(&g_lost, 1);
      }
    }
  }
  return NULL;
}

static long g_total_sent;

static void run_config(int ntargets, enum loop_kind kind, int process_directed, int restart, long rounds,
                       double seconds) {
  // The stop signal waits while a kick's handler runs, so that it finds the PC in the loop.
  struct sigaction sa = {.sa_sigaction = on_kick, .sa_flags = SA_SIGINFO | (restart ? SA_RESTART : 0)};
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, STOP_SIG);
  CHECK_EQ(sigaction(KICK_SIG, &sa, NULL), 0);
  atomic_store(&g_handled_total, 0);
  atomic_store(&g_poll_stop, 0);
  for (int i = 0; i < ntargets; i++) {
    g_targets[i].kind = kind;
    atomic_store(&g_targets[i].tid, 0);
    atomic_store(&g_targets[i].handled, 0);
    CHECK_EQ(pthread_create(&g_targets[i].thread, NULL, target_main, &g_targets[i]), 0);
  }
  for (int i = 0; i < ntargets; i++) {
    while (atomic_load(&g_targets[i].tid) == 0) sched_yield();
  }
  // Process-directed signals need a sender that waits for the total: one sender, so "handled" is exact.
  const int nsenders = process_directed ? 1 : ntargets;
  struct sender senders[MAX_TARGETS];
  for (int i = 0; i < nsenders; i++) {
    senders[i].target = process_directed ? -1 : i;
    senders[i].rounds = rounds;
    senders[i].deadline = now_ns() + (int64_t)(seconds * 1e9);
    senders[i].sent = 0;
    CHECK_EQ(pthread_create(&senders[i].thread, NULL, sender_main, &senders[i]), 0);
  }
  for (int i = 0; i < nsenders; i++) pthread_join(senders[i].thread, NULL);
  // The stop signal may land before a target reaches its loop: it is sent again until the target ends.
  atomic_store(&g_poll_stop, 1);
  for (int i = 0; i < ntargets; i++) {
    while (pthread_tryjoin_np(g_targets[i].thread, NULL) != 0) {
      syscall(SYS_tgkill, getpid(), atomic_load(&g_targets[i].tid), STOP_SIG);
      const struct timespec ts = {.tv_nsec = 5000000};
      nanosleep(&ts, NULL);
    }
  }
  long want = 0;
  for (int i = 0; i < nsenders; i++) want += senders[i].sent;
  g_total_sent += want;
  CHECK_GT(want, 0);
  const long handled = atomic_load(&g_handled_total);
  CHECK_EQ(handled, want);
  printf("%d target%s, %s loop, %s, %s: %ld signals\n", ntargets, ntargets > 1 ? "s" : "", kLoopNames[kind],
         process_directed ? "process-directed" : "thread-directed", restart ? "SA_RESTART" : "no SA_RESTART",
         handled);
  fflush(stdout);
  if (!process_directed) {
    for (int i = 0; i < ntargets; i++) {
      const long got = atomic_load(&g_targets[i].handled);
      CHECK_EQ(got, senders[i].sent);
    }
  }
}

int main(int argc, char** argv) {
  const long rounds = argc > 1 ? atol(argv[1]) : 100000;
  const double seconds = argc > 2 ? atof(argv[2]) : 2;
  const int max_targets = argc > 3 ? atoi(argv[3]) : MAX_TARGETS;
  // Only the targets take KICK_SIG and STOP_SIG: everything else (main, senders) blocks them.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, KICK_SIG);
  sigaddset(&set, STOP_SIG);
  CHECK_EQ(pthread_sigmask(SIG_BLOCK, &set, NULL), 0);
  struct sigaction stop = {.sa_sigaction = on_stop, .sa_flags = SA_SIGINFO};
  sigemptyset(&stop.sa_mask);
  CHECK_EQ(sigaction(STOP_SIG, &stop, NULL), 0);

  const int counts[] = {1, 2, 4};
  const int64_t t0 = now_ns();
  for (int c = 0; c < 3 && counts[c] <= max_targets && !atomic_load(&g_lost); c++) {
    for (int kind = LOOP_B; kind <= LOOP_POLL && !atomic_load(&g_lost); kind++) {
      for (int pd = 0; pd < 2 && !atomic_load(&g_lost); pd++) {
        // SA_RESTART alternates between configurations: both occur for every loop kind and direction.
        run_config(counts[c], (enum loop_kind)kind, pd, (c + kind + pd) & 1, rounds, seconds);
      }
    }
  }
  const int lost = atomic_load(&g_lost);
  CHECK_EQ(lost, 0);
  printf("kick_storm: %ld signals handled in %.1f s\n", g_total_sent, (now_ns() - t0) / 1e9);
  return check_done();
}
