// Tests a guest signal ending blocking I/O waits, with the restart rules of Linux. A helper thread sends
// SIGUSR1 to the blocked thread after 100 ms and, for calls that should restart, makes the call able to
// complete 100 ms later. Without SA_RESTART: read, readv, writev, recv, send, accept, connect, poll, select
// and epoll_wait fail with EINTR. With SA_RESTART: read, readv, writev, recv, send, accept and connect
// restart and complete; poll, select and epoll_wait still fail with EINTR (never restarted); a recv or read
// on a socket with SO_RCVTIMEO fails with EINTR too (sock_intr_errno), and with EAGAIN at the timeout. Each
// case checks that the handler ran once and that the wait really blocked.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/select.h>
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

static void set_handler(int restart) {
  struct sigaction sa = {0};
  sa.sa_handler = on_usr1;
  sa.sa_flags = restart ? SA_RESTART : 0;
  REQUIRE_SYS(sigaction(SIGUSR1, &sa, NULL));
}

// The helper: signal `target` after 100 ms, then run `unblock` (if any) 100 ms later.
struct Helper {
  pthread_t target;
  void (*unblock)(void);
  pthread_t thread;
  double started;  // before the helper starts its delay, which may begin before pthread_create returns
};

static void* helper_main(void* arg) {
  struct Helper* h = arg;
  usleep(100 * 1000);
  pthread_kill(h->target, SIGUSR1);
  if (h->unblock) {
    usleep(100 * 1000);
    h->unblock();
  }
  return NULL;
}

static struct Helper* start_helper(void (*unblock)(void)) {
  static struct Helper h;
  h.target = pthread_self();
  h.unblock = unblock;
  handled = 0;
  h.started = now_ms();
  REQUIRE(pthread_create(&h.thread, NULL, helper_main, &h) == 0);
  return &h;
}

// Joins the helper and checks the handler ran once and the call blocked for at least `min_ms`.
static void finish(struct Helper* h, double t0, double min_ms, const char* what) {
  double waited = now_ms() - t0;
  pthread_join(h->thread, NULL);
  if (!CHECK_EQ(handled, 1) | !CHECK_GE(waited, min_ms) | !CHECK_LT(waited, 5000)) NOTE("in %s", what);
}

static int pipe_fds[2];
static int sock_pair[2];
static uint16_t listen_port;

static void write_pipe(void) {
  if (write(pipe_fds[1], "p", 1) != 1) abort();
}
static void send_sock(void) {
  if (send(sock_pair[1], "s", 1, 0) != 1) abort();
}
static void drain_sock(void) {
  char buf[65536];
  while (recv(sock_pair[1], buf, sizeof buf, MSG_DONTWAIT) > 0) {
  }
}
static void connect_listener(void) {
  int c = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  a.sin_port = htons(listen_port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(c, (struct sockaddr*)&a, sizeof a) != 0) abort();
  // Left open: the accepted side is checked, then both are closed by exit.
}

static int make_listener(void) {
  int s = REQUIRE_SYS(socket(AF_INET, SOCK_STREAM, 0));
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE_SYS(bind(s, (struct sockaddr*)&a, sizeof a));
  REQUIRE_SYS(listen(s, 4));
  socklen_t len = sizeof a;
  REQUIRE_SYS(getsockname(s, (struct sockaddr*)&a, &len));
  listen_port = ntohs(a.sin_port);
  return s;
}

// Fills sock_pair[0]'s send path so that the next blocking send waits.
static void fill_socket(void) {
  static char junk[65536];
  int fl = fcntl(sock_pair[0], F_GETFL);
  fcntl(sock_pair[0], F_SETFL, fl | O_NONBLOCK);
  while (send(sock_pair[0], junk, sizeof junk, 0) > 0) {
  }
  fcntl(sock_pair[0], F_SETFL, fl);
}

