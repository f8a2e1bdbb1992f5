// mprotect(2) over a range it cannot change whole, as Linux's do_mprotect_pkey: it changes the VMAs in order
// and stops at the first one it cannot change, the VMAs before it keeping their new protection. A hole
// stops it with ENOMEM, a shared mapping of a file opened read-only asked for PROT_WRITE with EACCES, a
// sealed VMA with EPERM (Linux 6.12 and later); nothing mapped at the start is ENOMEM with nothing changed.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

static long page;

// The permissions /proc/self/maps shows for the mapping that holds addr ("rw-p"), or "none".
static const char* perms_at(const void* addr) {
  static char out[8];
  snprintf(out, sizeof out, "none");
  FILE* f = fopen("/proc/self/maps", "r");
  if (f == NULL) return "nomaps";
  char line[512];
  while (fgets(line, sizeof line, f)) {
    unsigned long a, b;
    char perms[8];
    if (sscanf(line, "%lx-%lx %7s", &a, &b, perms) == 3 && a <= (uintptr_t)addr && (uintptr_t)addr < b) {
      snprintf(out, sizeof out, "%s", perms);
      break;
    }
  }
  fclose(f);
  return out;
}

#define CHECK_PERMS(addr, want) CHECK_STREQ(perms_at(addr), want)

// Four read-only pages with a hole at the third: the first two change, then ENOMEM.
static void hole(void) {
  char* p = mmap(NULL, 4 * page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(p != MAP_FAILED);
  CHECK_SYS(munmap(p + 2 * page, page));
  CHECK_ERRNO(mprotect(p, 4 * page, PROT_READ | PROT_WRITE), ENOMEM);
  // qemu-aarch64 7.2 tests the whole range before it changes anything (target_mprotect: ENOMEM when any
  // page is unmapped), so the pages before the hole stay read-only there.
  if (!on_reference_qemu()) {
    CHECK_PERMS(p, "rw-p");
    CHECK_PERMS(p + page, "rw-p");
    p[page] = 7;
    CHECK_EQ(p[page], 7);
  }
  CHECK_PERMS(p + 3 * page, "r--p");
  // Nothing mapped at the start: ENOMEM, and the page after the hole keeps its protection.
  CHECK_ERRNO(mprotect(p + 2 * page, 2 * page, PROT_NONE), ENOMEM);
  CHECK_PERMS(p + 3 * page, "r--p");
  CHECK_SYS(munmap(p, 4 * page));
}

// Read-only anonymous memory, a shared mapping of a file opened read-only, read-only anonymous memory:
// PROT_WRITE over the three changes the first, then EACCES at the file (no VM_MAYWRITE).
static void read_only_file(void) {
  char path[] = "/tmp/a64run-mprotect-XXXXXX";
  int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  REQUIRE_SYS(ftruncate(fd, page));
  REQUIRE_SYS(close(fd));
  fd = open(path, O_RDONLY);
  REQUIRE(fd >= 0);
  unlink(path);
  char* p = mmap(NULL, 3 * page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(p != MAP_FAILED);
  REQUIRE(mmap(p + page, page, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0) == p + page);
  CHECK_ERRNO(mprotect(p, 3 * page, PROT_READ | PROT_WRITE), EACCES);
  // qemu-aarch64 7.2 makes one host mprotect of the whole range, which changes the first page, and records
  // the new protection only when the call succeeds: its /proc/self/maps still shows that page read-only.
  if (!on_reference_qemu()) CHECK_PERMS(p, "rw-p");
  p[0] = 5;
  CHECK_EQ(p[0], 5);
  CHECK_PERMS(p + page, "r--s");
  CHECK_PERMS(p + 2 * page, "r--p");
  // The file alone: EACCES, nothing changes; PROT_READ | PROT_EXEC is allowed.
  CHECK_ERRNO(mprotect(p + page, page, PROT_WRITE), EACCES);
  CHECK_PERMS(p + page, "r--s");
  CHECK_SYS(munmap(p, 3 * page));
  CHECK_SYS(close(fd));
}

// A sealed page after two writable ones: PROT_READ over the three changes the two, then EPERM.
static void sealed(void) {
  char* p = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(p != MAP_FAILED);
  if (syscall(462 /* mseal */, p + 2 * page, page, 0) != 0) {
    // qemu-aarch64 7.2 has no mseal (ENOSYS).
    CHECK(errno == ENOSYS && on_reference_qemu());
    return;
  }
  CHECK_ERRNO(mprotect(p, 3 * page, PROT_READ), EPERM);
  CHECK_PERMS(p, "r--p");
  CHECK_PERMS(p + page, "r--p");
  CHECK_PERMS(p + 2 * page, "rw-p");
  p[2 * page] = 3;
  CHECK_EQ(p[2 * page], 3);
}

int main(void) {
  page = sysconf(_SC_PAGESIZE);
  hole();
  read_only_file();
  sealed();
  return check_done();
}
