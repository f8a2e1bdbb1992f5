// Tests membarrier (QUERY lists the commands, the private expedited one wants registering first, the rseq
// ones are refused by a64run, which has no rseq) and mlock2 (MLOCK_ONFAULT, bad flags, unmapped ranges).
#define _GNU_SOURCE
#include <linux/membarrier.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

static long membarrier(int cmd, unsigned flags) {
  return syscall(SYS_membarrier, cmd, flags, 0);
}

static void test_membarrier(void) {
  const long cmds = membarrier(MEMBARRIER_CMD_QUERY, 0);
  REQUIRE(cmds >= 0);
  CHECK(cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED);
  CHECK(cmds & MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED);
  if (cmds & MEMBARRIER_CMD_GLOBAL) CHECK_SYS(membarrier(MEMBARRIER_CMD_GLOBAL, 0));
  CHECK_ERRNO(membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0), EPERM);  // not registered yet
  CHECK_SYS(membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0));
  CHECK_SYS(membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0));
  CHECK_ERRNO(membarrier(MEMBARRIER_CMD_QUERY, 1), EINVAL);  // QUERY takes no flags
  CHECK_ERRNO(membarrier(1 << 20, 0), EINVAL);               // no such command
  // Without rseq (a64run's rseq is ENOSYS), the rseq commands are not offered. qemu-aarch64 7.2 has no rseq
  // either but passes the host's answer on.
  if (!on_reference_qemu() && syscall(SYS_rseq, NULL, 0, 0, 0) == -1 && errno == ENOSYS) {
    CHECK_EQ(cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ, 0);
    CHECK_ERRNO(membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ, 0), EINVAL);
  }
}

static void test_mlock2(void) {
  const long page = sysconf(_SC_PAGESIZE);
  char* p = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(p != MAP_FAILED);
  CHECK_SYS(syscall(SYS_mlock2, p, 2 * page, MLOCK_ONFAULT));
  p[0] = 1;
  CHECK_SYS(munlock(p, 2 * page));
  CHECK_SYS(syscall(SYS_mlock2, p + 1, page, 0));  // rounded to whole pages
  CHECK_SYS(munlock(p, 2 * page));
  CHECK_ERRNO(syscall(SYS_mlock2, p, page, 2), EINVAL);
  CHECK_SYS(munmap(p + 2 * page, 2 * page));
  CHECK_ERRNO(syscall(SYS_mlock2, p, 4 * page, 0), ENOMEM);  // runs into unmapped pages
  CHECK_SYS(munmap(p, 2 * page));
}

int main(void) {
  test_membarrier();
  if (!on_reference_qemu()) test_mlock2();  // qemu-aarch64 7.2 has no mlock2 (ENOSYS)
  return check_done();
}
