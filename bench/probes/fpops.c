// Floating-point operations other than FADD/FSUB/FMUL/FDIV, each in a loop over one array of doubles, as
// compiled C uses them: the instruction under test is a helper call in both emulators' translated code
// (a64run takes the host FPU for the common case, emu/fp_fast.cpp; qemu-aarch64 takes softfloat's hardfloat
// paths).
//   fmadd    fma(x, y, acc)                          FMADD (one rounding; natively a libm call)
//   convert  (long)x, then (double)(n & 0xffff)      FCVTZS, SCVTF
//   narrow   (float)x, then back to double           FCVT both ways
//   round    floor(x) + trunc(x * 0.5)               FRINTM, FRINTZ
//   minmax   fmax(m, x) + fmin(x, 3)                 FMAXNM, FMINNM
//   compare  x < limit ? 1 : 2                       FCMPE, FCSEL
// Each prints its time (RESULT fp.<name>) and a checksum of its results (CHECK fp.<name>), the same bits
// on every runner: every operation is exactly rounded IEEE arithmetic.
// Usage: fpops [scale]   (scale 1 is the full size)
#include <math.h>

#include "common.h"

enum { kLen = 1 << 16 };

static double values[kLen];

static void fill(void) {
  uint64_t s = 88172645463325252ULL;
  for (int i = 0; i < kLen; i++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    values[i] = (double)(int64_t)(s >> 20) * 0x1p-21 - 1000.0;  // -1000 .. 3e6, inexact fractions
  }
}

static uint64_t bits_of(double d) {
  uint64_t b;
  memcpy(&b, &d, sizeof b);
  return b;
}

static uint64_t op_fmadd(long reps) {
  double acc = 0.5;
  for (long r = 0; r < reps; r++)
    for (int i = 0; i < kLen; i++) acc = fma(values[i], 0x1p-20, acc);
  return bits_of(acc);
}

static uint64_t op_convert(long reps) {
  long sum = 0;
  double x = 0;
  for (long r = 0; r < reps; r++)
    for (int i = 0; i < kLen; i++) {
      sum += (long)values[i];
      x += (double)(sum & 0xffff) * 0.5;
    }
  return (uint64_t)sum ^ bits_of(x);
}

static uint64_t op_narrow(long reps) {
  double acc = 0;
  for (long r = 0; r < reps; r++)
    for (int i = 0; i < kLen; i++) acc += (double)(float)values[i];
  return bits_of(acc);
}

static uint64_t op_round(long reps) {
  double acc = 0;
  for (long r = 0; r < reps; r++)
    for (int i = 0; i < kLen; i++) acc += floor(values[i]) + trunc(values[i] * 0.5);
  return bits_of(acc);
}

static uint64_t op_minmax(long reps) {
  double m = 0, acc = 0;
  for (long r = 0; r < reps; r++)
    for (int i = 0; i < kLen; i++) {
      m = fmax(m, values[i]);
      acc += fmin(values[i], 3.0);
    }
  return bits_of(m) ^ bits_of(acc);
}

static uint64_t op_compare(long reps) {
  double acc = 0;
  const double limit = 1000.5;
  for (long r = 0; r < reps; r++)
    for (int i = 0; i < kLen; i++) acc += values[i] < limit ? 1.0 : 2.0;
  return bits_of(acc);
}

static const struct {
  const char* name;
  uint64_t (*fn)(long);
  long full;  // repetitions over the array: ~0.2-1 s each under qemu-aarch64 on the reference machine
} kOps[] = {
    {"fmadd", op_fmadd, 1200}, {"convert", op_convert, 300}, {"narrow", op_narrow, 600},
    {"round", op_round, 300},  {"minmax", op_minmax, 300},   {"compare", op_compare, 600},
};

int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  const double scale = argc > 1 ? atof(argv[1]) : 1.0;
  fill();
  for (size_t i = 0; i < sizeof kOps / sizeof kOps[0]; i++) {
    long reps = (long)((double)kOps[i].full * scale);
    if (reps < 1) reps = 1;
    const int64_t t0 = now_ns();
    const uint64_t check = kOps[i].fn(reps);
    const int64_t t1 = now_ns();
    printf("CHECK fp.%s=%016llx\n", kOps[i].name, (unsigned long long)check);
    printf("RESULT fp.%s=%.4f unit=s\n", kOps[i].name, (double)(t1 - t0) / 1e9);
  }
  return 0;
}
