// mmap's flags as do_mmap checks them. A file: MAP_SHARED_VALIDATE takes only LEGACY_MAP_MASK's flags
// (EOPNOTSUPP, before the access checks' EACCES; MAP_FIXED_NOREPLACE is none of them), plain MAP_SHARED and
// MAP_PRIVATE ignore unknown ones, and no file mapping grows down (EINVAL). Anonymous memory: MAP_SHARED,
// MAP_PRIVATE or MAP_DROPPABLE (Linux 6.11), nothing else (MAP_SHARED_VALIDATE is EINVAL); shared memory
// never grows down; droppable memory is private memory a fork child gets zeroed, never locked or growing,
// a VMA of its own in /proc/self/maps.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "mem_util.h"

#ifndef MAP_SHARED_VALIDATE
#define MAP_SHARED_VALIDATE 0x03
#endif
#ifndef MAP_DROPPABLE
#define MAP_DROPPABLE 0x08
#endif
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

enum { kPage = 4096 };

// mmap's result as 0 (mapped, then unmapped) or the errno.
static int try_map(void* hint, size_t len, int prot, int flags, int fd) {
  errno = 0;
  void* p = mmap(hint, len, prot, flags, fd, 0);
  if (p == MAP_FAILED) return errno;
  munmap(p, len);
  return 0;
}

int main(void) {
  char path[] = "/tmp/a64run-mmap-flags-XXXXXX";
  int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  unlink(path);
  REQUIRE(ftruncate(fd, 4 * kPage) == 0);
  char ro_path[64];
  snprintf(ro_path, sizeof ro_path, "/proc/self/fd/%d", fd);
  int ro = open(ro_path, O_RDONLY | O_CLOEXEC);
  REQUIRE(ro >= 0);
  const int rw = PROT_READ | PROT_WRITE;
  const int qemu = on_reference_qemu();

  // ---- A file.
  CHECK_EQ(try_map(NULL, kPage, rw, MAP_SHARED | (1 << 10), fd), 0);  // ignored by MAP_SHARED
  CHECK_EQ(try_map(NULL, kPage, rw, MAP_PRIVATE | (1 << 10), fd), 0);
  if (qemu) {
    // qemu-aarch64 7.2 refuses MAP_SHARED_VALIDATE with EINVAL, whatever the other flags.
    NOTE("qemu-aarch64 7.2: MAP_SHARED_VALIDATE is not checked");
  } else {
    CHECK_EQ(try_map(NULL, kPage, rw, MAP_SHARED_VALIDATE, fd), 0);
    CHECK_EQ(try_map(NULL, kPage, rw, MAP_SHARED_VALIDATE | MAP_NORESERVE | MAP_POPULATE | MAP_STACK, fd), 0);
    CHECK_EQ(try_map(NULL, kPage, PROT_WRITE, MAP_SHARED_VALIDATE, ro), EACCES);
    CHECK_EQ(try_map(NULL, kPage, rw, MAP_SHARED_VALIDATE | (1 << 10), fd), EOPNOTSUPP);
    CHECK_EQ(try_map(NULL, kPage, rw, MAP_SHARED_VALIDATE | 0x40, fd), EOPNOTSUPP);  // x86's MAP_32BIT
    CHECK_EQ(try_map(NULL, kPage, rw, MAP_SHARED_VALIDATE | (int)0x80000000u, fd), EOPNOTSUPP);
    // EOPNOTSUPP comes before the check of the descriptor's access mode.
    CHECK_EQ(try_map(NULL, kPage, rw, MAP_SHARED_VALIDATE | (1 << 10), ro), EOPNOTSUPP);
    // MAP_FIXED_NOREPLACE is no legacy flag: MAP_SHARED_VALIDATE refuses it too.
    void* hole = mmap(NULL, 2 * kPage, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(hole != MAP_FAILED);
    munmap(hole, 2 * kPage);
    CHECK_EQ(try_map(hole, kPage, rw, MAP_SHARED_VALIDATE | MAP_FIXED_NOREPLACE, fd), EOPNOTSUPP);
    CHECK_EQ(try_map(hole, kPage, rw, MAP_SHARED | MAP_FIXED_NOREPLACE, fd), 0);
  }
  CHECK_EQ(try_map(NULL, kPage, PROT_READ, MAP_SHARED | MAP_GROWSDOWN, fd), EINVAL);
  CHECK_EQ(try_map(NULL, kPage, PROT_READ, MAP_PRIVATE | MAP_GROWSDOWN, fd), EINVAL);
  CHECK_EQ(try_map(NULL, kPage, PROT_READ, 0x04, fd), EINVAL);  // no such type
  CHECK_EQ(try_map(NULL, kPage, PROT_READ, MAP_DROPPABLE, fd), EINVAL);

  // ---- Anonymous memory.
  const int anon = MAP_ANONYMOUS;
  CHECK_EQ(try_map(NULL, kPage, rw, MAP_SHARED | anon, -1), 0);
  CHECK_EQ(try_map(NULL, kPage, rw, MAP_PRIVATE | MAP_GROWSDOWN | anon, -1), 0);
  CHECK_EQ(try_map(NULL, kPage, rw, MAP_SHARED | MAP_GROWSDOWN | anon, -1), EINVAL);
  CHECK_EQ(try_map(NULL, kPage, rw, 0x04 | anon, -1), EINVAL);
  if (qemu) {
    // qemu-aarch64 7.2 maps anonymous MAP_SHARED_VALIDATE memory and has no MAP_DROPPABLE.
    NOTE("qemu-aarch64 7.2: anonymous MAP_SHARED_VALIDATE and MAP_DROPPABLE are not checked");
    close(ro);
    close(fd);
    return check_done();
  }
  CHECK_EQ(try_map(NULL, kPage, rw, MAP_SHARED_VALIDATE | anon, -1), EINVAL);
  CHECK_EQ(try_map(NULL, kPage, rw, MAP_DROPPABLE | MAP_LOCKED | anon, -1), EINVAL);
  CHECK_EQ(try_map(NULL, kPage, rw, MAP_DROPPABLE | MAP_GROWSDOWN | anon, -1), EINVAL);

  // Droppable memory: zero-filled, writable; a fork child finds it zeroed again, the parent keeps its data.
  char* d = mmap(NULL, 5 * kPage, PROT_NONE, MAP_PRIVATE | anon, -1, 0);
  REQUIRE(d != MAP_FAILED);
  REQUIRE(mmap(d, 4 * kPage, rw, MAP_DROPPABLE | anon | MAP_FIXED, -1, 0) == d);
  CHECK_EQ(d[0] | d[4 * kPage - 1], 0);
  memset(d, 0x5a, 4 * kPage);
  pid_t pid = fork();
  if (pid == 0) _exit(d[0] == 0 && d[4 * kPage - 1] == 0 ? 0 : 1);
  int status = -1;
  CHECK_EQ(waitpid(pid, &status, 0), pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK_EQ(d[0], 0x5a);
  // A VMA of its own: private memory right after it does not join it.
  CHECK(mmap(d + 4 * kPage, kPage, rw, MAP_PRIVATE | anon | MAP_FIXED, -1, 0) == d + 4 * kPage);
  CHECK_EQ(maps_lines((uintptr_t)d, (uintptr_t)(d + 5 * kPage)), 2);
  munmap(d, 5 * kPage);
  close(ro);
  close(fd);
  return check_done();
}
