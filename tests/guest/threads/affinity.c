// Tests CPU affinity: sched_setaffinity pins the calling thread to the first allowed CPU, then to the last,
// and sched_getcpu() (after a few sched_yield calls, bounded) reports that CPU; sched_getaffinity returns the
// mask just set; affinity is per thread (a second thread pinned elsewhere reports its own CPU and mask);
// an empty mask is EINVAL; the raw syscall returns the kernel's mask size in bytes.
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

static cpu_set_t original;
static int first_cpu = -1, last_cpu = -1;

static cpu_set_t only(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return set;
}

// sched_getcpu() after pinning: the kernel migrates a thread off a CPU not in its mask before it returns to
// user space, so one call should do; a few yields make it robust to the emulator's own scheduling.
static int cpu_after_yields(int want) {
  int cpu = -1;
  for (int i = 0; i < 100 && cpu != want; i++) {
    sched_yield();
    cpu = sched_getcpu();
  }
  return cpu;
}

// Pins the calling thread to `cpu` and checks getcpu and getaffinity; returns the number of failures.
static int pin_and_check(int cpu) {
  int before = check_failures;
  cpu_set_t set = only(cpu);
  CHECK_EQ(sched_setaffinity(0, sizeof set, &set), 0);
  CHECK_EQ(cpu_after_yields(cpu), cpu);
  cpu_set_t got;
  CPU_ZERO(&got);
  CHECK_EQ(sched_getaffinity(0, sizeof got, &got), 0);
  CHECK(CPU_EQUAL(&got, &set));
  CHECK_EQ(CPU_COUNT(&got), 1);
  // By tid too: gettid() names this thread.
  CPU_ZERO(&got);
  CHECK_EQ(sched_getaffinity(gettid(), sizeof got, &got), 0);
  CHECK(CPU_EQUAL(&got, &set));
  return check_failures - before;
}

static void* pinned_thread(void* arg) {
  (void)arg;
  int failures = pin_and_check(last_cpu);
  return (void*)(long)failures;
}

int main(void) {
  REQUIRE(sched_getaffinity(0, sizeof original, &original) == 0);
  int allowed = CPU_COUNT(&original);
  CHECK_GE(allowed, 1);
  CHECK_LE(allowed, sysconf(_SC_NPROCESSORS_CONF));
  for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
    if (!CPU_ISSET(cpu, &original)) continue;
    if (first_cpu < 0) first_cpu = cpu;
    last_cpu = cpu;
  }
  printf("allowed CPUs: %d (first %d, last %d)\n", allowed, first_cpu, last_cpu);
  int now = sched_getcpu();
  CHECK(now >= 0 && CPU_ISSET(now, &original));  // we run on an allowed CPU

  // The raw syscall returns the size of the kernel's mask in bytes (a multiple of sizeof(long)).
  cpu_set_t raw;
  long size = syscall(SYS_sched_getaffinity, 0, sizeof raw, &raw);
  CHECK_GT(size, 0);
  CHECK_EQ(size % sizeof(long), 0);
  CHECK(CPU_EQUAL(&raw, &original));

  pin_and_check(first_cpu);
  pin_and_check(last_cpu);
  pin_and_check(first_cpu);

  // Affinity is per thread: a new thread inherits the creator's mask, then pins itself elsewhere while the
  // main thread keeps its own.
  pthread_t t;
  void* failures = (void*)-1;
  REQUIRE(pthread_create(&t, NULL, pinned_thread, NULL) == 0);
  REQUIRE(pthread_join(t, &failures) == 0);
  CHECK_EQ((long)failures, 0);
  cpu_set_t mine;
  CHECK_EQ(sched_getaffinity(0, sizeof mine, &mine), 0);
  cpu_set_t want = only(first_cpu);
  CHECK(CPU_EQUAL(&mine, &want));
  CHECK_EQ(cpu_after_yields(first_cpu), first_cpu);

  cpu_set_t empty;
  CPU_ZERO(&empty);
  CHECK_ERRNO(sched_setaffinity(0, sizeof empty, &empty), EINVAL);

  CHECK_EQ(sched_setaffinity(0, sizeof original, &original), 0);
  cpu_set_t restored;
  CHECK_EQ(sched_getaffinity(0, sizeof restored, &restored), 0);
  CHECK(CPU_EQUAL(&restored, &original));
  return check_done();
}
