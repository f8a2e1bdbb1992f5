// Tests that sizes a guest passes do not size the emulator's own allocations beyond what the kernel bounds:
// getgroups with a size of 2^31-1 copies the groups there are and returns their count, an execve whose
// arguments exceed the kernel's room for them (a quarter of RLIMIT_STACK, at most 6 MiB) fails with E2BIG
// without the strings being gathered, and neither raises the peak resident size by more than a little.
#define _GNU_SOURCE
#include <grp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

static long max_rss_kb(void) {
  struct rusage ru;
  REQUIRE_SYS(getrusage(RUSAGE_SELF, &ru));
  return ru.ru_maxrss;
}

static void test_getgroups(void) {
  static gid_t groups[65536];
  const long n = CHECK_SYS(syscall(SYS_getgroups, 0, NULL));
  // qemu-aarch64 7.2 allocates size * 4 bytes on its stack (alloca) for the host call and crashes.
  if (!on_reference_qemu()) {
    CHECK_EQ(syscall(SYS_getgroups, 0x7fffffff, groups), n);
    CHECK_EQ(syscall(SYS_getgroups, 65536, groups), n);
  }
  CHECK_ERRNO(syscall(SYS_getgroups, -1, groups), EINVAL);
  if (n > 0) CHECK_ERRNO(syscall(SYS_getgroups, n - 1, groups), EINVAL);
}

static void test_exec_strings(void) {
  // 100,000 arguments of 64 KiB each (6.4 GB in all) pointing at one string: E2BIG, found early.
  const size_t count = 100000, len = 64 * 1024;
  char* arg = malloc(len);
  char** argv = malloc((count + 1) * sizeof *argv);
  REQUIRE(arg && argv);
  memset(arg, 'x', len - 1);
  arg[len - 1] = 0;
  for (size_t i = 0; i < count; i++) argv[i] = arg;
  argv[count] = NULL;
  char* envp[] = {NULL};
  CHECK_ERRNO(syscall(SYS_execve, "/proc/self/exe", argv, envp), E2BIG);
  // One argument longer than MAX_ARG_STRLEN (32 pages) is E2BIG too.
  char* huge = malloc(33 * 4096);
  REQUIRE(huge);
  memset(huge, 'y', 33 * 4096 - 1);
  huge[33 * 4096 - 1] = 0;
  char* one[] = {huge, NULL};
  CHECK_ERRNO(syscall(SYS_execve, "/proc/self/exe", one, envp), E2BIG);
  free(huge);
  free(argv);
  free(arg);
}

int main(void) {
  const long before = max_rss_kb();
  test_getgroups();
  test_exec_strings();
  const long grown = max_rss_kb() - before;
  if (!CHECK_LT(grown, 64 * 1024)) NOTE("peak resident size grew by %ld kB", grown);
  return check_done();
}
