// Tests how many VMAs a process has, as Linux counts them: adjacent anonymous mappings of one kind are one
// VMA (/proc/self/maps shows one line, also after an mprotect of the middle is undone); vm.max_map_count
// bounds the count (mmap gives ENOMEM one VMA past it; a munmap or mprotect that would split a VMA there
// gives ENOMEM too, LTP munmap04's case); and a MAP_GROWSDOWN stack grows a page per fault for as far as it
// is touched (LTP mmap18's case).
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "mem_util.h"

#define kPage 4096L

// The /proc/self/maps lines that overlap [start, end); *last_start (unless NULL) is the last one's start.
static int maps_overlapping(uintptr_t start, uintptr_t end, uintptr_t* last_start) {
  FILE* f = fopen("/proc/self/maps", "re");
  REQUIRE(f != NULL);
  char line[512];
  int n = 0;
  while (fgets(line, sizeof line, f) != NULL) {
    unsigned long s = 0, e = 0;
    if (sscanf(line, "%lx-%lx", &s, &e) != 2 || s >= end || e <= start) continue;
    n++;
    if (last_start != NULL) *last_start = s;
  }
  fclose(f);
  return n;
}

// Every VMA the count includes (x86-64's [vsyscall] gate is shown but not counted, should this run there).
static int maps_total(void) {
  FILE* f = fopen("/proc/self/maps", "re");
  REQUIRE(f != NULL);
  char line[512];
  int n = 0;
  while (fgets(line, sizeof line, f) != NULL) n += strstr(line, "[vsyscall]") == NULL;
  fclose(f);
  return n;
}

// The start of the /proc/self/maps line that holds addr, or 0.
static uintptr_t vma_start(uintptr_t addr) {
  uintptr_t found = 0;
  maps_overlapping(addr, addr + 1, &found);
  return found;
}

static void adjacent_mappings_merge(void) {
  char* base = free_range(8 * kPage);
  for (int i = 0; i < 4; i++) {
    void* p = mmap(base + i * kPage, kPage, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    CHECK(p == base + i * kPage);
  }
  CHECK_EQ(maps_lines((uintptr_t)base, (uintptr_t)(base + 4 * kPage)), 1);
  CHECK_SYS(mprotect(base + kPage, kPage, PROT_READ));
  CHECK_EQ(maps_lines((uintptr_t)base, (uintptr_t)(base + 4 * kPage)), 3);
  CHECK_SYS(mprotect(base + kPage, kPage, PROT_READ | PROT_WRITE));
  CHECK_EQ(maps_lines((uintptr_t)base, (uintptr_t)(base + 4 * kPage)), 1);
  // Shared anonymous mappings are each their own object: no merge.
  void* s = mmap(base + 4 * kPage, kPage, PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  void* t = mmap(base + 5 * kPage, kPage, PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  CHECK(s == base + 4 * kPage && t == base + 5 * kPage);
  CHECK_EQ(maps_lines((uintptr_t)(base + 4 * kPage), (uintptr_t)(base + 6 * kPage)), 2);
  CHECK_SYS(mprotect(base + 4 * kPage, 2 * kPage, PROT_READ));
  CHECK_EQ(maps_lines((uintptr_t)(base + 4 * kPage), (uintptr_t)(base + 6 * kPage)), 2);
  CHECK_SYS(munmap(base, 8 * kPage));
}

// Writes one byte a page below the last, from the start of a one-page MAP_GROWSDOWN mapping: every store
// faults below the VMA and grows it by a page (directly translated stores, on a64run).
static void stack_grows_page_by_page(void) {
  const long kPages = 200;
  char* base = free_range((kPages + 512) * kPage);
  char* top = base + (kPages + 512) * kPage;
  char* stack = mmap(top - kPage, kPage, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_GROWSDOWN, -1, 0);
  REQUIRE(stack == top - kPage);
  for (long i = 1; i <= kPages; i++) {
    volatile char* at = stack - i * kPage + 100;
    *at = (char)i;
  }
  long good = 0;
  for (long i = 1; i <= kPages; i++) good += stack[-i * kPage + 100] == (char)i;
  CHECK_EQ(good, kPages);
  // qemu-aarch64 7.2 builds /proc/self/maps from its own page flags, which the host's growth of the stack
  // does not change: the grown pages are missing there.
  if (!on_reference_qemu()) {
    CHECK_EQ(vma_start((uintptr_t)(stack - kPages * kPage)), (uintptr_t)(stack - kPages * kPage));
  }
  CHECK_SYS(munmap(stack - kPages * kPage, (kPages + 1) * kPage));
}

static long read_max_map_count(void) {
  FILE* f = fopen("/proc/sys/vm/max_map_count", "re");
  if (f == NULL) return -1;
  long v = -1;
  if (fscanf(f, "%ld", &v) != 1) v = -1;
  fclose(f);
  return v;
}

// munmap04's layout: 3-page PROT_NONE mappings a mapping apart, until mmap refuses.
static void limit_is_enforced(void) {
  const long limit = read_max_map_count();
  if (limit <= 0 || limit > 200000) {
    NOTE("vm.max_map_count is %ld: the limit part is skipped", limit);
    return;
  }
  const size_t kSize = 3 * kPage;
  const size_t slots = (size_t)limit + 16;
  char** maps = calloc(slots, sizeof *maps);  // first: the area below must stay free
  REQUIRE(maps != NULL);
  char* area = free_range(slots * 2 * kSize);
  size_t n = 0;
  int err = 0;
  while (n < slots) {
    void* p = mmap(area + n * 2 * kSize, kSize, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
                   -1, 0);
    if (p == MAP_FAILED) {
      err = errno;
      break;
    }
    maps[n++] = p;
  }
  CHECK_EQ(err, ENOMEM);
  const int total = maps_total();
  // do_mmap refuses once the count is past the limit: the last mapping made it limit + 1. qemu-aarch64 7.2
  // keeps guest mappings as host ones, and its own mappings count against the host's limit too: it stops
  // earlier.
  if (!on_reference_qemu()) CHECK_EQ(total, limit + 1);
  CHECK(total <= limit + 1);
  CHECK(n > 1000);
  if (n > 3) {
    // A hole in the middle of a VMA needs one more: refused. Its head goes (no new VMA).
    errno = 0;
    CHECK_EQ(munmap(maps[2] + kPage, kPage), -1);
    CHECK_EQ(errno, ENOMEM);
    errno = 0;
    CHECK_EQ(mprotect(maps[2] + kPage, kPage, PROT_READ), -1);
    CHECK_EQ(errno, ENOMEM);
    CHECK_SYS(munmap(maps[2], kPage));
    // Two whole VMAs go: the count is below the limit again, and one mapping more is allowed.
    CHECK_SYS(munmap(maps[0], kSize));
    CHECK_SYS(munmap(maps[1], kSize));
    void* again = mmap(maps[0], kSize, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    CHECK(again == maps[0]);
  }
  CHECK_SYS(munmap(area, slots * 2 * kSize));
  free(maps);
}

int main(void) {
  adjacent_mappings_merge();
  stack_grows_page_by_page();
  limit_is_enforced();
  return check_done();
}
