// Tests EPOLLEXCLUSIVE (LTP epoll_wait16): four threads wait, each on its own epoll fd, for one eventfd added
// with EPOLLEXCLUSIVE; one write wakes one of them, not all four.
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "check.h"

enum { kExclusiveWaiters = 4 };
static int g_excl_efd;
static atomic_int g_excl_waiting, g_excl_woken;

static void* exclusive_waiter(void* arg) {
  (void)arg;
  int ep = epoll_create1(0);
  struct epoll_event ev = {.events = EPOLLIN | EPOLLEXCLUSIVE};
  if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, g_excl_efd, &ev) != 0) return NULL;
  struct epoll_event out;
  atomic_fetch_add(&g_excl_waiting, 1);
  if (epoll_wait(ep, &out, 1, 1500) == 1) atomic_fetch_add(&g_excl_woken, 1);
  close(ep);
  return NULL;
}

static void test_exclusive(void) {
  g_excl_efd = REQUIRE_SYS(eventfd(0, 0));
  pthread_t th[kExclusiveWaiters];
  for (int i = 0; i < kExclusiveWaiters; i++)
    REQUIRE(pthread_create(&th[i], NULL, exclusive_waiter, NULL) == 0);
  while (atomic_load(&g_excl_waiting) < kExclusiveWaiters) usleep(1000);
  usleep(100 * 1000);  // into epoll_wait
  uint64_t one = 1;
  CHECK_EQ(write(g_excl_efd, &one, sizeof one), 8);
  usleep(300 * 1000);
  CHECK_EQ(atomic_load(&g_excl_woken), 1);
  for (int i = 0; i < kExclusiveWaiters; i++) pthread_join(th[i], NULL);  // the rest time out
  close(g_excl_efd);
}

int main(void) {
  test_exclusive();
  return check_done();
}
