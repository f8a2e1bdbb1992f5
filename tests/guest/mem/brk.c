// Tests the program break: brk(0) reports it, sbrk grows and shrinks it, new memory is usable and zeroed
// (also after a shrink and regrow), and a request the kernel refuses leaves the break where it was.
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

extern char end[];  // the end of the program's bss (the linker defines it)

static uintptr_t raw_brk(uintptr_t addr) {
  return (uintptr_t)syscall(SYS_brk, addr);
}

static int all_zero(const char* p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (p[i]) return 0;
  }
  return 1;
}

int main(void) {
  // The raw syscall returns the break itself (never -1): brk(0) asks without changing it.
  uintptr_t start = raw_brk(0);
  CHECK_NE(start, 0);
  CHECK_EQ(raw_brk(0), start);
  CHECK_GE(start, (uintptr_t)end);
  CHECK_LT(start - (uintptr_t)end, 1UL << 30);  // after the bss, within the randomisation range
  CHECK_EQ((uintptr_t)sbrk(0), start);

  // Growing: sbrk returns the old break; the memory is zeroed and writable.
  const size_t grow = 256 * 1024 + 123;
  char* p = sbrk(grow);
  REQUIRE(p != (void*)-1);
  CHECK_EQ((uintptr_t)p, start);
  CHECK_EQ((uintptr_t)sbrk(0), start + grow);
  CHECK_EQ(raw_brk(0), start + grow);
  CHECK(all_zero(p, grow));
  memset(p, 0xab, grow);
  CHECK_EQ((unsigned char)p[grow - 1], 0xab);

  // Shrinking then growing again: the memory given back comes back zeroed.
  CHECK_EQ((uintptr_t)sbrk(-(intptr_t)(grow / 2)), start + grow);
  CHECK_EQ(raw_brk(0), start + grow - grow / 2);
  CHECK_EQ((unsigned char)p[0], 0xab);
  char* again = sbrk(grow / 2);
  REQUIRE(again != (void*)-1);
  CHECK_EQ((uintptr_t)again, start + grow - grow / 2);
  CHECK(all_zero(again, grow / 2));

  // brk to an exact address; below the start of the heap or into mapped memory is refused and the raw
  // syscall then returns the unchanged break.
  uintptr_t target = start + 3 * 4096 + 5;
  CHECK_EQ(raw_brk(target), target);
  CHECK_EQ(brk((void*)(start + 4096)), 0);
  CHECK_EQ(raw_brk(0), start + 4096);
  CHECK_EQ(raw_brk(start - 64 * 1024 * 1024), start + 4096);
  CHECK_EQ(raw_brk(0), start + 4096);
  uintptr_t next_page = (start + 2 * 4096 + 4095) & ~4095UL;
  void* blocker = mmap((void*)(next_page + 64 * 4096), 4096, PROT_READ,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (CHECK(blocker == (void*)(next_page + 64 * 4096))) {
    CHECK_EQ(raw_brk(next_page + 128 * 4096), start + 4096);
    CHECK_SYS(munmap(blocker, 4096));
  }
  CHECK_EQ(raw_brk(start), start);

  // malloc works on top of all this.
  char* m = malloc(1000);
  REQUIRE(m != NULL);
  memset(m, 1, 1000);
  free(m);
  return check_done();
}
