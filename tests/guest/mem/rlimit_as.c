// Tests RLIMIT_AS as Linux applies it (mm/mmap.c may_expand_vm): the total of the process's mappings may not
// pass the soft limit, so mmap, mremap's growth and brk fail with ENOMEM past it, while a MAP_FIXED mapping
// that replaces one of its size, and munmap, still work; getrlimit and /proc/self/limits answer what
// setrlimit set; the limit
// does not stop fork, and a fork child and an exec'd program keep it. A limit the emulator starts under is
// the program's (the host_limit variant).
// qemu-aarch64 7.2 ignores a guest's setrlimit of RLIMIT_AS (linux-user/syscall.c passes RLIMIT_AS,
// RLIMIT_DATA and RLIMIT_STACK to no one, and answers 0 even to a soft limit above the hard one) and answers
// the host's getrlimit: under it the test checks only that fork and getrlimit still work.
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../procs/self_exec.h"
#include "check.h"

#define kMiB (1024L * 1024L)

// The total size of the process's mappings, from /proc/self/maps (what may_expand_vm counts).
static uint64_t mapped_total(void) {
  FILE* f = fopen("/proc/self/maps", "re");
  REQUIRE(f != NULL);
  char line[512];
  uint64_t total = 0;
  while (fgets(line, sizeof line, f) != NULL) {
    unsigned long s = 0, e = 0;
    if (sscanf(line, "%lx-%lx", &s, &e) == 2) total += e - s;
  }
  fclose(f);
  return total;
}

static void test_checks(void) {
  struct rlimit r;
  CHECK_SYS(getrlimit(RLIMIT_AS, &r));
  // The host_limit variant starts the emulator under `ulimit -v` (mem/host_as_limit.sh): that is the
  // program's limit (qemu-aarch64 answers the host's, which is the same).
  const char* host = getenv("A64RUN_TEST_HOST_AS_LIMIT");
  if (host != NULL) {
    CHECK_EQ(r.rlim_cur, strtoull(host, NULL, 10));
    CHECK_EQ(r.rlim_max, strtoull(host, NULL, 10));
  }
  struct rlimit bad = {2 * kMiB, kMiB};  // soft above hard
  errno = 0;
  const int refused = setrlimit(RLIMIT_AS, &bad);
  if (!on_reference_qemu()) {  // qemu-aarch64 7.2 answers 0 (see the top of this file)
    CHECK_EQ(refused, -1);
    CHECK_EQ(errno, EINVAL);
  }
  struct rlimit same;
  CHECK_SYS(getrlimit(RLIMIT_AS, &same));
  CHECK_EQ(same.rlim_cur, r.rlim_cur);
  CHECK_EQ(same.rlim_max, r.rlim_max);
}

// In a child: everything that follows lowers the limit for good.
static void test_limit(void) {
  const uint64_t total = mapped_total();
  struct rlimit before;
  CHECK_SYS(getrlimit(RLIMIT_AS, &before));
  const struct rlimit lim = {total + 64 * kMiB, before.rlim_max};  // no privilege needed
  CHECK_SYS(setrlimit(RLIMIT_AS, &lim));
  struct rlimit got;
  CHECK_SYS(getrlimit(RLIMIT_AS, &got));
  if (on_reference_qemu()) return;
  CHECK_EQ(got.rlim_cur, lim.rlim_cur);
  CHECK_EQ(got.rlim_max, before.rlim_max);
  // /proc/self/limits shows it, in the kernel's columns.
  FILE* f = fopen("/proc/self/limits", "re");
  REQUIRE(f != NULL);
  char line[256];
  int found = 0;
  while (fgets(line, sizeof line, f) != NULL) {
    if (strncmp(line, "Max address space", 17) != 0) continue;
    found = 1;
    char want[256];
    if (before.rlim_max == RLIM_INFINITY) {
      snprintf(want, sizeof want, "%-25s %-20llu %-20s %-10s\n", "Max address space",
               (unsigned long long)lim.rlim_cur, "unlimited", "bytes");
    } else {
      snprintf(want, sizeof want, "%-25s %-20llu %-20llu %-10s\n", "Max address space",
               (unsigned long long)lim.rlim_cur, (unsigned long long)lim.rlim_max, "bytes");
    }
    CHECK_STREQ(line, want);
  }
  fclose(f);
  CHECK(found);

  // 32 MiB fits; another 48 MiB does not (mmap and MAP_FIXED_NOREPLACE alike); 16 MiB more does.
  char* a = mmap(NULL, 32 * kMiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(a != MAP_FAILED);
  errno = 0;
  CHECK(mmap(NULL, 48 * kMiB, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED);
  CHECK_EQ(errno, ENOMEM);
  char* b = mmap(NULL, 16 * kMiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(b != MAP_FAILED);
  // A MAP_FIXED mapping over one of its own size adds nothing.
  CHECK(mmap(a, 32 * kMiB, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == a);
  // mremap: growing by 32 MiB is refused, in place or moved; shrinking works.
  errno = 0;
  CHECK(mremap(b, 16 * kMiB, 48 * kMiB, MREMAP_MAYMOVE) == MAP_FAILED);
  CHECK_EQ(errno, ENOMEM);
  CHECK(mremap(b, 16 * kMiB, 8 * kMiB, 0) == b);
  // brk: a heap growth past the limit fails and leaves the break where it was.
  void* top = sbrk(0);
  errno = 0;
  CHECK(sbrk(64 * kMiB) == (void*)-1);
  CHECK_EQ(errno, ENOMEM);
  CHECK(sbrk(0) == top);
  // After a munmap the room is back.
  CHECK_SYS(munmap(a, 32 * kMiB));
  char* c = mmap(NULL, 40 * kMiB, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(c != MAP_FAILED);
  if (c != MAP_FAILED) CHECK_SYS(munmap(c, 40 * kMiB));

  // fork works under the limit, and the child has it.
  pid_t pid = CHECK_SYS(fork());
  if (pid == 0) {
    struct rlimit in_child;
    if (getrlimit(RLIMIT_AS, &in_child) != 0 || in_child.rlim_cur != lim.rlim_cur) _exit(3);
    void* big = mmap(NULL, 128 * kMiB, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    _exit(big == MAP_FAILED && errno == ENOMEM ? 0 : 4);
  }
  int status = 0;
  CHECK_SYS(waitpid(pid, &status, 0));
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], "--after-exec") == 0) {
    // The exec'd program keeps the limit.
    struct rlimit r;
    CHECK_SYS(getrlimit(RLIMIT_AS, &r));
    CHECK_EQ(r.rlim_cur, strtoull(argv[2], NULL, 10));
    return check_done();
  }
  test_checks();
  pid_t pid = CHECK_SYS(fork());
  if (pid == 0) {
    test_limit();
    if (!on_reference_qemu() && check_failures == 0) {
      // A limit far above the program's needs (a64run's new engine is not the guest's to count).
      const struct rlimit lim = {mapped_total() + 512 * kMiB, mapped_total() + 1024 * kMiB};
      REQUIRE_SYS(setrlimit(RLIMIT_AS, &lim));
      char value[32];
      snprintf(value, sizeof value, "%llu", (unsigned long long)lim.rlim_cur);
      char* args[] = {argv[0], "--after-exec", value, NULL};
      fflush(stdout);
      exec_guest(self_path(), args, environ);
      CHECK(!"exec of the program itself");
    }
    exit(check_done());
  }
  int status = 0;
  CHECK_SYS(waitpid(pid, &status, 0));
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return check_done();
}
