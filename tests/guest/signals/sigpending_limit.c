// RLIMIT_SIGPENDING set by the guest: RT signals past it are refused (sigqueue: EAGAIN) while standard ones
// still arrive, and the limit must not take away the emulator's own means of waking a thread: a thread
// blocked in read(2) on an empty pipe still ends with EINTR when another thread signals it. The limit is
// the guest's: getrlimit reads it back, a fork child and an execve keep it.
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static volatile sig_atomic_t usr1, rt;
static void on_usr1(int sig) {
  (void)sig;
  usr1++;
}
static void on_rt(int sig) {
  (void)sig;
  rt++;
}

static int pipe_fds[2];
static pthread_t main_thread;
static volatile int read_returned;

// Signals the main thread after 100 ms; unblocks its read 2 s later if the signal did not.
static void* helper(void* arg) {
  (void)arg;
  usleep(100 * 1000);
  pthread_kill(main_thread, SIGUSR1);
  for (int i = 0; i < 200 && !read_returned; i++) usleep(10 * 1000);
  if (!read_returned) (void)!write(pipe_fds[1], "x", 1);
  return NULL;
}

static int child_checks_limit(void) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_SIGPENDING, &rl) != 0) return 3;
  return rl.rlim_cur == 0 ? 0 : 4;
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "exec-child") == 0) return child_checks_limit();
  struct sigaction sa = {0};
  sa.sa_handler = on_usr1;
  REQUIRE_SYS(sigaction(SIGUSR1, &sa, NULL));
  sa.sa_handler = on_rt;
  REQUIRE_SYS(sigaction(SIGRTMIN + 2, &sa, NULL));

  struct rlimit old, now;
  REQUIRE_SYS(getrlimit(RLIMIT_SIGPENDING, &old));
  struct rlimit zero = {0, old.rlim_max};
  REQUIRE_SYS(setrlimit(RLIMIT_SIGPENDING, &zero));
  REQUIRE_SYS(getrlimit(RLIMIT_SIGPENDING, &now));
  CHECK_EQ(now.rlim_cur, 0);
  CHECK_EQ(now.rlim_max, old.rlim_max);
  struct rlimit bad = {1, 0};
  CHECK_ERRNO(setrlimit(RLIMIT_SIGPENDING, &bad), EINVAL);

  // Past the limit: an RT signal is refused, a standard one arrives.
  union sigval v = {0};
  CHECK_ERRNO(sigqueue(getpid(), SIGRTMIN + 2, v), EAGAIN);
  CHECK_EQ(rt, 0);
  CHECK_EQ(raise(SIGUSR1), 0);
  CHECK_EQ(usr1, 1);

  // A blocking read still ends with the signal.
  usr1 = 0;
  REQUIRE_SYS(pipe(pipe_fds));
  main_thread = pthread_self();
  pthread_t th;
  REQUIRE(pthread_create(&th, NULL, helper, NULL) == 0);
  char c;
  errno = 0;
  const ssize_t r = read(pipe_fds[0], &c, 1);
  read_returned = 1;
  CHECK_EQ(r, -1);
  CHECK_EQ(errno, EINTR);
  CHECK_EQ(usr1, 1);
  pthread_join(th, NULL);

  // A fork child and an execve keep the limit.
  pid_t pid = fork();
  if (pid == 0) _exit(child_checks_limit());
  int status;
  CHECK_EQ(waitpid(pid, &status, 0), pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  if (on_reference_qemu()) {
    NOTE("qemu-aarch64 hands an execve to the host kernel, which runs no arm64 program without binfmt_misc");
  } else {
    pid = fork();
    if (pid == 0) {
      execl("/proc/self/exe", argv[0], "exec-child", (char*)NULL);
      _exit(5);
    }
    CHECK_EQ(waitpid(pid, &status, 0), pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }

  // Back up again: a soft limit up to the hard one needs no privilege.
  REQUIRE_SYS(setrlimit(RLIMIT_SIGPENDING, &old));
  CHECK_EQ(sigqueue(getpid(), SIGRTMIN + 2, v), 0);
  CHECK_EQ(rt, 1);
  return check_done();
}
