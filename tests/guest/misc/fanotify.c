// fanotify: a notification group marked on a file sees this process modify and close it, with the guest's
// pid and a descriptor for the file; bad flags and descriptors get Linux's answers.
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

int main(void) {
  int fan = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC, O_RDONLY);
  if (fan == -1 && errno == ENOSYS) {
    CHECK(on_reference_qemu());  // qemu-aarch64 7.2 has no fanotify
    return check_done();
  }
  if (fan == -1 && errno == EPERM) {
    NOTE("fanotify needs CAP_SYS_ADMIN; skipped");
    return check_done();
  }
  REQUIRE(fan >= 0);
  int fd = CHECK_SYS(open("watched", O_CREAT | O_WRONLY, 0600));
  close(fd);
  CHECK_SYS(fanotify_mark(fan, FAN_MARK_ADD, FAN_MODIFY | FAN_CLOSE_WRITE, AT_FDCWD, "watched"));
  fd = CHECK_SYS(open("watched", O_WRONLY));
  CHECK_EQ(write(fd, "x", 1), 1);
  close(fd);

  char buf[4096] __attribute__((aligned(8)));
  ssize_t len = read(fan, buf, sizeof buf);
  CHECK_GT(len, 0);
  unsigned long long seen = 0;
  char want[PATH_MAX], path[PATH_MAX];
  REQUIRE(realpath("watched", want) != NULL);
  for (struct fanotify_event_metadata* m = (void*)buf; FAN_EVENT_OK(m, len); m = FAN_EVENT_NEXT(m, len)) {
    CHECK_EQ(m->vers, FANOTIFY_METADATA_VERSION);
    CHECK_EQ(m->pid, getpid());
    seen |= m->mask;
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", m->fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    CHECK_GT(n, 0);
    if (n > 0) {
      path[n] = '\0';
      CHECK_STREQ(path, want);
    }
    close(m->fd);
  }
  CHECK(seen & FAN_MODIFY);
  if (!(seen & FAN_CLOSE_WRITE)) {  // the close may come in a second read
    len = read(fan, buf, sizeof buf);
    struct fanotify_event_metadata* m = (void*)buf;
    CHECK(len > 0 && (m->mask & FAN_CLOSE_WRITE));
    if (len > 0) close(m->fd);
  }

  CHECK_ERRNO(fanotify_mark(fan, FAN_MARK_ADD, FAN_MODIFY, AT_FDCWD, "missing"), ENOENT);
  CHECK_ERRNO(fanotify_mark(999, FAN_MARK_ADD, FAN_MODIFY, AT_FDCWD, "watched"), EBADF);
  CHECK_ERRNO(fanotify_mark(fan, 0xffff0000, FAN_MODIFY, AT_FDCWD, "watched"), EINVAL);
  CHECK_ERRNO(fanotify_init(0x7fff0000, O_RDONLY), EINVAL);
  close(fan);
  return check_done();
}
