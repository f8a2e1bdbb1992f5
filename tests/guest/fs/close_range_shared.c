// Tests close_range on a descriptor table shared with another process (clone with CLONE_FILES, no
// CLONE_VM): without CLOSE_RANGE_UNSHARE the child's close reaches the parent's table; with it the child
// first gets a table of its own and the parent's descriptors stay open (LTP close_range01/02's cases).
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/close_range.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

// A fork-like child sharing the descriptor table; returns like fork.
static long clone_files(void) {
  return syscall(SYS_clone, CLONE_FILES | SIGCHLD, 0, 0, 0, 0);
}

static int child_status(long pid) {
  int status = 0;
  if (waitpid((pid_t)pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

int main(void) {
  int fd = open("/dev/null", O_RDONLY);
  REQUIRE(fd >= 0);
  long pid = clone_files();
  if (pid < 0 && errno == EINVAL && on_reference_qemu()) {
    // qemu-aarch64 7.2 refuses CLONE_FILES without CLONE_VM (CLONE_INVALID_FORK_FLAGS in do_fork).
    NOTE("qemu refuses clone(CLONE_FILES) without CLONE_VM: skipped");
    return check_done();
  }
  REQUIRE(pid >= 0);
  if (pid == 0) {
    // With CLOSE_RANGE_UNSHARE: closed here, not in the parent.
    if (syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_UNSHARE) != 0) _exit(2);
    _exit(fcntl(fd, F_GETFD) == -1 && errno == EBADF ? 0 : 3);
  }
  CHECK_EQ(child_status(pid), 0);
  CHECK(fcntl(fd, F_GETFD) >= 0);

  // CLOSE_RANGE_CLOEXEC with CLOSE_RANGE_UNSHARE: the flag is set in the child's copy only.
  pid = clone_files();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_UNSHARE | CLOSE_RANGE_CLOEXEC) != 0) _exit(2);
    _exit(fcntl(fd, F_GETFD) == FD_CLOEXEC ? 0 : 3);
  }
  CHECK_EQ(child_status(pid), 0);
  CHECK_EQ(fcntl(fd, F_GETFD), 0);

  // Without it, the table is one: the child's close_range closes the parent's descriptor.
  pid = clone_files();
  REQUIRE(pid >= 0);
  if (pid == 0) _exit(syscall(SYS_close_range, fd, fd, 0) == 0 ? 0 : 2);
  CHECK_EQ(child_status(pid), 0);
  errno = 0;
  CHECK_EQ(fcntl(fd, F_GETFD), -1);
  CHECK_EQ(errno, EBADF);
  return check_done();
}
