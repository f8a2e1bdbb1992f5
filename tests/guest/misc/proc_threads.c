// The /proc views of a process's threads show the guest's threads only: /proc/self/stat's num_threads
// (field 20), status's Threads:, the task/ listing, and the same through /proc/<pid> from another process
// (a fork child looking at its parent). qemu-aarch64 7.2 runs a thread of its own (RCU) in every process,
// so the reference lane checks only that the counts agree and grow with the guest's threads.
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static long stat_threads(const char* dir) {
  char path[64], buf[1024];
  snprintf(path, sizeof path, "%s/stat", dir);
  FILE* f = fopen(path, "r");
  if (!f) return -1;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  char* p = strrchr(buf, ')');
  if (!p) return -1;
  // Fields from 3 on follow ") ": num_threads is field 20.
  p += 2;
  for (int field = 3; field < 20; field++) {
    p = strchr(p, ' ');
    if (!p) return -1;
    p++;
  }
  return strtol(p, NULL, 10);
}

static long status_threads(const char* dir) {
  char path[64], line[256];
  snprintf(path, sizeof path, "%s/status", dir);
  FILE* f = fopen(path, "r");
  if (!f) return -1;
  long n = -1;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "Threads:", 8) == 0) n = strtol(line + 8, NULL, 10);
  }
  fclose(f);
  return n;
}

static long task_entries(const char* dir) {
  char path[64];
  snprintf(path, sizeof path, "%s/task", dir);
  DIR* d = opendir(path);
  if (!d) return -1;
  long n = 0;
  struct dirent* e;
  while ((e = readdir(d))) n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

// All three views agree on `want` guest threads. A thread that pthread_join has seen go may still be listed
// for a moment (on Linux too: the kernel clears its tid before it leaves the thread group), so the views get
// a second to settle. qemu-aarch64 7.2 synthesizes /proc/self/stat with num_threads 0 and counts its own RCU
// thread in status and task: there they agree, and are at least `want`.
static void check_views(const char* dir, long want) {
  long st = 0, status = 0, task = 0;
  for (int i = 0; i < 100; i++) {
    st = stat_threads(dir), status = status_threads(dir), task = task_entries(dir);
    if (on_reference_qemu() ? status == task && status >= want : st == want && status == want && task == want)
      break;
    usleep(10 * 1000);
  }
  if (on_reference_qemu()) {
    CHECK_EQ(status, task);
    CHECK_GE(status, want);
    return;
  }
  CHECK_EQ(st, want);
  CHECK_EQ(status, want);
  CHECK_EQ(task, want);
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int release;

static void* idle(void* arg) {
  (void)arg;
  pthread_mutex_lock(&mu);
  while (!release) pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
  return NULL;
}

int main(void) {
  // The very first look, before anything else: a64run's own threads (the host signal intake and its worker)
  // start while a64run loads the program, and are hidden before the guest's first instruction.
  const long first_status = status_threads("/proc/self"), first_task = task_entries("/proc/self");
  if (on_reference_qemu()) {
    CHECK_EQ(first_task, first_status);
  } else {
    CHECK_EQ(first_status, 1);
    CHECK_EQ(first_task, 1);
  }
  check_views("/proc/self", 1);
  char own[32];
  snprintf(own, sizeof own, "/proc/%d", getpid());
  check_views(own, 1);

  pthread_t th[2];
  for (int i = 0; i < 2; i++) pthread_create(&th[i], NULL, idle, NULL);
  check_views("/proc/self", 3);
  long extra = on_reference_qemu() ? status_threads("/proc/self") - 3 : 0;

  // Another process (a fork child, itself emulated) looking at this one sees its three threads.
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    char dir[32];
    snprintf(dir, sizeof dir, "/proc/%d", parent);
    long st = stat_threads(dir), status = status_threads(dir), task = task_entries(dir);
    if (on_reference_qemu()) st = status;  // qemu's synthesized stat has num_threads 0 (above)
    int ok = st == 3 + extra && status == st && task == st;
    if (!ok) fprintf(stderr, "child sees stat %ld, status %ld, task %ld\n", st, status, task);
    // And itself as one thread.
    _exit(ok && status_threads("/proc/self") == 1 + extra ? 0 : 1);
  }
  int status;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);

  // A fork child's very first look at itself: a64run starts the child's own emulator threads (the host
  // signal intake and its worker) at the fork, and each must be hidden before the guest runs on.
  int wrong = 0;
  for (int i = 0; i < 60; i++) {
    pid_t c = fork();
    if (c == 0)
      _exit((i % 2 ? status_threads("/proc/self") : task_entries("/proc/self")) == 1 + extra ? 0 : 1);
    int st;
    waitpid(c, &st, 0);
    wrong += !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  CHECK_EQ(wrong, 0);

  pthread_mutex_lock(&mu);
  release = 1;
  pthread_cond_broadcast(&cv);
  pthread_mutex_unlock(&mu);
  for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
  check_views("/proc/self", 1);
  return check_done();
}
