// Tests AF_UNIX sockets and msghdr translation: SCM_RIGHTS passes fds that work on the receiving side (one
// and several, to a forked child too), a closed fd in SCM_RIGHTS is EBADF, SCM_CREDENTIALS with
// SO_PASSCRED and SO_PEERCRED, MSG_CTRUNC when the control buffer is short, MSG_PEEK leaves the data, a
// datagram longer than the buffer sets MSG_TRUNC, scatter/gather over several iovecs, msg_namelen and
// msg_flags written back, named and abstract addresses (bind, connect, accept, getsockname), and
// SOCK_SEQPACKET record boundaries, and EPIPE with SIGPIPE (or without it under MSG_NOSIGNAL).
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

// Sends `data` with the fds as SCM_RIGHTS.
static ssize_t send_fds(int s, const char* data, const int* fds, int nfds) {
  char control[CMSG_SPACE(8 * sizeof(int))];
  memset(control, 0, sizeof control);
  struct iovec iov = {(void*)data, strlen(data)};
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
  struct cmsghdr* cm = CMSG_FIRSTHDR(&msg);
  cm->cmsg_level = SOL_SOCKET;
  cm->cmsg_type = SCM_RIGHTS;
  cm->cmsg_len = CMSG_LEN(nfds * sizeof(int));
  memcpy(CMSG_DATA(cm), fds, nfds * sizeof(int));
  return sendmsg(s, &msg, 0);
}

// Receives up to `max` fds; returns how many came, or -1.
static int recv_fds(int s, char* buf, size_t len, int* fds, int max, int* flags) {
  char control[CMSG_SPACE(8 * sizeof(int))];
  struct iovec iov = {buf, len};
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = CMSG_SPACE(max * sizeof(int));
  if (recvmsg(s, &msg, MSG_CMSG_CLOEXEC) < 0) return -1;
  *flags = msg.msg_flags;
  int n = 0;
  for (struct cmsghdr* cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
    if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS) continue;
    n = (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
    memcpy(fds, CMSG_DATA(cm), n * sizeof(int));
  }
  return n;
}

static void test_scm_rights(void) {
  int sv[2];
  REQUIRE_SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
  int p[2];
  REQUIRE_SYS(pipe(p));
  CHECK_EQ(send_fds(sv[0], "fd", &p[1], 1), 2);
  char buf[8];
  int got[8], flags = -1;
  CHECK_EQ(recv_fds(sv[1], buf, sizeof buf, got, 8, &flags), 1);
  CHECK_EQ(flags, MSG_CMSG_CLOEXEC);  // recvmsg's own flag comes back in msg_flags
  CHECK_NE(got[0], p[1]);
  CHECK_EQ(fcntl(got[0], F_GETFD), FD_CLOEXEC);  // MSG_CMSG_CLOEXEC
  CHECK_EQ(write(got[0], "via", 3), 3);          // the received fd is the pipe's write end
  CHECK_EQ(read(p[0], buf, 3), 3);
  CHECK_MEMEQ(buf, "via", 3);
  close(got[0]);

  // Three fds in one message, and a control buffer with room for two (CMSG_SPACE(4) is 24 bytes): the
  // message is cut to the fds that fit, with MSG_CTRUNC.
  int three[3] = {p[0], p[1], sv[0]};
  CHECK_EQ(send_fds(sv[0], "3", three, 3), 1);
  CHECK_EQ(recv_fds(sv[1], buf, sizeof buf, got, 3, &flags), 3);
  for (int i = 0; i < 3; i++) close(got[i]);
  CHECK_EQ(send_fds(sv[0], "3", three, 3), 1);
  CHECK_EQ(recv_fds(sv[1], buf, sizeof buf, got, 1, &flags), 2);
  // qemu-aarch64 7.2 receives into a larger host buffer and cuts the fds itself without setting MSG_CTRUNC.
  if (!on_reference_qemu()) CHECK(flags & MSG_CTRUNC);
  close(got[0]);
  close(got[1]);

  // A closed fd cannot be sent.
  int closed = dup(p[0]);
  close(closed);
  CHECK_ERRNO(send_fds(sv[0], "x", &closed, 1), EBADF);

  // To a forked child, which writes through the fd it got.
  pid_t pid = REQUIRE_SYS(fork());
  if (pid == 0) {
    int fd, fl;
    char b[4];
    if (recv_fds(sv[1], b, sizeof b, &fd, 1, &fl) != 1) _exit(2);
    _exit(write(fd, "kid", 3) == 3 ? 0 : 3);
  }
  CHECK_EQ(send_fds(sv[0], "go", &p[1], 1), 2);
  int status;
  CHECK_EQ(waitpid(pid, &status, 0), pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK_EQ(read(p[0], buf, 3), 3);
  CHECK_MEMEQ(buf, "kid", 3);
  close(p[0]);
  close(p[1]);
  close(sv[0]);
  close(sv[1]);
}

static void test_credentials(void) {
  int sv[2];
  REQUIRE_SYS(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv));
  struct ucred peer;
  socklen_t len = sizeof peer;
  CHECK_SYS(getsockopt(sv[0], SOL_SOCKET, SO_PEERCRED, &peer, &len));
  CHECK_EQ(peer.pid, getpid());
  CHECK_EQ(peer.uid, getuid());
  int one = 1;
  CHECK_SYS(setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &one, sizeof one));
  CHECK_EQ(send(sv[0], "c", 1, 0), 1);
  char buf[4];
  union {
    char raw[CMSG_SPACE(sizeof(struct ucred))];
    struct cmsghdr align;
  } control;
  struct iovec iov = {buf, sizeof buf};
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.raw;
  msg.msg_controllen = sizeof control.raw;
  CHECK_EQ(recvmsg(sv[1], &msg, 0), 1);
  struct cmsghdr* cm = CMSG_FIRSTHDR(&msg);
  REQUIRE(cm != NULL);
  CHECK_EQ(cm->cmsg_level, SOL_SOCKET);
  CHECK_EQ(cm->cmsg_type, SCM_CREDENTIALS);
  CHECK_EQ(cm->cmsg_len, CMSG_LEN(sizeof(struct ucred)));
  struct ucred cred;
  memcpy(&cred, CMSG_DATA(cm), sizeof cred);
  CHECK_EQ(cred.pid, getpid());
  CHECK_EQ(cred.uid, getuid());
  CHECK_EQ(cred.gid, getgid());
  CHECK_EQ(msg.msg_controllen, CMSG_SPACE(sizeof(struct ucred)));
  close(sv[0]);
  close(sv[1]);
}

