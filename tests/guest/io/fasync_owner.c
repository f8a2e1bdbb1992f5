// O_ASYNC readiness signals with F_SETOWN_EX: an F_OWNER_TID owner gets them in that thread (its handler
// runs there, and a thread that blocks them keeps them private), with fs/fcntl.c's siginfo (SIGIO with
// SI_KERNEL without F_SETSIG; the F_SETSIG signal with the POLL_IN reason, si_band and si_fd of the
// descriptor whose O_ASYNC registered, SI_SIGIO for a signal with codes of its own); F_GETOWN_EX, F_GETOWN
// and F_GETSIG answer what was set, through a dup too; an F_OWNER_PID owner still gets process-directed
// signals. For a pipe and an AF_UNIX socket, written by another process (or with argv[1] "inproc", by
// another thread of this one).
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static int inproc;
static sigset_t test_set;
static atomic_int worker_tid, stop_worker, want_unblocked, unblocked_ack;

struct rec {
  int tid, signo, code, fd;
  long band;
};
static struct rec recs[8];
static atomic_int nrecs;

static void on_signal(int sig, siginfo_t* si, void* ctx) {
  (void)ctx;
  const int n = atomic_fetch_add(&nrecs, 1);
  if (n < 8) recs[n] = (struct rec){(int)syscall(SYS_gettid), sig, si->si_code, si->si_fd, si->si_band};
}

static void sleep_us(long us) {
  struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
  nanosleep(&ts, NULL);
}

// The owner thread: it unblocks or blocks the test signals when main asks, and otherwise sleeps.
static void* worker(void* arg) {
  (void)arg;
  worker_tid = (int)syscall(SYS_gettid);
  int cur = 0;
  while (!stop_worker) {
    const int want = want_unblocked;
    if (want != cur) {
      pthread_sigmask(want ? SIG_UNBLOCK : SIG_BLOCK, &test_set, NULL);
      cur = want;
      unblocked_ack = want;
    }
    sleep_us(200);
  }
  return NULL;
}

static void set_worker_unblocked(int on) {
  want_unblocked = on;
  while (unblocked_ack != on) sleep_us(100);
}

static void* write_one(void* arg) {
  (void)!write(*(int*)arg, "x", 1);
  return NULL;
}

// Writes one byte to wfd from another process (or thread), which makes the other end readable.
static void write_from_elsewhere(int wfd) {
  if (inproc) {
    pthread_t th;
    CHECK_EQ(pthread_create(&th, NULL, write_one, &wfd), 0);
    pthread_join(th, NULL);
    return;
  }
  const pid_t pid = fork();
  if (pid == 0) {
    _exit(write(wfd, "x", 1) == 1 ? 0 : 1);
  }
  int status = -1;
  CHECK_EQ(waitpid(pid, &status, 0), pid);
  CHECK_EQ(status, 0);
}

static int wait_recs(int n, long timeout_us) {
  for (long waited = 0; nrecs < n && waited < timeout_us; waited += 1000) sleep_us(1000);
  return nrecs;
}

static void make_pair(int socket, int fds[2]) {
  if (socket) {
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  } else {
    CHECK_EQ(pipe(fds), 0);
  }
}

// What send_sigio_to_task queues for a readable descriptor rfd with F_SETSIG sig.
static void check_rec(const struct rec* r, int tid, int sig, int rfd) {
  CHECK_EQ(r->tid, tid);
  CHECK_EQ(r->signo, sig ? sig : SIGIO);
  if (sig == 0) {
    CHECK_EQ(r->code, SI_KERNEL);
    return;
  }
  CHECK_EQ(r->code, sig == SIGSYS ? SI_SIGIO : POLL_IN);
  CHECK_EQ(r->fd, rfd);
  CHECK_EQ(r->band, POLLIN | POLLRDNORM);
}

