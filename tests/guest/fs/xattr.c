// Tests the extended attribute calls: set (XATTR_CREATE, XATTR_REPLACE), get (size query, short buffer),
// list, remove, on a path, through and on a symlink (l*), and on an fd (f*), and their errors: bad names
// (empty, too long), sizes, flags, pointers and fds.
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "check.h"

static const char kValue[] = "value-1";

// Whether `list` (listxattr's output, `len` bytes) holds `name`.
static int list_has(const char* list, long len, const char* name) {
  for (long i = 0; i < len; i += (long)strlen(list + i) + 1)
    if (strcmp(list + i, name) == 0) return 1;
  return 0;
}

static void test_path_calls(void) {
  CHECK_SYS(setxattr("f", "user.a64run", kValue, 7, 0));
  char buf[64] = {0};
  CHECK_EQ(getxattr("f", "user.a64run", NULL, 0), 7);  // size query
  CHECK_EQ(getxattr("f", "user.a64run", buf, sizeof buf), 7);
  CHECK_MEMEQ(buf, kValue, 7);
  CHECK_ERRNO(getxattr("f", "user.a64run", buf, 3), ERANGE);
  CHECK_ERRNO(getxattr("f", "user.missing", buf, sizeof buf), ENODATA);

  CHECK_ERRNO(setxattr("f", "user.a64run", "x", 1, XATTR_CREATE), EEXIST);
  CHECK_ERRNO(setxattr("f", "user.other", "x", 1, XATTR_REPLACE), ENODATA);
  CHECK_SYS(setxattr("f", "user.a64run", "abc", 3, XATTR_REPLACE));
  CHECK_SYS(setxattr("f", "user.empty", "", 0, XATTR_CREATE));
  CHECK_EQ(getxattr("f", "user.empty", buf, sizeof buf), 0);

  char list[256];
  const long need = listxattr("f", NULL, 0);
  CHECK_GE(need, (long)(sizeof "user.a64run" + sizeof "user.empty"));
  const long got = listxattr("f", list, sizeof list);
  CHECK_EQ(got, need);
  CHECK(list_has(list, got, "user.a64run"));
  CHECK(list_has(list, got, "user.empty"));
  CHECK_ERRNO(listxattr("f", list, 1), ERANGE);

  CHECK_SYS(removexattr("f", "user.empty"));
  CHECK_ERRNO(removexattr("f", "user.empty"), ENODATA);
  CHECK_EQ(getxattr("f", "user.a64run", buf, sizeof buf), 3);
  CHECK_MEMEQ(buf, "abc", 3);
}

// A symlink: the plain calls act on the target, the l* calls on the link, where Linux allows no user.*
// attributes.
static void test_symlink(void) {
  CHECK_SYS(symlink("f", "link"));
  char buf[16] = {0};
  CHECK_EQ(getxattr("link", "user.a64run", buf, sizeof buf), 3);
  CHECK_ERRNO(lgetxattr("link", "user.a64run", buf, sizeof buf), ENODATA);
  CHECK_ERRNO(lsetxattr("link", "user.a64run", "x", 1, 0), EPERM);
  char list[256];
  const long n = llistxattr("link", list, sizeof list);
  CHECK(n >= 0 && !list_has(list, n, "user.a64run"));
  CHECK_ERRNO(lremovexattr("link", "user.a64run"), EPERM);
  CHECK_SYS(setxattr("link", "user.via_link", "1", 1, 0));
  CHECK_EQ(getxattr("f", "user.via_link", buf, sizeof buf), 1);
  CHECK_SYS(removexattr("link", "user.via_link"));
}

