// madvise's MADV_POPULATE_READ and MADV_POPULATE_WRITE as Linux answers them: the pages of a mapping the
// access may make are faulted in (a file's pages written back to it); a write to read-only memory, and any
// access to PROT_NONE memory, is EINVAL; a file page past the end of the file is EFAULT; a hole after
// mapped memory is ENOMEM. The populated pages are resident afterwards (mincore).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#define MADV_POPULATE_WRITE 23
#endif

enum { kPage = 4096 };

static int advise(void* p, size_t len, int advice) {
  errno = 0;
  return madvise(p, len, advice) == 0 ? 0 : errno;
}

// How many of the pages of [p, p + len) are resident.
static int resident(void* p, size_t len) {
  unsigned char vec[64];
  if (len / kPage > sizeof vec || mincore(p, len, vec) != 0) return -1;
  int n = 0;
  for (size_t i = 0; i < len / kPage; i++) n += vec[i] & 1;
  return n;
}

int main(void) {
  if (on_reference_qemu()) {
    // qemu-aarch64 7.2 accepts every madvise advice and does nothing (0 even for PROT_NONE memory).
    NOTE("qemu-aarch64 7.2 ignores madvise: the checks are left out");
    return check_done();
  }
  const int rw = PROT_READ | PROT_WRITE;
  char* p = mmap(NULL, 16 * kPage, rw, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(p != MAP_FAILED);
  CHECK_EQ(resident(p, 16 * kPage), 0);
  CHECK_EQ(advise(p, 8 * kPage, MADV_POPULATE_WRITE), 0);
  CHECK_EQ(resident(p, 16 * kPage), 8);
  CHECK_EQ(advise(p, 16 * kPage, MADV_POPULATE_READ), 0);
  CHECK_EQ(p[15 * kPage], 0);

  char* ro = mmap(NULL, 4 * kPage, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(ro != MAP_FAILED);
  CHECK_EQ(advise(ro, 4 * kPage, MADV_POPULATE_READ), 0);
  CHECK_EQ(advise(ro, 4 * kPage, MADV_POPULATE_WRITE), EINVAL);
  char* none = mmap(NULL, 4 * kPage, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(none != MAP_FAILED);
  CHECK_EQ(advise(none, 4 * kPage, MADV_POPULATE_READ), EINVAL);
  CHECK_EQ(advise(none, 4 * kPage, MADV_POPULATE_WRITE), EINVAL);

  // Mapped memory, then a hole: ENOMEM, the mapped part populated.
  char* two = mmap(NULL, 4 * kPage, rw, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(two != MAP_FAILED);
  REQUIRE(munmap(two + 2 * kPage, 2 * kPage) == 0);
  CHECK_EQ(advise(two, 4 * kPage, MADV_POPULATE_WRITE), ENOMEM);
  CHECK_EQ(resident(two, 2 * kPage), 2);

  // A file: its pages are read, or written back; a page past its end is EFAULT.
  char path[] = "/tmp/a64run-populate-XXXXXX";
  int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  unlink(path);
  REQUIRE(ftruncate(fd, kPage) == 0);
  char* f = mmap(NULL, 3 * kPage, rw, MAP_SHARED, fd, 0);
  REQUIRE(f != MAP_FAILED);
  CHECK_EQ(advise(f, kPage, MADV_POPULATE_WRITE), 0);
  CHECK_EQ(advise(f, 3 * kPage, MADV_POPULATE_READ), EFAULT);
  close(fd);
  return check_done();
}
