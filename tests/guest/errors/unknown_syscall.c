// Tests that system call numbers arm64 Linux does not have return ENOSYS however often and however many of
// them a guest makes (numbers above the table, negative ones, the low 32 bits of x8 only), and that a64run
// names each at most once on stderr: unknown_syscall.sh counts its lines.
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

// A raw svc with the full 64-bit x8: the kernel (and a64run) read only its low 32 bits.
static long raw_syscall(uint64_t nr) {
  register uint64_t x8 __asm__("x8") = nr;
  register long x0 __asm__("x0") = 0;
  __asm__ volatile("svc #0" : "+r"(x0) : "r"(x8) : "memory");
  return x0;
}

int main(void) {
  // One number made 1,000 times.
  int all_enosys = 1;
  for (int i = 0; i < 1000; i++) all_enosys &= syscall(1000) == -1 && errno == ENOSYS;
  CHECK(all_enosys);
  // Many different numbers, each several times: more than a64run names one by one.
  all_enosys = 1;
  for (int round = 0; round < 3; round++) {
    for (long nr = 2000; nr < 2100; nr++) all_enosys &= syscall(nr) == -1 && errno == ENOSYS;
  }
  CHECK(all_enosys);
  CHECK_ERRNO(syscall(-1L), ENOSYS);
  CHECK_ERRNO(syscall(0x7fffffffL), ENOSYS);
  // x8 = 2^32 + 172 is getpid, as on Linux; 2^32 + 1000 is 1000 again.
  CHECK_EQ(raw_syscall((1ull << 32) + SYS_getpid), getpid());
  CHECK_EQ(raw_syscall((1ull << 32) + 1000), -ENOSYS);
  return check_done();
}
