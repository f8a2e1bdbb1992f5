// Tests that CLOCK_MONOTONIC never jumps while other threads come and go: four threads read it in a loop
// (through the vDSO, as Go's nanotime and glibc do) and check each reading against the one before, while
// the main thread keeps creating batches of threads that run at once. a64run made each new thread's vCPU
// with a Unicorn init that briefly switched the process-wide host clock behind the counter to the wall
// clock, so a reader could see a time 56 years ahead (a Go timer then fired at once).
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "check.h"

enum { kReaders = 4, kBatches = 40, kBatch = 6 };

static atomic_int g_stop;

struct Reader {
  int64_t reads;
  int64_t backwards;
  int64_t worst_step_ns;
};

static int64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void* reader(void* arg) {
  struct Reader* r = arg;
  int64_t prev = mono_ns();
  while (!atomic_load(&g_stop)) {
    const int64_t now = mono_ns();
    if (now < prev) r->backwards++;
    if (now - prev > r->worst_step_ns) r->worst_step_ns = now - prev;
    prev = now;
    r->reads++;
  }
  return NULL;
}

static void* short_lived(void* arg) {
  (void)arg;
  return NULL;
}

int main(void) {
  struct Reader readers[kReaders] = {0};
  pthread_t rt[kReaders];
  for (int i = 0; i < kReaders; i++) REQUIRE(pthread_create(&rt[i], NULL, reader, &readers[i]) == 0);
  const int64_t t0 = mono_ns();
  for (int b = 0; b < kBatches; b++) {
    pthread_t t[kBatch];
    for (int i = 0; i < kBatch; i++) REQUIRE(pthread_create(&t[i], NULL, short_lived, NULL) == 0);
    for (int i = 0; i < kBatch; i++) REQUIRE(pthread_join(t[i], NULL) == 0);
  }
  const int64_t elapsed = mono_ns() - t0;
  atomic_store(&g_stop, 1);
  for (int i = 0; i < kReaders; i++) REQUIRE(pthread_join(rt[i], NULL) == 0);
  // The whole run takes well under a minute; a step of more than 10 s between two readings of one thread
  // is a clock that jumped (the wall clock is 1.8e18 ns, boot time far less).
  CHECK_LT(elapsed, INT64_C(60000000000));
  for (int i = 0; i < kReaders; i++) {
    CHECK(readers[i].reads > 0);
    CHECK_EQ(readers[i].backwards, 0);
    CHECK_LT(readers[i].worst_step_ns, INT64_C(10000000000));
  }
  return check_done();
}
