// Tests the system calls that read or write guest memory from the emulator's side now that the host pages of
// the guest window carry the guest's permissions: a read-only buffer can be written from (write, writev,
// pwrite, futex wait), a writable one read into, and a PROT_NONE, read-only or past-EOF buffer gives EFAULT
// where Linux gives it, never a crash. Also read() racing mprotect() on its buffer in another thread: each
// call returns the full count or EFAULT, and the bytes are right whenever it succeeded. Raw syscalls
// throughout, so that no libc wrapper touches the pointer first.
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define kPage 4096L
#define kRaceRounds 2000

static long sys(long nr, long a, long b, long c) {
  long r = syscall(nr, a, b, c);
  return r < 0 ? -errno : r;
}

static char* map(int prot) {
  char* p = mmap(NULL, kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(p != MAP_FAILED);
  memset(p, 'g', kPage);
  REQUIRE_SYS(mprotect(p, kPage, prot));
  return p;
}

// write/pwrite/writev from a read-only page; read/pread/readv/clock_gettime into it fail.
static void read_only_buffers(int pipefd[2], int file) {
  char* ro = map(PROT_READ);
  char back[64];
  CHECK_EQ(sys(SYS_write, pipefd[1], (long)ro, 64), 64);
  CHECK_EQ(sys(SYS_read, pipefd[0], (long)back, 64), 64);
  CHECK(memcmp(back, ro, 64) == 0);
  struct iovec iov = {ro + kPage - 16, 16};
  CHECK_EQ(sys(SYS_writev, pipefd[1], (long)&iov, 1), 16);
  CHECK_EQ(sys(SYS_read, pipefd[0], (long)back, 16), 16);
  CHECK_EQ(syscall(SYS_pwrite64, file, ro, 32, 0), 32);
  CHECK_EQ(sys(SYS_write, pipefd[1], (long)"data", 4), 4);
  CHECK_EQ(sys(SYS_read, pipefd[0], (long)ro, 4), -EFAULT);
  CHECK_EQ(syscall(SYS_pread64, file, ro, 8, 0) < 0 ? -errno : 0, -EFAULT);
  struct iovec into = {ro, 4};
  CHECK_EQ(sys(SYS_readv, pipefd[0], (long)&into, 1), -EFAULT);
  CHECK_EQ(sys(SYS_clock_gettime, CLOCK_MONOTONIC, (long)ro, 0), -EFAULT);
  CHECK_EQ(ro[0], 'g');                                  // the failed calls wrote nothing
  CHECK_EQ(sys(SYS_read, pipefd[0], (long)back, 4), 4);  // the data is still in the pipe
  // A futex word on a read-only page can be waited on (the kernel only reads it).
  uint32_t* word = (uint32_t*)ro;
  CHECK_EQ(syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0) < 0 ? -errno : 0, -EAGAIN);
  // After mprotect to read-write the same page is an ordinary buffer again.
  REQUIRE_SYS(mprotect(ro, kPage, PROT_READ | PROT_WRITE));
  CHECK_EQ(sys(SYS_write, pipefd[1], (long)"data", 4), 4);
  CHECK_EQ(sys(SYS_read, pipefd[0], (long)ro, 4), 4);
  CHECK(memcmp(ro, "data", 4) == 0);
  munmap(ro, kPage);
}

// A PROT_NONE page inside a mapping: no call may read or write it.
static void prot_none_buffers(int pipefd[2]) {
  char* none = map(PROT_NONE);
  struct timespec ts;
  CHECK_EQ(sys(SYS_write, pipefd[1], (long)none, 8), -EFAULT);
  CHECK_EQ(sys(SYS_write, pipefd[1], (long)"data", 4), 4);
  CHECK_EQ(sys(SYS_read, pipefd[0], (long)none, 4), -EFAULT);
  CHECK_EQ(sys(SYS_read, pipefd[0], (long)&ts, 4), 4);
  CHECK_EQ(sys(SYS_clock_gettime, CLOCK_MONOTONIC, (long)none, 0), -EFAULT);
  CHECK_EQ(syscall(SYS_futex, none, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0) < 0 ? -errno : 0, -EFAULT);
  CHECK_EQ(sys(SYS_uname, (long)none, 0, 0), -EFAULT);
  REQUIRE_SYS(mprotect(none, kPage, PROT_READ));
  CHECK_EQ(none[kPage - 1], 'g');  // the contents survived PROT_NONE
  munmap(none, kPage);
}

