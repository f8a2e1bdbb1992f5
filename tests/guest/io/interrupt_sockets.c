// Tests that a signal ends the socket waits io/interrupt.c does not cover, with Linux's restart rules
// (common/wait_case.h runs every case without and with SA_RESTART): recvfrom, recvmsg and recvmmsg with
// MSG_OOB on a UDP socket and recv with MSG_ERRQUEUE on AF_UNIX datagram and stream sockets wait for data
// as plain receives do; a connect to an AF_UNIX listener whose backlog is full and a sendto on an unconnected
// AF_UNIX datagram socket to a full receiver wait for room. All of them restart under SA_RESTART. Then
// close_range(CLOSE_RANGE_UNSHARE): in a single-threaded process it closes the range and nothing else (no
// table is shared); in a multithreaded one the caller's table becomes its own (another thread still has the
// descriptors the caller closed, and does not see those the caller opens after); in both a blocking recv
// still ends on a signal, from another thread or from a timer (which reaches a64run through the host).
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/close_range.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include "wait_case.h"

static char buf[64];

// --- Receives that wait for data: the helper sends one byte.
static int udp, udp_peer;
static struct sockaddr_in udp_addr;
static int upair[2];  // AF_UNIX, datagram or stream

static void send_udp(void) {
  if (sendto(udp_peer, "u", 1, 0, (struct sockaddr*)&udp_addr, sizeof udp_addr) != 1) abort();
}
static void send_unix(void) {
  if (send(upair[1], "u", 1, 0) != 1) abort();
}
static long udp_recvfrom_oob(void) {
  return wait_ret(recvfrom(udp, buf, sizeof buf, MSG_OOB, NULL, NULL));
}
static long udp_recvmsg_oob(void) {
  struct iovec v = {buf, sizeof buf};
  struct msghdr m = {0};
  m.msg_iov = &v;
  m.msg_iovlen = 1;
  return wait_ret(recvmsg(udp, &m, MSG_OOB));
}
static long udp_recvmmsg_oob(void) {
  struct iovec v = {buf, sizeof buf};
  struct mmsghdr m = {0};
  m.msg_hdr.msg_iov = &v;
  m.msg_hdr.msg_iovlen = 1;
  return wait_ret(recvmmsg(udp, &m, 1, MSG_OOB, NULL));
}
static long unix_recv_errqueue(void) {
  return wait_ret(recv(upair[0], buf, sizeof buf, MSG_ERRQUEUE));
}
static void unix_pair(int type) {
  if (socketpair(AF_UNIX, type, 0, upair) != 0) abort();
}
static void unix_dgram_pair(void) {
  unix_pair(SOCK_DGRAM);
}
static void unix_stream_pair(void) {
  unix_pair(SOCK_STREAM);
}
static void close_unix_pair(void) {
  close(upair[0]);
  close(upair[1]);
}
static long unix_recv(void) {
  return wait_ret(recv(upair[0], buf, sizeof buf, 0));
}

// --- Waits for room: a listener with a backlog of 0 (one pending connection fills it) and a datagram
// receiver whose queue is full.
static struct sockaddr_un unix_addr;
static socklen_t unix_addr_len;
static int listener, first_client, receiver, sender;

static void name_socket(const char* what) {
  memset(&unix_addr, 0, sizeof unix_addr);
  unix_addr.sun_family = AF_UNIX;
  // An abstract name of this process's own.
  const int n =
      snprintf(unix_addr.sun_path + 1, sizeof unix_addr.sun_path - 1, "a64run-%s-%d", what, getpid());
  unix_addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}
static void full_backlog(void) {
  name_socket("backlog");
  listener = socket(AF_UNIX, SOCK_STREAM, 0);
  first_client = socket(AF_UNIX, SOCK_STREAM, 0);
  if (bind(listener, (struct sockaddr*)&unix_addr, unix_addr_len) != 0 || listen(listener, 0) != 0 ||
      connect(first_client, (struct sockaddr*)&unix_addr, unix_addr_len) != 0) {
    abort();
  }
}
static void accept_one(void) {
  const int c = accept(listener, NULL, NULL);
  if (c < 0) abort();
  close(c);
}
static void close_listener(void) {
  close(listener);
  close(first_client);
}
static long connect_full_backlog(void) {
  const int c = socket(AF_UNIX, SOCK_STREAM, 0);
  const long r = wait_ret(connect(c, (struct sockaddr*)&unix_addr, unix_addr_len));
  close(c);
  return r;
}

static void full_receiver(void) {
  name_socket("dgram");
  receiver = socket(AF_UNIX, SOCK_DGRAM, 0);
  sender = socket(AF_UNIX, SOCK_DGRAM, 0);
  if (bind(receiver, (struct sockaddr*)&unix_addr, unix_addr_len) != 0) abort();
  while (sendto(sender, "d", 1, MSG_DONTWAIT, (struct sockaddr*)&unix_addr, unix_addr_len) == 1) {
  }
  if (errno != EAGAIN) abort();
}
static void receive_one(void) {
  if (recv(receiver, buf, sizeof buf, MSG_DONTWAIT) != 1) abort();
}
static void close_receiver(void) {
  close(receiver);
  close(sender);
}
static long sendto_full_receiver(void) {
  return wait_ret(sendto(sender, "d", 1, 0, (struct sockaddr*)&unix_addr, unix_addr_len));
}

