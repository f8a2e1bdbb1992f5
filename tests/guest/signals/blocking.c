// Tests that a signal ends the blocking calls that wait in the kernel with nothing to poll for, with the
// kernel's restart rule for each (common/wait_case.h runs every case without and with SA_RESTART): open of
// a FIFO without a peer (read side and write side), flock, fcntl F_SETLKW and F_OFD_SETLKW, splice and tee
// from an empty pipe, vmsplice and sendfile into a full one, preadv2 and pwritev2 at the file position of a
// pipe restart under SA_RESTART and complete once unblocked; clock_nanosleep on the process's CPU-time clock
// (its constant and its clock_getcpuclockid id), on another thread's CPU-time clock and on CLOCK_TAI,
// relative (with the time left) and TIMER_ABSTIME, fails with EINTR whatever SA_RESTART says.
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "wait_case.h"

// --- FIFOs: each side's open waits for the other side.
static const char kFifo[] = "fifo";

static long open_and_close(int flags) {
  const int fd = open(kFifo, flags);
  if (fd < 0) return -errno;
  close(fd);
  return 0;
}
static long fifo_open_read(void) {
  return open_and_close(O_RDONLY);
}
static long fifo_open_write(void) {
  return open_and_close(O_WRONLY);
}
// The peer's open waits for the restarted open of the test (it is there first, or comes at once).
static void open_fifo_writer(void) {
  if (open_and_close(O_WRONLY) != 0) abort();
}
static void open_fifo_reader(void) {
  if (open_and_close(O_RDONLY) != 0) abort();
}

// --- Locks: lock_a holds the lock, lock_b (another open file description of the same file) waits.
static int lock_a, lock_b;
static struct flock whole(short type) {
  struct flock fl = {0};
  fl.l_type = type;
  fl.l_whence = SEEK_SET;
  return fl;
}

static void hold_flock(void) {
  if (flock(lock_a, LOCK_EX) != 0) abort();
}
static void release_flock(void) {
  flock(lock_a, LOCK_UN);
}
static long flock_wait(void) {
  const long r = wait_ret(flock(lock_b, LOCK_EX));
  flock(lock_b, LOCK_UN);
  return r;
}

// An open file description lock conflicts with a process-associated lock of the same process.
static void hold_ofd_lock(void) {
  struct flock fl = whole(F_WRLCK);
  if (fcntl(lock_a, F_OFD_SETLK, &fl) != 0) abort();
}
static void release_ofd_lock(void) {
  struct flock fl = whole(F_UNLCK);
  fcntl(lock_a, F_OFD_SETLK, &fl);
}
static long setlkw_wait(void) {
  struct flock fl = whole(F_WRLCK);
  const long r = wait_ret(fcntl(lock_b, F_SETLKW, &fl));
  fl = whole(F_UNLCK);
  fcntl(lock_b, F_SETLK, &fl);
  return r;
}
static long ofd_setlkw_wait(void) {
  struct flock fl = whole(F_WRLCK);
  const long r = wait_ret(fcntl(lock_b, F_OFD_SETLKW, &fl));
  fl = whole(F_UNLCK);
  fcntl(lock_b, F_OFD_SETLK, &fl);
  return r;
}

// --- Leases: a read lease on "leased" (SIGIO, the break's notice, is ignored) makes an open for writing and
// a truncate wait for the lease to go; the helper gives it up.
static int lease_fd = -1;
static void take_lease(void) {
  lease_fd = open("leased", O_RDONLY);
  if (lease_fd < 0 || fcntl(lease_fd, F_SETLEASE, F_RDLCK) != 0) abort();
}
static void give_up_lease(void) {
  fcntl(lease_fd, F_SETLEASE, F_UNLCK);
}
static void close_lease(void) {
  close(lease_fd);
}
static long open_leased(void) {
  const int fd = open("leased", O_WRONLY);
  if (fd < 0) return -errno;
  close(fd);
  return 0;
}
static long truncate_leased(void) {
  return wait_ret(truncate("leased", 0));
}

// --- Pipes: src starts empty, dst is filled when a case writes into it.
static int src[2], dst[2], data_fd;
static char byte = 'x';

