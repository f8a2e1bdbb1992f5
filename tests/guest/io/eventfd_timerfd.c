// Tests eventfd2 (counter mode sums writes and a read takes all; semaphore mode takes one per read;
// EFD_NONBLOCK reads of zero are EAGAIN; a blocking read waits for a writer thread; overflow of the counter;
// bad flags) and timerfds (a one-shot expiry is not early and not much late, a periodic timer counts its
// expirations, timerfd_gettime reports the interval and time left, TFD_TIMER_ABSTIME, disarming, old_value,
// and epoll on a timerfd).
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int efd;
static void* post_later(void* arg) {
  (void)arg;
  usleep(100 * 1000);
  uint64_t v = 5;
  if (write(efd, &v, sizeof v) != sizeof v) abort();
  return NULL;
}

static void test_eventfd(void) {
  uint64_t v;
  int fd = REQUIRE_SYS(eventfd(3, EFD_NONBLOCK | EFD_CLOEXEC));
  v = 4;
  CHECK_EQ(write(fd, &v, sizeof v), 8);
  CHECK_EQ(read(fd, &v, sizeof v), 8);
  CHECK_EQ(v, 7);
  CHECK_ERRNO(read(fd, &v, sizeof v), EAGAIN);
  CHECK_ERRNO(read(fd, &v, 4), EINVAL);
  v = UINT64_MAX;
  CHECK_ERRNO(write(fd, &v, sizeof v), EINVAL);
  v = UINT64_MAX - 1;
  CHECK_EQ(write(fd, &v, sizeof v), 8);
  v = 1;
  CHECK_ERRNO(write(fd, &v, sizeof v), EAGAIN);  // would overflow: a non-blocking writer gets EAGAIN
  close(fd);

  fd = REQUIRE_SYS(eventfd(2, EFD_SEMAPHORE | EFD_NONBLOCK));
  CHECK_EQ(read(fd, &v, sizeof v), 8);
  CHECK_EQ(v, 1);
  CHECK_EQ(read(fd, &v, sizeof v), 8);
  CHECK_EQ(v, 1);
  CHECK_ERRNO(read(fd, &v, sizeof v), EAGAIN);
  close(fd);

  // Blocking read: waits for the writer, then takes its value.
  efd = REQUIRE_SYS(eventfd(0, 0));
  pthread_t th;
  double t0 = now_ms();  // before the writer starts its delay, which may begin before pthread_create returns
  REQUIRE(pthread_create(&th, NULL, post_later, NULL) == 0);
  CHECK_EQ(read(efd, &v, sizeof v), 8);
  double waited = now_ms() - t0;
  CHECK_EQ(v, 5);
  CHECK_GE(waited, 90);
  CHECK_LT(waited, 5000);
  pthread_join(th, NULL);
  close(efd);

  CHECK_ERRNO(eventfd(0, 0x10), EINVAL);
}

static void test_timerfd_oneshot(void) {
  int fd = REQUIRE_SYS(timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC));
  struct itimerspec its = {{0, 0}, {0, 150 * 1000000L}};
  double t0 = now_ms();
  CHECK_SYS(timerfd_settime(fd, 0, &its, NULL));
  struct itimerspec cur;
  CHECK_SYS(timerfd_gettime(fd, &cur));
  CHECK_EQ(cur.it_interval.tv_sec, 0);
  CHECK_EQ(cur.it_interval.tv_nsec, 0);
  CHECK(cur.it_value.tv_sec == 0 && cur.it_value.tv_nsec > 0 && cur.it_value.tv_nsec <= 150 * 1000000L);
  uint64_t n = 0;
  CHECK_EQ(read(fd, &n, sizeof n), 8);  // blocks until the expiry
  double waited = now_ms() - t0;
  CHECK_EQ(n, 1);
  CHECK_GE(waited, 149);
  CHECK_LT(waited, 2000);
  CHECK_SYS(timerfd_gettime(fd, &cur));
  CHECK(cur.it_value.tv_sec == 0 && cur.it_value.tv_nsec == 0);  // expired: disarmed

  // Absolute time on CLOCK_REALTIME, and old_value when re-arming.
  int rt = REQUIRE_SYS(timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK));
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  struct itimerspec abs = {{0, 0}, {now.tv_sec + 100, now.tv_nsec}};
  CHECK_SYS(timerfd_settime(rt, TFD_TIMER_ABSTIME, &abs, NULL));
  struct itimerspec off = {{0, 0}, {0, 0}}, old;
  CHECK_SYS(timerfd_settime(rt, 0, &off, &old));
  CHECK(old.it_value.tv_sec >= 98 && old.it_value.tv_sec <= 100);
  CHECK_ERRNO(read(rt, &n, sizeof n), EAGAIN);  // disarmed, nothing expired
  struct itimerspec bad = {{0, 0}, {0, 2000000000L}};
  CHECK_ERRNO(timerfd_settime(rt, 0, &bad, NULL), EINVAL);
  CHECK_ERRNO(timerfd_settime(rt, 0x100, &off, NULL), EINVAL);
  CHECK_ERRNO(timerfd_create(CLOCK_MONOTONIC, 1), EINVAL);
  CHECK_ERRNO(timerfd_gettime(0, &cur), EINVAL);  // stdin is no timerfd
  close(rt);
  close(fd);
}

static void test_timerfd_periodic(void) {
  int fd = REQUIRE_SYS(timerfd_create(CLOCK_MONOTONIC, 0));
  struct itimerspec its = {{0, 20 * 1000000L}, {0, 20 * 1000000L}};
  CHECK_SYS(timerfd_settime(fd, 0, &its, NULL));
  usleep(210 * 1000);
  uint64_t n = 0;
  CHECK_EQ(read(fd, &n, sizeof n), 8);
  CHECK_GE(n, 9);  // ten periods fit in 210 ms; a late reader sees more
  CHECK_LE(n, 60);
  // Through epoll: the next expiry makes it readable.
  int ep = REQUIRE_SYS(epoll_create1(0));
  struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 0x7f00000000000001ull};
  CHECK_SYS(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev));
  struct epoll_event out;
  double t0 = now_ms();
  CHECK_EQ(epoll_wait(ep, &out, 1, 5000), 1);
  CHECK_LT(now_ms() - t0, 2000);
  CHECK_EQ(out.data.u64, 0x7f00000000000001ull);
  CHECK_EQ(read(fd, &n, sizeof n), 8);
  CHECK_GE(n, 1);
  close(ep);
  close(fd);
}

int main(void) {
  test_eventfd();
  test_timerfd_oneshot();
  test_timerfd_periodic();
  return check_done();
}
