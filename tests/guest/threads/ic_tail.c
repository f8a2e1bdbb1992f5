// Stress test for the instructions after an `ic ivau` in the same translated block. Under a64run the
// cache maintenance moves the code generation from inside the block, and the thread then runs the rest of
// the block: a block that may be another thread's translation (threads share them). That other thread
// drops its translations as it goes back into code; it must not do so while this one still runs the tail
// (a64run did: a host SIGSEGV in zeroed code, about 6% of threads/code_churn's runs). Here four threads
// call the same function, whose block does `ic ivau` and then a run of additions, many times each; every
// call must add exactly its count.
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "check.h"

enum { kThreads = 4, kCalls = 400 };

static uint32_t target[16];  // the address the cache maintenance names (any mapped address will do)
static atomic_int go;

// One block: ic ivau, then 24 additions (the tail), then ret. Returns x + 24.
__attribute__((noinline)) static uint64_t tail(uint64_t x, void* p) {
  __asm__ volatile(
      "ic ivau, %1\n\t"
      ".rept 24\n\t"
      "add %0, %0, #1\n\t"
      ".endr\n\t"
      : "+r"(x)
      : "r"(p)
      : "memory");
  return x;
}

static void* worker(void* arg) {
  (void)arg;
  while (!atomic_load(&go)) {
  }
  uint64_t sum = 0;
  for (int i = 0; i < kCalls; i++) sum = tail(sum, target);
  return (void*)(uintptr_t)sum;
}

int main(void) {
  pthread_t th[kThreads];
  for (int i = 0; i < kThreads; i++) CHECK(pthread_create(&th[i], NULL, worker, NULL) == 0);
  atomic_store(&go, 1);
  for (int i = 0; i < kThreads; i++) {
    void* r;
    CHECK(pthread_join(th[i], &r) == 0);
    CHECK_EQ((uint64_t)(uintptr_t)r, (uint64_t)kCalls * 24);
  }
  return check_done();
}
