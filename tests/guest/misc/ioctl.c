// Tests ioctl and pipe behaviour: TCGETS/TIOCGWINSZ on non-terminals (ENOTTY), FIONREAD, FIONBIO,
// FIOCLEX/FIONCLEX, pipe2 flags, non-blocking EAGAIN, EOF and EPIPE, pipe capacity, and moving data between
// descriptors with sendfile, copy_file_range and splice.
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#include "check.h"

static int make_file(const char* name, const char* content) {
  int fd = REQUIRE_SYS(open(name, O_CREAT | O_RDWR | O_TRUNC, 0644));
  REQUIRE(write(fd, content, strlen(content)) == (ssize_t)strlen(content));
  REQUIRE(lseek(fd, 0, SEEK_SET) == 0);
  return fd;
}

static void test_ioctls(void) {
  int file = make_file("file", "0123456789");
  int p[2];
  REQUIRE_SYS(pipe(p));

  // Terminal ioctls on things that are not terminals.
  struct termios tio;
  CHECK_ERRNO(ioctl(file, TCGETS, &tio), ENOTTY);
  CHECK_ERRNO(ioctl(p[0], TCGETS, &tio), ENOTTY);
  CHECK_ERRNO(tcgetattr(file, &tio), ENOTTY);
  CHECK_EQ(isatty(file), 0);
  CHECK_EQ(errno, ENOTTY);
  struct winsize ws;
  CHECK_ERRNO(ioctl(p[1], TIOCGWINSZ, &ws), ENOTTY);
  CHECK_ERRNO(ioctl(-1, FIONREAD, &(int){0}), EBADF);

  // FIONREAD: bytes waiting in a pipe; bytes from the offset to the end of a regular file.
  int avail = -1;
  CHECK_SYS(ioctl(p[0], FIONREAD, &avail));
  CHECK_EQ(avail, 0);
  REQUIRE(write(p[1], "hello", 5) == 5);
  CHECK_SYS(ioctl(p[0], FIONREAD, &avail));
  CHECK_EQ(avail, 5);
  CHECK_EQ(lseek(file, 3, SEEK_SET), 3);
  CHECK_SYS(ioctl(file, FIONREAD, &avail));
  CHECK_EQ(avail, 7);

  // FIONBIO toggles O_NONBLOCK; FIOCLEX/FIONCLEX toggle FD_CLOEXEC.
  char buf[16];
  CHECK_EQ(read(p[0], buf, sizeof(buf)), 5);
  int on = 1, off = 0;
  CHECK_SYS(ioctl(p[0], FIONBIO, &on));
  CHECK(fcntl(p[0], F_GETFL) & O_NONBLOCK);
  CHECK_ERRNO(read(p[0], buf, sizeof(buf)), EAGAIN);
  CHECK_SYS(ioctl(p[0], FIONBIO, &off));
  CHECK(!(fcntl(p[0], F_GETFL) & O_NONBLOCK));
  CHECK_SYS(ioctl(file, FIOCLEX));
  CHECK_EQ(fcntl(file, F_GETFD), FD_CLOEXEC);
  CHECK_SYS(ioctl(file, FIONCLEX));
  CHECK_EQ(fcntl(file, F_GETFD), 0);
  CHECK_SYS(close(p[0]));
  CHECK_SYS(close(p[1]));
  CHECK_SYS(close(file));
}

