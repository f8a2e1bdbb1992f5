// Tests a guest signal ending the blocking waits of vmsplice(2), of recv(MSG_ERRQUEUE) on an AF_UNIX socket
// (which ignores that flag and waits for data as any receive does), of recv(MSG_OOB) on a UDP socket (which
// ignores that one), and of clock_nanosleep on the process's CPU-time clock, without SA_RESTART: each fails
// with EINTR after really blocking (the sleep writes the CPU time left). A helper thread sends SIGUSR1 to the
// blocked thread after 100 ms and unblocks the call 1.5 s later (a datagram, a drained pipe, CPU time spent),
// so an emulator that misses the signal fails the check instead of hanging. vmsplice waits (and a signal
// ends the wait) on a pipe that is O_NONBLOCK too. Also: vmsplice with
// SPLICE_F_NONBLOCK never waits, recv(MSG_ERRQUEUE) on AF_UNIX receives the data that is there, and on a UDP
// socket with an empty error queue it fails with EAGAIN at once.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/uio.h>
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

struct Helper {
  pthread_t target;
  void (*unblock)(void);
  volatile int returned;  // the call under test returned: nothing to unblock
  pthread_t thread;
};

static void* helper_main(void* arg) {
  struct Helper* h = arg;
  usleep(100 * 1000);
  pthread_kill(h->target, SIGUSR1);
  for (int i = 0; i < 150 && !h->returned; i++) usleep(10 * 1000);
  if (!h->returned) h->unblock();
  return NULL;
}

static void start_helper(struct Helper* h, void (*unblock)(void)) {
  handled = 0;
  h->target = pthread_self();
  h->unblock = unblock;
  h->returned = 0;
  REQUIRE(pthread_create(&h->thread, NULL, helper_main, h) == 0);
}

static int pipe_fds[2];
static char page[4096];

static void drain_pipe(void) {
  char buf[4096];
  const int fl = fcntl(pipe_fds[0], F_GETFL);
  fcntl(pipe_fds[0], F_SETFL, fl | O_NONBLOCK);
  while (read(pipe_fds[0], buf, sizeof buf) > 0) {
  }
  fcntl(pipe_fds[0], F_SETFL, fl);
}

static void fill_pipe(void) {
  const int fl = fcntl(pipe_fds[1], F_GETFL);
  fcntl(pipe_fds[1], F_SETFL, fl | O_NONBLOCK);
  while (write(pipe_fds[1], page, sizeof page) > 0) {
  }
  fcntl(pipe_fds[1], F_SETFL, fl);
}

// With `nonblocking`, the pipe's write end is O_NONBLOCK: vmsplice ignores that (only SPLICE_F_NONBLOCK
// counts, fs/splice.c wait_for_space) and waits all the same, which the signal ends.
static void test_vmsplice(int nonblocking) {
  REQUIRE_SYS(pipe(pipe_fds));
  fill_pipe();
  if (nonblocking) REQUIRE_SYS(fcntl(pipe_fds[1], F_SETFL, O_NONBLOCK));
  struct iovec iov = {page, sizeof page};
  errno = 0;
  CHECK_EQ(vmsplice(pipe_fds[1], &iov, 1, SPLICE_F_NONBLOCK), -1);
  CHECK_EQ(errno, EAGAIN);
  struct Helper h;
  start_helper(&h, drain_pipe);
  const double t0 = now_ms();
  errno = 0;
  const ssize_t r = vmsplice(pipe_fds[1], &iov, 1, 0);
  const double waited = now_ms() - t0;
  h.returned = 1;
  CHECK_EQ(r, -1);
  CHECK_EQ(errno, EINTR);
  CHECK_EQ(handled, 1);
  CHECK_GE(waited, 80);
  CHECK_LT(waited, 1400);
  pthread_join(h.thread, NULL);
  close(pipe_fds[0]);
  close(pipe_fds[1]);
}

static int unix_pair[2];

static void send_one(void) {
  CHECK_EQ(send(unix_pair[1], "late", 4, 0), 4);
}

