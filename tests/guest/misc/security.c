// Landlock (a ruleset that lets a child read one directory only), the LSM module list, and file_getattr /
// file_setattr, through the host's calls; and their answers to bad arguments.
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static void test_landlock(void) {
  long abi = syscall(444, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (abi < 0 && errno == ENOSYS) {
    CHECK(on_reference_qemu());  // qemu-aarch64 7.2 has no Landlock
    return;
  }
  if (abi < 0 && errno == EOPNOTSUPP) {
    NOTE("Landlock is off in this kernel; skipped");
    return;
  }
  CHECK_GE(abi, 1);
  REQUIRE_SYS(mkdir("allowed", 0755));
  REQUIRE_SYS(mkdir("other", 0755));
  close(REQUIRE_SYS(open("allowed/f", O_CREAT | O_WRONLY, 0644)));
  close(REQUIRE_SYS(open("other/f", O_CREAT | O_WRONLY, 0644)));

  struct landlock_ruleset_attr ra = {.handled_access_fs = LANDLOCK_ACCESS_FS_READ_FILE};
  int rs = CHECK_SYS(syscall(444, &ra, sizeof ra, 0));
  struct landlock_path_beneath_attr pb = {.allowed_access = LANDLOCK_ACCESS_FS_READ_FILE,
                                          .parent_fd = open("allowed", O_PATH)};
  CHECK_SYS(syscall(445, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0));
  CHECK_ERRNO(syscall(445, rs, LANDLOCK_RULE_PATH_BENEATH, NULL, 0), EFAULT);
  struct landlock_path_beneath_attr bad = {.allowed_access = LANDLOCK_ACCESS_FS_READ_FILE, .parent_fd = 999};
  CHECK_ERRNO(syscall(445, rs, LANDLOCK_RULE_PATH_BENEATH, &bad, 0), EBADF);
  CHECK_ERRNO(syscall(445, rs, 99, &pb, 0), EINVAL);

  pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    if (syscall(446, rs, 0) != 0) _exit(10);
    int ok = open("allowed/f", O_RDONLY);
    int denied = open("other/f", O_RDONLY);
    _exit(ok >= 0 && denied < 0 && errno == EACCES ? 0 : 11);
  }
  int status;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  // The parent is not restricted.
  int fd = CHECK_SYS(open("other/f", O_RDONLY));
  close(fd);
  close(pb.parent_fd);
  close(rs);
  CHECK_ERRNO(syscall(446, 999, 0), EBADF);
}

static void test_lsm(void) {
  uint64_t ids[32];
  uint32_t size = sizeof ids;
  long n = syscall(461, ids, &size, 0);
  if (n < 0 && errno == ENOSYS) {
    CHECK(on_reference_qemu());  // qemu-aarch64 7.2 predates the LSM calls (Linux 6.8)
    return;
  }
  CHECK_GT(n, 0);
  CHECK_EQ(size, n * sizeof(uint64_t));
  uint32_t small = 0;
  CHECK_ERRNO(syscall(461, ids, &small, 0), E2BIG);
  CHECK_EQ(small, n * sizeof(uint64_t));  // the room it needs
  CHECK_ERRNO(syscall(461, ids, (uint32_t*)8, 0), EFAULT);
}

static void test_file_attr(void) {
  close(REQUIRE_SYS(open("attrs", O_CREAT | O_WRONLY, 0644)));
  uint32_t fa[6];  // struct file_attr: u64 xflags; u32 extsize, nextents, projid, cowextsize (24 bytes)
  memset(fa, 0xff, sizeof fa);
  long r = syscall(468, AT_FDCWD, "attrs", fa, sizeof fa, 0);
  if (r < 0 && errno == ENOSYS) {
    CHECK(on_reference_qemu());  // qemu-aarch64 7.2 predates file_getattr (Linux 6.17)
    return;
  }
  if (r < 0 && (errno == EOPNOTSUPP || errno == ENOTTY)) {
    NOTE("the file system has no file attributes; only the argument checks");
  } else {
    CHECK_EQ(r, 0);
    CHECK_SYS(syscall(469, AT_FDCWD, "attrs", fa, sizeof fa, 0));  // setting them back as they are
  }
  CHECK_ERRNO(syscall(468, AT_FDCWD, "attrs", fa, 4, 0), EINVAL);    // smaller than the first version
  CHECK_ERRNO(syscall(468, AT_FDCWD, "attrs", fa, 8192, 0), E2BIG);  // more than a page
  CHECK_ERRNO(syscall(468, AT_FDCWD, "missing", fa, sizeof fa, 0), ENOENT);
}

int main(void) {
  test_landlock();
  test_lsm();
  test_file_attr();
  return check_done();
}
