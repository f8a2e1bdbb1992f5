// Loads and stores in one translation block on both sides of an instruction whose translation branches
// inside the block (FCCMP and FCCMPE with each outcome of their condition, STXR): every access reaches its
// own address with its own value, and the block's other registers and flags come out right. A64run's
// direct memory path keeps the window's size in a temp across the accesses of a basic block; an
// instruction's own labels end one (CPython's test_float aborted in TCG, "tcg fatal error", at
// _Py_c_pow's prologue: stp; fccmp; stp).
#include <stdint.h>
#include <string.h>

#include "check.h"

// FCCMP between two stores and between two loads, with NZCV from `cmp` of x, y: eq when x == y.
static void fccmp_case(uint64_t x, uint64_t y) {
  uint64_t buf[4];
  memset(buf, 0, sizeof buf);
  uint64_t a = 0x1111222233334444ull ^ x, b = 0x5555666677778888ull ^ y, ra, rb, nzcv1, nzcv2;
  double d0 = 1.0, d1 = 2.0;
  __asm__ volatile(
      "cmp %[x], %[y]\n\t"
      "str %[a], [%[p]]\n\t"
      "fccmp %d[d0], %d[d1], #0x3, eq\n\t"  // eq: compares (1 < 2: N), else NZCV = 0011
      "str %[b], [%[p], #8]\n\t"
      "mrs %[n1], nzcv\n\t"
      "ldr %[ra], [%[p]]\n\t"
      "fccmpe %d[d1], %d[d0], #0x4, ne\n\t"  // ne: compares (2 > 1: C), else NZCV = 0100
      "ldr %[rb], [%[p], #8]\n\t"
      "mrs %[n2], nzcv\n\t"
      "str %[rb], [%[p], #16]\n\t"
      "str %[ra], [%[p], #24]\n\t"
      : [ra] "=&r"(ra), [rb] "=&r"(rb), [n1] "=&r"(nzcv1), [n2] "=&r"(nzcv2)
      : [x] "r"(x), [y] "r"(y), [a] "r"(a), [b] "r"(b), [p] "r"(buf), [d0] "w"(d0), [d1] "w"(d1)
      : "cc", "memory");
  CHECK_EQ(buf[0], a);
  CHECK_EQ(buf[1], b);
  CHECK_EQ(ra, a);
  CHECK_EQ(rb, b);
  CHECK_EQ(buf[2], b);
  CHECK_EQ(buf[3], a);
  const int eq = x == y;
  CHECK_EQ(nzcv1, eq ? 0x80000000u : 0x30000000u);  // 1 < 2: N; not eq: the immediate 0011
  // The second condition reads the first FCCMP's flags: Z is clear after it either way, so ne holds and
  // FCCMPE compares 2 with 1: C.
  CHECK_EQ(nzcv2, 0x20000000u);
}

// STXR (its translation compares the monitor's address and value, with branches) between plain stores.
static void stxr_case(void) {
  uint64_t buf[3] = {0, 0, 0};
  uint64_t word = 41;
  uint64_t a = 0xa5a5a5a5a5a5a5a5ull, b = 0x5a5a5a5a5a5a5a5aull, status, ra, rb;
  for (int tries = 0; tries < 1000; tries++) {
    uint64_t old;
    __asm__ volatile(
        "str %[a], [%[p]]\n\t"
        "ldxr %[old], [%[w]]\n\t"
        "add %[old], %[old], #1\n\t"
        "stxr %w[st], %[old], [%[w]]\n\t"
        "str %[b], [%[p], #8]\n\t"
        "ldr %[ra], [%[p]]\n\t"
        "ldr %[rb], [%[p], #8]\n\t"
        "str %[ra], [%[p], #16]\n\t"
        : [old] "=&r"(old), [st] "=&r"(status), [ra] "=&r"(ra), [rb] "=&r"(rb)
        : [a] "r"(a), [b] "r"(b), [p] "r"(buf), [w] "r"(&word)
        : "memory");
    CHECK_EQ(buf[0], a);
    CHECK_EQ(buf[1], b);
    CHECK_EQ(ra, a);
    CHECK_EQ(rb, b);
    CHECK_EQ(buf[2], a);
    if (status == 0) break;
  }
  CHECK_EQ(status, 0);
  CHECK_EQ(word, 42);
}

int main(void) {
  fccmp_case(3, 3);
  fccmp_case(3, 4);
  stxr_case();
  return check_done();
}
