// Tests pthread_create/pthread_join: 1000 threads in batches of 8 running at once, each returning a value
// that join must hand back; the threads of a batch have distinct pthread_t and kernel tids, gettid() differs
// from getpid() in every thread (and equals it in the main one), and __thread variables are per thread.
// Also pthread_exit with a value, detached threads, and a thread that creates and joins its own thread.
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

enum { kThreads = 1000, kBatch = 8 };

struct Slot {
  int index;
  pid_t tid;
  pid_t pid;
  pthread_t self;
  int tls_ok;
};

static __thread int tls_index = -1;
static struct Slot slots[kThreads];

static void* worker(void* arg) {
  struct Slot* slot = arg;
  slot->tid = gettid();
  slot->pid = getpid();
  slot->self = pthread_self();
  // A fresh thread starts with the initial value of a __thread variable; then it keeps its own copy while
  // the other threads of the batch write theirs.
  int fresh = tls_index == -1;
  tls_index = slot->index;
  sched_yield();
  slot->tls_ok = fresh && tls_index == slot->index;
  return (void*)(uintptr_t)(slot->index * 7 + 1);
}

static void test_batches(void) {
  int bad_value = 0, bad_tid = 0, bad_pid = 0, bad_tls = 0, dup_tid = 0, dup_self = 0, bad_equal = 0;
  pid_t pid = getpid();
  for (int base = 0; base < kThreads; base += kBatch) {
    pthread_t threads[kBatch];
    for (int i = 0; i < kBatch; i++) {
      slots[base + i].index = base + i;
      int err = pthread_create(&threads[i], NULL, worker, &slots[base + i]);
      if (!CHECK_EQ(err, 0)) {
        NOTE("pthread_create of thread %d failed", base + i);
        exit(check_done());
      }
    }
    for (int i = 0; i < kBatch; i++) {
      void* result = NULL;
      int err = pthread_join(threads[i], &result);
      if (!CHECK_EQ(err, 0)) exit(check_done());
      if ((uintptr_t)result != (uintptr_t)((base + i) * 7 + 1)) bad_value++;
    }
    for (int i = 0; i < kBatch; i++) {
      struct Slot* s = &slots[base + i];
      if (s->tid == pid || s->tid <= 0) bad_tid++;
      if (s->pid != pid) bad_pid++;
      if (!s->tls_ok) bad_tls++;
      if (!pthread_equal(s->self, threads[i])) bad_equal++;
      for (int j = 0; j < i; j++) {
        if (slots[base + j].tid == s->tid) dup_tid++;
        if (pthread_equal(slots[base + j].self, s->self)) dup_self++;
      }
    }
  }
  CHECK_EQ(bad_value, 0);  // join returned the thread's own value
  CHECK_EQ(bad_tid, 0);    // gettid() in a thread is positive and differs from getpid()
  CHECK_EQ(bad_pid, 0);    // getpid() in a thread is the process's
  CHECK_EQ(bad_tls, 0);    // __thread variables are per thread
  CHECK_EQ(bad_equal, 0);  // pthread_self() in the thread equals what pthread_create returned
  CHECK_EQ(dup_tid, 0);    // live threads have distinct tids
  CHECK_EQ(dup_self, 0);   // and distinct pthread_t
}

static void* exit_worker(void* arg) {
  pthread_exit((void*)((uintptr_t)arg + 100));
  return NULL;
}

static atomic_int detached_done;

static void* detached_worker(void* arg) {
  (void)arg;
  atomic_fetch_add(&detached_done, 1);
  return NULL;
}

static void* nested_inner(void* arg) {
  return (void*)((uintptr_t)arg * 2);
}

static void* nested_outer(void* arg) {
  pthread_t inner;
  void* result = NULL;
  if (pthread_create(&inner, NULL, nested_inner, arg) != 0) return (void*)0;
  if (pthread_join(inner, &result) != 0) return (void*)0;
  return result;
}

static void test_exit_detach_nested(void) {
  pthread_t t;
  void* result = NULL;
  REQUIRE(pthread_create(&t, NULL, exit_worker, (void*)5) == 0);
  CHECK_EQ(pthread_join(t, &result), 0);
  CHECK_EQ((uintptr_t)result, 105);  // pthread_exit's value

  enum { kDetached = 16 };
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  for (int i = 0; i < kDetached; i++) CHECK_EQ(pthread_create(&t, &attr, detached_worker, NULL), 0);
  pthread_attr_destroy(&attr);
  // Wait (without a time limit of our own: ctest's timeout catches a hang) for all detached threads.
  while (atomic_load(&detached_done) < kDetached) sched_yield();
  CHECK_EQ(atomic_load(&detached_done), kDetached);

  REQUIRE(pthread_create(&t, NULL, nested_outer, (void*)21) == 0);
  CHECK_EQ(pthread_join(t, &result), 0);
  CHECK_EQ((uintptr_t)result, 42);  // a thread created and joined by another thread

  // A small explicit stack works too.
  pthread_attr_init(&attr);
  CHECK_EQ(pthread_attr_setstacksize(&attr, 256 * 1024), 0);
  REQUIRE(pthread_create(&t, &attr, nested_inner, (void*)8) == 0);
  CHECK_EQ(pthread_join(t, &result), 0);
  CHECK_EQ((uintptr_t)result, 16);
  pthread_attr_destroy(&attr);
}

int main(void) {
  CHECK_EQ(gettid(), getpid());  // the main thread's tid is the pid
  CHECK_EQ(syscall(SYS_gettid), getpid());
  test_batches();
  test_exit_detach_nested();
  CHECK_EQ(gettid(), getpid());
  return check_done();
}