static void test_unix_errqueue(void) {
  REQUIRE_SYS(socketpair(AF_UNIX, SOCK_DGRAM, 0, unix_pair));
  char buf[16];
  // Data already there: AF_UNIX ignores MSG_ERRQUEUE and receives it.
  CHECK_EQ(send(unix_pair[1], "now", 3, 0), 3);
  CHECK_EQ(recv(unix_pair[0], buf, sizeof buf, MSG_ERRQUEUE), 3);
  CHECK(memcmp(buf, "now", 3) == 0);
  struct Helper h;
  start_helper(&h, send_one);
  const double t0 = now_ms();
  errno = 0;
  const ssize_t r = recv(unix_pair[0], buf, sizeof buf, MSG_ERRQUEUE);
  const double waited = now_ms() - t0;
  h.returned = 1;
  CHECK_EQ(r, -1);
  CHECK_EQ(errno, EINTR);
  CHECK_EQ(handled, 1);
  CHECK_GE(waited, 80);
  CHECK_LT(waited, 1400);
  pthread_join(h.thread, NULL);
  close(unix_pair[0]);
  close(unix_pair[1]);
}

static int udp_fd;
static struct sockaddr_in udp_addr;

static void send_udp(void) {
  const int s = socket(AF_INET, SOCK_DGRAM, 0);
  CHECK_EQ(sendto(s, "late", 4, 0, (struct sockaddr*)&udp_addr, sizeof udp_addr), 4);
  close(s);
}

static void test_udp_oob(void) {
  udp_fd = socket(AF_INET, SOCK_DGRAM, 0);
  REQUIRE_SYS(udp_fd);
  udp_addr.sin_family = AF_INET;
  udp_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE_SYS(bind(udp_fd, (struct sockaddr*)&udp_addr, sizeof udp_addr));
  socklen_t len = sizeof udp_addr;
  REQUIRE_SYS(getsockname(udp_fd, (struct sockaddr*)&udp_addr, &len));
  char buf[16];
  struct Helper h;
  start_helper(&h, send_udp);
  const double t0 = now_ms();
  errno = 0;
  const ssize_t r = recv(udp_fd, buf, sizeof buf, MSG_OOB);
  const double waited = now_ms() - t0;
  h.returned = 1;
  CHECK_EQ(r, -1);
  CHECK_EQ(errno, EINTR);
  CHECK_EQ(handled, 1);
  CHECK_GE(waited, 80);
  CHECK_LT(waited, 1400);
  pthread_join(h.thread, NULL);
  close(udp_fd);
}

static volatile int sleeping;

// Spends CPU time until the sleeper wakes (its request is 1 s of the process's CPU time), at most 4 s.
static void burn_cpu(void) {
  const double t0 = now_ms();
  while (sleeping && now_ms() - t0 < 4000) {
  }
}

static void test_cpu_clock_sleep(void) {
  struct Helper h;
  sleeping = 1;
  start_helper(&h, burn_cpu);
  const struct timespec req = {1, 0};
  struct timespec rem = {0, 0};
  const double t0 = now_ms();
  const int r = clock_nanosleep(CLOCK_PROCESS_CPUTIME_ID, 0, &req, &rem);
  const double waited = now_ms() - t0;
  h.returned = 1;
  sleeping = 0;
  CHECK_EQ(r, EINTR);
  CHECK_EQ(handled, 1);
  CHECK_GE(waited, 80);
  CHECK_LT(waited, 1400);
  CHECK_GT(rem.tv_sec * 1000000000LL + rem.tv_nsec, 500000000LL);
  CHECK_LE(rem.tv_sec * 1000000000LL + rem.tv_nsec, 1000000000LL);
  pthread_join(h.thread, NULL);
}

static void test_udp_errqueue(void) {
  const int s = socket(AF_INET, SOCK_DGRAM, 0);
  REQUIRE_SYS(s);
  char buf[16];
  const double t0 = now_ms();
  errno = 0;
  CHECK_EQ(recv(s, buf, sizeof buf, MSG_ERRQUEUE), -1);
  CHECK_EQ(errno, EAGAIN);
  CHECK_LT(now_ms() - t0, 1000);
  close(s);
}

int main(void) {
  struct sigaction sa = {0};
  sa.sa_handler = on_usr1;
  REQUIRE_SYS(sigaction(SIGUSR1, &sa, NULL));
  test_vmsplice(0);
  test_vmsplice(1);
  test_unix_errqueue();
  test_udp_errqueue();
  test_udp_oob();
  test_cpu_clock_sleep();
  return check_done();
}
