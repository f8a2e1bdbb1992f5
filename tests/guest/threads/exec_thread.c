// Tests execve from a secondary thread while other threads spin, sleep, and block in a condition variable,
// a futex and a pipe read: the exec must end them all, and the new program (this binary again) runs with one
// thread, whose tid is the process's original pid, and the same parent.
// The run has three stages, each the same binary: stage 0 starts the threads and execs from one of them;
// stage 1 checks, then does it again after the main thread has left with pthread_exit (the exec'ing thread
// then takes over the leader's pid); stage 2 checks and gives the verdict, counting the failures that the
// earlier stages passed on in argv.
#define _GNU_SOURCE
#include <dirent.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../procs/self_exec.h"
#include "check.h"

extern char** environ;

static atomic_int started;
static int exec_stage;    // the stage the exec'd program runs
static pid_t origin_pid;  // stage 0's pid
static pid_t origin_ppid;
static int main_exits;  // stage 1: the main thread leaves before the exec

static void* spinner(void* arg) {
  (void)arg;
  atomic_fetch_add(&started, 1);
  for (volatile unsigned long n = 0;; n++) {
  }
  return NULL;
}

static void* sleeper(void* arg) {
  (void)arg;
  atomic_fetch_add(&started, 1);
  for (;;) nanosleep(&(struct timespec){100, 0}, NULL);
  return NULL;
}

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;

static void* cond_waiter(void* arg) {
  (void)arg;
  pthread_mutex_lock(&mutex);
  atomic_fetch_add(&started, 1);
  for (;;) pthread_cond_wait(&never, &mutex);
  return NULL;
}

static uint32_t futex_word;

static void* futex_waiter(void* arg) {
  (void)arg;
  atomic_fetch_add(&started, 1);
  for (;;) syscall(SYS_futex, &futex_word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
  return NULL;
}

static int pipe_fds[2];

static void* pipe_reader(void* arg) {
  (void)arg;
  char c;
  atomic_fetch_add(&started, 1);
  for (;;) read(pipe_fds[0], &c, 1);
  return NULL;
}

static void* execer(void* arg) {
  (void)arg;
  enum { kOthers = 5 };
  while (atomic_load(&started) < kOthers) sched_yield();
  // Let the others reach their loops, sleeps and waits (not needed for correctness, only for coverage).
  nanosleep(&(struct timespec){0, 30 * 1000 * 1000}, NULL);
  char stage[16], pid[16], ppid[16], failures[16];
  snprintf(stage, sizeof stage, "%d", exec_stage);
  snprintf(pid, sizeof pid, "%d", (int)origin_pid);
  snprintf(ppid, sizeof ppid, "%d", (int)origin_ppid);
  snprintf(failures, sizeof failures, "%d", check_failures);
  char* argv[] = {(char*)self_path(), "--stage", stage, pid, ppid, failures, NULL};
  exec_guest(argv[0], argv, environ);
  fprintf(stderr, "exec_thread: execve from a thread failed: %s\n", strerror(errno));
  _exit(2);
}

static void start_and_exec(void) {
  // Resolve /proc/self/exe now: once the main thread has exited, Linux no longer resolves it (the leader
  // has no mm), and the exec'ing thread needs it.
  self_path();
  REQUIRE(pipe(pipe_fds) == 0);
  void* (*fns[])(void*) = {spinner, sleeper, cond_waiter, futex_waiter, pipe_reader, execer};
  pthread_t threads[6];
  for (int i = 0; i < 6; i++) REQUIRE(pthread_create(&threads[i], NULL, fns[i], NULL) == 0);
  fflush(stdout);
  fflush(stderr);
  if (main_exits) pthread_exit(NULL);  // the process lives on in its other threads
  pthread_join(threads[5], NULL);      // the exec ends this wait
  fprintf(stderr, "exec_thread: the exec'ing thread returned\n");
  _exit(2);
}

static int count_threads_in_status(void) {
  FILE* f = fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  int threads = -1;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "Threads: %d", &threads) == 1) break;
  fclose(f);
  return threads;
}

static int count_tasks(void) {
  DIR* d = opendir("/proc/self/task");
  if (!d) return -1;
  int n = 0;
  for (struct dirent* e; (e = readdir(d));)
    if (e->d_name[0] != '.') n++;
  closedir(d);
  return n;
}

static void* trivial(void* arg) {
  return arg;
}

static void check_exec_result(int stage) {
  NOTE("stage %d: checking", stage);
  CHECK_EQ(getpid(), origin_pid);  // exec keeps the pid, whichever thread called it
  CHECK_EQ(gettid(), getpid());    // and the one thread left is the leader
  CHECK_EQ(getppid(), origin_ppid);
  // qemu-aarch64 runs a thread of its own (its RCU thread), which /proc shows: count the guest's threads
  // only under a64run.
  if (!on_reference_qemu()) {
    CHECK_EQ(count_threads_in_status(), 1);
    CHECK_EQ(count_tasks(), 1);
  }
  CHECK_EQ(atomic_load(&started), 0);  // a fresh program image
  // The new program can make threads of its own.
  pthread_t t;
  void* result = NULL;
  CHECK_EQ(pthread_create(&t, NULL, trivial, (void*)7), 0);
  CHECK_EQ(pthread_join(t, &result), 0);
  CHECK_EQ((intptr_t)result, 7);
}

int main(int argc, char** argv) {
  int stage = 0;
  if (argc == 6 && strcmp(argv[1], "--stage") == 0) {
    stage = atoi(argv[2]);
    origin_pid = atoi(argv[3]);
    origin_ppid = atoi(argv[4]);
    check_failures = atoi(argv[5]);  // already reported by the earlier stage
    check_exec_result(stage);
    if (stage >= 2) return check_done();
  } else {
    origin_pid = getpid();
    origin_ppid = getppid();
  }
  exec_stage = stage + 1;
  main_exits = stage == 1;
  NOTE("stage %d: exec from a thread%s", stage, main_exits ? " after the main thread left" : "");
  start_and_exec();
  return 2;
}
