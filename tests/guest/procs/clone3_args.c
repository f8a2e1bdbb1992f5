// clone3's argument checks as Linux makes them: a struct larger than the kernel's must be readable (EFAULT)
// and zero past the known fields (E2BIG); CLONE_PIDFD with an address that cannot be written fails with
// EFAULT and makes no child, for clone3 and clone alike.
#define _GNU_SOURCE
#include <errno.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

enum { kArgsSize = 88 };  // CLONE_ARGS_SIZE_VER2: the kernel's struct clone_args

static long clone3_raw(void* args, size_t size) {
  return syscall(SYS_clone3, args, size);
}

// In the parent: the child's exit status, or -1 when the call made no child.
static int reap(long pid) {
  if (pid <= 0) return -1;
  int status;
  if (waitpid((pid_t)pid, &status, 0) != pid || !WIFEXITED(status)) return -2;
  return WEXITSTATUS(status);
}

int main(void) {
  // Two pages, the second PROT_NONE: args placed so that byte kArgsSize is the first of the second.
  const long page = sysconf(_SC_PAGESIZE);
  char* map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(map != MAP_FAILED);
  REQUIRE(mprotect(map + page, page, PROT_NONE) == 0);
  char* args = map + page - kArgsSize;
  struct clone_args* ca = (struct clone_args*)args;

  memset(args, 0, kArgsSize);
  ca->exit_signal = SIGCHLD;
  if (on_reference_qemu()) {
    // qemu-aarch64 7.2 has no clone3 (ENOSYS) and refuses CLONE_PIDFD in clone (EINVAL).
    errno = 0;
    CHECK_EQ(clone3_raw(args, kArgsSize), -1);
    CHECK_EQ(errno, ENOSYS);
    NOTE("qemu-aarch64 7.2 has no clone3: the checks are left out");
    return check_done();
  }
  errno = 0;
  long pid = clone3_raw(args, kArgsSize + 1);
  if (pid == 0) _exit(6);
  CHECK_EQ(pid, -1);
  CHECK_EQ(errno, EFAULT);
  CHECK_EQ(reap(pid), -1);

  // Larger than the kernel's and zero past it: accepted; a nonzero byte there: E2BIG.
  uint64_t big[16] = {0};
  memcpy(big, args, kArgsSize);
  pid = clone3_raw(big, sizeof big);
  if (pid == 0) _exit(7);
  CHECK_EQ(reap(pid), 7);
  big[14] = 1;
  errno = 0;
  pid = clone3_raw(big, sizeof big);
  if (pid == 0) _exit(6);
  CHECK_EQ(pid, -1);
  CHECK_EQ(errno, E2BIG);
  CHECK_EQ(reap(pid), -1);

  // CLONE_PIDFD to an address that cannot be written: EFAULT, and no child.
  ca->flags = CLONE_PIDFD;
  ca->pidfd = (uint64_t)(uintptr_t)(map + page);
  errno = 0;
  pid = clone3_raw(args, kArgsSize);
  if (pid == 0) _exit(8);
  CHECK_EQ(pid, -1);
  CHECK_EQ(errno, EFAULT);
  CHECK_EQ(reap(pid), -1);
  errno = 0;
  CHECK_EQ(waitpid(-1, NULL, WNOHANG), -1);
  CHECK_EQ(errno, ECHILD);

  // clone(2): CLONE_PIDFD writes through the parent_tid argument.
  errno = 0;
  pid = syscall(SYS_clone, CLONE_PIDFD | SIGCHLD, 0, map + page, 0, 0);
  if (pid == 0) _exit(9);
  CHECK_EQ(pid, -1);
  CHECK_EQ(errno, EFAULT);

  // A good address gets a pidfd.
  int pidfd = -1;
  ca->pidfd = (uint64_t)(uintptr_t)&pidfd;
  pid = clone3_raw(args, kArgsSize);
  if (pid == 0) _exit(10);
  CHECK_GE(pidfd, 0);
  CHECK_EQ(reap(pid), 10);
  if (pidfd >= 0) close(pidfd);
  return check_done();
}
