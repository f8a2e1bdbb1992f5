// Tests epoll: epoll_event.data comes back bit for bit (a 64-bit value with high bits set, several events per
// call, which catches arm64's 16-byte event being passed as x86-64's packed 12), level-triggered events
// repeat while edge-triggered ones fire once per change, EPOLLONESHOT disarms until EPOLL_CTL_MOD, CTL_DEL,
// the error cases (EEXIST, ENOENT, EINVAL for maxevents and non-epoll fds, EBADF), timeouts bounded both
// ways for epoll_wait and epoll_pwait2, a wait woken by a writer thread, epoll_pwait's temporary mask, and
// nested epoll instances.
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int add(int ep, int fd, uint32_t events, uint64_t data) {
  struct epoll_event ev = {.events = events, .data.u64 = data};
  return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}

static void test_data_round_trip(void) {
  int ep = REQUIRE_SYS(epoll_create1(EPOLL_CLOEXEC));
  CHECK_EQ(fcntl(ep, F_GETFD), FD_CLOEXEC);
  enum { kPipes = 5 };
  int p[kPipes][2];
  for (int i = 0; i < kPipes; i++) {
    REQUIRE_SYS(pipe(p[i]));
    CHECK_SYS(add(ep, p[i][0], EPOLLIN, 0xdeadbeef00000000ull | (uint64_t)(i * 0x1111)));
    CHECK_EQ(write(p[i][1], "d", 1), 1);
  }
  // The array is filled with a sentinel to see that exactly n entries, at the guest's stride, are written.
  struct epoll_event evs[kPipes + 2];
  memset(evs, 0xa5, sizeof evs);
  int n = epoll_wait(ep, evs, kPipes + 2, 1000);
  CHECK_EQ(n, kPipes);
  int seen = 0;
  for (int i = 0; i < n; i++) {
    CHECK_EQ(evs[i].events, EPOLLIN);
    uint64_t d = evs[i].data.u64;
    CHECK_EQ(d >> 32, 0xdeadbeefu);
    int idx = (int)((d & 0xffffffffu) / 0x1111);
    CHECK(idx >= 0 && idx < kPipes);
    seen |= 1 << idx;
  }
  CHECK_EQ(seen, (1 << kPipes) - 1);
  CHECK_EQ(evs[kPipes].events, 0xa5a5a5a5u);
  // maxevents smaller than what is ready: just that many.
  CHECK_EQ(epoll_wait(ep, evs, 2, 0), 2);
  for (int i = 0; i < kPipes; i++) {
    close(p[i][0]);
    close(p[i][1]);
  }
  close(ep);
}

static void test_level_and_edge(void) {
  int lt[2], et[2];
  REQUIRE_SYS(pipe(lt));
  REQUIRE_SYS(pipe(et));
  int ep = REQUIRE_SYS(epoll_create1(0));
  CHECK_SYS(add(ep, lt[0], EPOLLIN, 1));
  CHECK_SYS(add(ep, et[0], EPOLLIN | EPOLLET, 2));
  CHECK_EQ(write(lt[1], "ab", 2), 2);
  CHECK_EQ(write(et[1], "ab", 2), 2);
  struct epoll_event ev[2];
  CHECK_EQ(epoll_wait(ep, ev, 2, 0), 2);
  // Nothing read: level-triggered reports again, edge-triggered does not.
  CHECK_EQ(epoll_wait(ep, ev, 2, 0), 1);
  CHECK_EQ(ev[0].data.u64, 1);
  // New data is a new edge.
  CHECK_EQ(write(et[1], "c", 1), 1);
  CHECK_EQ(epoll_wait(ep, ev, 2, 0), 2);
  CHECK_EQ(epoll_wait(ep, ev, 2, 0), 1);

  // EPOLLONESHOT: one report, then nothing until re-armed with CTL_MOD.
  int os[2];
  REQUIRE_SYS(pipe(os));
  CHECK_SYS(add(ep, os[0], EPOLLIN | EPOLLONESHOT, 3));
  CHECK_EQ(write(os[1], "o", 1), 1);
  CHECK_SYS(epoll_ctl(ep, EPOLL_CTL_DEL, lt[0], NULL));
  CHECK_EQ(epoll_wait(ep, ev, 2, 0), 1);
  CHECK_EQ(ev[0].data.u64, 3);
  CHECK_EQ(epoll_wait(ep, ev, 2, 0), 0);
  struct epoll_event mod = {.events = EPOLLIN, .data.u64 = 0x123456789abcdef0ull};
  CHECK_SYS(epoll_ctl(ep, EPOLL_CTL_MOD, os[0], &mod));
  CHECK_EQ(epoll_wait(ep, ev, 2, 0), 1);
  CHECK_EQ(ev[0].data.u64, 0x123456789abcdef0ull);

  // Hang-up is reported without being asked for.
  close(os[1]);
  char buf[4];
  CHECK_EQ(read(os[0], buf, sizeof buf), 1);
  CHECK_EQ(epoll_wait(ep, ev, 2, 0), 1);
  CHECK_EQ(ev[0].events, EPOLLHUP);

  // Errors.
  CHECK_ERRNO(add(ep, os[0], EPOLLIN, 0), EEXIST);
  CHECK_ERRNO(epoll_ctl(ep, EPOLL_CTL_DEL, lt[0], NULL), ENOENT);
  CHECK_ERRNO(epoll_ctl(ep, 99, lt[0], &mod), EINVAL);
  CHECK_ERRNO(add(ep, ep, EPOLLIN, 0), EINVAL);
  CHECK_ERRNO(epoll_wait(ep, ev, 0, 0), EINVAL);
  CHECK_ERRNO(epoll_wait(lt[0], ev, 1, 0), EINVAL);
  CHECK_ERRNO(epoll_wait(-1, ev, 1, 0), EBADF);
  CHECK_ERRNO(epoll_ctl(ep, EPOLL_CTL_ADD, lt[0], (struct epoll_event*)8), EFAULT);
  CHECK_ERRNO(epoll_create1(1), EINVAL);
  close(lt[0]);
  close(lt[1]);
  close(et[0]);
  close(et[1]);
  close(os[0]);
  close(ep);
}

