// Tests TCP and UDP on loopback: an echo between two threads and between a parent and a forked child
// (blocking accept, connect, send, recv), 4 MiB through a blocking send that must wait for the reader,
// MSG_WAITALL gathering several writes, shutdown and EOF, addresses (getsockname, getpeername, recvfrom,
// accept's peer and its length rules), socket options (ints, SO_LINGER, SO_RCVTIMEO bounding a blocking recv
// both ways, SO_ERROR after a non-blocking connect, a classic BPF filter whose sock_fprog carries a pointer),
// ECONNREFUSED, and UDP sendmmsg/recvmmsg.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static struct sockaddr_in loopback(uint16_t port) {
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

// A listening socket on an ephemeral loopback port; *port gets the port.
static int listen_any(uint16_t* port) {
  int s = REQUIRE_SYS(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  int one = 1;
  CHECK_SYS(setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one));
  struct sockaddr_in a = loopback(0);
  REQUIRE_SYS(bind(s, (struct sockaddr*)&a, sizeof a));
  REQUIRE_SYS(listen(s, 8));
  socklen_t len = sizeof a;
  REQUIRE_SYS(getsockname(s, (struct sockaddr*)&a, &len));
  CHECK_EQ(len, sizeof a);
  CHECK_EQ(a.sin_addr.s_addr, htonl(INADDR_LOOPBACK));
  *port = ntohs(a.sin_port);
  CHECK_NE(*port, 0);
  return s;
}

static int connect_to(uint16_t port) {
  int c = REQUIRE_SYS(socket(AF_INET, SOCK_STREAM, 0));
  struct sockaddr_in a = loopback(port);
  REQUIRE_SYS(connect(c, (struct sockaddr*)&a, sizeof a));
  return c;
}

// Echoes one connection until EOF.
static void echo(int c) {
  char buf[4096];
  ssize_t n;
  while ((n = recv(c, buf, sizeof buf, 0)) > 0) {
    if (send(c, buf, (size_t)n, 0) != n) abort();
  }
  close(c);
}

static void* echo_server(void* arg) {
  int ls = (int)(intptr_t)arg;
  echo(accept(ls, NULL, NULL));
  return NULL;
}

static void exchange(int c) {
  for (int i = 0; i < 100; i++) {
    char msg[64], back[64];
    int len = snprintf(msg, sizeof msg, "message %d", i);
    CHECK_EQ(send(c, msg, (size_t)len, 0), len);
    CHECK_EQ(recv(c, back, (size_t)len, MSG_WAITALL), len);
    if (!CHECK_MEMEQ(back, msg, (size_t)len)) break;
  }
}

static void test_echo_threads(void) {
  uint16_t port;
  int ls = listen_any(&port);
  pthread_t th;
  REQUIRE(pthread_create(&th, NULL, echo_server, (void*)(intptr_t)ls) == 0);
  usleep(20 * 1000);  // usually the server is already blocked in accept
  int c = connect_to(port);
  struct sockaddr_in peer, self;
  socklen_t len = sizeof peer;
  CHECK_SYS(getpeername(c, (struct sockaddr*)&peer, &len));
  CHECK_EQ(ntohs(peer.sin_port), port);
  len = sizeof self;
  CHECK_SYS(getsockname(c, (struct sockaddr*)&self, &len));
  CHECK_NE(ntohs(self.sin_port), port);
  int one = 1, got = 0;
  CHECK_SYS(setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one));
  len = sizeof got;
  CHECK_SYS(getsockopt(c, IPPROTO_TCP, TCP_NODELAY, &got, &len));
  CHECK_EQ(got, 1);
  CHECK_EQ(len, sizeof got);
  exchange(c);
  CHECK_SYS(shutdown(c, SHUT_WR));
  char b;
  CHECK_EQ(recv(c, &b, 1, 0), 0);  // the server saw EOF and closed
  close(c);
  pthread_join(th, NULL);
  close(ls);
}

