// Tests glibc's futex-based synchronisation under contention, with exact counts: mutexes (normal, recursive,
// error-checking, trylock), rwlocks (readers share, writers exclude), condition variables (10000 ping-pong
// round trips between two threads, broadcast to many waiters, a timed wait that times out), barriers
// (one serial thread per round, nobody passes early), semaphores (a bounded producer/consumer queue,
// trywait, timedwait), and process-shared semaphores in MAP_SHARED memory between a parent and a forked
// child.
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

enum { kThreads = 4 };

static void start_threads(pthread_t* threads, int n, void* (*fn)(void*)) {
  for (intptr_t i = 0; i < n; i++) REQUIRE(pthread_create(&threads[i], NULL, fn, (void*)i) == 0);
}

static void join_threads(pthread_t* threads, int n) {
  for (int i = 0; i < n; i++) REQUIRE(pthread_join(threads[i], NULL) == 0);
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static struct timespec realtime_in_ms(long ms) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  ts.tv_nsec += ms * 1000000L;
  ts.tv_sec += ts.tv_nsec / 1000000000L;
  ts.tv_nsec %= 1000000000L;
  return ts;
}

// ---- mutexes ----

enum { kMutexIters = 50000 };
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static volatile long mutex_counter;  // plain read-modify-write: only the mutex keeps it exact

static void* mutex_worker(void* arg) {
  (void)arg;
  for (int i = 0; i < kMutexIters; i++) {
    pthread_mutex_lock(&mutex);
    mutex_counter = mutex_counter + 1;
    pthread_mutex_unlock(&mutex);
  }
  return NULL;
}

static pthread_mutex_t errorcheck_mutex;

static void* try_foreign(void* arg) {
  (void)arg;
  intptr_t r = pthread_mutex_trylock(&mutex) == EBUSY;           // held by main
  r |= (pthread_mutex_unlock(&errorcheck_mutex) == EPERM) << 1;  // not ours
  return (void*)r;
}

static void test_mutex(void) {
  pthread_t threads[kThreads];
  start_threads(threads, kThreads, mutex_worker);
  join_threads(threads, kThreads);
  CHECK_EQ(mutex_counter, (long)kThreads * kMutexIters);

  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_t recursive;
  CHECK_EQ(pthread_mutex_init(&recursive, &attr), 0);
  CHECK_EQ(pthread_mutex_lock(&recursive), 0);
  CHECK_EQ(pthread_mutex_lock(&recursive), 0);
  CHECK_EQ(pthread_mutex_trylock(&recursive), 0);
  for (int i = 0; i < 3; i++) CHECK_EQ(pthread_mutex_unlock(&recursive), 0);
  pthread_mutex_destroy(&recursive);

  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
  CHECK_EQ(pthread_mutex_init(&errorcheck_mutex, &attr), 0);
  CHECK_EQ(pthread_mutex_lock(&errorcheck_mutex), 0);
  CHECK_EQ(pthread_mutex_lock(&errorcheck_mutex), EDEADLK);
  CHECK_EQ(pthread_mutex_lock(&mutex), 0);
  pthread_t t;
  void* result = NULL;
  REQUIRE(pthread_create(&t, NULL, try_foreign, NULL) == 0);
  REQUIRE(pthread_join(t, &result) == 0);
  CHECK_EQ((intptr_t)result, 3);  // trylock of a held mutex: EBUSY; unlock of another's errorcheck: EPERM
  CHECK_EQ(pthread_mutex_unlock(&mutex), 0);
  CHECK_EQ(pthread_mutex_unlock(&errorcheck_mutex), 0);
  CHECK_EQ(pthread_mutex_unlock(&errorcheck_mutex), EPERM);
  pthread_mutex_destroy(&errorcheck_mutex);
  pthread_mutexattr_destroy(&attr);
}

// ---- rwlocks ----

enum { kRwIters = 20000 };
static pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;
static volatile long rw_value;
static atomic_int rw_torn_reads;

