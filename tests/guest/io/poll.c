// Tests poll, ppoll, select and pselect on pipes: readiness (POLLIN, POLLOUT, POLLHUP, POLLNVAL, negative fds
// ignored), timeouts bounded both ways (never early, not much late), zero timeouts, the time left that select
// and the raw pselect6 write back, select's fd sets (results, EBADF for a closed fd, bits past nfds
// ignored), and ppoll's and pselect's temporary signal mask: a signal it unblocks interrupts the wait and
// runs its handler, the old mask is back afterwards (also after a restart caused by an ignored signal), and
// when the wait ends with a ready fd the signal stays pending (Linux restores the mask before it would be
// delivered).
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static volatile sig_atomic_t handled;
static void on_usr1(int sig) {
  (void)sig;
  handled++;
}

static void test_poll_readiness(void) {
  int p[2];
  REQUIRE_SYS(pipe(p));
  struct pollfd fds[3] = {{p[0], POLLIN, 0}, {p[1], POLLOUT, 0}, {-1, POLLIN, 0x7777}};
  CHECK_EQ(poll(fds, 3, 0), 1);  // only the write end is ready; the negative fd is ignored
  CHECK_EQ(fds[0].revents, 0);
  CHECK_EQ(fds[1].revents, POLLOUT);
  CHECK_EQ(fds[2].revents, 0);
  CHECK_EQ(write(p[1], "x", 1), 1);
  CHECK_EQ(poll(fds, 2, 0), 2);
  CHECK_EQ(fds[0].revents, POLLIN);
  close(p[1]);
  CHECK_EQ(poll(fds, 1, 0), 1);
  CHECK_EQ(fds[0].revents, POLLIN | POLLHUP);
  char c;
  CHECK_EQ(read(p[0], &c, 1), 1);
  CHECK_EQ(poll(fds, 1, 1000), 1);  // hang-up alone still ends the wait at once
  CHECK_EQ(fds[0].revents, POLLHUP);
  close(p[0]);
  struct pollfd closed = {p[0], POLLIN, 0};
  CHECK_EQ(poll(&closed, 1, 1000), 1);
  CHECK_EQ(closed.revents, POLLNVAL);
}

static void test_poll_timeouts(void) {
  int p[2];
  REQUIRE_SYS(pipe(p));
  struct pollfd fd = {p[0], POLLIN, 0};
  double t0 = now_ms();
  CHECK_EQ(poll(&fd, 1, 150), 0);
  double waited = now_ms() - t0;
  CHECK_GE(waited, 149);
  CHECK_LT(waited, 2000);

  // ppoll: nanosecond timeout, and the glibc wrapper leaves the caller's timespec alone.
  struct timespec ts = {0, 120 * 1000000L};
  t0 = now_ms();
  CHECK_EQ(ppoll(&fd, 1, &ts, NULL), 0);
  waited = now_ms() - t0;
  CHECK_GE(waited, 119);
  CHECK_LT(waited, 2000);

  // The raw syscall writes the time left back: all of it used, so zero.
  struct timespec raw = {0, 50 * 1000000L};
  CHECK_EQ(syscall(SYS_ppoll, &fd, 1, &raw, NULL, 8), 0);
  CHECK_EQ(raw.tv_sec, 0);
  CHECK_EQ(raw.tv_nsec, 0);
  // Ready at once: nearly all of a long timeout is left.
  CHECK_EQ(write(p[1], "y", 1), 1);
  struct timespec big = {5, 0};
  CHECK_EQ(syscall(SYS_ppoll, &fd, 1, &big, NULL, 8), 1);
  CHECK(big.tv_sec == 4 || big.tv_sec == 5);
  struct timespec bad = {0, 1000000000L};
  CHECK_ERRNO(syscall(SYS_ppoll, &fd, 1, &bad, NULL, 8), EINVAL);
  CHECK_ERRNO(syscall(SYS_ppoll, (void*)8, 1, &raw, NULL, 8), EFAULT);
  close(p[0]);
  close(p[1]);
}