static int wake_fd;
static void* write_later(void* arg) {
  (void)arg;
  usleep(100 * 1000);
  if (write(wake_fd, "w", 1) != 1) abort();
  return NULL;
}

static void test_timeouts_and_wakeup(void) {
  int p[2];
  REQUIRE_SYS(pipe(p));
  int ep = REQUIRE_SYS(epoll_create1(0));
  CHECK_SYS(add(ep, p[0], EPOLLIN, 7));
  struct epoll_event ev;
  double t0 = now_ms();
  CHECK_EQ(epoll_wait(ep, &ev, 1, 120), 0);
  double waited = now_ms() - t0;
  CHECK_GE(waited, 119);
  CHECK_LT(waited, 2000);

  // qemu-aarch64 7.2 does not implement epoll_pwait2 (ENOSYS), so the reference lane skips it.
  if (!on_reference_qemu()) {
    struct timespec ts = {0, 90 * 1000000L};
    t0 = now_ms();
    CHECK_EQ(syscall(SYS_epoll_pwait2, ep, &ev, 1, &ts, NULL, 8), 0);
    waited = now_ms() - t0;
    CHECK_GE(waited, 89);
    CHECK_LT(waited, 2000);
    struct timespec bad = {-1, 0};
    CHECK_ERRNO(syscall(SYS_epoll_pwait2, ep, &ev, 1, &bad, NULL, 8), EINVAL);
  }

  wake_fd = p[1];
  pthread_t th;
  t0 = now_ms();  // before the writer starts its delay, which may begin before pthread_create returns
  REQUIRE(pthread_create(&th, NULL, write_later, NULL) == 0);
  CHECK_EQ(epoll_wait(ep, &ev, 1, -1), 1);
  waited = now_ms() - t0;
  CHECK_GE(waited, 90);
  CHECK_LT(waited, 5000);
  CHECK_EQ(ev.data.u64, 7);
  pthread_join(th, NULL);

  // Nested: an epoll fd is readable when the inner one has events.
  int outer = REQUIRE_SYS(epoll_create1(0));
  CHECK_SYS(add(outer, ep, EPOLLIN, 99));
  CHECK_EQ(epoll_wait(outer, &ev, 1, 1000), 1);
  CHECK_EQ(ev.data.u64, 99);
  close(outer);
  close(ep);
  close(p[0]);
  close(p[1]);
}

static volatile sig_atomic_t handled;
static void on_usr1(int sig) {
  (void)sig;
  handled++;
}

static void* kill_later(void* arg) {
  usleep(100 * 1000);
  pthread_kill((pthread_t)arg, SIGUSR1);
  return NULL;
}

static void test_pwait_mask(void) {
  struct sigaction sa = {0};
  sa.sa_handler = on_usr1;
  REQUIRE_SYS(sigaction(SIGUSR1, &sa, NULL));
  sigset_t usr1, none, cur;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  sigemptyset(&none);
  REQUIRE_SYS(sigprocmask(SIG_BLOCK, &usr1, NULL));
  int ep = REQUIRE_SYS(epoll_create1(0));
  struct epoll_event ev;
  pthread_t th;
  double t0 = now_ms();
  REQUIRE(pthread_create(&th, NULL, kill_later, (void*)pthread_self()) == 0);
  CHECK_ERRNO(epoll_pwait(ep, &ev, 1, 10000, &none), EINTR);
  CHECK_GE(now_ms() - t0, 90);
  pthread_join(th, NULL);
  CHECK_EQ(handled, 1);
  sigprocmask(SIG_BLOCK, NULL, &cur);
  CHECK(sigismember(&cur, SIGUSR1));
  // A timeout with nothing to report leaves the mask as it was.
  CHECK_EQ(epoll_pwait(ep, &ev, 1, 10, &none), 0);
  sigprocmask(SIG_BLOCK, NULL, &cur);
  CHECK(sigismember(&cur, SIGUSR1));
  CHECK_ERRNO(syscall(SYS_epoll_pwait, ep, &ev, 1, 0, &none, 16), EINVAL);
  sigprocmask(SIG_UNBLOCK, &usr1, NULL);
  close(ep);
}

int main(void) {
  test_data_round_trip();
  test_level_and_edge();
  test_timeouts_and_wakeup();
  test_pwait_mask();
  return check_done();
}