static void* rw_worker(void* arg) {
  intptr_t id = (intptr_t)arg;
  for (int i = 0; i < kRwIters; i++) {
    if (id % 2 == 0) {
      pthread_rwlock_wrlock(&rwlock);
      long v = rw_value;
      rw_value = v + 1;
      pthread_rwlock_unlock(&rwlock);
    } else {
      pthread_rwlock_rdlock(&rwlock);
      long a = rw_value;
      for (volatile int spin = 0; spin < 10; spin++) {
      }
      if (rw_value != a) atomic_fetch_add(&rw_torn_reads, 1);  // a writer got in while we read
      pthread_rwlock_unlock(&rwlock);
    }
  }
  return NULL;
}

static void* rw_try_reader(void* arg) {
  (void)arg;
  intptr_t r = 0;
  if (pthread_rwlock_tryrdlock(&rwlock) == 0) {  // readers share the lock
    r |= 1;
    pthread_rwlock_unlock(&rwlock);
  }
  r |= (pthread_rwlock_trywrlock(&rwlock) == EBUSY) << 1;  // a writer is excluded by a reader
  return (void*)r;
}

static void test_rwlock(void) {
  pthread_t threads[kThreads];
  start_threads(threads, kThreads, rw_worker);
  join_threads(threads, kThreads);
  CHECK_EQ(rw_value, (long)(kThreads / 2) * kRwIters);
  CHECK_EQ(atomic_load(&rw_torn_reads), 0);

  CHECK_EQ(pthread_rwlock_rdlock(&rwlock), 0);
  pthread_t t;
  void* result = NULL;
  REQUIRE(pthread_create(&t, NULL, rw_try_reader, NULL) == 0);
  REQUIRE(pthread_join(t, &result) == 0);
  CHECK_EQ((intptr_t)result, 3);
  CHECK_EQ(pthread_rwlock_unlock(&rwlock), 0);
  CHECK_EQ(pthread_rwlock_wrlock(&rwlock), 0);
  CHECK_EQ(pthread_rwlock_tryrdlock(&rwlock), EBUSY);
  CHECK_EQ(pthread_rwlock_unlock(&rwlock), 0);
}

// ---- condition variables ----

enum { kRoundTrips = 10000, kWaiters = 6 };
static pthread_mutex_t cv_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv_ping = PTHREAD_COND_INITIALIZER;
static pthread_cond_t cv_pong = PTHREAD_COND_INITIALIZER;
static long ball;  // odd: the ponger's turn; even: the pinger's

static void* ponger(void* arg) {
  (void)arg;
  long returned = 0;
  pthread_mutex_lock(&cv_mutex);
  for (int i = 0; i < kRoundTrips; i++) {
    while (ball % 2 == 0) pthread_cond_wait(&cv_ping, &cv_mutex);
    ball++;
    returned++;
    pthread_cond_signal(&cv_pong);
  }
  pthread_mutex_unlock(&cv_mutex);
  return (void*)returned;
}

static int go;
static atomic_int woken;

static void* broadcast_waiter(void* arg) {
  (void)arg;
  pthread_mutex_lock(&cv_mutex);
  while (!go) pthread_cond_wait(&cv_ping, &cv_mutex);
  pthread_mutex_unlock(&cv_mutex);
  atomic_fetch_add(&woken, 1);
  return NULL;
}

