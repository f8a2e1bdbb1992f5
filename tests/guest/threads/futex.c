// Raw futex(2) and futex_waitv(2): WAIT's value check and relative timeout, WAIT_BITSET's absolute timeout on
// both clocks, WAKE counts, bitset matching, REQUEUE and CMP_REQUEUE, WAKE_OP, futex_waitv waking on any of
// its words; and the errors: EAGAIN, ETIMEDOUT, EINVAL (misaligned, zero bitset, bad waitv), EFAULT
// (unmapped word for a shared key), ENOSYS (an unknown op).
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static long futex(uint32_t* uaddr, int op, uint32_t val, const struct timespec* ts, uint32_t* uaddr2,
                  uint32_t val3) {
  return syscall(SYS_futex, uaddr, op, val, ts, uaddr2, val3);
}

static int64_t now_ns(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static uint32_t words[4];
static volatile int woken;

struct waiter {
  uint32_t* word;
  uint32_t bitset;
  long result;
};

static void* waiter_main(void* arg) {
  struct waiter* w = arg;
  w->result = futex(w->word, FUTEX_WAIT_BITSET_PRIVATE, 0, NULL, NULL, w->bitset);
  __atomic_add_fetch(&woken, 1, __ATOMIC_SEQ_CST);
  return NULL;
}

// Starts n waiters on word (bitset each) and waits until all of them are parked in the futex.
static void start_waiters(pthread_t* th, struct waiter* w, int n, uint32_t* word, const uint32_t* bitsets) {
  woken = 0;
  for (int i = 0; i < n; i++) {
    w[i] = (struct waiter){word, bitsets ? bitsets[i] : FUTEX_BITSET_MATCH_ANY, -2};
    REQUIRE(pthread_create(&th[i], NULL, waiter_main, &w[i]) == 0);
  }
  struct timespec nap = {0, 30000000};  // long enough for the waiters to park
  nanosleep(&nap, NULL);
}

static void wait_woken(int n) {
  for (int i = 0; i < 500 && woken < n; i++) {
    struct timespec nap = {0, 2000000};
    nanosleep(&nap, NULL);
  }
}

static void test_wait_and_timeouts(void) {
  uint32_t w = 5;
  CHECK_ERRNO(futex(&w, FUTEX_WAIT_PRIVATE, 4, NULL, NULL, 0), EAGAIN);
  struct timespec rel = {0, 50000000};
  int64_t t0 = now_ns(CLOCK_MONOTONIC);
  CHECK_ERRNO(futex(&w, FUTEX_WAIT_PRIVATE, 5, &rel, NULL, 0), ETIMEDOUT);
  int64_t took = now_ns(CLOCK_MONOTONIC) - t0;
  CHECK_GE(took, 45000000);
  CHECK_LT(took, 5000000000LL);
  // WAIT_BITSET takes an absolute time, on CLOCK_MONOTONIC or (FUTEX_CLOCK_REALTIME) CLOCK_REALTIME.
  for (int rt = 0; rt < 2; rt++) {
    clockid_t c = rt ? CLOCK_REALTIME : CLOCK_MONOTONIC;
    int64_t end = now_ns(c) + 50000000;
    struct timespec abs = {end / 1000000000, end % 1000000000};
    t0 = now_ns(CLOCK_MONOTONIC);
    CHECK_ERRNO(futex(&w, FUTEX_WAIT_BITSET_PRIVATE | (rt ? FUTEX_CLOCK_REALTIME : 0), 5, &abs, NULL, ~0u),
                ETIMEDOUT);
    took = now_ns(CLOCK_MONOTONIC) - t0;
    CHECK_GE(took, 40000000);
    CHECK_LT(took, 5000000000LL);
  }
  struct timespec bad = {0, 1000000000};
  CHECK_ERRNO(futex(&w, FUTEX_WAIT_PRIVATE, 5, &bad, NULL, 0), EINVAL);
  CHECK_ERRNO(futex((uint32_t*)((char*)&w + 1), FUTEX_WAIT_PRIVATE, 5, &rel, NULL, 0), EINVAL);
  CHECK_ERRNO(futex(&w, FUTEX_WAIT_BITSET_PRIVATE, 5, &rel, NULL, 0), EINVAL);  // zero bitset
  CHECK_ERRNO(futex(&w, FUTEX_WAKE_BITSET_PRIVATE, 1, NULL, NULL, 0), EINVAL);
  CHECK_ERRNO(futex(&w, 99, 0, NULL, NULL, 0), ENOSYS);
  CHECK_ERRNO(futex(NULL, FUTEX_WAIT_PRIVATE, 0, &rel, NULL, 0), EFAULT);
}

static void test_wake_counts_and_bitsets(void) {
  pthread_t th[3];
  struct waiter w[3];
  words[0] = 0;
  start_waiters(th, w, 3, &words[0], NULL);
  CHECK_EQ(futex(&words[0], FUTEX_WAKE_PRIVATE, 2, NULL, NULL, 0), 2);
  wait_woken(2);
  CHECK_EQ(woken, 2);
  CHECK_EQ(futex(&words[0], FUTEX_WAKE_PRIVATE, 10, NULL, NULL, 0), 1);
  for (int i = 0; i < 3; i++) pthread_join(th[i], NULL);
  CHECK(w[0].result == 0 && w[1].result == 0 && w[2].result == 0);

  const uint32_t bits[3] = {1, 2, 4};
  start_waiters(th, w, 3, &words[0], bits);
  CHECK_EQ(futex(&words[0], FUTEX_WAKE_BITSET_PRIVATE, 10, NULL, NULL, 2 | 4), 2);
  CHECK_EQ(futex(&words[0], FUTEX_WAKE_BITSET_PRIVATE, 10, NULL, NULL, 2), 0);
  CHECK_EQ(futex(&words[0], FUTEX_WAKE_BITSET_PRIVATE, 10, NULL, NULL, 1), 1);
  for (int i = 0; i < 3; i++) pthread_join(th[i], NULL);
}

static void test_requeue_and_wake_op(void) {
  pthread_t th[3];
  struct waiter w[3];
  words[0] = 0;
  words[1] = 0;
  start_waiters(th, w, 3, &words[0], NULL);
  // CMP_REQUEUE checks the first word: a mismatch moves nobody.
  CHECK_ERRNO(futex(&words[0], FUTEX_CMP_REQUEUE_PRIVATE, 0, (void*)2, &words[1], 7), EAGAIN);
  // Wake 1, requeue 2 onto words[1]: they no longer wake from words[0].
  CHECK_EQ(futex(&words[0], FUTEX_CMP_REQUEUE_PRIVATE, 1, (void*)2, &words[1], 0), 3);
  wait_woken(1);
  CHECK_EQ(futex(&words[0], FUTEX_WAKE_PRIVATE, 10, NULL, NULL, 0), 0);
  CHECK_EQ(futex(&words[1], FUTEX_WAKE_PRIVATE, 10, NULL, NULL, 0), 2);
  for (int i = 0; i < 3; i++) pthread_join(th[i], NULL);

  // WAKE_OP: words[1] += 1 (op ADD, oparg 1), wake 1 on words[0], and 1 on words[1] if its old value was 0.
  start_waiters(th, w, 1, &words[0], NULL);
  struct waiter w2 = {&words[1], FUTEX_BITSET_MATCH_ANY, -2};
  pthread_t th2;
  REQUIRE(pthread_create(&th2, NULL, waiter_main, &w2) == 0);
  struct timespec nap = {0, 30000000};
  nanosleep(&nap, NULL);
  const uint32_t op = FUTEX_OP(FUTEX_OP_ADD, 1, FUTEX_OP_CMP_EQ, 0);
  CHECK_EQ(futex(&words[0], FUTEX_WAKE_OP_PRIVATE, 1, (void*)1, &words[1], op), 2);
  CHECK_EQ(words[1], 1u);
  pthread_join(th[0], NULL);
  pthread_join(th2, NULL);
  CHECK_ERRNO(futex(&words[0], FUTEX_REQUEUE_PRIVATE, 1, (void*)1, (uint32_t*)((char*)&words[1] + 2), 0),
              EINVAL);
}

// A shared (non-private) key needs the page; a private one is the address alone.
static void test_efault(void) {
  uint32_t* page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(page != MAP_FAILED);
  CHECK_ERRNO(futex(page, FUTEX_WAKE, 1, NULL, NULL, 0), EFAULT);
  CHECK_EQ(futex(page, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0), 0);
  CHECK_ERRNO(futex(&words[0], FUTEX_CMP_REQUEUE, 1, (void*)1, page, words[0]), EFAULT);
  munmap(page, 4096);
  CHECK_ERRNO(futex(page, FUTEX_WAKE, 1, NULL, NULL, 0), EFAULT);
}

struct futex_waitv_entry {
  uint64_t val;
  uint64_t uaddr;
  uint32_t flags;
  uint32_t reserved;
};

static struct futex_waitv_entry wv[2];
static long waitv_result = -2;

static void* waitv_main(void* arg) {
  (void)arg;
  waitv_result = syscall(SYS_futex_waitv, wv, 2, 0, NULL, CLOCK_MONOTONIC);
  return NULL;
}

static void test_waitv(void) {
  words[2] = 0;
  words[3] = 0;
  wv[0] = (struct futex_waitv_entry){0, (uintptr_t)&words[2], 2 | 128, 0};  // FUTEX2_SIZE_U32 | PRIVATE
  wv[1] = (struct futex_waitv_entry){0, (uintptr_t)&words[3], 2 | 128, 0};
  pthread_t th;
  REQUIRE(pthread_create(&th, NULL, waitv_main, NULL) == 0);
  struct timespec nap = {0, 30000000};
  nanosleep(&nap, NULL);
  CHECK_EQ(futex(&words[3], FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0), 1);
  pthread_join(th, NULL);
  CHECK_EQ(waitv_result, 1);  // the index of the word that woke it
  words[2] = 1;
  CHECK_ERRNO(syscall(SYS_futex_waitv, wv, 2, 0, NULL, CLOCK_MONOTONIC), EAGAIN);
  CHECK_ERRNO(syscall(SYS_futex_waitv, NULL, 1, 0, NULL, CLOCK_MONOTONIC), EINVAL);
  CHECK_ERRNO(syscall(SYS_futex_waitv, wv, 0, 0, NULL, CLOCK_MONOTONIC), EINVAL);
  CHECK_ERRNO(syscall(SYS_futex_waitv, wv, 2, 1, NULL, CLOCK_MONOTONIC), EINVAL);
  wv[0].flags = 3 | 128;  // a 64-bit size
  CHECK_ERRNO(syscall(SYS_futex_waitv, wv, 2, 0, NULL, CLOCK_MONOTONIC), EINVAL);
}

int main(void) {
  test_wait_and_timeouts();
  test_wake_counts_and_bitsets();
  test_requeue_and_wake_op();
  test_efault();
  // qemu-aarch64 7.2 has no futex_waitv (ENOSYS).
  if (!on_reference_qemu()) test_waitv();
  return check_done();
}
