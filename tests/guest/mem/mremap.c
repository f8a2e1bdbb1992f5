// Tests mremap's size and overlap cases against mm/mremap.c: a shrinking MREMAP_FIXED first unmaps the tail
// of the old range and moves only new_len bytes (nothing else is overwritten, not even next to the window's
// top), a shrink without a new address unmaps whatever lies in the tail, the same size is a no-op, a move
// that grows continues the mapping (zero pages, or the rest of the file), MREMAP_DONTUNMAP, and the
// argument checks in Linux's order. Raw system calls, so that glibc's wrapper checks nothing itself.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"
#include "mem_util.h"

#define kPage 4096L
#define kMiB (1L << 20)

static long sys_mremap(void* old, unsigned long old_len, unsigned long new_len, unsigned long flags,
                       void* new_addr) {
  return syscall(SYS_mremap, old, old_len, new_len, flags, new_addr);
}

static int is_mapped(const void* addr) {
  unsigned char vec;
  return mincore((void*)((uintptr_t)addr & ~(kPage - 1)), kPage, &vec) == 0;
}

static int all_bytes(const void* p, int value, size_t n) {
  const unsigned char* b = p;
  for (size_t i = 0; i < n; i++) {
    if (b[i] != value) return 0;
  }
  return 1;
}

static char* map_filled(void* at, size_t size, int value) {
  int flags = MAP_PRIVATE | MAP_ANONYMOUS | (at ? MAP_FIXED_NOREPLACE : 0);
  char* p = mmap(at, size, PROT_READ | PROT_WRITE, flags, -1, 0);
  REQUIRE(p != MAP_FAILED);
  memset(p, value, size);
  return p;
}

// mremap(old, 1 MiB, 4096, MAYMOVE|FIXED, dst) with a 2-page mapping at dst and another mapping right after
// it: one page moves to dst; the second page of dst and the mapping after it keep their bytes.
static void test_fixed_shrink(void) {
  char* area = free_range(4 * kMiB);
  char* old = map_filled(area, kMiB, 'A');
  old[0] = 'a';
  char* dst = map_filled(area + 2 * kMiB, 2 * kPage, 'D');
  char* next = map_filled(dst + 2 * kPage, kMiB, 'V');
  CHECK_EQ(sys_mremap(old, kMiB, kPage, MREMAP_MAYMOVE | MREMAP_FIXED, dst), (long)dst);
  CHECK_EQ(dst[0], 'a');
  CHECK(all_bytes(dst + 1, 'A', kPage - 1));
  CHECK(all_bytes(dst + kPage, 'D', kPage));
  CHECK(all_bytes(next, 'V', kMiB));
  CHECK(!is_mapped(old));
  CHECK(!is_mapped(old + kPage));
  CHECK(!is_mapped(old + kMiB - kPage));
  CHECK_SYS(munmap(area, 4 * kMiB));
}

// The same with the destination just below the old range: the ranges of new_len bytes are disjoint, those of
// old_len are not (no overlapping copy).
static void test_fixed_shrink_below(void) {
  char* area = free_range(2 * kMiB);
  char* old = map_filled(area + kPage, kMiB, 'B');
  old[kPage - 1] = 'b';
  char* dst = area;
  CHECK_EQ(sys_mremap(old, kMiB, kPage, MREMAP_MAYMOVE | MREMAP_FIXED, dst), (long)dst);
  CHECK(all_bytes(dst, 'B', kPage - 1));
  CHECK_EQ(dst[kPage - 1], 'b');
  CHECK(!is_mapped(old));
  CHECK(!is_mapped(old + kPage));
  // The other way round the old_len ranges overlap: EINVAL, nothing moves.
  char* big = map_filled(area + kMiB, kMiB, 'C');
  CHECK_ERRNO(sys_mremap(big, kMiB, kPage, MREMAP_MAYMOVE | MREMAP_FIXED, big + 4 * kPage), EINVAL);
  CHECK(all_bytes(big, 'C', kMiB));
  CHECK_SYS(munmap(area, 2 * kMiB));
}