static void test_fd_calls(void) {
  int fd = REQUIRE_SYS(open("f", O_RDONLY));
  char buf[16] = {0};
  CHECK_SYS(fsetxattr(fd, "user.fd", "fd!", 3, XATTR_CREATE));
  CHECK_EQ(fgetxattr(fd, "user.fd", buf, sizeof buf), 3);
  CHECK_MEMEQ(buf, "fd!", 3);
  char list[256];
  const long n = flistxattr(fd, list, sizeof list);
  CHECK(n > 0 && list_has(list, n, "user.fd") && list_has(list, n, "user.a64run"));
  CHECK_SYS(fremovexattr(fd, "user.fd"));
  CHECK_ERRNO(fgetxattr(fd, "user.fd", buf, sizeof buf), ENODATA);
  CHECK_SYS(close(fd));
  CHECK_ERRNO(fgetxattr(fd, "user.fd", buf, sizeof buf), EBADF);
  CHECK_ERRNO(fsetxattr(-1, "user.fd", "x", 1, 0), EBADF);
  CHECK_ERRNO(flistxattr(9999, list, sizeof list), EBADF);
  CHECK_ERRNO(fremovexattr(-1, "user.fd"), EBADF);
}

static void test_errors(void) {
  char buf[16];
  char long_name[300];
  memset(long_name, 'a', sizeof long_name - 1);
  long_name[sizeof long_name - 1] = '\0';
  memcpy(long_name, "user.", 5);
  CHECK_ERRNO(getxattr("f", "", buf, sizeof buf), ERANGE);
  CHECK_ERRNO(getxattr("f", long_name, buf, sizeof buf), ERANGE);
  CHECK_ERRNO(setxattr("f", long_name, "x", 1, 0), ERANGE);
  CHECK_ERRNO(removexattr("f", ""), ERANGE);
  CHECK_ERRNO(getxattr("missing", "user.a64run", buf, sizeof buf), ENOENT);
  CHECK_ERRNO(listxattr("missing", buf, sizeof buf), ENOENT);
  CHECK_ERRNO(setxattr("f", "user.x", "x", 1, 4), EINVAL);  // no such flag
  // Deliberately wrong sizes and pointers go through syscall(2), past the compiler's buffer checks.
  static char big[65537];
  CHECK_ERRNO(syscall(SYS_setxattr, "f", "user.x", big, sizeof big, 0), E2BIG);
  CHECK_ERRNO(syscall(SYS_getxattr, "f", "user.a64run", 8L, 16L), EFAULT);
  CHECK_ERRNO(syscall(SYS_setxattr, "f", "user.x", 8L, 4L, 0), EFAULT);
  CHECK_ERRNO(syscall(SYS_getxattr, "f", 8L, buf, sizeof buf), EFAULT);
  CHECK_ERRNO(syscall(SYS_getxattr, 8L, "user.a64run", buf, sizeof buf), EFAULT);
  CHECK_ERRNO(syscall(SYS_listxattr, "f", 8L, 64L), EFAULT);
  // A size past the limit asks for at most 64 KiB, and only the value's bytes are written: a 16-byte buffer
  // at the end of a mapping with a size of 1 TiB still gets the value. qemu-aarch64 7.2 locks the whole
  // size of guest memory first (lock_user in do_syscall's getxattr) and answers EFAULT.
  char* page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(page != MAP_FAILED);
  if (!on_reference_qemu()) {
    CHECK_EQ(syscall(SYS_getxattr, "f", "user.a64run", page + 4096 - 16, 1L << 40), 3);
    CHECK_MEMEQ(page + 4096 - 16, "abc", 3);
    CHECK_EQ(syscall(SYS_listxattr, "f", page + 4096 - 16, 1L << 20), (long)sizeof "user.a64run");
  }
  CHECK_ERRNO(syscall(SYS_getxattr, "f", "user.a64run", page + 4096 - 2, 16L), EFAULT);  // 3 bytes, 2 fit
  munmap(page, 4096);
}

int main(void) {
  int fd = REQUIRE_SYS(open("f", O_CREAT | O_WRONLY | O_TRUNC, 0644));
  CHECK_SYS(close(fd));
  if (setxattr("f", "user.probe", "1", 1, 0) != 0 && errno == EOPNOTSUPP) {
    NOTE("the scratch directory's file system has no user.* attributes: only the error checks run");
    CHECK_ERRNO(getxattr("f", "", NULL, 0), ERANGE);
    CHECK_ERRNO(getxattr("missing", "user.a64run", NULL, 0), ENOENT);
    return check_done();
  }
  CHECK_SYS(removexattr("f", "user.probe"));
  test_path_calls();
  test_symlink();
  test_fd_calls();
  test_errors();
  return check_done();
}