// A writer thread makes the pipe readable after a delay: poll wakes then, not at its timeout.
static int wake_fd;
static void* write_later(void* arg) {
  usleep((useconds_t)(intptr_t)arg * 1000);
  if (write(wake_fd, "w", 1) != 1) abort();
  return NULL;
}

static void test_poll_wakes_on_data(void) {
  int p[2];
  REQUIRE_SYS(pipe(p));
  wake_fd = p[1];
  pthread_t th;
  double t0 = now_ms();  // before the writer starts its delay, which may begin before pthread_create returns
  REQUIRE(pthread_create(&th, NULL, write_later, (void*)(intptr_t)100) == 0);
  struct pollfd fd = {p[0], POLLIN, 0};
  CHECK_EQ(poll(&fd, 1, 10000), 1);
  double waited = now_ms() - t0;
  CHECK_GE(waited, 90);
  CHECK_LT(waited, 5000);
  pthread_join(th, NULL);
  close(p[0]);
  close(p[1]);
}

static void test_select(void) {
  int p[2], q[2];
  REQUIRE_SYS(pipe(p));
  REQUIRE_SYS(pipe(q));
  fd_set rd, wr;
  FD_ZERO(&rd);
  FD_ZERO(&wr);
  FD_SET(p[0], &rd);
  FD_SET(q[0], &rd);
  FD_SET(p[1], &wr);
  CHECK_EQ(write(q[1], "z", 1), 1);
  struct timeval tv = {1, 0};
  int maxfd = p[0] > q[0] ? p[0] : q[0];
  if (p[1] > maxfd) maxfd = p[1];
  CHECK_EQ(select(maxfd + 1, &rd, &wr, NULL, &tv), 2);
  CHECK(!FD_ISSET(p[0], &rd));
  CHECK(FD_ISSET(q[0], &rd));
  CHECK(FD_ISSET(p[1], &wr));
  CHECK(tv.tv_sec == 0 || tv.tv_sec == 1);  // select (pselect6 underneath) writes back the time left

  // Timeout: the sets come back empty and the whole timeout has been used.
  FD_ZERO(&rd);
  FD_SET(p[0], &rd);
  tv.tv_sec = 0;
  tv.tv_usec = 130000;
  double t0 = now_ms();
  CHECK_EQ(select(p[0] + 1, &rd, NULL, NULL, &tv), 0);
  double waited = now_ms() - t0;
  CHECK_GE(waited, 129);
  CHECK_LT(waited, 2000);
  CHECK(!FD_ISSET(p[0], &rd));
  CHECK_EQ(tv.tv_sec, 0);
  CHECK_EQ(tv.tv_usec, 0);

  // A closed fd in a set is EBADF; a set bit at or past nfds is not looked at.
  int closed = dup(p[0]);
  close(closed);
  FD_ZERO(&rd);
  FD_SET(closed, &rd);
  tv.tv_sec = 0;
  tv.tv_usec = 0;
  CHECK_ERRNO(select(closed + 1, &rd, NULL, NULL, &tv), EBADF);
  FD_ZERO(&rd);
  FD_SET(q[0], &rd);
  CHECK_EQ(select(q[0], &rd, NULL, NULL, &tv), 0);
  CHECK_ERRNO(select(-1, NULL, NULL, NULL, &tv), EINVAL);

  // pselect: timespec timeout, which the glibc wrapper does not write back.
  struct timespec ts = {0, 80 * 1000000L};
  FD_ZERO(&rd);
  FD_SET(p[0], &rd);
  t0 = now_ms();
  CHECK_EQ(pselect(p[0] + 1, &rd, NULL, NULL, &ts, NULL), 0);
  CHECK_GE(now_ms() - t0, 79);
  CHECK_EQ(ts.tv_nsec, 80 * 1000000L);
  close(p[0]);
  close(p[1]);
  close(q[0]);
  close(q[1]);
}

static void* kill_later(void* arg) {
  usleep(100 * 1000);
  pthread_kill((pthread_t)arg, SIGUSR1);
  return NULL;
}

