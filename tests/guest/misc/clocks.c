// Tests clocks and sleeps: clock_gettime on every clock (monotonic ones never go back), clock_getres,
// gettimeofday and time against CLOCK_REALTIME, and nanosleep/clock_nanosleep bounded on both sides.
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static int64_t ns_of(struct timespec ts) {
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t now_ns(clockid_t clock) {
  struct timespec ts;
  if (clock_gettime(clock, &ts) != 0) return -1;
  return ns_of(ts);
}

static void test_clocks(void) {
  static const struct {
    clockid_t id;
    const char* name;
    int64_t max_res_ns;
  } kClocks[] = {
      {CLOCK_REALTIME, "CLOCK_REALTIME", 1000},
      {CLOCK_MONOTONIC, "CLOCK_MONOTONIC", 1000},
      {CLOCK_MONOTONIC_RAW, "CLOCK_MONOTONIC_RAW", 1000},
      {CLOCK_BOOTTIME, "CLOCK_BOOTTIME", 1000},
      {CLOCK_PROCESS_CPUTIME_ID, "CLOCK_PROCESS_CPUTIME_ID", 1000},
      {CLOCK_THREAD_CPUTIME_ID, "CLOCK_THREAD_CPUTIME_ID", 1000},
      {CLOCK_REALTIME_COARSE, "CLOCK_REALTIME_COARSE", 20000000},
      {CLOCK_MONOTONIC_COARSE, "CLOCK_MONOTONIC_COARSE", 20000000},
  };
  for (size_t i = 0; i < sizeof(kClocks) / sizeof(kClocks[0]); i++) {
    int before = check_failures;
    struct timespec ts = {-1, -1}, res = {-1, -1};
    CHECK_SYS(clock_gettime(kClocks[i].id, &ts));
    CHECK_GE(ts.tv_sec, 0);
    CHECK(ts.tv_nsec >= 0 && ts.tv_nsec < 1000000000);
    CHECK_SYS(clock_getres(kClocks[i].id, &res));
    CHECK_EQ(res.tv_sec, 0);
    CHECK_GT(res.tv_nsec, 0);
    CHECK_LE(res.tv_nsec, kClocks[i].max_res_ns);
    // The raw syscall too (glibc may answer from the vDSO).
    CHECK_SYS(syscall(SYS_clock_gettime, kClocks[i].id, &ts));
    CHECK_SYS(syscall(SYS_clock_getres, kClocks[i].id, NULL));
    if (check_failures != before) fprintf(stderr, "  (for %s)\n", kClocks[i].name);
  }
  struct timespec ts;
  CHECK_ERRNO(clock_gettime((clockid_t)1000, &ts), EINVAL);
  CHECK_ERRNO(clock_getres((clockid_t)1000, &ts), EINVAL);

  // Monotonic clocks never go back, across many reads.
  int64_t prev = now_ns(CLOCK_MONOTONIC), prev_raw = now_ns(CLOCK_MONOTONIC_RAW);
  int64_t prev_boot = now_ns(CLOCK_BOOTTIME);
  int backwards = 0;
  for (int i = 0; i < 10000; i++) {
    int64_t t = now_ns(CLOCK_MONOTONIC), r = now_ns(CLOCK_MONOTONIC_RAW), b = now_ns(CLOCK_BOOTTIME);
    backwards += t < prev || r < prev_raw || b < prev_boot;
    prev = t, prev_raw = r, prev_boot = b;
  }
  CHECK_EQ(backwards, 0);
  CHECK_GE(now_ns(CLOCK_BOOTTIME), now_ns(CLOCK_MONOTONIC) - 1000000);

  // gettimeofday and time agree with CLOCK_REALTIME.
  struct timeval tv;
  int64_t before = now_ns(CLOCK_REALTIME);
  CHECK_SYS(gettimeofday(&tv, NULL));
  int64_t after = now_ns(CLOCK_REALTIME);
  int64_t tv_ns = (int64_t)tv.tv_sec * 1000000000 + tv.tv_usec * 1000;
  CHECK_GE(tv_ns, before - 1000);
  CHECK_LE(tv_ns, after + 1000);
  CHECK(tv.tv_usec >= 0 && tv.tv_usec < 1000000);
  CHECK_SYS(syscall(SYS_gettimeofday, &tv, NULL));
  time_t t = time(NULL);
  CHECK_LE(llabs(t - after / 1000000000), 1);
  CHECK_GT(t, 1600000000);  // later than September 2020: the clock is real, not zero
}

static void test_sleeps(void) {
  // nanosleep sleeps at least what was asked, and not absurdly longer.
  struct timespec req = {0, 50 * 1000000}, rem = {7, 7};
  int64_t t0 = now_ns(CLOCK_MONOTONIC);
  CHECK_SYS(nanosleep(&req, &rem));
  int64_t slept = now_ns(CLOCK_MONOTONIC) - t0;
  CHECK_GE(slept, 50 * 1000000);
  CHECK_LT(slept, 2000 * 1000000LL);
  req.tv_nsec = 1000000000;
  CHECK_ERRNO(nanosleep(&req, NULL), EINVAL);
  req.tv_sec = -1;
  req.tv_nsec = 0;
  CHECK_ERRNO(nanosleep(&req, NULL), EINVAL);

  // clock_nanosleep returns the error number itself; TIMER_ABSTIME sleeps until the deadline.
  struct timespec deadline;
  clock_gettime(CLOCK_MONOTONIC, &deadline);
  t0 = ns_of(deadline);
  deadline.tv_nsec += 30 * 1000000;
  if (deadline.tv_nsec >= 1000000000) deadline.tv_sec++, deadline.tv_nsec -= 1000000000;
  CHECK_EQ(clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL), 0);
  int64_t woke = now_ns(CLOCK_MONOTONIC);
  CHECK_GE(woke, ns_of(deadline));
  CHECK_LT(woke - t0, 2000 * 1000000LL);
  // A deadline in the past returns at once.
  deadline.tv_sec -= 10;
  t0 = now_ns(CLOCK_MONOTONIC);
  CHECK_EQ(clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL), 0);
  CHECK_LT(now_ns(CLOCK_MONOTONIC) - t0, 500 * 1000000LL);
  struct timespec rel = {0, 20 * 1000000};
  t0 = now_ns(CLOCK_REALTIME);
  CHECK_EQ(clock_nanosleep(CLOCK_REALTIME, 0, &rel, NULL), 0);
  CHECK_GE(now_ns(CLOCK_REALTIME) - t0, 20 * 1000000 - 1000000);  // REALTIME may be slewed a little
  CHECK_EQ(clock_nanosleep(CLOCK_THREAD_CPUTIME_ID, 0, &rel, NULL), EINVAL);
  CHECK_EQ(clock_nanosleep((clockid_t)1000, 0, &rel, NULL), EINVAL);

  // The CPU-time clock advances with work and not with sleep.
  int64_t cpu0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
  struct timespec sleep100 = {0, 100 * 1000000};
  nanosleep(&sleep100, NULL);
  int64_t cpu1 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
  CHECK_LT(cpu1 - cpu0, 50 * 1000000);
  volatile unsigned long x = 0;
  for (unsigned long i = 0; i < 50 * 1000 * 1000; i++) x += i;
  CHECK_GT(now_ns(CLOCK_PROCESS_CPUTIME_ID), cpu1);
  CHECK_GT(now_ns(CLOCK_THREAD_CPUTIME_ID), 0);
}

int main(void) {
  test_clocks();
  test_sleeps();
  return check_done();
}