static void drain(int fd) {
  char buf[65536];
  while (read(fd, buf, sizeof buf) > 0) {
  }
}
static void set_nonblock(int fd, int on) {
  const int fl = fcntl(fd, F_GETFL);
  fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
}
static void drain_pipes(void) {
  set_nonblock(src[0], 1);
  set_nonblock(dst[0], 1);
  drain(src[0]);
  drain(dst[0]);
  set_nonblock(src[0], 0);
  set_nonblock(dst[0], 0);
}
static void fill_dst(void) {
  static char junk[4096];
  set_nonblock(dst[1], 1);
  while (write(dst[1], junk, sizeof junk) > 0) {
  }
  set_nonblock(dst[1], 0);
}
static void write_src(void) {
  if (write(src[1], &byte, 1) != 1) abort();
}
static void drain_dst(void) {
  set_nonblock(dst[0], 1);
  drain(dst[0]);
  set_nonblock(dst[0], 0);
}

static long splice_wait(void) {
  return wait_ret(splice(src[0], NULL, dst[1], NULL, 4096, 0));
}
static long tee_wait(void) {
  return wait_ret(tee(src[0], dst[1], 4096, 0));
}
static long vmsplice_wait(void) {
  struct iovec v = {&byte, 1};
  return wait_ret(vmsplice(dst[1], &v, 1, 0));
}
static long sendfile_wait(void) {
  off_t off = 0;
  return wait_ret(sendfile(dst[1], data_fd, &off, 100));
}
static long preadv2_wait(void) {
  char c;
  struct iovec v = {&c, 1};
  return wait_ret(preadv2(src[0], &v, 1, -1, 0));
}
static long pwritev2_wait(void) {
  struct iovec v = {&byte, 1};
  return wait_ret(pwritev2(dst[1], &v, 1, -1, 0));
}

// --- Futexes: a process-shared word (MAP_SHARED, no FUTEX_PRIVATE_FLAG) and futex_waitv on a private one.
static uint32_t* shared_word;
static uint32_t private_word;

