// Tests that a signal always ends a blocking read or write at once, wherever in the call it lands: on the
// way in, before the thread blocks, or while it blocks. A reader thread loops on a blocking read of an empty
// pipe; a sender signals it (an RT signal, so none merges) and waits for the handler to run before the next
// one, 3,000 times, writing a byte now and then so that reads also complete. A lost wake leaves the handler
// waiting for the next byte, which never comes: the sender fails after 2 s. With SA_RESTART every read
// restarts and the reader gets every byte in order; without it each signal ends the read with EINTR (one
// per signal at most) and the bytes still arrive in order. A writer blocked on a full pipe is checked the
// same way, 1,000 times: its blocking write ends with EINTR or restarts.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define READ_SIGNALS 3000
#define WRITE_SIGNALS 1000
#define BYTE_EVERY 7

static _Atomic long handled;
static _Atomic int reader_ready;
static _Atomic int reader_done;
static int fds[2];
static long bytes_read;
static long eintr_reads;
static long wrong_bytes;

static void on_signal(int sig) {
  (void)sig;
  atomic_fetch_add(&handled, 1);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void set_handler(int restart) {
  struct sigaction sa = {0};
  sa.sa_handler = on_signal;
  sa.sa_flags = restart ? SA_RESTART : 0;
  REQUIRE_SYS(sigaction(SIGRTMIN, &sa, NULL));
}

static void* reader_main(void* arg) {
  (void)arg;
  atomic_store(&reader_ready, 1);
  for (;;) {
    unsigned char c;
    const ssize_t n = read(fds[0], &c, 1);
    if (n == 0) break;  // the sender closed its end
    if (n < 0 && errno == EINTR) {
      eintr_reads++;
      continue;
    }
    if (n < 0) break;
    if (c != (unsigned char)bytes_read) wrong_bytes++;
    bytes_read++;
  }
  atomic_store(&reader_done, 1);
  return NULL;
}

// Signals `target` and waits up to 2 s for its handler; false when the wake was lost.
static int signal_and_wait(pthread_t target) {
  const long before = atomic_load(&handled);
  REQUIRE(pthread_kill(target, SIGRTMIN) == 0);
  const double deadline = now_s() + 2.0;
  while (atomic_load(&handled) == before) {
    if (now_s() > deadline) return 0;
    sched_yield();
  }
  return 1;
}

static void test_read(int restart) {
  set_handler(restart);
  REQUIRE_SYS(pipe(fds));
  atomic_store(&handled, 0);
  atomic_store(&reader_ready, 0);
  atomic_store(&reader_done, 0);
  bytes_read = eintr_reads = wrong_bytes = 0;
  pthread_t reader;
  REQUIRE(pthread_create(&reader, NULL, reader_main, NULL) == 0);
  while (!atomic_load(&reader_ready)) sched_yield();
  long written = 0;
  int lost = 0;
  for (int i = 0; i < READ_SIGNALS && !lost; i++) {
    if (!signal_and_wait(reader)) lost = 1;
    if (i % BYTE_EVERY == 0) {
      const unsigned char c = (unsigned char)written;
      REQUIRE_SYS(write(fds[1], &c, 1));
      written++;
    }
  }
  CHECK(!lost);
  if (lost) NOTE("a signal to the reader was not handled within 2 s (restart=%d)", restart);
  close(fds[1]);
  REQUIRE(pthread_join(reader, NULL) == 0);
  close(fds[0]);
  CHECK_EQ(atomic_load(&handled), (long)READ_SIGNALS);
  CHECK_EQ(bytes_read, written);
  CHECK_EQ(wrong_bytes, 0L);
  if (restart) {
    CHECK_EQ(eintr_reads, 0L);
  } else {
    // At most one EINTR per signal, and most signals land while the reader blocks.
    CHECK_LE(eintr_reads, (long)READ_SIGNALS);
    CHECK_GT(eintr_reads, (long)READ_SIGNALS / 4);
  }
}

static _Atomic int writer_ready;
static long eintr_writes;
static long short_writes;

static void* writer_main(void* arg) {
  (void)arg;
  static char block[65536];
  atomic_store(&writer_ready, 1);
  for (;;) {
    const ssize_t n = write(fds[1], block, sizeof block);
    if (n < 0 && errno == EINTR) {
      eintr_writes++;
      continue;
    }
    if (n < 0) break;  // EPIPE: the reader closed its end (SIGPIPE is ignored)
    if ((size_t)n < sizeof block) short_writes++;
  }
  return NULL;
}

static void test_write(int restart) {
  set_handler(restart);
  signal(SIGPIPE, SIG_IGN);
  REQUIRE_SYS(pipe(fds));
  atomic_store(&handled, 0);
  atomic_store(&writer_ready, 0);
  eintr_writes = short_writes = 0;
  pthread_t writer;
  REQUIRE(pthread_create(&writer, NULL, writer_main, NULL) == 0);
  while (!atomic_load(&writer_ready)) sched_yield();
  int lost = 0;
  for (int i = 0; i < WRITE_SIGNALS && !lost; i++) {
    if (!signal_and_wait(writer)) lost = 1;
    if (i % BYTE_EVERY == 0) {
      char buf[4096];
      REQUIRE_SYS(read(fds[0], buf, sizeof buf));
    }
  }
  CHECK(!lost);
  if (lost) NOTE("a signal to the writer was not handled within 2 s (restart=%d)", restart);
  close(fds[0]);
  REQUIRE(pthread_join(writer, NULL) == 0);
  close(fds[1]);
  CHECK_EQ(atomic_load(&handled), (long)WRITE_SIGNALS);
  // Without SA_RESTART a write that had not written anything fails with EINTR; one that had returns short.
  if (restart) {
    CHECK_EQ(eintr_writes, 0L);
  } else {
    CHECK_GT(eintr_writes + short_writes, 0L);
  }
}

int main(void) {
  test_read(1);
  test_read(0);
  test_write(1);
  test_write(0);
  return check_done();
}
