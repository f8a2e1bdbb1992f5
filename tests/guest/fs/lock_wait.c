// Waiting for a file lock (flock LOCK_EX, fcntl F_SETLKW and F_OFD_SETLKW) is interruptible: a signal
// with a handler ends the wait with EINTR, and under SA_RESTART the wait goes on and gets the lock once the
// holder lets go, as on Linux.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static volatile sig_atomic_t got;
static void on_usr1(int sig) {
  (void)sig;
  got++;
}

enum { kFlock, kSetlkw, kOfdSetlkw };

// Takes the lock on fd in the way `kind` says; blocks while another holder has it.
static int take(int fd, int kind) {
  if (kind == kFlock) return flock(fd, LOCK_EX);
  struct flock fl = {0};
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  return fcntl(fd, kind == kSetlkw ? F_SETLKW : F_OFD_SETLKW, &fl);
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

// The holder (the parent's lock, or a child's for the fcntl kinds, which are per process) keeps the lock
// while a child waits for it and gets SIGUSR1. Child exit: 0 when the wait ended as expected, else a code.
static void run(const char* path, int kind, int restart) {
  int hold = open(path, O_RDWR);
  REQUIRE(hold >= 0);
  pid_t holder = -1;
  int ready[2];
  REQUIRE(pipe(ready) == 0);
  if (kind == kSetlkw) {
    // A process's POSIX locks never conflict with its own: a separate holder.
    holder = fork();
    if (holder == 0) {
      if (take(hold, kind) != 0) _exit(1);
      (void)!write(ready[1], "h", 1);
      pause();
      _exit(0);
    }
    char c;
    REQUIRE(read(ready[0], &c, 1) == 1);
  } else {
    REQUIRE(take(hold, kind) == 0);
  }
  pid_t waiter = fork();
  if (waiter == 0) {
    close(hold);  // the holder's open file (flock and OFD locks belong to it) stays the parent's alone
    struct sigaction sa = {0};
    sa.sa_handler = on_usr1;
    sa.sa_flags = restart ? SA_RESTART : 0;
    sigaction(SIGUSR1, &sa, NULL);
    const int fd = open(path, O_RDWR);
    if (fd < 0) _exit(2);
    (void)!write(ready[1], "w", 1);
    const int r = take(fd, kind);
    if (restart) _exit(r == 0 && got == 1 ? 0 : 3);
    _exit(r == -1 && errno == EINTR && got == 1 ? 0 : 4);
  }
  char c;
  REQUIRE(read(ready[0], &c, 1) == 1);
  usleep(200 * 1000);  // the waiter is in its wait
  CHECK_EQ(kill(waiter, SIGUSR1), 0);
  const double start = now();
  int status = 0;
  if (restart) {
    // Still waiting after the handler: it gets the lock when the holder lets go.
    usleep(200 * 1000);
    CHECK_EQ(waitpid(waiter, &status, WNOHANG), 0);
    if (holder > 0) {
      kill(holder, SIGKILL);
      waitpid(holder, NULL, 0);
      holder = -1;
    } else {
      close(hold);
      hold = -1;
    }
  }
  CHECK_EQ(waitpid(waiter, &status, 0), waiter);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK_LT(now() - start, 5.0);
  if (holder > 0) {
    kill(holder, SIGKILL);
    waitpid(holder, NULL, 0);
  }
  if (hold >= 0) close(hold);
  close(ready[0]);
  close(ready[1]);
}

int main(void) {
  char path[] = "/tmp/a64run_lock_wait.XXXXXX";
  int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  close(fd);
  for (int kind = kFlock; kind <= kOfdSetlkw; kind++) {
    run(path, kind, 0);
    run(path, kind, 1);
  }
  unlink(path);
  return check_done();
}