static void clear_words(void) {
  __atomic_store_n(shared_word, 0, __ATOMIC_SEQ_CST);
  __atomic_store_n(&private_word, 0, __ATOMIC_SEQ_CST);
}
static void wake_shared(void) {
  __atomic_store_n(shared_word, 1, __ATOMIC_SEQ_CST);
  syscall(SYS_futex, shared_word, FUTEX_WAKE, 1, NULL, NULL, 0);
}
static void wake_private(void) {
  __atomic_store_n(&private_word, 1, __ATOMIC_SEQ_CST);
  syscall(SYS_futex, &private_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}
static long shared_futex_wait(void) {
  return wait_ret(syscall(SYS_futex, shared_word, FUTEX_WAIT, 0, NULL, NULL, 0));
}
static long shared_futex_wait_timeout(void) {
  struct timespec two_s = {2, 0};
  return wait_ret(syscall(SYS_futex, shared_word, FUTEX_WAIT, 0, &two_s, NULL, 0));
}
struct futex_waitv_entry {
  uint64_t val, uaddr;
  uint32_t flags, reserved;
};
static long futex_waitv_wait(void) {
  struct futex_waitv_entry w = {0, (uintptr_t)&private_word, 0x02 /* FUTEX2_SIZE_U32 */ | 128 /* PRIVATE */,
                                0};
  return wait_ret(syscall(449 /* futex_waitv */, &w, 1, 0, NULL, CLOCK_MONOTONIC));
}

// --- Sleeps on clocks that are not timer clocks of the kernel's hrtimers: never restarted after a handler.
// The time left is at most what was asked for, and, on a clock that runs at CLOCK_MONOTONIC's rate, what was
// asked for less the time the call took at least (the signal may come before the call on a busy host).
static long sleep_relative(clockid_t clock, time_t seconds, double min_left_ms, double max_left_ms) {
  struct timespec req = {seconds, 0}, rem = {0, 0};
  const double start = wait_now_ms();
  const int r = clock_nanosleep(clock, 0, &req, &rem);
  const double took = wait_now_ms() - start;
  if (r == EINTR) {
    const double left_ms = rem.tv_sec * 1e3 + rem.tv_nsec / 1e6;
    int ok = CHECK_GE(left_ms, min_left_ms) & CHECK_LE(left_ms, max_left_ms);
    if (clock == CLOCK_TAI) ok &= CHECK_GE(left_ms + took, seconds * 1e3 - 2);
    if (!ok) NOTE("clock %d: time left, %.1f ms in the call", clock, took);
  }
  return -r;
}
static long sleep_absolute(clockid_t clock, time_t seconds) {
  struct timespec at;
  if (clock_gettime(clock, &at) != 0) return -errno;
  at.tv_sec += seconds;
  return -clock_nanosleep(clock, TIMER_ABSTIME, &at, NULL);
}

// A CPU-time clock of an idle process advances by next to nothing in the test's 100 ms.
static long process_cpu_relative(void) {
  return sleep_relative(CLOCK_PROCESS_CPUTIME_ID, 100, 90e3, 100e3);
}
static long process_cpu_absolute(void) {
  return sleep_absolute(CLOCK_PROCESS_CPUTIME_ID, 100);
}
static long process_cpu_by_pid(void) {
  clockid_t clock;
  if (clock_getcpuclockid(getpid(), &clock) != 0) return -EINVAL;
  return sleep_relative(clock, 100, 90e3, 100e3);
}
static long helper_cpu_relative(void) {
  clockid_t clock;
  if (pthread_getcpuclockid(wait_helper_thread, &clock) != 0) return -EINVAL;
  return sleep_relative(clock, 100, 90e3, 100e3);
}
// The 3 s asked for less the ~100 ms slept (and a margin for slow lanes).
static long tai_relative(void) {
  return sleep_relative(CLOCK_TAI, 3, 1500, 3000);
}
static long tai_absolute(void) {
  return sleep_absolute(CLOCK_TAI, 3);
}

// A signal that lands anywhere around the start of a wait, before the call, on its way in or during it, must
// not be lost: the sender and the waiter each spin 0 to 255 us before the signal and the call, and the
// handler gives up the lock the call waits for. A signal before the call lets the call take the lock at once
// (0); one during the wait ends it (EINTR). One lost on the way in would leave the call waiting forever (the
// watchdog's message).
static _Atomic int stress_round, stress_sent;
static pthread_t stress_target;
static void on_usr1_release(int sig) {
  (void)sig;
  flock(lock_a, LOCK_UN);
}
static void spin_us(unsigned* seed) {
  *seed = *seed * 1103515245u + 12345u;
  const double until = wait_now_ms() + ((*seed >> 16) & 255) / 1000.0;
  while (wait_now_ms() < until) {
  }
}
static void* stress_sender(void* arg) {
  const int rounds = *(int*)arg;
  unsigned seed = 12345;
  for (int i = 1; i <= rounds; i++) {
    while (stress_round < i) sched_yield();
    spin_us(&seed);
    pthread_kill(stress_target, SIGUSR1);
    stress_sent = i;
  }
  return NULL;
}
static void stress_signal_at_entry(void) {
  struct sigaction sa = {0};
  sa.sa_handler = on_usr1_release;
  REQUIRE_SYS(sigaction(SIGUSR1, &sa, NULL));
  int rounds = 1000, interrupted = 0;
  unsigned seed = 54321;
  stress_target = pthread_self();
  wait_current = "flock with a signal at its start";
  wait_deadline_ms = wait_now_ms() + 60e3;
  pthread_t th;
  REQUIRE(pthread_create(&th, NULL, stress_sender, &rounds) == 0);
  for (int i = 1; i <= rounds; i++) {
    hold_flock();
    stress_round = i;
    spin_us(&seed);
    const long r = wait_ret(flock(lock_b, LOCK_EX));
    if (r == -EINTR) {
      interrupted++;
    } else if (!CHECK_EQ(r, 0)) {
      break;
    }
    flock(lock_b, LOCK_UN);
    while (stress_sent < i) sched_yield();
  }
  pthread_join(th, NULL);
  wait_deadline_ms = 0;
  NOTE("%d of %d flock calls ended by the signal, the others after it", interrupted, rounds);
}

static const struct wait_case kCases[] = {
    {"open of a FIFO for reading", fifo_open_read, open_fifo_writer, 1, 0, NULL, NULL},
    {"open of a FIFO for writing", fifo_open_write, open_fifo_reader, 1, 0, NULL, NULL},
    {"open for writing of a file with a read lease", open_leased, give_up_lease, 1, 0, take_lease,
     close_lease},
    {"truncate of a file with a read lease", truncate_leased, give_up_lease, 1, 0, take_lease, close_lease},
    {"flock", flock_wait, release_flock, 1, 0, hold_flock, release_flock},
    {"fcntl F_SETLKW", setlkw_wait, release_ofd_lock, 1, 0, hold_ofd_lock, release_ofd_lock},
    {"fcntl F_OFD_SETLKW", ofd_setlkw_wait, release_ofd_lock, 1, 0, hold_ofd_lock, release_ofd_lock},
    {"splice from an empty pipe", splice_wait, write_src, 1, 1, NULL, drain_pipes},
    {"tee from an empty pipe", tee_wait, write_src, 1, 1, NULL, drain_pipes},
    {"vmsplice into a full pipe", vmsplice_wait, drain_dst, 1, 1, fill_dst, drain_pipes},
    {"sendfile into a full pipe", sendfile_wait, drain_dst, 1, 100, fill_dst, drain_pipes},
    {"preadv2 of an empty pipe", preadv2_wait, write_src, 1, 1, NULL, drain_pipes},
    {"pwritev2 into a full pipe", pwritev2_wait, drain_dst, 1, 1, fill_dst, drain_pipes},
    {"futex FUTEX_WAIT on a shared word", shared_futex_wait, wake_shared, 1, 0, clear_words, NULL},
    {"futex FUTEX_WAIT on a shared word with a timeout", shared_futex_wait_timeout, NULL, 0, 0, clear_words,
     NULL},
    {"futex_waitv", futex_waitv_wait, wake_private, 1, 0, clear_words, NULL,
     "qemu 7.2 has no futex_waitv: ENOSYS"},
    {"clock_nanosleep CLOCK_PROCESS_CPUTIME_ID", process_cpu_relative, NULL, 0, 0, NULL, NULL},
    {"clock_nanosleep CLOCK_PROCESS_CPUTIME_ID TIMER_ABSTIME", process_cpu_absolute, NULL, 0, 0, NULL, NULL},
    {"clock_nanosleep on clock_getcpuclockid(getpid())", process_cpu_by_pid, NULL, 0, 0, NULL, NULL},
    {"clock_nanosleep on another thread's CPU-time clock", helper_cpu_relative, NULL, 0, 0, NULL, NULL},
    {"clock_nanosleep CLOCK_TAI", tai_relative, NULL, 0, 0, NULL, NULL},
    {"clock_nanosleep CLOCK_TAI TIMER_ABSTIME", tai_absolute, NULL, 0, 0, NULL, NULL},
};

int main(void) {
  REQUIRE_SYS(mkfifo(kFifo, 0600));
  close(REQUIRE_SYS(open("leased", O_RDWR | O_CREAT, 0600)));
  signal(SIGIO, SIG_IGN);
  shared_word = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  REQUIRE(shared_word != MAP_FAILED);
  lock_a = REQUIRE_SYS(open("lockfile", O_RDWR | O_CREAT, 0600));
  lock_b = REQUIRE_SYS(open("lockfile", O_RDWR));
  REQUIRE_SYS(pipe(src));
  REQUIRE_SYS(pipe(dst));
  REQUIRE_SYS(fcntl(dst[1], F_SETPIPE_SZ, 4096));
  data_fd = REQUIRE_SYS(open("data", O_RDWR | O_CREAT, 0600));
  static char data[100];
  REQUIRE(write(data_fd, data, sizeof data) == (ssize_t)sizeof data);
  run_wait_cases(kCases, sizeof kCases / sizeof kCases[0]);
  stress_signal_at_entry();
  return check_done();
}
