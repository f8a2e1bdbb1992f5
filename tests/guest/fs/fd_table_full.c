// Tests that the guest owns its whole descriptor table: every number below the soft RLIMIT_NOFILE that
// fcntl(F_GETFD) finds free, dup hands out, and then EMFILE (LTP dup06 and dup205 count the same way).
// a64run's own host descriptors (the signal intake's signalfd) must take none of them, in the first process
// and in a fork child (which starts its own intake). A signal from another process still arrives afterwards.
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static volatile sig_atomic_t got_usr1;

static void on_usr1(int sig) {
  (void)sig;
  got_usr1 = 1;
}

static int count_free(int limit) {
  int n = 0;
  for (int fd = 0; fd < limit; ++fd) {
    if (fcntl(fd, F_GETFD) == -1 && errno == EBADF) ++n;
  }
  return n;
}

// Fills the table with dups of fd; returns how many it got (0 when the first failed), leaves errno of the
// failing dup in *err and the highest number in *top.
static int fill(int fd, int* fds, int max, int* err, int* top) {
  int n = 0;
  *top = -1;
  while (n < max) {
    const int d = dup(fd);
    if (d < 0) {
      *err = errno;
      break;
    }
    fds[n++] = d;
    if (d > *top) *top = d;
  }
  return n;
}

static void close_all(const int* fds, int n) {
  for (int i = 0; i < n; ++i) close(fds[i]);
}

// The whole check, in this process; returns the number of failed checks (for a child's exit status).
static int check_table(int limit, int* fds) {
  const int before = check_failures;
  const int fd = open("/dev/null", O_RDONLY);
  REQUIRE(fd >= 0);
  const int free_fds = count_free(limit);
  int err = 0;
  int top = -1;
  const int got = fill(fd, fds, limit, &err, &top);
  CHECK_EQ(got, free_fds);
  CHECK_EQ(err, EMFILE);
  CHECK_EQ(top, limit - 1);
  CHECK_EQ(count_free(limit), 0);
  errno = 0;
  CHECK_EQ(dup2(fd, limit), -1);
  CHECK_EQ(errno, EBADF);
  errno = 0;
  CHECK_EQ(fcntl(fd, F_DUPFD, limit), -1);
  CHECK_EQ(errno, EINVAL);
  close_all(fds, got);
  close(fd);
  return check_failures - before;
}

int main(void) {
  struct rlimit rl;
  REQUIRE(getrlimit(RLIMIT_NOFILE, &rl) == 0);
  // Above 900 (where a64run once kept its signalfd), small enough to fill quickly.
  if (rl.rlim_cur > 1500) rl.rlim_cur = 1500;
  REQUIRE(setrlimit(RLIMIT_NOFILE, &rl) == 0);
  const int limit = (int)rl.rlim_cur;
  CHECK_EQ(getdtablesize(), limit);
  int* fds = malloc(sizeof(int) * (size_t)limit);
  REQUIRE(fds != NULL);

  check_table(limit, fds);

  // A fork child starts its own intake: the same table, the same count; then a signal from its parent.
  struct sigaction sa = {.sa_handler = on_usr1, .sa_flags = SA_RESTART};
  REQUIRE(sigaction(SIGUSR1, &sa, NULL) == 0);
  int ready[2];
  REQUIRE(pipe(ready) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(ready[0]);
    const int failed = check_table(limit, fds);
    if (write(ready[1], "r", 1) != 1) _exit(90);
    for (int i = 0; i < 5000 && !got_usr1; ++i) usleep(1000);
    _exit(failed != 0 ? 1 : got_usr1 ? 0 : 2);
  }
  close(ready[1]);
  char c;
  CHECK_EQ(read(ready[0], &c, 1), 1);
  CHECK_EQ(kill(pid, SIGUSR1), 0);
  int status = 0;
  CHECK_EQ(waitpid(pid, &status, 0), pid);
  CHECK(WIFEXITED(status));
  CHECK_EQ(WEXITSTATUS(status), 0);

  // And in this process after the child: a signal from outside still arrives (the child sends it).
  got_usr1 = 0;
  const pid_t sender = fork();
  REQUIRE(sender >= 0);
  if (sender == 0) _exit(kill(getppid(), SIGUSR1) == 0 ? 0 : 1);
  CHECK_EQ(waitpid(sender, &status, 0), sender);
  for (int i = 0; i < 5000 && !got_usr1; ++i) usleep(1000);
  CHECK(got_usr1);
  free(fds);
  return check_done();
}