static const struct wait_case kCases[] = {
    {"recvfrom MSG_OOB on UDP", udp_recvfrom_oob, send_udp, 1, 1, NULL, NULL},
    {"recvmsg MSG_OOB on UDP", udp_recvmsg_oob, send_udp, 1, 1, NULL, NULL},
    {"recvmmsg MSG_OOB on UDP", udp_recvmmsg_oob, send_udp, 1, 1, NULL, NULL},
    {"recv MSG_ERRQUEUE on AF_UNIX datagram", unix_recv_errqueue, send_unix, 1, 1, unix_dgram_pair,
     close_unix_pair},
    {"recv MSG_ERRQUEUE on AF_UNIX stream", unix_recv_errqueue, send_unix, 1, 1, unix_stream_pair,
     close_unix_pair},
    {"connect to a full AF_UNIX backlog", connect_full_backlog, accept_one, 1, 0, full_backlog,
     close_listener},
    {"sendto a full AF_UNIX datagram receiver", sendto_full_receiver, receive_one, 1, 1, full_receiver,
     close_receiver},
};

static const struct wait_case kRecv = {"recv", unix_recv, send_unix, 1, 1, unix_stream_pair, close_unix_pair};

static int open_fd(void) {
  return open("/dev/null", O_RDONLY);
}
static int is_open(int fd) {
  return fcntl(fd, F_GETFD) >= 0;
}

// Single-threaded: the range is closed, the rest stays, and waits still end on signals.
static void test_close_range_unshare_alone(void) {
  const int keep = REQUIRE_SYS(open_fd());
  const int a = REQUIRE_SYS(open_fd()), b = REQUIRE_SYS(open_fd());
  CHECK_SYS(syscall(SYS_close_range, a, ~0u, CLOSE_RANGE_UNSHARE));
  CHECK(!is_open(a));
  CHECK(!is_open(b));
  CHECK(is_open(keep));
  close(keep);
  for (int source = WAIT_FROM_THREAD; source <= WAIT_FROM_TIMER; source++) {
    wait_source = source;
    run_wait_case(&kRecv, 0);
    run_wait_case(&kRecv, 1);
  }
  wait_source = WAIT_FROM_THREAD;
}

// A thread that outlives the unshare: it looks at descriptors on request, in its own (the old) table.
static int ask[2], answer[2];
static void* other_main(void* arg) {
  (void)arg;
  int fd;
  while (read(ask[0], &fd, sizeof fd) == sizeof fd && fd >= 0) {
    const int open_here = is_open(fd);
    if (write(answer[1], &open_here, sizeof open_here) != sizeof open_here) break;
  }
  return NULL;
}
static int open_in_other(int fd) {
  int r = -1;
  if (write(ask[1], &fd, sizeof fd) != sizeof fd || read(answer[0], &r, sizeof r) != sizeof r) return -1;
  return r;
}

static void test_close_range_unshare_threads(void) {
  REQUIRE_SYS(pipe(ask));
  REQUIRE_SYS(pipe(answer));
  pthread_t other;
  // The timer's signal must find the caller; the other thread (made with SIGUSR1 blocked) never takes it.
  sigset_t usr1, old;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &usr1, &old);
  REQUIRE(pthread_create(&other, NULL, other_main, NULL) == 0);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  const int a = REQUIRE_SYS(open_fd());
  CHECK_EQ(open_in_other(a), 1);
  CHECK_SYS(syscall(SYS_close_range, a, a, CLOSE_RANGE_UNSHARE));
  CHECK(!is_open(a));
  CHECK_EQ(open_in_other(a), 1);  // the other thread's table still has it
  const int b = REQUIRE_SYS(fcntl(0, F_DUPFD, 500));
  CHECK_EQ(open_in_other(b), 0);  // opened after the unshare: the caller's alone
  close(b);
  for (int source = WAIT_FROM_THREAD; source <= WAIT_FROM_TIMER; source++) {
    wait_source = source;
    run_wait_case(&kRecv, 0);
    run_wait_case(&kRecv, 1);
  }
  wait_source = WAIT_FROM_THREAD;
  const int stop = -1;
  CHECK_EQ(write(ask[1], &stop, sizeof stop), sizeof stop);
  pthread_join(other, NULL);
}

int main(void) {
  test_close_range_unshare_alone();  // first: no other thread exists yet
  udp = REQUIRE_SYS(socket(AF_INET, SOCK_DGRAM, 0));
  udp_peer = REQUIRE_SYS(socket(AF_INET, SOCK_DGRAM, 0));
  udp_addr.sin_family = AF_INET;
  udp_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE_SYS(bind(udp, (struct sockaddr*)&udp_addr, sizeof udp_addr));
  socklen_t len = sizeof udp_addr;
  REQUIRE_SYS(getsockname(udp, (struct sockaddr*)&udp_addr, &len));
  run_wait_cases(kCases, sizeof kCases / sizeof kCases[0]);
  test_close_range_unshare_threads();
  return check_done();
}
