// Tests cross-thread code modification: thread A rewrites code that thread B has already run, does the cache
// maintenance (__builtin___clear_cache: dc cvau, dsb, ic ivau, dsb, isb) and publishes the change; B then
// executes an isb (the architecture requires the executing thread to context-synchronise) and calls the code,
// which must be the new one. Three ways: an RWX page rewritten in place with a handshake per version, a page
// flipped with mprotect RW -> RX, and a branch patched while B keeps calling the code (B and NOP are the
// instructions the architecture lets one modify while another thread executes them).
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define kPage 4096L
enum { kVersions = 50 };

typedef int (*IntFn)(void);

static uint32_t* code;
static sem_t published_sem, acked_sem;  // the handshake parks instead of spinning
static int use_mprotect;

static inline void isb(void) {
  __asm__ volatile("isb" ::: "memory");
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint32_t movz_w0(unsigned value) {
  return 0x52800000u | (value & 0xffff) << 5;
}
static const uint32_t kRet = 0xd65f03c0u;
static uint32_t branch(int from_index, int to_index) {
  return 0x14000000u | ((to_index - from_index) & 0x3ffffff);
}

// A function of several blocks returning `value`: a loop adding value/4 four times, plus value%4.
static void emit_version(unsigned value) {
  if (use_mprotect && mprotect(code, kPage, PROT_READ | PROT_WRITE)) _exit(5);
  code[0] = movz_w0(value % 4);
  code[1] = 0x52800081u;                                // movz w1, #4
  code[2] = 0x11000000u | ((value / 4) & 0xfff) << 10;  // add w0, w0, #value/4
  code[3] = 0x71000421u;                                // subs w1, w1, #1
  code[4] = 0x54ffffc1u;                                // b.ne -8 (back to the add)
  code[5] = kRet;
  if (use_mprotect && mprotect(code, kPage, PROT_READ | PROT_EXEC)) _exit(5);
  __builtin___clear_cache((char*)code, (char*)(code + 6));
}

static void* runner(void* arg) {
  (void)arg;
  long wrong = 0;
  for (int v = 1; v <= kVersions; v++) {
    while (sem_wait(&published_sem) != 0) {
    }
    isb();
    int got = ((IntFn)code)();
    if (got != v) wrong++;
    got = ((IntFn)code)();  // twice: a second call must not find a stale translation either
    if (got != v) wrong++;
    sem_post(&acked_sem);
  }
  return (void*)wrong;
}

static void test_handshake(int flip) {
  use_mprotect = flip;
  REQUIRE(sem_init(&published_sem, 0, 0) == 0);
  REQUIRE(sem_init(&acked_sem, 0, 0) == 0);
  pthread_t t;
  REQUIRE(pthread_create(&t, NULL, runner, NULL) == 0);
  for (int v = 1; v <= kVersions; v++) {
    emit_version(v);
    sem_post(&published_sem);  // a release: B's sem_wait sees the new code bytes
    while (sem_wait(&acked_sem) != 0) {
    }
  }
  void* wrong = (void*)-1;
  REQUIRE(pthread_join(t, &wrong) == 0);
  if (!CHECK_EQ((long)wrong, 0))
    NOTE("%s: thread B ran stale code in %ld of %d calls", flip ? "mprotect flip" : "RWX page", (long)wrong,
         2 * kVersions);
}

// Layout for the patched branch: [0] b 2 or b 4; [2] movz w0,#1; ret; [4] movz w0,#2; ret.
static atomic_int runner_saw_old;

static void* spinning_runner(void* arg) {
  (void)arg;
  double start = now_s();
  for (;;) {
    isb();
    int got = ((IntFn)code)();
    if (got == 1) {
      atomic_store(&runner_saw_old, 1);
    } else if (got == 2) {
      return NULL;
    } else {
      return (void*)2;  // neither version
    }
    if (now_s() - start > 10) return (void*)1;
  }
}

static void test_patch_while_running(void) {
  use_mprotect = 0;
  code[0] = branch(0, 2);
  code[1] = kRet;
  code[2] = movz_w0(1);
  code[3] = kRet;
  code[4] = movz_w0(2);
  code[5] = kRet;
  __builtin___clear_cache((char*)code, (char*)(code + 6));
  atomic_store(&runner_saw_old, 0);
  pthread_t t;
  REQUIRE(pthread_create(&t, NULL, spinning_runner, NULL) == 0);
  while (!atomic_load(&runner_saw_old)) sched_yield();
  __atomic_store_n(&code[0], branch(0, 4), __ATOMIC_RELAXED);  // one aligned 32-bit store
  __builtin___clear_cache((char*)code, (char*)(code + 1));
  void* result = (void*)-1;
  REQUIRE(pthread_join(t, &result) == 0);
  if (!CHECK_EQ((long)result, 0))
    NOTE("patched branch: %s",
         (long)result == 1 ? "thread B still ran the old branch after 10 s" : "thread B got neither version");
}

int main(void) {
  code = mmap(NULL, kPage, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(code != MAP_FAILED);
  NOTE("RWX page rewritten in place");
  test_handshake(0);
  NOTE("page flipped with mprotect");
  test_handshake(1);
  CHECK_SYS(mprotect(code, kPage, PROT_READ | PROT_WRITE | PROT_EXEC));
  NOTE("branch patched while running");
  test_patch_while_running();
  return check_done();
}
