// Tests inotify: inotify_init1's flags, events for a watched directory (create, modify, delete, in order,
// with the watch descriptor, the name and its padding), IN_IGNORED after inotify_rm_watch, FIONREAD, a
// non-blocking read with nothing queued (EAGAIN), a blocking read that waits for an event, IN_DONT_FOLLOW,
// and the errors (bad flags, mask, fd, path).
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

// The next event of buf[*off..len): checks its watch, mask and name and moves *off past it.
static void expect_event(const char* buf, long len, long* off, int wd, uint32_t mask, const char* name) {
  if (!CHECK(*off + (long)sizeof(struct inotify_event) <= len)) return;
  const struct inotify_event* ev = (const struct inotify_event*)(buf + *off);
  CHECK_EQ(ev->wd, wd);
  CHECK_EQ(ev->mask, mask);
  if (name) {
    CHECK_EQ(ev->len % sizeof(struct inotify_event), 0u);  // the name is padded to the struct's alignment
    CHECK_STREQ(ev->name, name);
  } else {
    CHECK_EQ(ev->len, 0u);
  }
  *off += (long)sizeof(struct inotify_event) + ev->len;
}

static void test_flags(void) {
  int fd = REQUIRE_SYS(inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
  CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC);
  CHECK(fcntl(fd, F_GETFL) & O_NONBLOCK);
  char buf[64];
  CHECK_ERRNO(read(fd, buf, sizeof buf), EAGAIN);
  CHECK_SYS(close(fd));
  fd = REQUIRE_SYS(inotify_init1(0));
  CHECK_EQ(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
  CHECK_SYS(close(fd));
  CHECK_ERRNO(inotify_init1(1), EINVAL);
}

static void test_directory_events(void) {
  int fd = REQUIRE_SYS(inotify_init1(IN_NONBLOCK));
  CHECK_SYS(mkdir("d", 0755));
  int wd = REQUIRE_SYS(inotify_add_watch(fd, "d", IN_CREATE | IN_MODIFY | IN_DELETE));
  int f = REQUIRE_SYS(open("d/file_with_a_long_name", O_CREAT | O_WRONLY, 0644));
  CHECK_EQ(write(f, "x", 1), 1);
  CHECK_SYS(close(f));
  CHECK_SYS(unlink("d/file_with_a_long_name"));
  int queued = -1;
  CHECK_SYS(ioctl(fd, FIONREAD, &queued));
  char buf[4096] __attribute__((aligned(8)));
  long n = read(fd, buf, sizeof buf);
  CHECK_EQ(n, queued);
  long off = 0;
  expect_event(buf, n, &off, wd, IN_CREATE, "file_with_a_long_name");
  expect_event(buf, n, &off, wd, IN_MODIFY, "file_with_a_long_name");
  expect_event(buf, n, &off, wd, IN_DELETE, "file_with_a_long_name");
  CHECK_EQ(off, n);
  // The same directory again: the same watch. Removing it queues IN_IGNORED.
  CHECK_EQ(inotify_add_watch(fd, "d", IN_CREATE), wd);
  CHECK_SYS(inotify_rm_watch(fd, wd));
  n = read(fd, buf, sizeof buf);
  off = 0;
  expect_event(buf, n, &off, wd, IN_IGNORED, NULL);
  CHECK_ERRNO(inotify_rm_watch(fd, wd), EINVAL);
  CHECK_SYS(close(fd));
}

static void* create_later(void* arg) {
  (void)arg;
  struct timespec ts = {0, 50 * 1000 * 1000};
  nanosleep(&ts, NULL);
  close(open("later", O_CREAT | O_WRONLY, 0644));
  return NULL;
}

static void test_blocking_read(void) {
  int fd = REQUIRE_SYS(inotify_init1(0));
  int wd = REQUIRE_SYS(inotify_add_watch(fd, ".", IN_CREATE));
  pthread_t th;
  const int64_t t0 = now_ns();  // before the creator starts its delay
  REQUIRE(pthread_create(&th, NULL, create_later, NULL) == 0);
  char buf[512] __attribute__((aligned(8)));
  long n = read(fd, buf, sizeof buf);
  const int64_t waited = now_ns() - t0;
  pthread_join(th, NULL);
  long off = 0;
  expect_event(buf, n, &off, wd, IN_CREATE, "later");
  CHECK_GE(waited, 40 * 1000 * 1000LL);  // it blocked until the file came
  CHECK_LT(waited, 5 * 1000 * 1000 * 1000LL);
  CHECK_SYS(close(fd));
}

static void test_dont_follow_and_errors(void) {
  int fd = REQUIRE_SYS(inotify_init1(IN_NONBLOCK));
  close(open("target", O_CREAT | O_WRONLY, 0644));
  CHECK_SYS(symlink("target", "link"));
  const int through = REQUIRE_SYS(inotify_add_watch(fd, "link", IN_ATTRIB));
  CHECK_EQ(inotify_add_watch(fd, "target", IN_ATTRIB), through);  // followed: the target's watch
  const int on_link = REQUIRE_SYS(inotify_add_watch(fd, "link", IN_ATTRIB | IN_DONT_FOLLOW));
  CHECK_NE(on_link, through);
  CHECK_ERRNO(inotify_add_watch(fd, "missing", IN_CREATE), ENOENT);
  CHECK_ERRNO(inotify_add_watch(fd, "target", 0), EINVAL);
  CHECK_ERRNO(inotify_add_watch(-1, "target", IN_CREATE), EBADF);
  CHECK_ERRNO(syscall(SYS_inotify_add_watch, fd, 8L, IN_CREATE), EFAULT);
  CHECK_ERRNO(syscall(SYS_inotify_add_watch, -1, 8L, IN_CREATE), EBADF);  // the fd is checked first
  int p[2];
  REQUIRE_SYS(pipe(p));
  CHECK_ERRNO(inotify_add_watch(p[0], "target", IN_CREATE), EINVAL);  // not an inotify fd
  CHECK_ERRNO(inotify_rm_watch(p[0], 1), EINVAL);
  CHECK_ERRNO(inotify_rm_watch(-1, 1), EBADF);
  close(p[0]);
  close(p[1]);
  CHECK_SYS(close(fd));
}

int main(void) {
  test_flags();
  test_directory_events();
  test_blocking_read();
  test_dont_follow_and_errors();
  return check_done();
}