// Near the top of a64run's 1 TiB window (a user address under qemu-aarch64 and Linux too): only new_len
// bytes may land there; old_len bytes would run past the window's end.
static void test_fixed_shrink_at_top(void) {
  char* top = (char*)((1UL << 40) - kPage);
  char* claim =
      mmap(top, kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (claim != top) {
    NOTE("the page below 2^40 is not free here (%p): skipped", claim);
    if (claim != MAP_FAILED) munmap(claim, kPage);
    return;
  }
  char* old = map_filled(NULL, kMiB, 'T');
  CHECK_EQ(sys_mremap(old, kMiB, kPage, MREMAP_MAYMOVE | MREMAP_FIXED, top), (long)top);
  CHECK(all_bytes(top, 'T', kPage));
  CHECK(!is_mapped(old + kPage));
  CHECK_SYS(munmap(top, kPage));
}

// Without a new address: a shrink unmaps [addr + new_len, addr + old_len) whatever it holds, the same size
// does nothing (even where old_len runs past the mapping), a growth checks that old_len fits in the mapping.
static void test_resize_in_place(void) {
  char* area = free_range(8 * kPage);
  char* a = map_filled(area, kPage, 'a');
  char* b = mmap(area + kPage, kPage, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  REQUIRE(b == area + kPage);
  char* c = map_filled(area + 2 * kPage, kPage, 'c');
  CHECK_EQ(sys_mremap(a, 100 * kPage, 100 * kPage, 0, NULL), (long)a);
  CHECK(is_mapped(b));
  CHECK_EQ(sys_mremap(a, 3 * kPage, kPage, 0, NULL), (long)a);
  CHECK(!is_mapped(b));
  CHECK(!is_mapped(c));
  CHECK(all_bytes(a, 'a', kPage));
  CHECK_ERRNO(sys_mremap(a, 2 * kPage, 3 * kPage, MREMAP_MAYMOVE, NULL), EFAULT);
  CHECK_EQ(sys_mremap(a, kPage, 3 * kPage, 0, NULL), (long)a);  // grows in place into the freed pages
  CHECK(all_bytes(a + kPage, 0, 2 * kPage));
  // A shrink whose tail leaves the user address space is munmap's EINVAL.
  CHECK_ERRNO(sys_mremap(a, 1UL << 62, kPage, 0, NULL), EINVAL);
  CHECK_SYS(munmap(area, 8 * kPage));
}

// A move that grows: the old bytes, then zero pages (anonymous) or the next part of the file.
static void test_fixed_grow(void) {
  char* area = free_range(16 * kPage);
  char* old = map_filled(area, kPage, 'G');
  char* dst = area + 8 * kPage;
  CHECK_EQ(sys_mremap(old, kPage, 3 * kPage, MREMAP_MAYMOVE | MREMAP_FIXED, dst), (long)dst);
  CHECK(all_bytes(dst, 'G', kPage));
  CHECK(all_bytes(dst + kPage, 0, 2 * kPage));
  CHECK(!is_mapped(old));
  CHECK_SYS(munmap(area, 16 * kPage));

  int fd = REQUIRE_SYS(open("three_pages", O_CREAT | O_RDWR | O_TRUNC, 0644));
  char page[kPage];
  for (int i = 0; i < 3; i++) {
    memset(page, '0' + i, kPage);
    REQUIRE(write(fd, page, kPage) == kPage);
  }
  area = free_range(16 * kPage);
  char* f = mmap(area, kPage, PROT_READ, MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
  REQUIRE(f == area);
  dst = area + 8 * kPage;
  CHECK_EQ(sys_mremap(f, kPage, 3 * kPage, MREMAP_MAYMOVE | MREMAP_FIXED, dst), (long)dst);
  CHECK(all_bytes(dst, '0', kPage));
  CHECK(all_bytes(dst + kPage, '1', kPage));
  CHECK(all_bytes(dst + 2 * kPage, '2', kPage));
  CHECK_SYS(munmap(area, 16 * kPage));
  close(fd);
}

static void test_dontunmap(void) {
  char* old = map_filled(NULL, 2 * kPage, 'U');
  long r = sys_mremap(old, 2 * kPage, 2 * kPage, MREMAP_MAYMOVE | MREMAP_DONTUNMAP, NULL);
  CHECK(r != -1);
  if (r != -1) {
    CHECK(all_bytes((char*)r, 'U', 2 * kPage));
    CHECK(all_bytes(old, 0, 2 * kPage));  // still mapped, now empty
    CHECK_SYS(munmap((char*)r, 2 * kPage));
  }
  CHECK_ERRNO(sys_mremap(old, 2 * kPage, kPage, MREMAP_MAYMOVE | MREMAP_DONTUNMAP, NULL), EINVAL);
  CHECK_ERRNO(sys_mremap(old, 2 * kPage, 2 * kPage, MREMAP_DONTUNMAP, NULL), EINVAL);
  CHECK_SYS(munmap(old, 2 * kPage));
}

static void test_argument_checks(void) {
  char* p = map_filled(NULL, 2 * kPage, 'X');
  char* gone = free_range(kPage);
  CHECK_ERRNO(sys_mremap(p, kPage, kPage, 0x80, NULL), EINVAL);
  CHECK_ERRNO(sys_mremap(p + 1, kPage, kPage, 0, NULL), EINVAL);
  // qemu-aarch64 7.2 answers ENOMEM for a new length that is (or rounds to) 0, and for an old one that
  // rounds to 0.
  if (!on_reference_qemu()) {
    CHECK_ERRNO(sys_mremap(p, kPage, 0, MREMAP_MAYMOVE, NULL), EINVAL);
    CHECK_ERRNO(sys_mremap(p, kPage, -1UL, MREMAP_MAYMOVE, NULL), EINVAL);  // rounds up to 0
  }
  CHECK_ERRNO(sys_mremap(p, kPage, kPage, MREMAP_FIXED, gone), EINVAL);
  CHECK_ERRNO(sys_mremap(p, kPage, kPage, MREMAP_MAYMOVE | MREMAP_FIXED, gone + 1), EINVAL);
  CHECK_ERRNO(sys_mremap(gone, kPage, kPage, 0, NULL), EFAULT);
  CHECK_ERRNO(sys_mremap(gone, kPage, 2 * kPage, MREMAP_MAYMOVE, NULL), EFAULT);
  // old_len within a page of 2^64 rounds to 0: a second mapping of private memory is refused.
  if (!on_reference_qemu()) CHECK_ERRNO(sys_mremap(p, -1UL, 2 * kPage, MREMAP_MAYMOVE, NULL), EINVAL);
  // A destination beyond the user address space (TASK_SIZE: 2^48 on arm64).
  CHECK_ERRNO(sys_mremap(p, kPage, kPage, MREMAP_MAYMOVE | MREMAP_FIXED, (void*)(1UL << 48)), EINVAL);
  CHECK_ERRNO(sys_mremap(p, kPage, 1UL << 62, MREMAP_MAYMOVE | MREMAP_FIXED, gone), EINVAL);
  CHECK(all_bytes(p, 'X', 2 * kPage));
  CHECK_SYS(munmap(p, 2 * kPage));
}

int main(void) {
  test_fixed_shrink();
  test_fixed_shrink_below();
  test_fixed_shrink_at_top();
  test_resize_in_place();
  test_fixed_grow();
  test_dontunmap();
  test_argument_checks();
  return check_done();
}
