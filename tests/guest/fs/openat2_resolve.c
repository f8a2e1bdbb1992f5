// openat2's RESOLVE_* rules on the /proc paths a64run answers itself, as Linux applies them: /proc/self/exe
// is a magic link (RESOLVE_NO_MAGICLINKS and RESOLVE_NO_SYMLINKS: ELOOP; O_PATH|O_NOFOLLOW opens the link
// itself), /proc/self is a symlink (RESOLVE_NO_SYMLINKS: ELOOP on /proc/self/maps, which
// RESOLVE_NO_MAGICLINKS lets through), an absolute path is not beneath the directory (RESOLVE_BENEATH:
// EXDEV); /proc/self/fd/N and ordinary symlinks follow the same rules.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

// openat2's result: a descriptor (closed here) as 0, else the errno.
static int try_open(int dirfd, const char* path, uint64_t flags, uint64_t resolve) {
  struct open_how how = {.flags = flags, .mode = 0, .resolve = resolve};
  errno = 0;
  long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof how);
  if (fd < 0) return errno;
  close((int)fd);
  return 0;
}

int main(void) {
  if (try_open(AT_FDCWD, "/", O_RDONLY | O_DIRECTORY, 0) == ENOSYS) {
    NOTE("no openat2 here (qemu-aarch64 7.2 has none): nothing to check");
    return check_done();
  }
  const uint64_t ro = O_RDONLY | O_CLOEXEC;
  CHECK_EQ(try_open(AT_FDCWD, "/proc/self/exe", ro, 0), 0);
  CHECK_EQ(try_open(AT_FDCWD, "/proc/self/exe", ro, RESOLVE_NO_MAGICLINKS), ELOOP);
  CHECK_EQ(try_open(AT_FDCWD, "/proc/self/exe", ro, RESOLVE_NO_SYMLINKS), ELOOP);
  CHECK_EQ(try_open(AT_FDCWD, "/proc/self/exe", O_PATH | O_NOFOLLOW, RESOLVE_NO_MAGICLINKS), 0);
  CHECK_EQ(try_open(AT_FDCWD, "/proc/self/exe", ro, RESOLVE_BENEATH), EXDEV);
  CHECK_EQ(try_open(AT_FDCWD, "/proc/self/exe", ro, RESOLVE_NO_XDEV), EXDEV);
  // A file a64run makes: /proc/self is a symlink, but no magic one.
  CHECK_EQ(try_open(AT_FDCWD, "/proc/self/maps", ro, RESOLVE_NO_SYMLINKS), ELOOP);
  struct open_how how = {.flags = ro, .mode = 0, .resolve = RESOLVE_NO_MAGICLINKS};
  long maps = syscall(SYS_openat2, AT_FDCWD, "/proc/self/maps", &how, sizeof how);
  if (CHECK(maps >= 0)) {
    char buf[256] = {0};
    CHECK(read((int)maps, buf, sizeof buf - 1) > 0 && strchr(buf, '-') != NULL);
    close((int)maps);
  }
  // Relative to a /proc/self descriptor, "exe" is still a magic link; "maps" has no link on the way.
  int self = open("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  REQUIRE(self >= 0);
  CHECK_EQ(try_open(self, "exe", ro, RESOLVE_NO_MAGICLINKS), ELOOP);
  CHECK_EQ(try_open(self, "exe", ro, RESOLVE_BENEATH), EXDEV);  // a magic link never stays beneath
  CHECK_EQ(try_open(self, "maps", ro, RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH), 0);
  close(self);
  // The host's own magic links and symlinks, for comparison.
  char fdpath[64];
  int dev = open("/dev/null", O_RDONLY | O_CLOEXEC);
  REQUIRE(dev >= 0);
  snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", dev);
  CHECK_EQ(try_open(AT_FDCWD, fdpath, ro, 0), 0);
  CHECK_EQ(try_open(AT_FDCWD, fdpath, ro, RESOLVE_NO_MAGICLINKS), ELOOP);
  close(dev);
  char dir[] = "/tmp/a64run-openat2-XXXXXX";
  REQUIRE(mkdtemp(dir) != NULL);
  char link[96];
  snprintf(link, sizeof link, "%s/link", dir);
  REQUIRE(symlink("/proc/version", link) == 0);
  CHECK_EQ(try_open(AT_FDCWD, link, ro, RESOLVE_NO_MAGICLINKS), 0);
  CHECK_EQ(try_open(AT_FDCWD, link, ro, RESOLVE_NO_SYMLINKS), ELOOP);
  unlink(link);
  rmdir(dir);
  return check_done();
}