static void test_echo_fork(void) {
  uint16_t port;
  int ls = listen_any(&port);
  pid_t pid = REQUIRE_SYS(fork());
  if (pid == 0) {
    struct sockaddr_in peer;
    socklen_t len = 3;  // too short: truncated, and len says how long it really is
    int c = accept4(ls, (struct sockaddr*)&peer, &len, SOCK_CLOEXEC);
    if (c < 0 || len != sizeof peer) _exit(2);
    echo(c);
    _exit(0);
  }
  close(ls);
  int c = connect_to(port);
  exchange(c);
  close(c);
  int status;
  CHECK_EQ(waitpid(pid, &status, 0), pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

enum { kBulk = 4 << 20 };

// Reads kBulk bytes slowly at first, so the sender's socket buffer fills and its blocking send has to wait.
static void* bulk_reader(void* arg) {
  int c = (int)(intptr_t)arg;
  static char buf[65536];
  size_t total = 0;
  uint32_t sum = 0;
  usleep(100 * 1000);
  ssize_t n;
  while (total < kBulk && (n = recv(c, buf, sizeof buf, 0)) > 0) {
    for (ssize_t i = 0; i < n; i++) sum = sum * 31 + (uint8_t)buf[i];
    total += (size_t)n;
  }
  return (void*)(uintptr_t)(total == kBulk ? sum : 0);
}

static void test_bulk_and_waitall(void) {
  uint16_t port;
  int ls = listen_any(&port);
  int c = connect_to(port);
  int s = REQUIRE_SYS(accept(ls, NULL, NULL));
  int small = 65536;
  CHECK_SYS(setsockopt(c, SOL_SOCKET, SO_SNDBUF, &small, sizeof small));
  char* data = malloc(kBulk);
  uint32_t sum = 0;
  for (size_t i = 0; i < kBulk; i++) {
    data[i] = (char)(i * 7 + i / 4096);
    sum = sum * 31 + (uint8_t)data[i];
  }
  pthread_t th;
  double t0 = now_ms();  // before the reader starts its delay
  REQUIRE(pthread_create(&th, NULL, bulk_reader, (void*)(intptr_t)s) == 0);
  CHECK_EQ(send(c, data, kBulk, 0), kBulk);  // a blocking send sends everything, waiting for the reader
  CHECK_GE(now_ms() - t0, 80);               // the reader sleeps 100 ms after it starts
  void* res;
  pthread_join(th, &res);
  CHECK_EQ((uint32_t)(uintptr_t)res, sum);
  free(data);

  // MSG_WAITALL gathers three separate writes.
  CHECK_EQ(send(c, "abc", 3, 0), 3);
  usleep(20 * 1000);
  CHECK_EQ(send(c, "def", 3, 0), 3);
  usleep(20 * 1000);
  CHECK_EQ(send(c, "ghi", 3, 0), 3);
  char buf[9];
  CHECK_EQ(recv(s, buf, 9, MSG_WAITALL), 9);
  CHECK_MEMEQ(buf, "abcdefghi", 9);
  // Peer closed before the buffer is full: what there is.
  CHECK_EQ(send(c, "xy", 2, 0), 2);
  close(c);
  CHECK_EQ(recv(s, buf, 9, MSG_WAITALL), 2);
  close(s);
  close(ls);
}

static void test_options_and_errors(void) {
  uint16_t port;
  int ls = listen_any(&port);
  int c = connect_to(port);
  int s = REQUIRE_SYS(accept(ls, NULL, NULL));

  // SO_RCVTIMEO: a blocking recv gives up with EAGAIN after the timeout, not before.
  struct timeval tv = {0, 150000};
  CHECK_SYS(setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv));
  struct timeval back = {0, 0};
  socklen_t len = sizeof back;
  CHECK_SYS(getsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &back, &len));
  CHECK(back.tv_sec == 0 && back.tv_usec >= 150000 && back.tv_usec < 170000);  // rounded up to jiffies
  char b;
  double t0 = now_ms();
  CHECK_ERRNO(recv(s, &b, 1, 0), EAGAIN);
  double waited = now_ms() - t0;
  CHECK_GE(waited, 140);
  CHECK_LT(waited, 2000);

  struct linger lg = {1, 5}, lg_back;
  CHECK_SYS(setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof lg));
  len = sizeof lg_back;
  CHECK_SYS(getsockopt(c, SOL_SOCKET, SO_LINGER, &lg_back, &len));
  CHECK_EQ(lg_back.l_onoff, 1);
  CHECK_EQ(lg_back.l_linger, 5);
  int type = 0;
  len = sizeof type;
  CHECK_SYS(getsockopt(c, SOL_SOCKET, SO_TYPE, &type, &len));
  CHECK_EQ(type, SOCK_STREAM);
  // A length larger than the mapped buffer is fine when the value is short: 4 bytes before a hole.
  char* page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(page != MAP_FAILED);
  munmap(page + 4096, 4096);
  int* at_end = (int*)(page + 4096 - sizeof(int));
  len = 64;
  CHECK_SYS(getsockopt(c, SOL_SOCKET, SO_TYPE, at_end, &len));
  CHECK_EQ(len, sizeof(int));
  CHECK_EQ(*at_end, SOCK_STREAM);
  munmap(page, 4096);
  len = (socklen_t)-1;
  CHECK_ERRNO(getsockopt(c, SOL_SOCKET, SO_TYPE, &type, &len), EINVAL);
  // qemu-aarch64 7.2 takes optlen as unsigned and accepts a negative one.
  if (!on_reference_qemu())
    CHECK_ERRNO(setsockopt(c, SOL_SOCKET, SO_REUSEADDR, &type, (socklen_t)-1), EINVAL);
  CHECK_ERRNO(setsockopt(c, SOL_SOCKET, 9999, &type, sizeof type), ENOPROTOOPT);
  CHECK_ERRNO(setsockopt(0, SOL_SOCKET, SO_REUSEADDR, &type, sizeof type), ENOTSOCK);
  len = sizeof(struct sockaddr_in);
  CHECK_ERRNO(getsockname(c, (struct sockaddr*)8, &len), EFAULT);
  close(s);
  close(c);

  // Nobody listens any more: refused, blocking or not.
  close(ls);
  int r = REQUIRE_SYS(socket(AF_INET, SOCK_STREAM, 0));
  struct sockaddr_in a = loopback(port);
  CHECK_ERRNO(connect(r, (struct sockaddr*)&a, sizeof a), ECONNREFUSED);
  close(r);
  ls = listen_any(&port);
  a = loopback(port);
  int nb = REQUIRE_SYS(socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0));
  int cr = connect(nb, (struct sockaddr*)&a, sizeof a);
  CHECK(cr == 0 || errno == EINPROGRESS);
  struct pollfd p = {nb, POLLOUT, 0};
  CHECK_EQ(poll(&p, 1, 2000), 1);
  int err = -1;
  len = sizeof err;
  CHECK_SYS(getsockopt(nb, SOL_SOCKET, SO_ERROR, &err, &len));
  CHECK_EQ(err, 0);
  CHECK_ERRNO(accept4(ls, NULL, NULL, 0x1234), EINVAL);
  CHECK_ERRNO(bind(nb, (struct sockaddr*)&a, 200), EINVAL);
  close(nb);
  close(ls);
}

