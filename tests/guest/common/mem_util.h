// Memory helpers shared by the guest tests that place mappings themselves.
#ifndef A64RUN_TESTS_GUEST_COMMON_MEM_UTIL_H_
#define A64RUN_TESTS_GUEST_COMMON_MEM_UTIL_H_

#include <stddef.h>
#include <sys/mman.h>

#include "check.h"

// A free range of `size` bytes (mapped and unmapped again), for MAP_FIXED_NOREPLACE placements and hints.
static inline char* free_range(size_t size) {
  char* p = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(p != MAP_FAILED);
  REQUIRE_SYS(munmap(p, size));
  return p;
}

#endif  // A64RUN_TESTS_GUEST_COMMON_MEM_UTIL_H_
