// signalfd: reading dequeues pending signals of the mask as 128-byte signalfd_siginfo records (own queue and
// the process's, RT signals in order with their values); poll and epoll see it readable; SFD_NONBLOCK and
// SFD_CLOEXEC; the mask can change; a blocking read parks until a signal comes and a handled signal
// interrupts it; a dup'd descriptor is the same signalfd; a fork child reads its own signals; the errors.
// A process's first signalfd, made while another process keeps signalling it, is readable whenever a
// signal of its mask is pending, and the process still counts one thread.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static int64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int readable(int fd) {
  struct pollfd p = {fd, POLLIN, 0};
  return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

static sigset_t set_of(int a, int b) {
  sigset_t s;
  sigemptyset(&s);
  if (a) sigaddset(&s, a);
  if (b) sigaddset(&s, b);
  return s;
}

static void test_basics(void) {
  sigset_t m = set_of(SIGUSR1, SIGRTMIN);
  REQUIRE_SYS(sigprocmask(SIG_BLOCK, &m, NULL));
  int fd = REQUIRE_SYS(signalfd(-1, &m, SFD_NONBLOCK | SFD_CLOEXEC));
  CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC);
  CHECK(fcntl(fd, F_GETFL) & O_NONBLOCK);
  struct signalfd_siginfo si[4];
  CHECK_ERRNO(read(fd, si, sizeof si), EAGAIN);
  CHECK(!readable(fd));

  CHECK_SYS(kill(getpid(), SIGUSR1));
  CHECK(readable(fd));
  CHECK_EQ(read(fd, si, sizeof si), (ssize_t)sizeof si[0]);
  CHECK_EQ(si[0].ssi_signo, (uint32_t)SIGUSR1);
  CHECK_EQ(si[0].ssi_code, SI_USER);
  CHECK_EQ(si[0].ssi_pid, (uint32_t)getpid());
  CHECK_EQ(si[0].ssi_uid, (uint32_t)getuid());
  CHECK(!readable(fd));
  sigset_t pending;
  sigpending(&pending);
  CHECK(!sigismember(&pending, SIGUSR1));

  // RT signals queue: one read takes them in order, each with its value.
  for (int i = 1; i <= 3; i++) CHECK_SYS(sigqueue(getpid(), SIGRTMIN, (union sigval){.sival_int = i}));
  CHECK_EQ(read(fd, si, sizeof si), (ssize_t)(3 * sizeof si[0]));
  for (int i = 0; i < 3; i++) {
    CHECK_EQ(si[i].ssi_signo, (uint32_t)SIGRTMIN);
    CHECK_EQ(si[i].ssi_code, SI_QUEUE);
    CHECK_EQ(si[i].ssi_int, i + 1);
    CHECK_EQ(si[i].ssi_pid, (uint32_t)getpid());
  }
  CHECK_ERRNO(read(fd, si, sizeof si[0] - 1), EINVAL);

  // A dup'd descriptor is the same signalfd.
  int fd2 = CHECK_SYS(dup(fd));
  CHECK_SYS(raise(SIGUSR1));
  CHECK(readable(fd2));
  CHECK_EQ(read(fd2, si, sizeof si), (ssize_t)sizeof si[0]);
  CHECK_EQ(si[0].ssi_code, SI_TKILL);
  close(fd2);

  // A new mask: SIGUSR1 stays pending but is no longer this fd's; SIGUSR2 is.
  sigset_t m2 = set_of(SIGUSR2, 0);
  REQUIRE_SYS(sigprocmask(SIG_BLOCK, &m2, NULL));
  CHECK_EQ(signalfd(fd, &m2, 0), fd);
  CHECK_SYS(kill(getpid(), SIGUSR1));
  CHECK(!readable(fd));
  CHECK_ERRNO(read(fd, si, sizeof si), EAGAIN);
  CHECK_SYS(kill(getpid(), SIGUSR2));
  CHECK_EQ(read(fd, si, sizeof si), (ssize_t)sizeof si[0]);
  CHECK_EQ(si[0].ssi_signo, (uint32_t)SIGUSR2);
  struct timespec zero = {0, 0};
  CHECK_EQ(sigtimedwait(&m, NULL, &zero), SIGUSR1);  // still pending for everyone else
  close(fd);
}