static void test_condvar(void) {
  pthread_t t;
  REQUIRE(pthread_create(&t, NULL, ponger, NULL) == 0);
  long served = 0;
  pthread_mutex_lock(&cv_mutex);
  for (int i = 0; i < kRoundTrips; i++) {
    ball++;  // serve
    served++;
    pthread_cond_signal(&cv_ping);
    while (ball % 2 == 1) pthread_cond_wait(&cv_pong, &cv_mutex);
  }
  pthread_mutex_unlock(&cv_mutex);
  void* returned = NULL;
  REQUIRE(pthread_join(t, &returned) == 0);
  CHECK_EQ(served, kRoundTrips);
  CHECK_EQ((long)returned, kRoundTrips);
  CHECK_EQ(ball, 2L * kRoundTrips);

  // Broadcast wakes every waiter (whether it already waits or checks `go` first).
  pthread_t waiters[kWaiters];
  start_threads(waiters, kWaiters, broadcast_waiter);
  pthread_mutex_lock(&cv_mutex);
  go = 1;
  pthread_cond_broadcast(&cv_ping);
  pthread_mutex_unlock(&cv_mutex);
  join_threads(waiters, kWaiters);
  CHECK_EQ(atomic_load(&woken), kWaiters);

  // A timed wait with nobody signalling times out, not early and not much later.
  pthread_mutex_lock(&cv_mutex);
  struct timespec deadline = realtime_in_ms(50);
  double start = now_ms();
  int r;
  do {
    r = pthread_cond_timedwait(&cv_pong, &cv_mutex, &deadline);
  } while (r == 0);  // a spurious wakeup is allowed
  double waited = now_ms() - start;
  pthread_mutex_unlock(&cv_mutex);
  CHECK_EQ(r, ETIMEDOUT);
  CHECK_GE(waited, 40);
  CHECK_LT(waited, 5000);
}

// ---- barriers ----

enum { kBarrierRounds = 2000 };
static pthread_barrier_t barrier;
static atomic_int arrived[kBarrierRounds];
static atomic_int serial_count[kBarrierRounds];
static atomic_int early;

static void* barrier_worker(void* arg) {
  (void)arg;
  for (int r = 0; r < kBarrierRounds; r++) {
    atomic_fetch_add(&arrived[r], 1);
    int ret = pthread_barrier_wait(&barrier);
    if (ret == PTHREAD_BARRIER_SERIAL_THREAD)
      atomic_fetch_add(&serial_count[r], 1);
    else if (ret != 0)
      atomic_fetch_add(&early, 1000);
    if (atomic_load(&arrived[r]) != kThreads) atomic_fetch_add(&early, 1);  // passed before all arrived
  }
  return NULL;
}

static void test_barrier(void) {
  REQUIRE(pthread_barrier_init(&barrier, NULL, kThreads) == 0);
  pthread_t threads[kThreads];
  start_threads(threads, kThreads, barrier_worker);
  join_threads(threads, kThreads);
  CHECK_EQ(atomic_load(&early), 0);
  int bad_serial = 0;
  for (int r = 0; r < kBarrierRounds; r++) bad_serial += atomic_load(&serial_count[r]) != 1;
  CHECK_EQ(bad_serial, 0);  // exactly one PTHREAD_BARRIER_SERIAL_THREAD per round
  CHECK_EQ(pthread_barrier_destroy(&barrier), 0);
}

// ---- semaphores ----

enum { kQueueSize = 8, kItems = 20000, kProducers = 2, kConsumers = 2 };
static sem_t sem_free, sem_used;
static pthread_mutex_t queue_mutex = PTHREAD_MUTEX_INITIALIZER;
static long queue[kQueueSize];
static int queue_head, queue_tail;
static atomic_long consumed_sum, consumed_count;

static void* producer(void* arg) {
  intptr_t id = (intptr_t)arg;
  for (long i = 0; i < kItems; i++) {
    while (sem_wait(&sem_free) != 0) {
    }
    pthread_mutex_lock(&queue_mutex);
    queue[queue_tail] = id * kItems + i + 1;
    queue_tail = (queue_tail + 1) % kQueueSize;
    pthread_mutex_unlock(&queue_mutex);
    sem_post(&sem_used);
  }
  return NULL;
}

static void* consumer(void* arg) {
  (void)arg;
  for (long i = 0; i < kItems * kProducers / kConsumers; i++) {
    while (sem_wait(&sem_used) != 0) {
    }
    pthread_mutex_lock(&queue_mutex);
    long v = queue[queue_head];
    queue_head = (queue_head + 1) % kQueueSize;
    pthread_mutex_unlock(&queue_mutex);
    sem_post(&sem_free);
    atomic_fetch_add(&consumed_sum, v);
    atomic_fetch_add(&consumed_count, 1);
  }
  return NULL;
}

