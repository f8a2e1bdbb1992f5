// Shared helpers for the bench probes: the monotonic clock, sample statistics, and the line protocol
// that bench/run parses.
//
// Protocol (one line each, on stdout, line-buffered so a probe killed by the harness's timeout still
// leaves what it had measured):
//   RESULT <figure>=<value> unit=<unit>     one figure
//   SAMPLES <figure> unit=<unit> v1 v2 ...  the raw distribution behind a latency figure (for the plot)
//   CHECK <kernel>=<hex>                    a checksum that must match across runners
//   FAIL <what>: <reason>                   the probe could not measure <what> (the harness shows it)
// Probes build for aarch64 (the guest) and x86-64 (native) from the same source.
#ifndef BENCH_PROBES_COMMON_H_
#define BENCH_PROBES_COMMON_H_

#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

// Sleeps for ns nanoseconds, resuming after signals (used for waits that are not themselves measured).
static inline void sleep_ns(int64_t ns) {
  struct timespec ts = {.tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

static inline void fail(const char* what, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  printf("FAIL %s: ", what);
  vprintf(fmt, ap);
  printf("\n");
  va_end(ap);
}

// Every probe calls this first: line-buffered output, and a clock that works (an emulator without
// clock_gettime makes every figure meaningless, so the probe stops with one clear FAIL line).
static inline void probe_init(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) {
    fail("clock", "clock_gettime(CLOCK_MONOTONIC): %s", strerror(errno));
    exit(2);
  }
}

static inline int cmp_i64(const void* a, const void* b) {
  int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
  return (x > y) - (x < y);
}

// Nearest-rank percentile of a sorted array (p in 0..100).
static inline int64_t pct(const int64_t* sorted, int n, double p) {
  if (n <= 0) return 0;
  int idx = (int)(p / 100.0 * n + 0.999999) - 1;
  if (idx < 0) idx = 0;
  if (idx >= n) idx = n - 1;
  return sorted[idx];
}

static inline void result_us(const char* name, int64_t ns) {
  printf("RESULT %s=%.3f unit=us\n", name, (double)ns / 1e3);
}

// Prints the samples (nanoseconds) as microseconds; sorts them in place.
static inline void samples_us(const char* name, int64_t* v, int n) {
  qsort(v, (size_t)n, sizeof v[0], cmp_i64);
  printf("SAMPLES %s unit=us", name);
  for (int i = 0; i < n; i++) printf(" %.3f", (double)v[i] / 1e3);
  printf("\n");
}

// Parses argv[i] as a positive count, or returns def.
static inline int arg_count(int argc, char** argv, int i, int def) {
  if (argc <= i) return def;
  int v = atoi(argv[i]);
  return v > 0 ? v : def;
}

#endif  // BENCH_PROBES_COMMON_H_