// The page of a file mapping past the file's end: SIGBUS for the guest's own access, EFAULT for a call.
static void past_eof_buffers(int pipefd[2], int file) {
  REQUIRE_SYS(ftruncate(file, 100));
  char* m = mmap(NULL, 2 * kPage, PROT_READ | PROT_WRITE, MAP_SHARED, file, 0);
  REQUIRE(m != MAP_FAILED);
  CHECK_EQ(sys(SYS_write, pipefd[1], (long)m, 100), 100);  // the file's page itself is fine
  char back[100];
  CHECK_EQ(sys(SYS_read, pipefd[0], (long)back, 100), 100);
  CHECK_EQ(sys(SYS_write, pipefd[1], (long)(m + kPage), 8), -EFAULT);
  CHECK_EQ(sys(SYS_write, pipefd[1], (long)"data", 4), 4);
  CHECK_EQ(sys(SYS_read, pipefd[0], (long)(m + kPage), 4), -EFAULT);
  CHECK_EQ(sys(SYS_read, pipefd[0], (long)back, 4), 4);
  munmap(m, 2 * kPage);
}

struct race {
  char* page;
  atomic_int stop;
};

static void* flip_protection(void* arg) {
  struct race* r = arg;
  while (!atomic_load(&r->stop)) {
    mprotect(r->page, kPage, PROT_READ);
    mprotect(r->page, kPage, PROT_NONE);
    mprotect(r->page, kPage, PROT_READ | PROT_WRITE);
  }
  return NULL;
}

// read() into a page whose protection another thread keeps changing.
static void read_racing_mprotect(void) {
  int p[2];
  REQUIRE_SYS(pipe(p));
  struct race r = {map(PROT_READ | PROT_WRITE), 0};
  pthread_t t;
  REQUIRE(pthread_create(&t, NULL, flip_protection, &r) == 0);
  int ok = 0, efault = 0, other = 0;
  char msg[8];
  for (int i = 0; i < kRaceRounds; i++) {
    snprintf(msg, sizeof msg, "%07d", i);
    if (write(p[1], msg, 8) != 8) other++;
    long n = sys(SYS_read, p[0], (long)r.page, 8);
    if (n == 8) {
      ok++;
    } else if (n == -EFAULT) {
      efault++;
      if (read(p[0], msg, 8) != 8) other++;  // the bytes stayed in the pipe
    } else {
      other++;
    }
  }
  atomic_store(&r.stop, 1);
  pthread_join(t, NULL);
  CHECK_EQ(other, 0);
  CHECK_EQ(ok + efault, kRaceRounds);
  REQUIRE_SYS(mprotect(r.page, kPage, PROT_READ | PROT_WRITE));
  CHECK_EQ(sys(SYS_write, p[1], (long)"last", 4), 4);
  CHECK_EQ(sys(SYS_read, p[0], (long)r.page, 4), 4);
  CHECK(memcmp(r.page, "last", 4) == 0);
  NOTE("read racing mprotect: %d complete, %d EFAULT", ok, efault);
}

int main(void) {
  int pipefd[2];
  REQUIRE_SYS(pipe(pipefd));
  int file = REQUIRE_SYS(open("host_permissions.tmp", O_CREAT | O_RDWR | O_TRUNC, 0644));
  unlink("host_permissions.tmp");
  read_only_buffers(pipefd, file);
  prot_none_buffers(pipefd);
  past_eof_buffers(pipefd, file);
  read_racing_mprotect();
  return check_done();
}
