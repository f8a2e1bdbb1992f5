// Memory helpers shared by the guest tests that place mappings themselves.
#ifndef A64RUN_TESTS_GUEST_COMMON_MEM_UTIL_H_
#define A64RUN_TESTS_GUEST_COMMON_MEM_UTIL_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>

#include "check.h"

// A free range of `size` bytes (mapped and unmapped again), for MAP_FIXED_NOREPLACE placements and hints.
static inline char* free_range(size_t size) {
  char* p = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(p != MAP_FAILED);
  REQUIRE_SYS(munmap(p, size));
  return p;
}

// How many lines of /proc/self/maps overlap [start, end) (-1 without the file).
static inline int maps_lines(uintptr_t start, uintptr_t end) {
  FILE* f = fopen("/proc/self/maps", "r");
  if (f == NULL) return -1;
  char line[512];
  int n = 0;
  while (fgets(line, sizeof line, f)) {
    unsigned long a, b;
    if (sscanf(line, "%lx-%lx", &a, &b) == 2 && a < end && b > start) n++;
  }
  fclose(f);
  return n;
}

#endif  // A64RUN_TESTS_GUEST_COMMON_MEM_UTIL_H_
