// Linux AIO by its raw calls: io_setup (a ring user space can read, whose address is the context id),
// io_submit of PWRITE, PREAD and PREADV, io_getevents (events name the guest's iocbs; a timeout; a signal
// ends a wait with EINTR), io_pgetevents, io_cancel and io_destroy (the ring goes away).
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define AIO_RING_MAGIC 0xa10a10a1u

static long io_setup(unsigned nr, aio_context_t* ctx) {
  return syscall(SYS_io_setup, nr, ctx);
}
static long io_submit(aio_context_t ctx, long nr, struct iocb** cbs) {
  return syscall(SYS_io_submit, ctx, nr, cbs);
}
static long io_getevents(aio_context_t ctx, long min, long nr, struct io_event* ev, struct timespec* ts) {
  return syscall(SYS_io_getevents, ctx, min, nr, ev, ts);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static volatile sig_atomic_t handled;
static void on_signal(int sig) {
  (void)sig;
  handled++;
}
static void* signaller(void* arg) {
  usleep(100 * 1000);
  pthread_kill(*(pthread_t*)arg, SIGUSR1);
  return NULL;
}

// Whether /proc/self/maps has a mapping starting at addr.
static int mapped_at(uint64_t addr) {
  char line[512], want[32];
  snprintf(want, sizeof want, "%lx-", (unsigned long)addr);
  FILE* f = fopen("/proc/self/maps", "r");
  int found = 0;
  while (f && fgets(line, sizeof line, f)) found |= strncmp(line, want, strlen(want)) == 0;
  if (f) fclose(f);
  return found;
}

int main(void) {
  aio_context_t ctx = 0;
  long r = io_setup(8, &ctx);
  if (r == -1 && errno == ENOSYS) {
    CHECK(on_reference_qemu());  // qemu-aarch64 7.2 has no Linux AIO
    return check_done();
  }
  REQUIRE(r == 0);
  // The ring is user memory at the context's address (libaio reads its header).
  CHECK_EQ(*(volatile uint32_t*)(ctx + 8), 0);  // head
  CHECK_EQ(((volatile uint32_t*)ctx)[4], AIO_RING_MAGIC);
  CHECK(mapped_at(ctx));
  aio_context_t again = 1;
  CHECK_ERRNO(io_setup(8, &again), EINVAL);  // *ctx must be 0
  CHECK_ERRNO(io_setup(8, (aio_context_t*)8), EFAULT);

  int fd = CHECK_SYS(open("data", O_CREAT | O_RDWR | O_TRUNC, 0600));
  char out[64] = "written by aio", in[64] = {0}, a[8] = {0}, b[8] = {0};
  struct iocb w = {.aio_data = 11,
                   .aio_lio_opcode = IOCB_CMD_PWRITE,
                   .aio_fildes = (uint32_t)fd,
                   .aio_buf = (uint64_t)out,
                   .aio_nbytes = 15};
  struct iocb* cbs[1] = {&w};
  CHECK_EQ(io_submit(ctx, 1, cbs), 1);
  CHECK_EQ(w.aio_buf, (uint64_t)out);  // the guest's iocb is as it was
  struct io_event ev[4];
  CHECK_EQ(io_getevents(ctx, 1, 4, ev, NULL), 1);
  CHECK_EQ(ev[0].data, 11);
  CHECK_EQ(ev[0].obj, (uint64_t)&w);
  CHECK_EQ(ev[0].res, 15);

  struct iocb rd = {.aio_data = 22,
                    .aio_lio_opcode = IOCB_CMD_PREAD,
                    .aio_fildes = (uint32_t)fd,
                    .aio_buf = (uint64_t)in,
                    .aio_nbytes = sizeof in};
  struct iovec iov[2] = {{a, 7}, {b, 8}};
  struct iocb rv = {.aio_data = 33,
                    .aio_lio_opcode = IOCB_CMD_PREADV,
                    .aio_fildes = (uint32_t)fd,
                    .aio_buf = (uint64_t)iov,
                    .aio_nbytes = 2};
  struct iocb* two[2] = {&rd, &rv};
  CHECK_EQ(io_submit(ctx, 2, two), 2);
  int seen = 0;
  while (seen < 2) {
    long n = io_getevents(ctx, 1, 4, ev, NULL);
    if (!CHECK_GT(n, 0)) break;
    for (long i = 0; i < n; i++, seen++) {
      if (ev[i].data == 22) {
        CHECK_EQ(ev[i].obj, (uint64_t)&rd);
        CHECK_EQ(ev[i].res, 15);
      } else {
        CHECK_EQ(ev[i].data, 33);
        CHECK_EQ(ev[i].obj, (uint64_t)&rv);
        CHECK_EQ(ev[i].res, 15);
      }
    }
  }
  CHECK_STREQ(in, "written by aio");
  CHECK(memcmp(a, "written", 7) == 0 && memcmp(b, " by aio", 8) == 0);

  // Nothing to wait for: the timeout passes.
  struct timespec ts = {0, 150 * 1000 * 1000};
  double t0 = now_s();
  CHECK_EQ(io_getevents(ctx, 1, 4, ev, &ts), 0);
  CHECK_GE(now_s() - t0, 0.14);
  CHECK_LT(now_s() - t0, 5.0);
  // A signal ends a wait with EINTR (never restarted).
  struct sigaction sa = {0};
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGUSR1, &sa, NULL);
  pthread_t self = pthread_self(), th;
  pthread_create(&th, NULL, signaller, &self);
  CHECK_ERRNO(io_getevents(ctx, 1, 4, ev, NULL), EINTR);
  CHECK_EQ(handled, 1);
  pthread_join(th, NULL);
  // io_pgetevents: with SIGUSR1 blocked for the wait, the signal waits until after it.
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR1);
  struct {
    const sigset_t* mask;
    size_t size;
  } usig = {&block, 8};
  handled = 0;
  pthread_create(&th, NULL, signaller, &self);
  ts = (struct timespec){0, 300 * 1000 * 1000};
  CHECK_EQ(syscall(SYS_io_pgetevents, ctx, 1, 4, ev, &ts, &usig), 0);
  pthread_join(th, NULL);
  CHECK_EQ(handled, 1);  // delivered once the old mask was back

  CHECK_ERRNO(io_getevents(ctx, 2, 1, ev, NULL), EINVAL);  // min_nr > nr
  CHECK_ERRNO(io_submit(ctx, -1, cbs), EINVAL);
  CHECK_ERRNO(io_submit(ctx, 1, (struct iocb**)8), EFAULT);
  CHECK_ERRNO(io_submit(12345, 1, cbs), EINVAL);
  struct iocb bad = w;
  bad.aio_fildes = 9999;
  struct iocb* badp[1] = {&bad};
  CHECK_ERRNO(io_submit(ctx, 1, badp), EBADF);
  CHECK_ERRNO(syscall(SYS_io_cancel, ctx, &w, ev), EINVAL);  // nothing in flight

  CHECK_SYS(syscall(SYS_io_destroy, ctx));
  CHECK(!mapped_at(ctx));
  CHECK_ERRNO(syscall(SYS_io_destroy, ctx), EINVAL);
  close(fd);
  return check_done();
}
