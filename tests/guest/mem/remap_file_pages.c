// remap_file_pages(2) as Linux emulates it: the pages of a shared file mapping show other pages of the file
// (reads and writes reach them; the pages around keep theirs), the VMA splits in /proc/self/maps with the
// new offsets, shared anonymous memory qualifies too; prot other than 0, a private mapping, a range past
// the mapping or over a hole, and a wrapping range are EINVAL.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

enum { kPage = 4096 };

static long remap(void* start, size_t size, int prot, size_t pgoff, int flags) {
  errno = 0;
  return syscall(SYS_remap_file_pages, start, size, prot, pgoff, flags);
}

// The offset /proc/self/maps gives the VMA that holds addr, or -1.
static long maps_offset(uintptr_t addr) {
  FILE* f = fopen("/proc/self/maps", "r");
  if (f == NULL) return -1;
  char line[512];
  long off = -1;
  while (fgets(line, sizeof line, f)) {
    unsigned long a, b, o;
    char perms[8];
    if (sscanf(line, "%lx-%lx %7s %lx", &a, &b, perms, &o) == 4 && a <= addr && addr < b) off = (long)o;
  }
  fclose(f);
  return off;
}

int main(void) {
  if (remap(NULL, 0, 0, 0, 0) == -1 && errno == ENOSYS && on_reference_qemu()) {
    NOTE("qemu-aarch64 7.2 has no remap_file_pages (ENOSYS): nothing to check");
    return check_done();
  }
  char path[] = "/tmp/a64run-remap-XXXXXX";
  int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  unlink(path);
  char page[kPage];
  for (int i = 0; i < 8; i++) {
    memset(page, 'a' + i, sizeof page);
    REQUIRE(pwrite(fd, page, sizeof page, (off_t)i * kPage) == kPage);
  }
  char* m = mmap(NULL, 4 * kPage, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  REQUIRE(m != MAP_FAILED);
  CHECK_EQ(m[kPage], 'b');

  // Pages 1 and 2 of the mapping show the file's pages 5 and 6.
  CHECK_EQ(remap(m + kPage, 2 * kPage, 0, 5, 0), 0);
  CHECK_EQ(m[0], 'a');
  CHECK_EQ(m[kPage], 'f');
  CHECK_EQ(m[3 * kPage - 1], 'g');
  CHECK_EQ(m[3 * kPage], 'd');
  m[kPage] = 'X';  // reaches the file's page 5
  char c = 0;
  CHECK_EQ(pread(fd, &c, 1, 5 * kPage), 1);
  CHECK_EQ(c, 'X');
  CHECK_EQ(maps_offset((uintptr_t)m), 0);
  CHECK_EQ(maps_offset((uintptr_t)(m + kPage)), 5 * kPage);
  CHECK_EQ(maps_offset((uintptr_t)(m + 2 * kPage)), 5 * kPage);  // one VMA for both pages
  CHECK_EQ(maps_offset((uintptr_t)(m + 3 * kPage)), 3 * kPage);
  // Back where they were: the three VMAs join again.
  CHECK_EQ(remap(m + kPage, 2 * kPage, 0, 1, 0), 0);
  CHECK_EQ(m[kPage], 'b');
  CHECK_EQ(maps_offset((uintptr_t)(m + 3 * kPage)), 0);  // one VMA from offset 0
  // An unaligned start and size are rounded down.
  CHECK_EQ(remap(m + 2 * kPage + 100, kPage + 100, 0, 7, 0), 0);
  CHECK_EQ(m[2 * kPage], 'h');

  // Refusals.
  CHECK_EQ(remap(m, kPage, PROT_READ, 0, 0), -1);
  CHECK_EQ(errno, EINVAL);
  CHECK_EQ(remap(m + 3 * kPage, 2 * kPage, 0, 0, 0), -1);  // past the mapping
  CHECK_EQ(errno, EINVAL);
  CHECK_EQ(remap(m, kPage - 1, 0, 0, 0), -1);  // nothing left after rounding
  CHECK_EQ(errno, EINVAL);
  CHECK_EQ(remap(m, kPage, 0, ~(size_t)0, 0), -1);  // the file offset wraps
  CHECK_EQ(errno, EINVAL);
  char* priv = mmap(NULL, kPage, PROT_READ, MAP_PRIVATE, fd, 0);
  REQUIRE(priv != MAP_FAILED);
  CHECK_EQ(remap(priv, kPage, 0, 1, 0), -1);
  CHECK_EQ(errno, EINVAL);

  // Shared anonymous memory is a file of its own (shmem).
  char* shm = mmap(NULL, 2 * kPage, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  REQUIRE(shm != MAP_FAILED);
  shm[0] = 'p';
  shm[kPage] = 'q';
  CHECK_EQ(remap(shm, kPage, 0, 1, 0), 0);
  CHECK_EQ(shm[0], 'q');
  close(fd);
  return check_done();
}
