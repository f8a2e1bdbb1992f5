// A file mapping whose file is truncated afterwards: its pages past the new end fault. Linux answers EFAULT
// when a system call's copy of its arguments or results touches one (copy_from_user, copy_to_user, a futex
// word, a path), and the emulator must too, never die of the host's SIGBUS: rt_sigprocmask, clock_gettime,
// futex, openat, write (the kernel's own copy) and nanosleep read or write such a page. Pages before the
// new end still work. (Guest code touching the page: mem/fault_siginfo and mmap_faults cover a page past
// the end at mmap time.)
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

enum { kPage = 4096 };

static void calls_on(char* gone, char* kept) {
  uint64_t set = 0;
  CHECK_ERRNO(syscall(SYS_rt_sigprocmask, SIG_BLOCK, gone, NULL, 8), EFAULT);
  CHECK_ERRNO(syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, gone, 8), EFAULT);
  CHECK_EQ(syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, kept, 8), 0);
  CHECK_EQ(syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, NULL, 8), 0);
  CHECK_ERRNO(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, gone), EFAULT);
  CHECK_EQ(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, kept), 0);
  struct timespec zero = {0, 0};
  CHECK_ERRNO(syscall(SYS_futex, gone, FUTEX_WAIT, 0, &zero, NULL, 0), EFAULT);
  CHECK_ERRNO(syscall(SYS_futex, gone, FUTEX_WAKE_OP, 1, NULL, gone + 64, FUTEX_OP(FUTEX_OP_ADD, 1, 0, 0)),
              EFAULT);
  CHECK_ERRNO(syscall(SYS_openat, AT_FDCWD, gone, O_RDONLY), EFAULT);
  CHECK_ERRNO(syscall(SYS_nanosleep, gone, NULL), EFAULT);
  int p[2];
  REQUIRE_SYS(pipe(p));
  CHECK_ERRNO(write(p[1], gone, 16), EFAULT);
  CHECK_EQ(write(p[1], kept, 16), 16);
  close(p[0]);
  close(p[1]);
}

int main(void) {
  char path[] = "/tmp/a64run-truncated-XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE_SYS(fd);
  unlink(path);
  REQUIRE_SYS(ftruncate(fd, 2 * kPage));
  char* map = mmap(NULL, 2 * kPage, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  REQUIRE(map != MAP_FAILED);
  map[0] = 1;
  map[kPage] = 1;  // both pages present before the cut
  REQUIRE_SYS(ftruncate(fd, kPage));
  // The calls in a child: an emulator that dies of the host's SIGBUS fails the check, not the test run.
  const pid_t pid = fork();
  if (pid == 0) {
    calls_on(map + kPage, map);
    _exit(check_done());
  }
  int status;
  CHECK_EQ(waitpid(pid, &status, 0), pid);
  if (on_reference_qemu() && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
    // Its host SIGBUS handler, reached from the system call's copy, fails an assertion in cpu_exec.
    NOTE("qemu-aarch64 7.2 copies system call arguments with plain host loads: it dies of SIGBUS");
  } else {
    CHECK(WIFEXITED(status));
    CHECK_EQ(WEXITSTATUS(status), 0);
  }
  return check_done();
}