static void test_semaphore(void) {
  REQUIRE(sem_init(&sem_free, 0, kQueueSize) == 0);
  REQUIRE(sem_init(&sem_used, 0, 0) == 0);
  pthread_t producers[kProducers], consumers[kConsumers];
  start_threads(consumers, kConsumers, consumer);
  start_threads(producers, kProducers, producer);
  join_threads(producers, kProducers);
  join_threads(consumers, kConsumers);
  long n = (long)kItems * kProducers;
  CHECK_EQ(atomic_load(&consumed_count), n);
  CHECK_EQ(atomic_load(&consumed_sum), n * (n + 1) / 2);  // every item exactly once
  int value = -1;
  CHECK_EQ(sem_getvalue(&sem_free, &value), 0);
  CHECK_EQ(value, kQueueSize);
  CHECK_EQ(sem_getvalue(&sem_used, &value), 0);
  CHECK_EQ(value, 0);
  CHECK_ERRNO(sem_trywait(&sem_used), EAGAIN);
  struct timespec deadline = realtime_in_ms(50);
  double start = now_ms();
  CHECK_ERRNO(sem_timedwait(&sem_used, &deadline), ETIMEDOUT);
  double waited = now_ms() - start;
  CHECK_GE(waited, 40);
  CHECK_LT(waited, 5000);
  CHECK_EQ(sem_post(&sem_used), 0);
  CHECK_EQ(sem_trywait(&sem_used), 0);
  sem_destroy(&sem_free);
  sem_destroy(&sem_used);
}

// ---- process-shared semaphores (shared futexes across processes) ----

enum { kSharedRounds = 2000 };

struct Shared {
  sem_t to_child, to_parent;
  long counter;  // incremented alternately by each side
};

static void test_process_shared(void) {
  struct Shared* s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  REQUIRE(s != MAP_FAILED);
  REQUIRE(sem_init(&s->to_child, 1, 0) == 0);
  REQUIRE(sem_init(&s->to_parent, 1, 0) == 0);
  pid_t pid = REQUIRE_SYS(fork());
  if (pid == 0) {
    for (int i = 0; i < kSharedRounds; i++) {
      while (sem_wait(&s->to_child) != 0) {
      }
      if (s->counter != 2L * i + 1) _exit(3);
      s->counter++;
      sem_post(&s->to_parent);
    }
    _exit(0);
  }
  int out_of_turn = 0, rounds = 0;
  for (; rounds < kSharedRounds; rounds++) {
    if (s->counter != 2L * rounds) out_of_turn++;
    s->counter++;
    sem_post(&s->to_child);
    // A generous deadline, so that a lost wake or a dead child fails the test instead of hanging it.
    struct timespec deadline = realtime_in_ms(10000);
    int r;
    while ((r = sem_timedwait(&s->to_parent, &deadline)) != 0 && errno == EINTR) {
    }
    if (!CHECK_EQ(r, 0)) {
      NOTE("no answer from the child in round %d of %d (counter %ld)", rounds, kSharedRounds, s->counter);
      kill(pid, SIGKILL);
      break;
    }
  }
  CHECK_EQ(rounds, kSharedRounds);
  errno = 0;  // a timed-out wait above must not show in the next check's message
  int status = 0;
  CHECK_EQ(waitpid(pid, &status, 0), pid);
  if (!CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0))
    NOTE("child status 0x%x (exit code 3: the child saw the counter out of turn; signal 9: killed above)",
         status);
  CHECK_EQ(out_of_turn, 0);
  CHECK_EQ(s->counter, 2L * kSharedRounds);
  munmap(s, sizeof *s);
}

int main(void) {
  // Progress notes tell which part hung if ctest's timeout ends the run.
  NOTE("mutexes");
  test_mutex();
  NOTE("rwlocks");
  test_rwlock();
  NOTE("condition variables");
  test_condvar();
  NOTE("barriers");
  test_barrier();
  NOTE("semaphores");
  test_semaphore();
  NOTE("process-shared semaphores");
  test_process_shared();
  return check_done();
}
