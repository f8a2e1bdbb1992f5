// Tests pidfds: pidfd_open on a child (PIDFD_NONBLOCK, close-on-exec always), poll for its exit, waitid
// with P_PIDFD, pidfd_send_signal through it, pidfd_getfd of the child's descriptor, and the errors (bad
// flags, no such process, a thread that is not a leader, bad fds).
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#ifndef PIDFD_NONBLOCK
#define PIDFD_NONBLOCK O_NONBLOCK
#endif
#ifndef P_PIDFD
#define P_PIDFD 3
#endif

static int pidfd_open(pid_t pid, unsigned flags) {
  return (int)syscall(SYS_pidfd_open, pid, flags);
}

// A child that waits for its parent to close the write end of `hold`; it keeps `keep` (a pipe's write end,
// which it first writes "from child" to) open for pidfd_getfd.
static pid_t child_waiting(int hold[2], int keep) {
  pid_t pid = REQUIRE_SYS(fork());
  if (pid == 0) {
    char c;
    close(hold[1]);
    (void)!write(keep, "from child", 10);
    (void)!read(hold[0], &c, 1);
    _exit(5);
  }
  close(hold[0]);
  return pid;
}

static void test_wait_and_getfd(void) {
  int hold[2], data[2];
  REQUIRE_SYS(pipe(hold));
  REQUIRE_SYS(pipe(data));
  pid_t pid = child_waiting(hold, data[1]);
  int pfd = REQUIRE_SYS(pidfd_open(pid, 0));
  CHECK(fcntl(pfd, F_GETFD) & FD_CLOEXEC);  // always close-on-exec
  struct pollfd p = {pfd, POLLIN, 0};
  CHECK_EQ(poll(&p, 1, 0), 0);  // still running
  // The child's write end of `data`, taken through the pidfd: a new descriptor of ours for the same pipe.
  char buf[16] = {0};
  CHECK_EQ(read(data[0], buf, 10), 10);
  int taken = (int)syscall(SYS_pidfd_getfd, pfd, data[1], 0);
  CHECK(taken >= 0);
  if (taken >= 0) {
    CHECK(fcntl(taken, F_GETFD) & FD_CLOEXEC);
    CHECK_EQ(write(taken, "x", 1), 1);
    CHECK_EQ(read(data[0], buf, 1), 1);
    close(taken);
  }
  CHECK_ERRNO(syscall(SYS_pidfd_getfd, pfd, 999, 0), EBADF);  // not open in the child
  CHECK_ERRNO(syscall(SYS_pidfd_getfd, pfd, data[1], 1), EINVAL);
  close(hold[1]);  // let it exit
  CHECK_EQ(poll(&p, 1, 5000), 1);
  CHECK(p.revents & POLLIN);
  siginfo_t si = {0};
  CHECK_SYS(waitid((idtype_t)P_PIDFD, (id_t)pfd, &si, WEXITED));
  CHECK_EQ(si.si_pid, pid);
  CHECK_EQ(si.si_code, CLD_EXITED);
  CHECK_EQ(si.si_status, 5);
  CHECK_SYS(close(pfd));
  close(data[0]);
  close(data[1]);
}

static void test_signal_through_pidfd(void) {
  int hold[2], data[2];
  REQUIRE_SYS(pipe(hold));
  REQUIRE_SYS(pipe(data));
  pid_t pid = child_waiting(hold, data[1]);
  int pfd = REQUIRE_SYS(pidfd_open(pid, PIDFD_NONBLOCK));
  CHECK(fcntl(pfd, F_GETFL) & O_NONBLOCK);
  siginfo_t si = {0};
  // Non-blocking: waitid on a running child says EAGAIN.
  CHECK_ERRNO(waitid((idtype_t)P_PIDFD, (id_t)pfd, &si, WEXITED), EAGAIN);
  CHECK_SYS(syscall(SYS_pidfd_send_signal, pfd, SIGTERM, NULL, 0));
  struct pollfd p = {pfd, POLLIN, 0};
  CHECK_EQ(poll(&p, 1, 5000), 1);
  CHECK_SYS(waitid((idtype_t)P_PIDFD, (id_t)pfd, &si, WEXITED));
  CHECK_EQ(si.si_code, CLD_KILLED);
  CHECK_EQ(si.si_status, SIGTERM);
  close(pfd);
  close(hold[1]);
  close(data[0]);
  close(data[1]);
}

static volatile sig_atomic_t g_handled;
static void on_usr1(int sig) {
  (void)sig;
  g_handled++;
}

