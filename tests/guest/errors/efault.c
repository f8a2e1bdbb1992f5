// Tests that syscalls given bad pointers fail with EFAULT instead of crashing (the guest or the emulator):
// small addresses, an unmapped page, and a read-only page as an output buffer; raw syscalls throughout, so
// that no libc wrapper or vDSO touches the pointer first.
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define kPage 4096L

int main(void) {
  // Bad pointers: a tiny address, an unmapped page, and a page we can read but not write.
  void* const tiny[] = {(void*)1, (void*)8};
  // `ro` is mapped before `gone` is unmapped: Linux (and a64run) may reuse a freed range for the next
  // mapping.
  char* ro = mmap(NULL, kPage, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  char* gone = mmap(NULL, kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(gone != MAP_FAILED);
  REQUIRE_SYS(munmap(gone, kPage));
  REQUIRE(ro != MAP_FAILED);
  void* const bad[] = {tiny[0], tiny[1], gone, gone + kPage - 8};

  int pipefd[2];
  REQUIRE_SYS(pipe(pipefd));
  REQUIRE(write(pipefd[1], "data", 4) == 4);
  int zero = REQUIRE_SYS(open("/dev/zero", O_RDONLY));
  int file = REQUIRE_SYS(open("file", O_CREAT | O_RDWR, 0644));

  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    void* p = bad[i];
    int failures_before = check_failures;
    CHECK_ERRNO(syscall(SYS_read, pipefd[0], p, 4), EFAULT);
    CHECK_ERRNO(syscall(SYS_read, zero, p, 10), EFAULT);
    CHECK_ERRNO(syscall(SYS_write, pipefd[1], p, 10), EFAULT);
    CHECK_ERRNO(syscall(SYS_write, file, p, 10), EFAULT);
    CHECK_ERRNO(syscall(SYS_pread64, zero, p, 10, 0), EFAULT);
    CHECK_ERRNO(syscall(SYS_fstat, file, p), EFAULT);
    CHECK_ERRNO(syscall(SYS_newfstatat, AT_FDCWD, "file", p, 0), EFAULT);
    CHECK_ERRNO(syscall(SYS_newfstatat, AT_FDCWD, p, &(struct stat){0}, 0), EFAULT);
    CHECK_ERRNO(syscall(SYS_openat, AT_FDCWD, p, O_RDONLY), EFAULT);
    CHECK_ERRNO(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, p), EFAULT);
    CHECK_ERRNO(syscall(SYS_clock_gettime, CLOCK_REALTIME, p), EFAULT);
    CHECK_ERRNO(syscall(SYS_gettimeofday, p, NULL), EFAULT);
    CHECK_ERRNO(syscall(SYS_uname, p), EFAULT);
    CHECK_ERRNO(syscall(SYS_getcwd, p, 100), EFAULT);
    CHECK_ERRNO(syscall(SYS_pipe2, p, 0), EFAULT);
    CHECK_ERRNO(syscall(SYS_getrandom, p, 16, 0), EFAULT);
    // qemu-aarch64 7.2 ignores the failed copy of nanosleep's request and returns EINVAL.
    if (!on_reference_qemu()) CHECK_ERRNO(syscall(SYS_nanosleep, p, NULL), EFAULT);
    CHECK_ERRNO(syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, p, NULL), EFAULT);
    CHECK_ERRNO(syscall(SYS_rt_sigaction, SIGUSR1, p, NULL, 8), EFAULT);
    CHECK_ERRNO(syscall(SYS_rt_sigprocmask, SIG_BLOCK, p, NULL, 8), EFAULT);
    CHECK_ERRNO(syscall(SYS_ioctl, pipefd[0], FIONREAD, p), EFAULT);
    CHECK_ERRNO(syscall(SYS_readv, zero, p, 1), EFAULT);
    struct iovec iov = {p, 10};
    CHECK_ERRNO(syscall(SYS_readv, zero, &iov, 1), EFAULT);
    CHECK_ERRNO(syscall(SYS_writev, pipefd[1], &iov, 1), EFAULT);
    if (check_failures != failures_before)
      fprintf(stderr, "  (the checks above used the bad pointer %p)\n", p);
  }

  // Memory that may be read but not written: fine as an input, EFAULT as an output.
  CHECK_ERRNO(syscall(SYS_read, zero, ro, 10), EFAULT);
  CHECK_ERRNO(syscall(SYS_fstat, file, ro), EFAULT);
  CHECK_ERRNO(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, ro), EFAULT);
  CHECK_ERRNO(syscall(SYS_uname, ro), EFAULT);
  CHECK_EQ(syscall(SYS_write, file, ro, 10), 10);

  // A failed read took nothing out of the pipe; the pipe and the descriptors still work.
  char buf[8] = {0};
  CHECK_EQ(read(pipefd[0], buf, sizeof(buf)), 4);
  CHECK_MEMEQ(buf, "data", 4);
  struct timespec ts;
  CHECK_SYS(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts));
  // A NULL that the kernel accepts is not a fault: nanosleep's rem, rt_sigaction's act and oldact.
  struct timespec short_sleep = {0, 1000};
  CHECK_SYS(syscall(SYS_nanosleep, &short_sleep, NULL));
  CHECK_SYS(syscall(SYS_rt_sigaction, SIGUSR1, NULL, NULL, 8));
  CHECK_SYS(close(zero));
  CHECK_SYS(close(file));
  CHECK_SYS(close(pipefd[0]));
  CHECK_SYS(close(pipefd[1]));
  return check_done();
}