static void test_read_and_recv(int restart) {
  char c;
  struct Helper* h = start_helper(restart ? write_pipe : NULL);
  double t0 = h->started;
  if (restart) {
    CHECK_EQ(read(pipe_fds[0], &c, 1), 1);
  } else {
    CHECK_ERRNO(read(pipe_fds[0], &c, 1), EINTR);
  }
  finish(h, t0, restart ? 190 : 90, "read");

  struct iovec iov = {&c, 1};
  h = start_helper(restart ? write_pipe : NULL);
  t0 = h->started;
  if (restart) {
    CHECK_EQ(readv(pipe_fds[0], &iov, 1), 1);
  } else {
    CHECK_ERRNO(readv(pipe_fds[0], &iov, 1), EINTR);
  }
  finish(h, t0, restart ? 190 : 90, "readv");

  h = start_helper(restart ? send_sock : NULL);
  t0 = h->started;
  if (restart) {
    CHECK_EQ(recv(sock_pair[0], &c, 1, 0), 1);
  } else {
    CHECK_ERRNO(recv(sock_pair[0], &c, 1, 0), EINTR);
  }
  finish(h, t0, restart ? 190 : 90, "recv");

  // With a receive timeout the call is never restarted.
  struct timeval tv = {3, 0};
  CHECK_SYS(setsockopt(sock_pair[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv));
  h = start_helper(NULL);
  t0 = h->started;
  CHECK_ERRNO(recv(sock_pair[0], &c, 1, 0), EINTR);
  finish(h, t0, 90, "recv with SO_RCVTIMEO");
  h = start_helper(NULL);
  t0 = h->started;
  CHECK_ERRNO(read(sock_pair[0], &c, 1), EINTR);
  finish(h, t0, 90, "read with SO_RCVTIMEO");
  // The timeout itself: -EAGAIN after it.
  struct timeval short_tv = {0, 100000};
  CHECK_SYS(setsockopt(sock_pair[0], SOL_SOCKET, SO_RCVTIMEO, &short_tv, sizeof short_tv));
  t0 = now_ms();
  CHECK_ERRNO(read(sock_pair[0], &c, 1), EAGAIN);
  CHECK_GE(now_ms() - t0, 90);
  CHECK_LT(now_ms() - t0, 5000);
  struct timeval none = {0, 0};
  CHECK_SYS(setsockopt(sock_pair[0], SOL_SOCKET, SO_RCVTIMEO, &none, sizeof none));
}

static void test_send(int restart) {
  fill_socket();
  static char data[200000];
  struct Helper* h = start_helper(restart ? drain_sock : NULL);
  double t0 = h->started;
  if (restart) {
    // The reader drains once; a send larger than the buffers may still be partly pending, so drain on.
    ssize_t n = send(sock_pair[0], data, 1000, 0);
    CHECK_EQ(n, 1000);
  } else {
    CHECK_ERRNO(send(sock_pair[0], data, sizeof data, 0), EINTR);
  }
  finish(h, t0, restart ? 190 : 90, "send");
  drain_sock();

  fill_socket();
  struct iovec iov = {data, 1000};
  h = start_helper(restart ? drain_sock : NULL);
  t0 = h->started;
  if (restart) {
    CHECK_EQ(writev(sock_pair[0], &iov, 1), 1000);
  } else {
    CHECK_ERRNO(writev(sock_pair[0], &iov, 1), EINTR);
  }
  finish(h, t0, restart ? 190 : 90, "writev");
  drain_sock();
}

static void test_accept(int restart) {
  int ls = make_listener();
  struct Helper* h = start_helper(restart ? connect_listener : NULL);
  double t0 = h->started;
  if (restart) {
    int s = accept(ls, NULL, NULL);
    CHECK_GE(s, 0);
    close(s);
  } else {
    CHECK_ERRNO(accept(ls, NULL, NULL), EINTR);
  }
  finish(h, t0, restart ? 190 : 90, "accept");
  close(ls);
}

// A blocking TCP connect waits for the handshake. A listener with backlog 0 holding one unaccepted connection
// drops further SYNs, so a second connect stays in SYN_SENT. With SA_RESTART the restarted connect keeps
// waiting; once the helper accepts the first connection, the next SYN retransmission (after about 1 s) gets
// through and the connect completes.
static int full_listener = -1;
static void accept_queued(void) {
  int s = accept(full_listener, NULL, NULL);
  if (s < 0) abort();
}

static void test_connect(int restart) {
  full_listener = REQUIRE_SYS(socket(AF_INET, SOCK_STREAM, 0));
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE_SYS(bind(full_listener, (struct sockaddr*)&a, sizeof a));
  REQUIRE_SYS(listen(full_listener, 0));
  socklen_t len = sizeof a;
  REQUIRE_SYS(getsockname(full_listener, (struct sockaddr*)&a, &len));
  int first = REQUIRE_SYS(socket(AF_INET, SOCK_STREAM, 0));
  REQUIRE_SYS(connect(first, (struct sockaddr*)&a, sizeof a));
  usleep(20 * 1000);
  int second = REQUIRE_SYS(socket(AF_INET, SOCK_STREAM, 0));
  struct Helper* h = start_helper(restart ? accept_queued : NULL);
  double t0 = h->started;
  if (restart) {
    CHECK_SYS(connect(second, (struct sockaddr*)&a, sizeof a));
  } else {
    CHECK_ERRNO(connect(second, (struct sockaddr*)&a, sizeof a), EINTR);
  }
  finish(h, t0, restart ? 190 : 90, "connect");
  CHECK_EQ(fcntl(second, F_GETFL) & O_NONBLOCK, 0);  // still a blocking socket
  close(first);
  close(second);
  close(full_listener);
}

// poll, select and epoll_wait end with EINTR whatever SA_RESTART says.
static void test_never_restarted(int restart) {
  struct Helper* h = start_helper(restart ? write_pipe : NULL);
  struct pollfd p = {pipe_fds[0], POLLIN, 0};
  double t0 = h->started;
  CHECK_ERRNO(poll(&p, 1, 10000), EINTR);
  finish(h, t0, 90, "poll");
  char c;
  if (restart) CHECK_EQ(read(pipe_fds[0], &c, 1), 1);

  h = start_helper(restart ? write_pipe : NULL);
  fd_set rd;
  FD_ZERO(&rd);
  FD_SET(pipe_fds[0], &rd);
  t0 = h->started;
  CHECK_ERRNO(select(pipe_fds[0] + 1, &rd, NULL, NULL, NULL), EINTR);
  finish(h, t0, 90, "select");
  if (restart) CHECK_EQ(read(pipe_fds[0], &c, 1), 1);

  int ep = REQUIRE_SYS(epoll_create1(0));
  struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 1};
  CHECK_SYS(epoll_ctl(ep, EPOLL_CTL_ADD, pipe_fds[0], &ev));
  h = start_helper(restart ? write_pipe : NULL);
  t0 = h->started;
  CHECK_ERRNO(epoll_wait(ep, &ev, 1, 10000), EINTR);
  finish(h, t0, 90, "epoll_wait");
  if (restart) CHECK_EQ(read(pipe_fds[0], &c, 1), 1);
  close(ep);
}

int main(void) {
  REQUIRE_SYS(pipe(pipe_fds));
  REQUIRE_SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, sock_pair));
  for (int restart = 0; restart <= 1; restart++) {
    set_handler(restart);
    test_read_and_recv(restart);
    test_send(restart);
    test_accept(restart);
    test_connect(restart);
    test_never_restarted(restart);
  }
  return check_done();
}