static void test_udp(void) {
  int rx = REQUIRE_SYS(socket(AF_INET, SOCK_DGRAM, 0));
  int tx = REQUIRE_SYS(socket(AF_INET, SOCK_DGRAM, 0));
  struct sockaddr_in a = loopback(0);
  REQUIRE_SYS(bind(rx, (struct sockaddr*)&a, sizeof a));
  socklen_t len = sizeof a;
  REQUIRE_SYS(getsockname(rx, (struct sockaddr*)&a, &len));
  CHECK_EQ(sendto(tx, "ping", 4, 0, (struct sockaddr*)&a, sizeof a), 4);
  char buf[16];
  struct sockaddr_in from;
  len = sizeof from;
  CHECK_EQ(recvfrom(rx, buf, sizeof buf, 0, (struct sockaddr*)&from, &len), 4);
  CHECK_EQ(len, sizeof from);
  struct sockaddr_in txa;
  socklen_t txlen = sizeof txa;
  CHECK_SYS(getsockname(tx, (struct sockaddr*)&txa, &txlen));
  CHECK_EQ(from.sin_port, txa.sin_port);

  // sendmmsg/recvmmsg: three datagrams each way, msg_len filled in per entry.
  struct iovec iov[3];
  struct mmsghdr out[3] = {0};
  const char* words[3] = {"one", "three", "fifteen"};
  for (int i = 0; i < 3; i++) {
    iov[i].iov_base = (void*)words[i];
    iov[i].iov_len = strlen(words[i]);
    out[i].msg_hdr.msg_iov = &iov[i];
    out[i].msg_hdr.msg_iovlen = 1;
    out[i].msg_hdr.msg_name = &a;
    out[i].msg_hdr.msg_namelen = sizeof a;
  }
  CHECK_EQ(sendmmsg(tx, out, 3, 0), 3);
  CHECK_EQ(out[2].msg_len, 7);
  char rbuf[3][16];
  struct iovec riov[3];
  struct mmsghdr in[3] = {0};
  for (int i = 0; i < 3; i++) {
    riov[i].iov_base = rbuf[i];
    riov[i].iov_len = sizeof rbuf[i];
    in[i].msg_hdr.msg_iov = &riov[i];
    in[i].msg_hdr.msg_iovlen = 1;
  }
  struct timespec to = {1, 0};
  CHECK_EQ(recvmmsg(rx, in, 3, MSG_WAITFORONE, &to), 3);
  for (int i = 0; i < 3; i++) {
    CHECK_EQ(in[i].msg_len, strlen(words[i]));
    CHECK_MEMEQ(rbuf[i], words[i], strlen(words[i]));
  }
  CHECK_EQ(recvmmsg(rx, in, 3, MSG_DONTWAIT, NULL), -1);
  CHECK_EQ(errno, EAGAIN);

  // A classic BPF program that drops every packet ("ret #0"), then one that keeps them ("ret #-1").
  struct sock_filter drop[] = {BPF_STMT(BPF_RET | BPF_K, 0)};
  struct sock_filter keep[] = {BPF_STMT(BPF_RET | BPF_K, 0xffffffff)};
  struct sock_fprog prog = {1, drop};
  CHECK_SYS(setsockopt(rx, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof prog));
  CHECK_EQ(sendto(tx, "lost", 4, 0, (struct sockaddr*)&a, sizeof a), 4);
  usleep(20 * 1000);
  CHECK_ERRNO(recv(rx, buf, sizeof buf, MSG_DONTWAIT), EAGAIN);
  prog.filter = keep;
  CHECK_SYS(setsockopt(rx, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof prog));
  CHECK_EQ(sendto(tx, "kept", 4, 0, (struct sockaddr*)&a, sizeof a), 4);
  CHECK_EQ(recv(rx, buf, sizeof buf, 0), 4);
  CHECK_MEMEQ(buf, "kept", 4);
  prog.filter = (struct sock_filter*)8;
  CHECK_ERRNO(setsockopt(rx, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof prog), EFAULT);
  CHECK_ERRNO(setsockopt(rx, SOL_SOCKET, SO_ATTACH_FILTER, &prog, 8), EINVAL);
  // qemu-aarch64 7.2 does not know SO_DETACH_FILTER (ENOPROTOOPT).
  int dummy = 0;
  if (!on_reference_qemu()) CHECK_SYS(setsockopt(rx, SOL_SOCKET, SO_DETACH_FILTER, &dummy, sizeof dummy));
  close(rx);
  close(tx);
}

// What a blocking connect leaves behind (LTP connect01): a connected socket answers a second connect with
// EISCONN, and one whose connect was refused starts afresh (a bad family is EAFNOSUPPORT, not the
// ECONNABORTED of a socket still marked connecting).
static void test_connect_states(void) {
  uint16_t port;
  int l = listen_any(&port);
  int c = connect_to(port);
  struct sockaddr_in a = loopback(port);
  CHECK_ERRNO(connect(c, (struct sockaddr*)&a, sizeof a), EISCONN);
  close(c);
  close(l);  // nothing listens on `port` now
  int r = REQUIRE_SYS(socket(AF_INET, SOCK_STREAM, 0));
  CHECK_ERRNO(connect(r, (struct sockaddr*)&a, sizeof a), ECONNREFUSED);
  struct sockaddr_in bad = loopback(port);
  bad.sin_family = 47;
  CHECK_ERRNO(connect(r, (struct sockaddr*)&bad, sizeof bad), EAFNOSUPPORT);
  close(r);
}

int main(void) {
  test_connect_states();
  test_echo_threads();
  test_echo_fork();
  test_bulk_and_waitall();
  test_options_and_errors();
  test_udp();
  return check_done();
}
