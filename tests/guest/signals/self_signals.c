// Signals the kernel sends a process during its own system call are pending before the call returns, so
// the handler has run when the call's caller goes on: dnotify (F_NOTIFY) for a chmod in the watched
// directory, and O_ASYNC (F_SETOWN to the process) for a write to its own pipe. Every one of many rounds
// must find the handler's count already up.
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

enum { kRounds = 300 };

static volatile sig_atomic_t notified, io;
static void on_notify(int sig) {
  (void)sig;
  notified = notified + 1;
}
static void on_io(int sig) {
  (void)sig;
  io = io + 1;
}

static void test_dnotify(void) {
  char dir[] = "/tmp/a64run-dnotify-XXXXXX";
  REQUIRE(mkdtemp(dir) != NULL);
  char file[64];
  snprintf(file, sizeof file, "%s/f", dir);
  const int f = open(file, O_CREAT | O_WRONLY, 0600);
  REQUIRE_SYS(f);
  close(f);
  const int d = open(dir, O_RDONLY | O_DIRECTORY);
  REQUIRE_SYS(d);
  struct sigaction sa = {0};
  sa.sa_handler = on_notify;
  REQUIRE_SYS(sigaction(SIGRTMIN + 3, &sa, NULL));
  REQUIRE_SYS(fcntl(d, F_SETSIG, SIGRTMIN + 3));
  REQUIRE_SYS(fcntl(d, F_NOTIFY, DN_ATTRIB | DN_MULTISHOT));
  int late = 0;
  for (int i = 0; i < kRounds; i++) {
    const sig_atomic_t before = notified;
    REQUIRE_SYS(chmod(file, (i & 1) ? 0600 : 0640));
    late += notified == before;
  }
  CHECK_EQ(late, 0);
  close(d);
  unlink(file);
  rmdir(dir);
}

static void test_async_pipe(void) {
  int p[2];
  REQUIRE_SYS(pipe(p));
  struct sigaction sa = {0};
  sa.sa_handler = on_io;
  REQUIRE_SYS(sigaction(SIGIO, &sa, NULL));
  REQUIRE_SYS(fcntl(p[0], F_SETOWN, getpid()));
  REQUIRE_SYS(fcntl(p[0], F_SETFL, O_ASYNC | O_NONBLOCK));
  int late = 0;
  char c;
  for (int i = 0; i < kRounds; i++) {
    const sig_atomic_t before = io;
    REQUIRE(write(p[1], "x", 1) == 1);
    late += io == before;
    REQUIRE(read(p[0], &c, 1) == 1);
  }
  CHECK_EQ(late, 0);
  close(p[0]);
  close(p[1]);
}

int main(void) {
  test_dnotify();
  test_async_pipe();
  return check_done();
}
