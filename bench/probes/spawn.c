// Probe 7: process and thread life cycle.
//   thread.create_join  pthread_create of a thread that returns at once, then pthread_join, in us
//   fork.exec_wait      fork, execve of this same program (which exits 0 at once), waitpid, in ms (under
//                       qemu-aarch64 the execve goes through qemu, as binfmt_misc would run it)
// Usage: spawn [thread iterations] [fork iterations]     spawn --child (the exec target)
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

static void* nothing(void* arg) {
  return arg;
}

static int thread_cost(int iters) {
  int64_t* v = calloc((size_t)iters, sizeof *v);
  for (int i = 0; i < iters; i++) {
    int64_t t0 = now_ns();
    pthread_t th;
    int err = pthread_create(&th, NULL, nothing, NULL);
    if (err != 0) {
      fail("thread.create_join", "pthread_create: %s", strerror(err));
      free(v);
      return 1;
    }
    pthread_join(th, NULL);
    v[i] = now_ns() - t0;
  }
  samples_us("thread.create_join", v, iters);
  result_us("thread.create_join.p50", pct(v, iters, 50));
  free(v);
  return 0;
}

static int fork_exec_cost(int iters) {
  int64_t* v = calloc((size_t)iters, sizeof *v);
  char* const child_argv[] = {"spawn", "--child", NULL};
  static char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  self[n > 0 ? n : 0] = '\0';
  for (int i = 0; i < iters; i++) {
    int64_t t0 = now_ns();
    pid_t pid = fork();
    if (pid < 0) {
      fail("fork.exec_wait", "fork: %s", strerror(errno));
      free(v);
      return 1;
    }
    if (pid == 0) {
      // Under qemu-aarch64 (no binfmt_misc here) the harness names qemu in BENCH_EXEC_VIA: exec through it,
      // which is what binfmt_misc would do.
      const char* via = getenv("BENCH_EXEC_VIA");
      if (via != NULL && via[0] != '\0') {
        char* const via_argv[] = {(char*)via, self, "--child", NULL};
        execv(via, via_argv);
      } else {
        execv("/proc/self/exe", child_argv);
      }
      _exit(127);  // exec failed; the parent reports it
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid) {
      fail("fork.exec_wait", "waitpid: %s", strerror(errno));
      free(v);
      return 1;
    }
    v[i] = now_ns() - t0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      fail("fork.exec_wait", "the child ended with status 0x%x (127: execve of /proc/self/exe failed)",
           status);
      free(v);
      return 1;
    }
  }
  qsort(v, (size_t)iters, sizeof v[0], cmp_i64);
  printf("RESULT fork.exec_wait.p50=%.3f unit=ms\n", (double)pct(v, iters, 50) / 1e6);
  free(v);
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "--child") == 0) return 0;
  probe_init();
  int rc = thread_cost(arg_count(argc, argv, 1, 300));
  rc |= fork_exec_cost(arg_count(argc, argv, 2, 30));
  return rc;
}
