// Tests transfers from and to buffers that are only partly usable, as Linux makes them: it copies in order
// and stops at the first page it cannot touch, so a write from a buffer whose tail is unmapped writes the
// readable prefix and returns its length, a read into a buffer whose tail is read-only fills the writable
// prefix; /dev/null takes any count without reading; a vector transfer stops at the iovec that faults; a
// pipe moves whole pages (a page that faults part-way is EFAULT); nothing starts at an unusable first page.
// Raw system calls throughout; every expectation holds natively on Linux too.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "check.h"

#define kPage 4096L

// Two pages: the first readable and writable and filled with `fill`, the second with `second_prot`
// (unmapped for -1).
static char* two_pages(int fill, int second_prot) {
  char* p = mmap(NULL, 2 * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(p != MAP_FAILED);
  memset(p, fill, 2 * kPage);
  if (second_prot < 0) {
    REQUIRE_SYS(munmap(p + kPage, kPage));
  } else {
    REQUIRE_SYS(mprotect(p + kPage, kPage, second_prot));
  }
  return p;
}

static long drain(int fd, char* out, long max) {
  long got = 0;
  while (got < max) {
    long n = read(fd, out + got, max - got);
    if (n <= 0) break;
    got += n;
  }
  return got;
}

// qemu-aarch64 7.2 locks a whole guest buffer (lock_user) before the host call and fails with EFAULT when any
// page of it is unusable: its reference lane skips the partial checks.
static int partial_expected(void) {
  return !on_reference_qemu();
}

static void test_write(void) {
  int fds[2];
  REQUIRE_SYS(pipe2(fds, O_NONBLOCK));
  char* src = two_pages('w', -1);
  static char got[3 * kPage];
  if (partial_expected()) {
    CHECK_EQ(syscall(SYS_write, fds[1], src, 2 * kPage), kPage);
    CHECK_EQ(drain(fds[0], got, sizeof got), kPage);
    CHECK_MEMEQ(got, src, kPage);
  }
  CHECK_ERRNO(syscall(SYS_write, fds[1], src + kPage, 16), EFAULT);
  // A mapped page the guest may not read stops the copy as an unmapped one does.
  char* noread = two_pages('n', PROT_NONE);
  if (partial_expected()) {
    CHECK_EQ(syscall(SYS_write, fds[1], noread, 2 * kPage), kPage);
    CHECK_EQ(drain(fds[0], got, sizeof got), kPage);
    CHECK(got[0] == 'n' && got[kPage - 1] == 'n');
  }
  CHECK_ERRNO(syscall(SYS_write, fds[1], noread + kPage, 16), EFAULT);
  // /dev/null takes the count without reading the buffer.
  int null = REQUIRE_SYS(open("/dev/null", O_WRONLY));
  if (partial_expected()) {
    CHECK_EQ(syscall(SYS_write, null, src, 2 * kPage), 2 * kPage);
    CHECK_EQ(syscall(SYS_write, null, src + kPage, kPage), kPage);
  }
  // A regular file gets the prefix.
  int file = REQUIRE_SYS(open("partial", O_CREAT | O_RDWR | O_TRUNC, 0644));
  if (partial_expected()) {
    CHECK_EQ(syscall(SYS_write, file, src, 2 * kPage), kPage);
    CHECK_EQ(lseek(file, 0, SEEK_END), kPage);
    CHECK_EQ(syscall(SYS_pwrite64, file, src + kPage - 10, 100, 0), 10);
  }
  // writev stops at the iovec that faults; later iovecs are not written. (A pipe takes whole pages: a page
  // of its buffer that faults part-way is dropped, so the prefix here is one whole page.)
  char tail[16];
  memset(tail, 't', sizeof tail);
  struct iovec iov[3] = {{src, kPage}, {src + kPage, 100}, {tail, sizeof tail}};
  if (partial_expected()) {
    CHECK_EQ(syscall(SYS_writev, fds[1], iov, 3), kPage);
    CHECK_EQ(drain(fds[0], got, sizeof got), kPage);
  }
  struct iovec part_page[2] = {{src + kPage - 50, 100}, {tail, sizeof tail}};
  CHECK_ERRNO(syscall(SYS_writev, fds[1], part_page, 2), EFAULT);
  struct iovec first_bad[2] = {{src + kPage, 10}, {tail, sizeof tail}};
  CHECK_ERRNO(syscall(SYS_writev, fds[1], first_bad, 2), EFAULT);
  close(file);
  close(null);
  close(fds[0]);
  close(fds[1]);
  munmap(src, kPage);
  munmap(noread, 2 * kPage);
}

static void test_read(void) {
  int zero = REQUIRE_SYS(open("/dev/zero", O_RDONLY));
  char* ro = two_pages('r', PROT_READ);
  if (partial_expected()) {
    CHECK_EQ(syscall(SYS_read, zero, ro, 2 * kPage), kPage);
    CHECK(ro[0] == 0 && ro[kPage - 1] == 0 && ro[kPage] == 'r');
    memset(ro, 'r', kPage);
    CHECK_EQ(syscall(SYS_pread64, zero, ro + kPage - 8, 64, 0), 8);
  }
  CHECK_ERRNO(syscall(SYS_read, zero, ro + kPage, 16), EFAULT);
  char* gone = two_pages('g', -1);
  char small[8];
  struct iovec iov[2] = {{gone + kPage - 4, 16}, {small, sizeof small}};
  if (partial_expected()) CHECK_EQ(syscall(SYS_readv, zero, iov, 2), 4);
  // A pipe hands out whole buffers: one that faults part-way is EFAULT and stays for the next read.
  int fds[2];
  REQUIRE_SYS(pipe(fds));
  char data[64];
  memset(data, 'p', sizeof data);
  REQUIRE(write(fds[1], data, sizeof data) == sizeof data);
  CHECK_ERRNO(syscall(SYS_read, fds[0], gone + kPage - 24, 64), EFAULT);
  char all[64];
  CHECK_EQ(read(fds[0], all, sizeof all), sizeof all);
  close(fds[0]);
  close(fds[1]);
  close(zero);
  munmap(ro, 2 * kPage);
  munmap(gone, kPage);
}

int main(void) {
  test_write();
  test_read();
  return check_done();
}