static void check_owner(int fd, int type, int pid, int sig) {
  struct f_owner_ex o = {0, 0};
  CHECK_EQ(fcntl(fd, F_GETOWN_EX, &o), 0);
  CHECK_EQ(o.type, type);
  CHECK_EQ(o.pid, pid);
  CHECK_EQ(fcntl(fd, F_GETOWN), pid);
  CHECK_EQ(fcntl(fd, F_GETSIG), sig);
}

// Owner the worker thread; main leaves the signals unblocked too, so a process-directed signal would run
// its handler in main (Linux tries the main thread first).
static void tid_owner_handled(int socket, int sig) {
  int fds[2];
  make_pair(socket, fds);
  CHECK_EQ(fcntl(fds[0], F_SETFL, O_ASYNC), 0);
  const struct f_owner_ex owner = {F_OWNER_TID, worker_tid};
  if (socket) {  // F_SETSIG before the owner, and after it for the pipe
    CHECK_EQ(fcntl(fds[0], F_SETSIG, sig), 0);
    CHECK_EQ(fcntl(fds[0], F_SETOWN_EX, &owner), 0);
  } else {
    CHECK_EQ(fcntl(fds[0], F_SETOWN_EX, &owner), 0);
    CHECK_EQ(fcntl(fds[0], F_SETSIG, sig), 0);
  }
  check_owner(fds[0], F_OWNER_TID, worker_tid, sig);
  const int dup_fd = dup(fds[0]);  // the same description: its owner, while si_fd stays fds[0]
  check_owner(dup_fd, F_OWNER_TID, worker_tid, sig);

  nrecs = 0;
  set_worker_unblocked(1);
  pthread_sigmask(SIG_UNBLOCK, &test_set, NULL);
  write_from_elsewhere(fds[1]);
  CHECK_EQ(wait_recs(1, 5000000), 1);
  sleep_us(50000);  // nothing more comes
  pthread_sigmask(SIG_BLOCK, &test_set, NULL);
  set_worker_unblocked(0);
  if (CHECK_EQ(nrecs, 1)) check_rec(&recs[0], worker_tid, sig, fds[0]);

  char c;
  CHECK_EQ(read(fds[0], &c, 1), 1);
  close(dup_fd);
  close(fds[0]);
  close(fds[1]);
}

// Owner the worker thread, which blocks the signal as every thread does: main's sigtimedwait does not see
// it (it is the worker's), and the worker's handler runs once it unblocks.
static void tid_owner_private(int socket, int sig) {
  int fds[2];
  make_pair(socket, fds);
  CHECK_EQ(fcntl(fds[0], F_SETFL, O_ASYNC), 0);
  const struct f_owner_ex owner = {F_OWNER_TID, worker_tid};
  CHECK_EQ(fcntl(fds[0], F_SETOWN_EX, &owner), 0);
  CHECK_EQ(fcntl(fds[0], F_SETSIG, sig), 0);
  nrecs = 0;
  write_from_elsewhere(fds[1]);
  const struct timespec wait = {0, 300 * 1000 * 1000};
  errno = 0;
  CHECK_EQ(sigtimedwait(&test_set, NULL, &wait), -1);
  CHECK_EQ(errno, EAGAIN);
  errno = 0;
  set_worker_unblocked(1);
  CHECK_EQ(wait_recs(1, 5000000), 1);
  set_worker_unblocked(0);
  check_rec(&recs[0], worker_tid, sig, fds[0]);

  // Back to a process owner: the signal set stays.
  const struct f_owner_ex proc_owner = {F_OWNER_PID, getpid()};
  CHECK_EQ(fcntl(fds[0], F_SETOWN_EX, &proc_owner), 0);
  check_owner(fds[0], F_OWNER_PID, getpid(), sig);
  char c;
  CHECK_EQ(read(fds[0], &c, 1), 1);
  close(fds[0]);
  close(fds[1]);
}