static void test_errors(void) {
  sigset_t m = set_of(SIGUSR1, 0);
  int p[2];
  REQUIRE_SYS(pipe(p));
  CHECK_ERRNO(signalfd(p[0], &m, 0), EINVAL);  // not a signalfd
  CHECK_ERRNO(signalfd(999, &m, 0), EBADF);
  CHECK_ERRNO(signalfd(-1, &m, 0x10), EINVAL);
  // qemu-aarch64 7.2 does not check the mask size (do_signalfd4 converts a whole target sigset).
  if (!on_reference_qemu()) CHECK_ERRNO(syscall(SYS_signalfd4, -1, &m, 4, 0), EINVAL);
  CHECK_ERRNO(syscall(SYS_signalfd4, -1, (void*)8, 8, 0), EFAULT);
  close(p[0]);
  close(p[1]);
  // SIGKILL and SIGSTOP in the mask are dropped silently.
  sigset_t all;
  sigfillset(&all);
  int fd = CHECK_SYS(signalfd(-1, &all, SFD_NONBLOCK));
  close(fd);
}

struct reader {
  int fd;
  ssize_t got;
  int err;
  uint32_t signo;
  int64_t returned_ns;
};

static void* reader_main(void* arg) {
  struct reader* r = arg;
  struct signalfd_siginfo si;
  r->got = read(r->fd, &si, sizeof si);
  r->err = errno;
  r->signo = si.ssi_signo;
  r->returned_ns = mono_ns();
  return NULL;
}

static volatile sig_atomic_t g_handled;
static void on_usr2(int sig) {
  (void)sig;
  g_handled++;
}

// A blocking read parks until a signal of its mask arrives; a handled signal ends the wait with EINTR.
static void test_blocking(void) {
  sigset_t m = set_of(SIGUSR1, 0);
  REQUIRE_SYS(sigprocmask(SIG_BLOCK, &m, NULL));
  int fd = REQUIRE_SYS(signalfd(-1, &m, 0));
  struct reader r = {fd, 0, 0, 0, 0};
  pthread_t th;
  REQUIRE(pthread_create(&th, NULL, reader_main, &r) == 0);
  struct timespec nap = {0, 50000000};
  nanosleep(&nap, NULL);
  const int64_t sent = mono_ns();
  CHECK_SYS(kill(getpid(), SIGUSR1));
  pthread_join(th, NULL);
  CHECK_EQ(r.got, (ssize_t)sizeof(struct signalfd_siginfo));
  CHECK_EQ(r.signo, (uint32_t)SIGUSR1);
  CHECK_GE(r.returned_ns, sent);
  CHECK_LT(r.returned_ns - sent, 5000 * 1000000LL);

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr2;  // no SA_RESTART
  CHECK_SYS(sigaction(SIGUSR2, &sa, NULL));
  sigset_t u2 = set_of(SIGUSR2, 0);
  CHECK_SYS(sigprocmask(SIG_UNBLOCK, &u2, NULL));
  r = (struct reader){fd, 0, 0, 0, 0};
  g_handled = 0;
  REQUIRE(pthread_create(&th, NULL, reader_main, &r) == 0);
  nanosleep(&nap, NULL);
  // The main thread blocks SIGUSR2 for a moment so the reader is the one to take it.
  CHECK_SYS(sigprocmask(SIG_BLOCK, &u2, NULL));
  CHECK_SYS(kill(getpid(), SIGUSR2));
  pthread_join(th, NULL);
  CHECK_EQ(r.got, -1);
  CHECK_EQ(r.err, EINTR);
  CHECK_EQ(g_handled, 1);
  close(fd);
}

