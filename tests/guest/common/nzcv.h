// The Arm pseudocode's ConditionHolds (shared/functions/system/ConditionHolds) for the guest tests of the
// condition flags: whether A64 condition `cond` (EQ 0 ... LE 13; not AL or NV) holds for NZCV `nzcv` (in
// bits 31..28, as in PSTATE).
#ifndef A64RUN_TESTS_GUEST_COMMON_NZCV_H_
#define A64RUN_TESTS_GUEST_COMMON_NZCV_H_

#include <stdint.h>

static inline int condition_holds(int cond, uint32_t nzcv) {
  const int n = nzcv >> 31 & 1, z = nzcv >> 30 & 1, c = nzcv >> 29 & 1, v = nzcv >> 28 & 1;
  int result = 0;
  switch (cond >> 1) {
    case 0:
      result = z;
      break;
    case 1:
      result = c;
      break;
    case 2:
      result = n;
      break;
    case 3:
      result = v;
      break;
    case 4:
      result = c && !z;
      break;
    case 5:
      result = n == v;
      break;
    default:
      result = n == v && !z;
      break;
  }
  return (cond & 1) ? !result : result;
}

#endif  // A64RUN_TESTS_GUEST_COMMON_NZCV_H_
