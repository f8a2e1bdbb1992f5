// Tests that calls with more than one thing wrong give the error Linux checks first (all found by the
// syscall fuzzer's comparison with the host kernel): splice and copy_file_range check the descriptors and
// their kinds before they read an offset; preadv/pwritev at an offset say ESPIPE for a pipe before they read
// the iovecs (preadv2 at offset -1 reads at the file position, so there EFAULT); setgroups checks the
// capability before the size and the list.
#define _GNU_SOURCE
#include <fcntl.h>
#include <grp.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static long err_of(long r) {
  return r < 0 ? errno : 0;
}

// qemu-aarch64 (7.2) copies the guest's memory in before it makes the call (lock_user in do_syscall), so it
// says EFAULT (or EINVAL for the iovec count) where Linux checks the descriptors first, and it has no
// preadv2 (ENOSYS): those checks run on a64run only.
#define CHECK_ORDER(call, want)     \
  do {                              \
    if (!on_reference_qemu()) {     \
      CHECK_EQ(err_of(call), want); \
    }                               \
  } while (0)

static void test_splice(void* bad) {
  int p[2];
  REQUIRE_SYS(pipe(p));
  const int file = open("/proc/self/exe", O_RDONLY);
  REQUIRE_SYS(file);
  const int out = open("/dev/null", O_WRONLY);
  REQUIRE_SYS(out);
  CHECK_ORDER(syscall(SYS_splice, 1000, bad, p[1], NULL, 16, 0), EBADF);
  CHECK_ORDER(syscall(SYS_splice, p[0], bad, out, NULL, 16, 0), ESPIPE);  // an offset for a pipe
  CHECK_EQ(err_of(syscall(SYS_splice, file, bad, p[1], NULL, 16, 0)), EFAULT);
  CHECK_ORDER(syscall(SYS_copy_file_range, 1000, bad, out, NULL, 16, 0), EBADF);
  CHECK_ORDER(syscall(SYS_copy_file_range, file, bad, 1000, NULL, 16, 0), EBADF);
  close(p[0]);
  close(p[1]);
  close(file);
  close(out);
}

static void test_preadv(void* bad) {
  int p[2];
  REQUIRE_SYS(pipe(p));
  const int file = open("/proc/self/exe", O_RDONLY);
  REQUIRE_SYS(file);
  CHECK_ORDER(syscall(SYS_preadv, p[0], bad, 1, 0, 0), ESPIPE);
  CHECK_ORDER(syscall(SYS_pwritev, p[1], bad, 1, 0, 0), ESPIPE);
  CHECK_ORDER(syscall(SYS_preadv, p[0], bad, 5000, 0, 0), ESPIPE);  // before the count too
  CHECK_EQ(err_of(syscall(SYS_preadv, file, bad, 1, 0, 0)), EFAULT);
  CHECK_ORDER(syscall(SYS_preadv2, p[0], bad, 1, -1L, 0, 0), EFAULT);
  CHECK_ORDER(syscall(SYS_preadv, 1000, bad, 1, 0, 0), EBADF);
  close(p[0]);
  close(p[1]);
  close(file);
}

// In a child without privileges (nobody when the test runs as root): EPERM before EINVAL and EFAULT.
static void test_setgroups(void* bad) {
  if (on_reference_qemu()) return;  // qemu-aarch64 reads the list first too (EFAULT)
  const pid_t pid = fork();
  REQUIRE_SYS(pid);
  if (pid == 0) {
    if (geteuid() == 0 && syscall(SYS_setresuid, 65534, 65534, 65534) != 0) _exit(2);
    if (err_of(syscall(SYS_setgroups, 0xffff, bad)) != EPERM) _exit(3);
    if (err_of(syscall(SYS_setgroups, -1, NULL)) != EPERM) _exit(4);
    if (err_of(syscall(SYS_setgroups, 100000, bad)) != EPERM) _exit(5);
    _exit(0);
  }
  int status = 0;
  REQUIRE_SYS(waitpid(pid, &status, 0));
  CHECK(WIFEXITED(status));
  CHECK_EQ(WEXITSTATUS(status), 0);
}

int main(void) {
  void* bad = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(bad != MAP_FAILED);
  REQUIRE_SYS(munmap(bad, 4096));
  test_splice(bad);
  test_preadv(bad);
  test_setgroups(bad);
  return check_done();
}
