// MAP_HUGETLB: a real huge-page mapping when the host has free huge pages (aligned, whole huge pages,
// partial unmaps refused), ENOMEM when it has none, EINVAL for a size without a pool or a file that is not
// on hugetlbfs. The test uses whatever huge pages the host has and never changes the pool.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"

#define HUGE_2M (2ul << 20)

static long meminfo(const char* key) {
  FILE* f = fopen("/proc/meminfo", "r");
  if (!f) return -1;
  char line[256];
  long v = -1;
  size_t n = strlen(key);
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, key, n) == 0 && line[n] == ':') v = strtol(line + n + 1, NULL, 10);
  }
  fclose(f);
  return v;
}

int main(void) {
  const long free_pages = meminfo("HugePages_Free");
  const long size_kb = meminfo("Hugepagesize");
  void* p = mmap(NULL, 100, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
  if (free_pages <= 0 || size_kb != 2048) {
    // No huge page to give: Linux's answer (qemu-aarch64 7.2 answers EINVAL).
    CHECK(p == MAP_FAILED);
    if (!on_reference_qemu()) CHECK_EQ(errno, ENOMEM);
    NOTE("the host has no free 2 MiB huge pages: only the ENOMEM case is checked");
  } else if (p == MAP_FAILED && on_reference_qemu()) {
    NOTE("qemu-aarch64 7.2 refuses MAP_HUGETLB (EINVAL) even with free huge pages");
  } else {
    REQUIRE(p != MAP_FAILED);
    CHECK_EQ((uintptr_t)p % HUGE_2M, 0);
    memset(p, 0x5a, HUGE_2M);  // the whole huge page is there
    CHECK_EQ(((unsigned char*)p)[HUGE_2M - 1], 0x5a);
    // Only whole huge pages come and go.
    CHECK_ERRNO(munmap((char*)p + 4096, 4096), EINVAL);
    CHECK_ERRNO(munmap(p, 4096), EINVAL);
    CHECK_ERRNO(munmap(p, 100), EINVAL);  // part of a huge page, as 4096 bytes would be
    CHECK_SYS(munmap(p, HUGE_2M));
    // A fixed address must be a huge page's start.
    void* fixed = mmap((char*)p + 4096, HUGE_2M, PROT_READ,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_FIXED, -1, 0);
    CHECK(fixed == MAP_FAILED && errno == EINVAL);
  }
  // No pool of 4 MiB pages on x86-64 or arm64 with 4 KiB pages: EINVAL.
  void* odd = mmap(NULL, 4ul << 20, PROT_READ,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | (22 << MAP_HUGE_SHIFT), -1, 0);
  CHECK(odd == MAP_FAILED && errno == EINVAL);
  // A file that is not on hugetlbfs: EINVAL.
  int fd = CHECK_SYS(open("plain", O_CREAT | O_RDWR, 0600));
  CHECK_SYS(ftruncate(fd, HUGE_2M));
  void* file = mmap(NULL, HUGE_2M, PROT_READ, MAP_SHARED | MAP_HUGETLB, fd, 0);
  CHECK(file == MAP_FAILED && errno == EINVAL);
  close(fd);
  return check_done();
}