// Owner the process: the signal is pending for the process, so main's sigtimedwait takes it.
static void pid_owner(int socket, int sig) {
  int fds[2];
  make_pair(socket, fds);
  CHECK_EQ(fcntl(fds[0], F_SETFL, O_ASYNC), 0);
  const struct f_owner_ex owner = {F_OWNER_PID, getpid()};
  CHECK_EQ(fcntl(fds[0], F_SETOWN_EX, &owner), 0);
  CHECK_EQ(fcntl(fds[0], F_SETSIG, sig), 0);
  check_owner(fds[0], F_OWNER_PID, getpid(), sig);
  write_from_elsewhere(fds[1]);
  siginfo_t si;
  memset(&si, 0, sizeof si);
  const struct timespec wait = {5, 0};
  CHECK_EQ(sigtimedwait(&test_set, &si, &wait), sig ? sig : SIGIO);
  const struct rec r = {(int)syscall(SYS_gettid), si.si_signo, si.si_code, si.si_fd, si.si_band};
  check_rec(&r, (int)syscall(SYS_gettid), sig, fds[0]);
  char c;
  CHECK_EQ(read(fds[0], &c, 1), 1);
  close(fds[0]);
  close(fds[1]);
}

// A burst: 1000 readiness signals (an RT signal, so none merges) from 1000 writes, each read back at once:
// every one reaches the owner thread, none is lost or goes elsewhere on the way.
static atomic_int burst_count, burst_wrong;
static void on_burst(int sig, siginfo_t* si, void* ctx) {
  (void)sig;
  (void)ctx;
  if (syscall(SYS_gettid) != worker_tid || si->si_code != POLL_IN) burst_wrong++;
  burst_count++;
}

static void burst(void) {
  const int sig = SIGRTMIN + 2, n = 1000;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_burst;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  CHECK_EQ(sigaction(sig, &sa, NULL), 0);
  int fds[2];
  make_pair(1, fds);
  CHECK_EQ(fcntl(fds[0], F_SETFL, O_ASYNC), 0);
  const struct f_owner_ex owner = {F_OWNER_TID, worker_tid};
  CHECK_EQ(fcntl(fds[0], F_SETOWN_EX, &owner), 0);
  CHECK_EQ(fcntl(fds[0], F_SETSIG, sig), 0);
  sigaddset(&test_set, sig);
  set_worker_unblocked(1);
  char c;
  for (int i = 0; i < n; ++i) {
    if (write(fds[1], "x", 1) != 1 || read(fds[0], &c, 1) != 1) break;
  }
  for (int waited = 0; burst_count < n && waited < 5000; ++waited) sleep_us(1000);
  set_worker_unblocked(0);
  CHECK_EQ(burst_count, n);
  CHECK_EQ(burst_wrong, 0);
  close(fds[0]);
  close(fds[1]);
}

int main(int argc, char** argv) {
  inproc = argc > 1 && strcmp(argv[1], "inproc") == 0;
  const int sigs[] = {0, SIGUSR1, SIGRTMIN + 1, SIGSYS};
  sigemptyset(&test_set);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; ++i) {
    const int s = sigs[i] ? sigs[i] : SIGIO;
    sigaddset(&test_set, s);
    CHECK_EQ(sigaction(s, &sa, NULL), 0);
  }
  pthread_sigmask(SIG_BLOCK, &test_set, NULL);
  pthread_t th;
  CHECK_EQ(pthread_create(&th, NULL, worker, NULL), 0);
  while (worker_tid == 0) sleep_us(100);

  for (int socket = 0; socket < 2; ++socket) {
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; ++i) tid_owner_handled(socket, sigs[i]);
    tid_owner_private(socket, 0);
    tid_owner_private(socket, SIGRTMIN + 1);
    pid_owner(socket, 0);
    pid_owner(socket, SIGRTMIN + 1);
  }

  burst();

  stop_worker = 1;
  pthread_join(th, NULL);
  return check_done();
}