static void test_peek_trunc_scatter(void) {
  int sv[2];
  REQUIRE_SYS(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv));
  CHECK_EQ(send(sv[0], "0123456789", 10, 0), 10);
  char a[4], b[3];
  struct iovec iov[2] = {{a, sizeof a}, {b, sizeof b}};
  struct msghdr msg = {0};
  msg.msg_iov = iov;
  msg.msg_iovlen = 2;
  msg.msg_flags = 0x7fffffff;  // written back, not read
  CHECK_EQ(recvmsg(sv[1], &msg, MSG_PEEK), 7);
  CHECK_MEMEQ(a, "0123", 4);
  CHECK_MEMEQ(b, "456", 3);
  CHECK_EQ(msg.msg_flags, MSG_TRUNC);
  // MSG_PEEK|MSG_TRUNC reports the datagram's real length.
  CHECK_EQ(recv(sv[1], a, sizeof a, MSG_PEEK | MSG_TRUNC), 10);
  char all[16];
  CHECK_EQ(recv(sv[1], all, sizeof all, 0), 10);
  CHECK_MEMEQ(all, "0123456789", 10);
  CHECK_ERRNO(recv(sv[1], all, sizeof all, MSG_DONTWAIT), EAGAIN);
  // Gather on the sending side.
  struct iovec out[3] = {{"ab", 2}, {"", 0}, {"cde", 3}};
  struct msghdr smsg = {0};
  smsg.msg_iov = out;
  smsg.msg_iovlen = 3;
  CHECK_EQ(sendmsg(sv[0], &smsg, 0), 5);
  CHECK_EQ(recv(sv[1], all, sizeof all, 0), 5);
  CHECK_MEMEQ(all, "abcde", 5);
  smsg.msg_iovlen = 1025;
  CHECK_ERRNO(sendmsg(sv[0], &smsg, 0), EMSGSIZE);
  close(sv[0]);
  close(sv[1]);

  // Stream: peek, then read the same bytes.
  REQUIRE_SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
  CHECK_EQ(write(sv[0], "peekaboo", 8), 8);
  CHECK_EQ(recv(sv[1], all, 4, MSG_PEEK), 4);
  CHECK_MEMEQ(all, "peek", 4);
  CHECK_EQ(recv(sv[1], all, 8, 0), 8);
  CHECK_MEMEQ(all, "peekaboo", 8);
  close(sv[0]);
  close(sv[1]);
}

