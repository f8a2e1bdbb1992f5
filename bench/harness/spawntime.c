// Host-side timer for startup + teardown: posix_spawn a command N times (stdout and stderr to /dev/null)
// and print the wall time of each spawn-to-reap in the probe protocol. Built natively by bench/run; it
// stays in C so the timer adds microseconds, not the milliseconds of a Python subprocess.
// Usage: spawntime <name> <runs> <program> [args...]
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

extern char** environ;

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: spawntime <name> <runs> <program> [args...]\n");
    return 2;
  }
  const char* name = argv[1];
  int runs = atoi(argv[2]);
  if (runs <= 0) runs = 1;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  printf("SAMPLES %s unit=ms", name);
  for (int i = 0; i < runs; i++) {
    pid_t pid;
    int64_t t0 = now_ns();
    int err = posix_spawn(&pid, argv[3], &fa, NULL, argv + 3, environ);
    if (err != 0) {
      printf("\nFAIL %s: posix_spawn %s: %s\n", name, argv[3], strerror(err));
      return 1;
    }
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    int64_t t1 = now_ns();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      printf("\nFAIL %s: run %d ended with status 0x%x\n", name, i, status);
      return 1;
    }
    printf(" %.4f", (double)(t1 - t0) / 1e6);
  }
  printf("\n");
  return 0;
}