static void test_pipes(void) {
  int p[2];
  REQUIRE_SYS(pipe2(p, O_NONBLOCK | O_CLOEXEC));
  for (int i = 0; i < 2; i++) {
    CHECK_EQ(fcntl(p[i], F_GETFD), FD_CLOEXEC);
    CHECK_EQ(fcntl(p[i], F_GETFL) & (O_NONBLOCK | O_ACCMODE), O_NONBLOCK | (i ? O_WRONLY : O_RDONLY));
  }
  char buf[4096];
  CHECK_ERRNO(read(p[0], buf, sizeof(buf)), EAGAIN);
  CHECK_ERRNO(write(p[0], "x", 1), EBADF);
  CHECK_ERRNO(pipe2(p, O_APPEND), EINVAL);

  // The pipe holds F_GETPIPE_SZ bytes; then a non-blocking write is EAGAIN.
  int size = CHECK_SYS(fcntl(p[1], F_GETPIPE_SZ));
  CHECK_GE(size, 4096);
  CHECK_EQ(fcntl(p[1], F_SETPIPE_SZ, 8192), 8192);
  size = fcntl(p[1], F_GETPIPE_SZ);
  CHECK_EQ(size, 8192);
  memset(buf, 'p', sizeof(buf));
  long total = 0;
  for (;;) {
    ssize_t n = write(p[1], buf, sizeof(buf));
    if (n < 0) break;
    total += n;
  }
  CHECK_EQ(errno, EAGAIN);
  CHECK_EQ(total, size);
  int avail = 0;
  CHECK_SYS(ioctl(p[0], FIONREAD, &avail));
  CHECK_EQ(avail, size);

  // EOF once the write end is closed and the pipe drained; EPIPE (with SIGPIPE ignored) once the read
  // end is closed.
  CHECK_SYS(close(p[1]));
  while (read(p[0], buf, sizeof(buf)) > 0) {
  }
  CHECK_EQ(read(p[0], buf, sizeof(buf)), 0);
  CHECK_SYS(close(p[0]));
  REQUIRE_SYS(pipe(p));
  CHECK_SYS(close(p[0]));
  REQUIRE(signal(SIGPIPE, SIG_IGN) != SIG_ERR);
  CHECK_ERRNO(write(p[1], "x", 1), EPIPE);
  CHECK_SYS(close(p[1]));
}

static void test_copies(void) {
  int in = make_file("in", "abcdefghijklmnopqrstuvwxyz");
  int out = REQUIRE_SYS(open("out", O_CREAT | O_RDWR | O_TRUNC, 0644));
  char buf[64] = {0};

  // sendfile with an offset pointer: the input's own offset stays, the pointer advances.
  off_t off = 2;
  CHECK_EQ(sendfile(out, in, &off, 5), 5);
  CHECK_EQ(off, 7);
  CHECK_EQ(lseek(in, 0, SEEK_CUR), 0);
  CHECK_EQ(lseek(out, 0, SEEK_CUR), 5);
  // Without it, the input's offset advances.
  CHECK_EQ(sendfile(out, in, NULL, 3), 3);
  CHECK_EQ(lseek(in, 0, SEEK_CUR), 3);
  CHECK_EQ(pread(out, buf, sizeof(buf), 0), 8);
  CHECK_MEMEQ(buf, "cdefgabc", 8);
  CHECK_EQ(sendfile(out, in, &(off_t){100}, 5), 0);

  // copy_file_range with both offsets given leaves both file offsets alone.
  loff_t in_off = 20, out_off = 8;
  CHECK_EQ(copy_file_range(in, &in_off, out, &out_off, 6, 0), 6);
  CHECK_EQ(in_off, 26);
  CHECK_EQ(out_off, 14);
  CHECK_EQ(lseek(in, 0, SEEK_CUR), 3);
  CHECK_EQ(lseek(out, 0, SEEK_CUR), 8);
  CHECK_EQ(copy_file_range(in, NULL, out, NULL, 2, 0), 2);
  CHECK_EQ(lseek(in, 0, SEEK_CUR), 5);
  CHECK_EQ(lseek(out, 0, SEEK_CUR), 10);
  memset(buf, 0, sizeof(buf));
  CHECK_EQ(pread(out, buf, sizeof(buf), 0), 14);
  CHECK_MEMEQ(buf, "cdefgabcdewxyz", 14);
  CHECK_ERRNO(copy_file_range(in, NULL, out, NULL, 2, 1), EINVAL);

  // splice file -> pipe -> file.
  int p[2];
  REQUIRE_SYS(pipe(p));
  loff_t from = 10;
  CHECK_EQ(splice(in, &from, p[1], NULL, 4, 0), 4);
  CHECK_EQ(from, 14);
  loff_t to = 0;
  CHECK_EQ(splice(p[0], NULL, out, &to, 4, 0), 4);
  CHECK_EQ(pread(out, buf, 4, 0), 4);
  CHECK_MEMEQ(buf, "klmn", 4);
  CHECK_ERRNO(splice(in, NULL, out, NULL, 4, 0), EINVAL);  // one end must be a pipe
  CHECK_SYS(close(p[0]));
  CHECK_SYS(close(p[1]));
  CHECK_SYS(close(in));
  CHECK_SYS(close(out));
}

int main(void) {
  test_ioctls();
  test_pipes();
  test_copies();
  return check_done();
}