// A signal to the caller's own process through a pidfd, or through its /proc/PID directory (which Linux
// takes as a pidfd here), is handled by the time the call returns, as kill(getpid()) is; a thread's
// /proc/PID/task/TID directory and other files are refused.
static void test_signal_self(void) {
  struct sigaction sa = {0};
  sa.sa_handler = on_usr1;
  REQUIRE_SYS(sigaction(SIGUSR1, &sa, NULL));
  int self = REQUIRE_SYS(pidfd_open(getpid(), 0));
  g_handled = 0;
  CHECK_SYS(syscall(SYS_pidfd_send_signal, self, SIGUSR1, NULL, 0));
  CHECK_EQ(g_handled, 1);
  char path[64];
  snprintf(path, sizeof path, "/proc/%d", (int)getpid());
  int dir = REQUIRE_SYS(open(path, O_DIRECTORY | O_RDONLY));
  g_handled = 0;
  CHECK_SYS(syscall(SYS_pidfd_send_signal, dir, SIGUSR1, NULL, 0));
  CHECK_EQ(g_handled, 1);
  CHECK_SYS(syscall(SYS_pidfd_send_signal, dir, 0, NULL, 0));
  // A siginfo whose signal is not the one sent: EINVAL, through either, and nothing is sent.
  siginfo_t other;
  memset(&other, 0, sizeof other);
  other.si_signo = SIGUSR2;
  other.si_code = SI_QUEUE;
  other.si_pid = getpid();
  other.si_uid = getuid();
  CHECK_ERRNO(syscall(SYS_pidfd_send_signal, dir, SIGUSR1, &other, 0), EINVAL);
  CHECK_ERRNO(syscall(SYS_pidfd_send_signal, self, SIGUSR1, &other, 0), EINVAL);
  CHECK_ERRNO(syscall(SYS_pidfd_send_signal, self, 0, &other, 0), EINVAL);
  CHECK_EQ(g_handled, 1);
  CHECK_ERRNO(syscall(SYS_pidfd_getfd, dir, 0, 0), EBADF);  // pidfd_getfd takes only a pidfd
  snprintf(path, sizeof path, "/proc/%d/task/%d", (int)getpid(), (int)gettid());
  int task = REQUIRE_SYS(open(path, O_DIRECTORY | O_RDONLY));
  CHECK_ERRNO(syscall(SYS_pidfd_send_signal, task, SIGUSR1, NULL, 0), EBADF);
  int proc = REQUIRE_SYS(open("/proc", O_DIRECTORY | O_RDONLY));
  CHECK_ERRNO(syscall(SYS_pidfd_send_signal, proc, SIGUSR1, NULL, 0), EBADF);
  CHECK_ERRNO(syscall(SYS_pidfd_send_signal, 0x7fff, SIGUSR1, NULL, 0), EBADF);
  CHECK_EQ(g_handled, 1);

  // A child's /proc/PID directory reaches the child.
  int hold[2], data[2];
  REQUIRE_SYS(pipe(hold));
  REQUIRE_SYS(pipe(data));
  pid_t pid = child_waiting(hold, data[1]);
  snprintf(path, sizeof path, "/proc/%d", (int)pid);
  int child = REQUIRE_SYS(open(path, O_DIRECTORY | O_RDONLY));
  CHECK_SYS(syscall(SYS_pidfd_send_signal, child, SIGTERM, NULL, 0));
  int status = 0;
  CHECK_EQ(waitpid(pid, &status, 0), pid);
  CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
  close(child);
  close(hold[1]);
  close(data[0]);
  close(data[1]);
  close(proc);
  close(task);
  close(dir);
  close(self);
  sa.sa_handler = SIG_DFL;
  sigaction(SIGUSR1, &sa, NULL);
}

static void* idle_thread(void* arg) {
  *(pid_t*)arg = gettid();
  pause();
  return NULL;
}

static void test_errors(void) {
  CHECK_ERRNO(pidfd_open(getpid(), 1), EINVAL);  // no such flag
  CHECK_ERRNO(pidfd_open(-1, 0), EINVAL);
  CHECK_ERRNO(pidfd_open(0x3ffffff0, 0), ESRCH);
  volatile pid_t tid = 0;
  pthread_t th;
  REQUIRE(pthread_create(&th, NULL, idle_thread, (void*)&tid) == 0);
  while (tid == 0) usleep(1000);
  CHECK_ERRNO(pidfd_open(tid, 0), ENOENT);  // a thread that does not lead a thread group
  int self = REQUIRE_SYS(pidfd_open(getpid(), 0));
  CHECK_ERRNO(syscall(SYS_pidfd_getfd, -1, 0, 0), EBADF);
  int p[2];
  REQUIRE_SYS(pipe(p));
  CHECK_ERRNO(syscall(SYS_pidfd_getfd, p[0], 0, 0), EBADF);  // not a pidfd
  close(p[0]);
  close(p[1]);
  close(self);
}

int main(void) {
  test_wait_and_getfd();
  test_signal_through_pidfd();
  test_signal_self();
  test_errors();
  return check_done();
}