static void test_addresses(void) {
  // A named socket in the scratch directory.
  int ls = REQUIRE_SYS(socket(AF_UNIX, SOCK_STREAM, 0));
  struct sockaddr_un a = {0};
  a.sun_family = AF_UNIX;
  strcpy(a.sun_path, "sock");
  socklen_t alen = offsetof(struct sockaddr_un, sun_path) + 5;
  unlink("sock");
  REQUIRE_SYS(bind(ls, (struct sockaddr*)&a, alen));
  REQUIRE_SYS(listen(ls, 4));
  int c = REQUIRE_SYS(socket(AF_UNIX, SOCK_STREAM, 0));
  REQUIRE_SYS(connect(c, (struct sockaddr*)&a, alen));
  struct sockaddr_un peer;
  socklen_t plen = sizeof peer;
  int s = REQUIRE_SYS(accept(ls, (struct sockaddr*)&peer, &plen));
  CHECK_EQ(plen, offsetof(struct sockaddr_un, sun_path));  // the client is unnamed
  struct sockaddr_un self;
  socklen_t slen = sizeof self;
  CHECK_SYS(getsockname(ls, (struct sockaddr*)&self, &slen));
  CHECK_EQ(slen, alen);
  CHECK_STREQ(self.sun_path, "sock");
  slen = sizeof self;
  CHECK_SYS(getpeername(c, (struct sockaddr*)&self, &slen));
  CHECK_STREQ(self.sun_path, "sock");
  CHECK_EQ(send(c, "hi", 2, 0), 2);
  char buf[4];
  CHECK_EQ(recv(s, buf, sizeof buf, 0), 2);
  close(s);
  close(c);
  close(ls);
  unlink("sock");

  // Abstract namespace, datagram: recvfrom's address is the sender's abstract name.
  int rx = REQUIRE_SYS(socket(AF_UNIX, SOCK_DGRAM, 0));
  int tx = REQUIRE_SYS(socket(AF_UNIX, SOCK_DGRAM, 0));
  struct sockaddr_un ra = {0}, ta = {0};
  ra.sun_family = ta.sun_family = AF_UNIX;
  snprintf(ra.sun_path + 1, sizeof ra.sun_path - 1, "a64run-rx-%d", getpid());
  snprintf(ta.sun_path + 1, sizeof ta.sun_path - 1, "a64run-tx-%d", getpid());
  socklen_t rlen = offsetof(struct sockaddr_un, sun_path) + 1 + strlen(ra.sun_path + 1);
  socklen_t tlen = offsetof(struct sockaddr_un, sun_path) + 1 + strlen(ta.sun_path + 1);
  REQUIRE_SYS(bind(rx, (struct sockaddr*)&ra, rlen));
  REQUIRE_SYS(bind(tx, (struct sockaddr*)&ta, tlen));
  CHECK_EQ(sendto(tx, "abs", 3, 0, (struct sockaddr*)&ra, rlen), 3);
  struct sockaddr_un from;
  socklen_t flen = sizeof from;
  CHECK_EQ(recvfrom(rx, buf, sizeof buf, 0, (struct sockaddr*)&from, &flen), 3);
  CHECK_EQ(flen, tlen);
  CHECK_MEMEQ(&from, &ta, tlen);
  // msghdr form, with a name buffer too short: truncated, msg_namelen says the full length.
  CHECK_EQ(sendto(tx, "abs", 3, 0, (struct sockaddr*)&ra, rlen), 3);
  struct iovec iov = {buf, sizeof buf};
  struct msghdr msg = {0};
  msg.msg_name = &from;
  msg.msg_namelen = 4;
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  memset(&from, 0, sizeof from);
  CHECK_EQ(recvmsg(rx, &msg, 0), 3);
  CHECK_EQ(msg.msg_namelen, tlen);
  CHECK_EQ(from.sun_path[2], 0);  // only 4 bytes were written
  close(rx);
  close(tx);
}

static void test_seqpacket(void) {
  int sv[2];
  REQUIRE_SYS(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv));
  CHECK_EQ(send(sv[0], "first", 5, 0), 5);
  CHECK_EQ(send(sv[0], "second", 6, 0), 6);
  char buf[16];
  CHECK_EQ(recv(sv[1], buf, sizeof buf, MSG_WAITALL), 5);  // one record, however much room
  CHECK_EQ(recv(sv[1], buf, sizeof buf, 0), 6);
  close(sv[0]);
  CHECK_EQ(recv(sv[1], buf, sizeof buf, 0), 0);
  close(sv[1]);
}

static volatile sig_atomic_t sigpipes;
static void on_sigpipe(int sig) {
  (void)sig;
  sigpipes++;
}

// Sending to a closed peer: EPIPE and SIGPIPE, or EPIPE alone with MSG_NOSIGNAL.
static void test_sigpipe(void) {
  struct sigaction sa = {0}, old;
  sa.sa_handler = on_sigpipe;
  REQUIRE_SYS(sigaction(SIGPIPE, &sa, &old));
  int sv[2];
  REQUIRE_SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
  close(sv[1]);
  sigpipes = 0;
  CHECK_ERRNO(send(sv[0], "x", 1, MSG_NOSIGNAL), EPIPE);
  CHECK_EQ(sigpipes, 0);
  CHECK_ERRNO(send(sv[0], "x", 1, 0), EPIPE);
  CHECK_EQ(sigpipes, 1);
  struct iovec iov = {"y", 1};
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  CHECK_ERRNO(sendmsg(sv[0], &msg, 0), EPIPE);
  CHECK_EQ(sigpipes, 2);
  close(sv[0]);
  sigaction(SIGPIPE, &old, NULL);
}

int main(void) {
  test_sigpipe();
  test_scm_rights();
  test_credentials();
  test_peek_trunc_scatter();
  test_addresses();
  test_seqpacket();
  return check_done();
}