// ppoll/pselect with a temporary mask: SIGUSR1 is blocked around the calls and let through only by them.
static void test_temporary_masks(void) {
  struct sigaction sa = {0};
  sa.sa_handler = on_usr1;
  REQUIRE_SYS(sigaction(SIGUSR1, &sa, NULL));
  sigset_t usr1, none, cur;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  sigemptyset(&none);
  REQUIRE_SYS(sigprocmask(SIG_BLOCK, &usr1, NULL));
  int p[2];
  REQUIRE_SYS(pipe(p));
  struct pollfd fd = {p[0], POLLIN, 0};

  // The signal arrives during the wait: EINTR, the handler ran, SIGUSR1 is blocked again.
  handled = 0;
  pthread_t th;
  double t0 = now_ms();
  REQUIRE(pthread_create(&th, NULL, kill_later, (void*)pthread_self()) == 0);
  CHECK_ERRNO(ppoll(&fd, 1, NULL, &none), EINTR);
  CHECK_GE(now_ms() - t0, 90);
  pthread_join(th, NULL);
  CHECK_EQ(handled, 1);
  sigprocmask(SIG_BLOCK, NULL, &cur);
  CHECK(sigismember(&cur, SIGUSR1));

  // Already pending: EINTR at once.
  handled = 0;
  raise(SIGUSR1);
  struct timespec ts = {5, 0};
  CHECK_ERRNO(ppoll(&fd, 1, &ts, &none), EINTR);
  CHECK_EQ(handled, 1);

  // Pending, but an fd is ready: the fd wins and the signal stays pending under the restored mask.
  handled = 0;
  raise(SIGUSR1);
  CHECK_EQ(write(p[1], "r", 1), 1);
  CHECK_EQ(ppoll(&fd, 1, &ts, &none), 1);
  CHECK_EQ(handled, 0);
  sigset_t pending;
  sigpending(&pending);
  CHECK(sigismember(&pending, SIGUSR1));
  sigprocmask(SIG_UNBLOCK, &usr1, NULL);  // delivered here
  CHECK_EQ(handled, 1);
  sigprocmask(SIG_BLOCK, &usr1, NULL);

  // pselect with the same temporary mask.
  char c;
  CHECK_EQ(read(p[0], &c, 1), 1);
  handled = 0;
  REQUIRE(pthread_create(&th, NULL, kill_later, (void*)pthread_self()) == 0);
  fd_set rd;
  FD_ZERO(&rd);
  FD_SET(p[0], &rd);
  CHECK_ERRNO(pselect(p[0] + 1, &rd, NULL, NULL, NULL, &none), EINTR);
  pthread_join(th, NULL);
  CHECK_EQ(handled, 1);
  sigprocmask(SIG_BLOCK, NULL, &cur);
  CHECK(sigismember(&cur, SIGUSR1));
  // A bad sigset size is EINVAL.
  CHECK_ERRNO(syscall(SYS_ppoll, &fd, 1, &ts, &none, 4), EINVAL);

  // A pending signal whose action is to ignore it ends the wait without a handler, so ppoll restarts with
  // its temporary mask; the mask that comes back after the handler of a later signal is still the old one.
  sigset_t both;
  sigemptyset(&both);
  sigaddset(&both, SIGURG);
  sigaddset(&both, SIGUSR1);
  REQUIRE_SYS(sigprocmask(SIG_BLOCK, &both, NULL));
  raise(SIGURG);
  handled = 0;
  REQUIRE(pthread_create(&th, NULL, kill_later, (void*)pthread_self()) == 0);
  CHECK_ERRNO(ppoll(NULL, 0, NULL, &none), EINTR);
  pthread_join(th, NULL);
  CHECK_EQ(handled, 1);
  sigprocmask(SIG_BLOCK, NULL, &cur);
  CHECK(sigismember(&cur, SIGURG));
  CHECK(sigismember(&cur, SIGUSR1));
  sigprocmask(SIG_UNBLOCK, &both, NULL);

  close(p[0]);
  close(p[1]);
}

int main(void) {
  test_poll_readiness();
  test_poll_timeouts();
  test_poll_wakes_on_data();
  test_select();
  test_temporary_masks();
  return check_done();
}