// The fork child's signalfd reads the child's signals; the parent's does not see them.
static void test_fork(void) {
  sigset_t m = set_of(SIGUSR1, 0);
  REQUIRE_SYS(sigprocmask(SIG_BLOCK, &m, NULL));
  int fd = REQUIRE_SYS(signalfd(-1, &m, SFD_NONBLOCK));
  int go[2];
  REQUIRE_SYS(pipe(go));
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    char c;
    if (read(go[0], &c, 1) != 1) _exit(1);
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, 5000) != 1) _exit(2);
    struct signalfd_siginfo si;
    if (read(fd, &si, sizeof si) != sizeof si) _exit(3);
    if (si.ssi_signo != SIGUSR1 || si.ssi_pid != (uint32_t)parent) _exit(4);
    _exit(0);
  }
  CHECK_SYS(kill(pid, SIGUSR1));
  CHECK_EQ(write(go[1], "x", 1), 1);
  int status;
  CHECK_EQ(waitpid(pid, &status, 0), pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK(!readable(fd));

  // epoll sees the parent's own signal.
  int ep = CHECK_SYS(epoll_create1(0));
  struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd}, out;
  CHECK_SYS(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev));
  CHECK_EQ(epoll_wait(ep, &out, 1, 0), 0);
  CHECK_SYS(kill(getpid(), SIGUSR1));
  CHECK_EQ(epoll_wait(ep, &out, 1, 5000), 1);
  CHECK_EQ(out.data.fd, fd);
  struct signalfd_siginfo si;
  CHECK_EQ(read(fd, &si, sizeof si), (ssize_t)sizeof si);
  close(ep);
  close(fd);
  close(go[0]);
  close(go[1]);
}

// Threads: in /proc/self/status, -1 when it cannot be read.
static int status_threads(void) {
  FILE* f = fopen("/proc/self/status", "r");
  if (f == NULL) return -1;
  char line[256];
  int n = -1;
  while (fgets(line, sizeof line, f) != NULL) {
    if (strncmp(line, "Threads:", 8) == 0) n = atoi(line + 8);
  }
  fclose(f);
  return n;
}

// One round, in a fork child that has made no signalfd: a sender process kills it with SIGUSR1 (blocked)
// in a loop; after `delay_us` of that it makes its first signalfd, and from then on each look that finds
// SIGUSR1 pending finds the signalfd readable too. Its exit status: 0, or the failed step.
static int first_signalfd_round(int delay_us) {
  const pid_t me = getpid();
  const pid_t sender = fork();
  if (sender < 0) return 1;
  if (sender == 0) {
    while (kill(me, SIGUSR1) == 0) {
    }
    _exit(0);
  }
  const int64_t until = mono_ns() + (int64_t)delay_us * 1000;
  while (mono_ns() < until) {
  }
  sigset_t m = set_of(SIGUSR1, 0);
  const int fd = signalfd(-1, &m, SFD_NONBLOCK);
  int bad = fd < 0 ? 2 : 0;
  // qemu-aarch64 7.2 runs an RCU thread of its own in every process, which its /proc shows (Threads: 2).
  if (bad == 0 && !on_reference_qemu() && status_threads() != 1) bad = 3;
  for (int i = 0; bad == 0 && i < 500; i++) {
    sigset_t pending;
    sigpending(&pending);
    if (sigismember(&pending, SIGUSR1) && !readable(fd)) bad = 4;
    struct signalfd_siginfo si;
    if (i % 2 == 1 && read(fd, &si, sizeof si) == (ssize_t)sizeof si && si.ssi_signo != SIGUSR1) bad = 5;
  }
  // Drained, it becomes readable again: the sender goes on.
  struct signalfd_siginfo si;
  while (bad == 0 && read(fd, &si, sizeof si) > 0) {
  }
  struct pollfd p = {fd, POLLIN, 0};
  if (bad == 0 && poll(&p, 1, 5000) != 1) bad = 6;
  kill(sender, SIGKILL);
  waitpid(sender, NULL, 0);
  return bad;
}

static void test_first_signalfd(void) {
  sigset_t m = set_of(SIGUSR1, 0);
  REQUIRE_SYS(sigprocmask(SIG_BLOCK, &m, NULL));
  for (int round = 0; round < 12; round++) {
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) _exit(first_signalfd_round(round * 300));
    int status;
    CHECK_EQ(waitpid(pid, &status, 0), pid);
    CHECK(WIFEXITED(status));
    if (WEXITSTATUS(status) != 0) NOTE("round %d failed at step %d", round, WEXITSTATUS(status));
    CHECK_EQ(WEXITSTATUS(status), 0);
  }
  REQUIRE_SYS(sigprocmask(SIG_UNBLOCK, &m, NULL));
}

int main(void) {
  test_first_signalfd();  // first: this process has no signalfd yet, nor have its fork children
  test_basics();
  test_errors();
  test_blocking();
  test_fork();
  return check_done();
}
