// Tests lengths and addresses whose page rounding or end would wrap past 2^64, and the kernel's order of
// checks for ranges it only range-checks (access_ok) before anything else: a brk within a page of 2^64 keeps
// the break and the heap; munmap, mprotect, madvise, mincore, msync, mlock and munlock answer as Linux
// does; a kernel-half pointer is EFAULT even for zero bytes, while a user address above everything mapped
// (2^44: above a64run's window) passes where Linux only checks the range. Raw system calls throughout.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

#define kPage 4096L

static void* const kKernel = (void*)0xffff000000001000UL;  // the arm64 kernel half
static void* const kHighUser = (void*)(1UL << 44);         // a user address nothing is mapped at

static void test_brk(void) {
  unsigned long cur = syscall(SYS_brk, 0);
  CHECK(cur != 0);
  unsigned long grown = syscall(SYS_brk, cur + 3 * kPage);
  REQUIRE(grown == cur + 3 * kPage);
  memset((void*)cur, 'H', 3 * kPage);
  // A break that rounds up to 0 (page_up wraps) must not look like a shrink to 0.
  for (unsigned long wrap = -1UL; wrap > -kPage; wrap -= 977) CHECK_EQ(syscall(SYS_brk, wrap), grown);
  CHECK_EQ(syscall(SYS_brk, 1UL << 63), grown);
  CHECK_EQ(syscall(SYS_brk, 0), grown);
  const unsigned char* heap = (const unsigned char*)cur;
  int intact = 1;
  for (long i = 0; i < 3 * kPage; i++) intact &= heap[i] == 'H';
  CHECK(intact);
  CHECK_EQ(syscall(SYS_brk, cur), cur);
}

static void test_memory_ranges(void) {
  char* p = mmap(NULL, 4 * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(p != MAP_FAILED);
  memset(p, 'M', 4 * kPage);
  unsigned char vec[8];
  const unsigned long near_max[] = {-1UL, -2UL, -(unsigned long)kPage + 1};
  for (size_t i = 0; i < sizeof near_max / sizeof near_max[0]; i++) {
    const unsigned long len = near_max[i];
    CHECK_ERRNO(syscall(SYS_munmap, p, len), EINVAL);
    CHECK_ERRNO(syscall(SYS_mprotect, p, len, PROT_READ), ENOMEM);
    CHECK_ERRNO(syscall(SYS_madvise, p, len, MADV_DONTNEED), EINVAL);
    CHECK_ERRNO(syscall(SYS_mincore, p, len, vec), ENOMEM);
    CHECK_EQ(syscall(SYS_msync, p, len, MS_ASYNC), 0);  // rounds to 0 bytes: nothing to do
    CHECK_EQ(syscall(SYS_mlock, p, len), 0);            // the same in mlock's rounding
    CHECK_EQ(syscall(SYS_munlock, p, len), 0);
  }
  // Ranges whose end wraps without the length rounding to 0.
  const unsigned long wraps = -(unsigned long)(2 * kPage);
  CHECK_ERRNO(syscall(SYS_munmap, p, wraps), EINVAL);
  CHECK_ERRNO(syscall(SYS_mprotect, p, wraps, PROT_READ), ENOMEM);
  CHECK_ERRNO(syscall(SYS_madvise, p, wraps, MADV_NORMAL), EINVAL);
  CHECK_ERRNO(syscall(SYS_msync, p, wraps, MS_ASYNC), ENOMEM);
  CHECK_ERRNO(syscall(SYS_munlock, p, wraps), EINVAL);
  int intact = 1;
  for (long i = 0; i < 4 * kPage; i++) intact &= p[i] == 'M';
  CHECK(intact);
  // mprotect's own order: an empty range succeeds whatever prot says; PROT_SEM is a valid bit.
  // (qemu-aarch64 7.2 checks prot first.)
  if (!on_reference_qemu()) CHECK_EQ(syscall(SYS_mprotect, p, 0, 0x12340000), 0);
  CHECK_ERRNO(syscall(SYS_mprotect, p, kPage, 0x12340000), EINVAL);
  CHECK_EQ(syscall(SYS_mprotect, p, kPage, PROT_READ | PROT_WRITE | 0x8), 0);
  // madvise checks the advice before the alignment.
  CHECK_ERRNO(syscall(SYS_madvise, p + 1, kPage, 12345), EINVAL);
  CHECK_SYS(munmap(p, 4 * kPage));
  // Nothing is mapped at a high user address: munmap succeeds, the others find no mapping.
  CHECK_EQ(syscall(SYS_munmap, kHighUser, kPage), 0);
  CHECK_ERRNO(syscall(SYS_mprotect, kHighUser, kPage, PROT_READ), ENOMEM);
  CHECK_ERRNO(syscall(SYS_munmap, (void*)(1UL << 48), kPage), EINVAL);
}

// Calls that check a pointer with access_ok before anything else, even for zero bytes.
static void test_access_ok(void) {
  unsigned char vec[1];
  int word = 0;
  char* p = mmap(NULL, kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(p != MAP_FAILED);
  CHECK_ERRNO(syscall(SYS_mincore, p, 0, kKernel), EFAULT);
  CHECK_EQ(syscall(SYS_mincore, p, 0, vec), 0);
  CHECK_ERRNO(syscall(SYS_mincore, p, kPage, kKernel), EFAULT);
  CHECK_ERRNO(syscall(SYS_getrandom, kKernel, 0, 0), EFAULT);
  CHECK_EQ(syscall(SYS_getrandom, kHighUser, 0, 0), 0);
  CHECK_ERRNO(syscall(SYS_futex, kKernel, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0), EFAULT);
  CHECK_ERRNO(syscall(SYS_futex, kKernel, FUTEX_WAKE, 1, NULL, NULL, 0), EFAULT);
  CHECK_EQ(syscall(SYS_futex, kHighUser, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0), 0);
  CHECK_EQ(syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0), 0);
  int fds[2];
  REQUIRE_SYS(pipe(fds));
  CHECK_ERRNO(syscall(SYS_read, fds[0], kKernel, 0), EFAULT);
  CHECK_EQ(syscall(SYS_read, fds[0], kHighUser, 0), 0);
  CHECK_ERRNO(syscall(SYS_write, fds[1], kKernel, 0), EFAULT);
  CHECK_EQ(syscall(SYS_write, fds[1], kHighUser, 0), 0);
  // A bad descriptor comes before a bad buffer. (qemu-aarch64 7.2 locks the buffer before the host call
  // sees the descriptor: EFAULT.)
  if (!on_reference_qemu()) {
    CHECK_ERRNO(syscall(SYS_read, 1000, kKernel, 10), EBADF);
    CHECK_ERRNO(syscall(SYS_write, 1000, kKernel, 10), EBADF);
  }
  close(fds[0]);
  close(fds[1]);
  CHECK_SYS(munmap(p, kPage));
}

int main(void) {
  test_brk();
  test_memory_ranges();
  test_access_ok();
  return check_done();
}
