// Tests that a mapping change made by one thread reaches the others at once (no stale translation of the
// address in another vCPU): after one thread munmaps (or mprotects to PROT_NONE) a page, a read of it by
// another thread must fault, which kills the process with SIGSEGV under the default disposition; each case
// runs in a forked child so the parent checks WIFSIGNALED && WTERMSIG == SIGSEGV without a signal handler.
// Also a page replaced by MAP_FIXED while another thread keeps reading it: the reader must see the new page.
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define kPage 4096L

// Exit codes of a child that did not fault.
enum { kReadAfterUnmap = 3, kNoFaultInTime = 4, kSetupFailed = 5 };

static volatile uint64_t* page;
static atomic_int reader_ready, unmapped;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void* make_inaccessible(void* arg) {
  int use_mprotect = (int)(intptr_t)arg;
  while (!atomic_load(&reader_ready)) sched_yield();
  if (use_mprotect ? mprotect((void*)page, kPage, PROT_NONE) : munmap((void*)page, kPage))
    _exit(kSetupFailed);
  atomic_store(&unmapped, 1);
  return NULL;
}

// Handshake case: the reader has read the page (so any translation of it is warm), then reads it again
// after the other thread's munmap/mprotect has returned. That read must kill the process.
static void child_handshake(int use_mprotect) {
  page = mmap(NULL, kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) _exit(kSetupFailed);
  page[0] = 7;
  uint64_t sum = 0;
  for (int i = 0; i < 1000; i++) sum += page[0];
  if (sum != 7000) _exit(kSetupFailed);
  pthread_t t;
  if (pthread_create(&t, NULL, make_inaccessible, (void*)(intptr_t)use_mprotect)) _exit(kSetupFailed);
  atomic_store(&reader_ready, 1);
  while (!atomic_load(&unmapped)) sched_yield();
  (void)page[0];  // a volatile read: must fault
  _exit(kReadAfterUnmap);
}

// Racing case: the reader spins reading the page while the other thread unmaps it; it must fault soon after.
static void child_race(int use_mprotect) {
  page = mmap(NULL, kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) _exit(kSetupFailed);
  page[0] = 1;
  pthread_t t;
  if (pthread_create(&t, NULL, make_inaccessible, (void*)(intptr_t)use_mprotect)) _exit(kSetupFailed);
  atomic_store(&reader_ready, 1);
  double unmapped_at = 0;
  for (;;) {
    for (int i = 0; i < 1000; i++) (void)page[0];  // volatile reads
    if (atomic_load(&unmapped)) {
      // Only reached before the fault: allow a generous while for the change to take effect.
      if (unmapped_at == 0) unmapped_at = now_s();
      if (now_s() - unmapped_at > 5) _exit(kNoFaultInTime);
    }
  }
}

static void expect_segv(void (*child)(int), int use_mprotect, const char* what) {
  pid_t pid = REQUIRE_SYS(fork());
  if (pid == 0) {
    reader_ready = 0;
    unmapped = 0;
    child(use_mprotect);
    _exit(99);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  if (!CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV)) {
    if (WIFEXITED(status))
      NOTE(
          "%s: the child exited with %d (3: read after the change succeeded; 4: still reading after 5 s; "
          "5: set-up failed)",
          what, WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
      NOTE("%s: the child died of signal %d", what, WTERMSIG(status));
  }
}

// MAP_FIXED replacement: the reader loops until it sees the new page's value (bounded); a reader stuck on a
// stale translation keeps seeing the old page's 1.

static void* reader_until_new(void* arg) {
  (void)arg;
  double start = now_s();
  while (page[0] != 2) {
    if (now_s() - start > 10) return (void*)1;
  }
  return NULL;
}

static void test_map_fixed_replacement(void) {
  page = mmap(NULL, kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(page != MAP_FAILED);
  page[0] = 1;
  pthread_t t;
  REQUIRE(pthread_create(&t, NULL, reader_until_new, NULL) == 0);
  for (volatile int i = 0; i < 100000; i++) {
  }
  // A fresh anonymous page at the same address: it reads 0 until we store 2 into it.
  void* again =
      mmap((void*)page, kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  REQUIRE(again == (void*)page);
  page[0] = 2;
  void* result = (void*)-1;
  REQUIRE(pthread_join(t, &result) == 0);
  CHECK_EQ((intptr_t)result, 0);  // the reader saw the replacement page
  munmap((void*)page, kPage);
}

int main(void) {
  expect_segv(child_handshake, 0, "munmap, then read");
  expect_segv(child_handshake, 1, "mprotect PROT_NONE, then read");
  expect_segv(child_race, 0, "munmap while reading");
  expect_segv(child_race, 1, "mprotect PROT_NONE while reading");
  test_map_fixed_replacement();
  return check_done();
}
