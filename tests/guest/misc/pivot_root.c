// pivot_root(2) in a private mount namespace (a child that unshares one, as root): a tmpfs becomes the root
// and the old root is found under put_old; a missing new root is ENOENT.
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define TMPFS_MAGIC_ 0x01021994

static long pivot(const char* new_root, const char* put_old) {
  return syscall(SYS_pivot_root, new_root, put_old);
}

// In the child. 0: all as expected, 2: no private mount namespace here, else the failing step.
static int child(const char* dir) {
  if (unshare(CLONE_NEWNS) != 0) return 2;
  // Nothing done below may reach the host's namespace.
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) return 2;
  errno = 0;
  if (pivot("/nonexistent_a64run_root", "/") != -1 || errno != ENOENT) return 5;
  if (mount("none", dir, "tmpfs", 0, NULL) != 0) return 6;
  char old[256];
  snprintf(old, sizeof old, "%s/old", dir);
  if (mkdir(old, 0700) != 0) return 7;
  if (pivot(dir, old) != 0) return 8;
  if (chdir("/") != 0) return 9;
  struct statfs sf;
  if (statfs("/", &sf) != 0 || sf.f_type != TMPFS_MAGIC_) return 10;
  struct stat st;
  if (stat("/old", &st) != 0 || !S_ISDIR(st.st_mode)) return 11;
  if (umount2("/old", MNT_DETACH) != 0) return 12;
  return 0;
}

int main(void) {
  char dir[] = "/tmp/a64run_pivot.XXXXXX";
  REQUIRE(mkdtemp(dir) != NULL);
  pid_t pid = fork();
  if (pid == 0) _exit(child(dir));
  int status;
  CHECK_EQ(waitpid(pid, &status, 0), pid);
  REQUIRE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 2) {
    NOTE("no private mount namespace here (not root?): pivot_root is not checked");
  } else {
    CHECK_EQ(WEXITSTATUS(status), 0);
  }
  CHECK_EQ(rmdir(dir), 0);  // the tmpfs stayed in the child's namespace
  return check_done();
}
