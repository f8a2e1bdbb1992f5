// POSIX message queues: mq_open (O_CREAT, O_EXCL, attributes), priorities, mq_getattr/mq_setattr
// (O_NONBLOCK), timeouts, EMSGSIZE/EBADF/EINVAL, a receiver woken by another thread, EINTR after a handler
// without SA_RESTART and a restart with it, mq_notify with SIGEV_SIGNAL (si_code, value, pid; EBUSY; one
// shot) and SIGEV_THREAD, mq_unlink. With the argument "procs": a receiver in another process.
#define _GNU_SOURCE
#include <fcntl.h>
#include <mqueue.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static char qname[64];

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct timespec in_ms(long ms) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  ts.tv_nsec += (ms % 1000) * 1000000;
  ts.tv_sec += ms / 1000 + ts.tv_nsec / 1000000000;
  ts.tv_nsec %= 1000000000;
  return ts;
}

static mqd_t open_queue(int flags) {
  struct mq_attr attr = {.mq_maxmsg = 4, .mq_msgsize = 64};
  return mq_open(qname, O_CREAT | flags, 0600, &attr);
}

static void test_basic(void) {
  mqd_t q = open_queue(O_RDWR | O_EXCL);
  REQUIRE(q != (mqd_t)-1);
  CHECK_ERRNO(open_queue(O_RDWR | O_EXCL), EEXIST);
  struct mq_attr a;
  CHECK_SYS(mq_getattr(q, &a));
  CHECK_EQ(a.mq_maxmsg, 4);
  CHECK_EQ(a.mq_msgsize, 64);
  CHECK_EQ(a.mq_curmsgs, 0);
  CHECK_EQ(a.mq_flags, 0);

  CHECK_SYS(mq_send(q, "low", 4, 1));
  CHECK_SYS(mq_send(q, "high", 5, 5));
  CHECK_SYS(mq_send(q, "mid", 4, 3));
  CHECK_SYS(mq_getattr(q, &a));
  CHECK_EQ(a.mq_curmsgs, 3);
  char buf[64];
  unsigned prio = 0;
  CHECK_EQ(mq_receive(q, buf, sizeof buf, &prio), 5);
  CHECK_STREQ(buf, "high");
  CHECK_EQ(prio, 5);
  CHECK_EQ(mq_receive(q, buf, sizeof buf, &prio), 4);
  CHECK_STREQ(buf, "mid");
  CHECK_EQ(mq_receive(q, buf, sizeof buf, NULL), 4);
  CHECK_STREQ(buf, "low");

  // Timeouts are absolute, on CLOCK_REALTIME.
  struct timespec ts = in_ms(200);
  double t0 = now_s();
  CHECK_ERRNO(mq_timedreceive(q, buf, sizeof buf, NULL, &ts), ETIMEDOUT);
  CHECK_GE(now_s() - t0, 0.19);
  CHECK_LT(now_s() - t0, 5.0);
  struct timespec bad = {0, 1000000000};
  CHECK_ERRNO(mq_timedreceive(q, buf, sizeof buf, NULL, &bad), EINVAL);
  CHECK_ERRNO(syscall(SYS_mq_timedreceive, q, buf, sizeof buf, NULL, (void*)8), EFAULT);

  // Sizes, priorities, modes.
  CHECK_ERRNO(mq_receive(q, buf, 10, NULL), EMSGSIZE);
  char big[100] = {0};
  CHECK_ERRNO(mq_send(q, big, sizeof big, 0), EMSGSIZE);
  CHECK_ERRNO(mq_send(q, "x", 1, 40000), EINVAL);  // MQ_PRIO_MAX is 32768
  mqd_t ro = mq_open(qname, O_RDONLY);
  REQUIRE(ro != (mqd_t)-1);
  CHECK_ERRNO(mq_send(ro, "x", 1, 0), EBADF);
  CHECK_SYS(mq_close(ro));
  CHECK_ERRNO(mq_send(q, (char*)8, 1, 0), EFAULT);

  // O_NONBLOCK through mq_setattr: a full queue and an empty one answer EAGAIN.
  struct mq_attr nb = {.mq_flags = O_NONBLOCK}, old;
  CHECK_SYS(mq_setattr(q, &nb, &old));
  CHECK_EQ(old.mq_flags, 0);
  CHECK_ERRNO(mq_receive(q, buf, sizeof buf, NULL), EAGAIN);
  for (int i = 0; i < 4; i++) CHECK_SYS(mq_send(q, "f", 2, 0));
  CHECK_ERRNO(mq_send(q, "f", 2, 0), EAGAIN);
  CHECK_SYS(mq_getattr(q, &a));
  CHECK_EQ(a.mq_flags, O_NONBLOCK);
  CHECK_EQ(a.mq_curmsgs, 4);
  struct mq_attr badflags = {.mq_flags = O_APPEND};
  CHECK_ERRNO(mq_setattr(q, &badflags, NULL), EINVAL);
  CHECK_SYS(mq_close(q));

  CHECK_SYS(mq_unlink(qname));
  CHECK_ERRNO(mq_unlink(qname), ENOENT);
  CHECK_ERRNO(mq_open(qname, O_RDONLY), ENOENT);
  CHECK_ERRNO(mq_open("/no/slash/inside", O_RDONLY | O_CREAT, 0600, NULL), EACCES);
}

static mqd_t shared_q;
static void* late_sender(void* arg) {
  (void)arg;
  usleep(200 * 1000);
  mq_send(shared_q, "late", 5, 2);
  return NULL;
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

static void test_blocking(void) {
  shared_q = open_queue(O_RDWR | O_EXCL);
  REQUIRE(shared_q != (mqd_t)-1);
  char buf[64];
  pthread_t th, sig;
  pthread_create(&th, NULL, late_sender, NULL);
  double t0 = now_s();
  CHECK_EQ(mq_receive(shared_q, buf, sizeof buf, NULL), 5);
  CHECK_GE(now_s() - t0, 0.15);
  pthread_join(th, NULL);

  pthread_t self = pthread_self();
  struct sigaction sa = {0};
  sa.sa_handler = on_signal;
  sigaction(SIGUSR1, &sa, NULL);
  handled = 0;
  pthread_create(&sig, NULL, signaller, &self);
  CHECK_ERRNO(mq_receive(shared_q, buf, sizeof buf, NULL), EINTR);
  CHECK_EQ(handled, 1);
  pthread_join(sig, NULL);

  // With SA_RESTART the receive goes on after the handler and gets the message sent later.
  sa.sa_flags = SA_RESTART;
  sigaction(SIGUSR1, &sa, NULL);
  handled = 0;
  pthread_create(&sig, NULL, signaller, &self);
  pthread_create(&th, NULL, late_sender, NULL);
  CHECK_EQ(mq_receive(shared_q, buf, sizeof buf, NULL), 5);
  CHECK_STREQ(buf, "late");
  CHECK_EQ(handled, 1);
  pthread_join(sig, NULL);
  pthread_join(th, NULL);
  CHECK_SYS(mq_close(shared_q));
  CHECK_SYS(mq_unlink(qname));
}

static sem_t thread_notified;
static volatile int thread_value;
static void on_notify(union sigval v) {
  thread_value = v.sival_int;
  sem_post(&thread_notified);
}

// qemu-aarch64 7.2 has no mq_notify (ENOSYS): main skips this in the reference lane.
static void test_notify(void) {
  mqd_t q = open_queue(O_RDWR | O_EXCL);
  REQUIRE(q != (mqd_t)-1);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR2);
  sigprocmask(SIG_BLOCK, &set, NULL);
  struct sigevent ev = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR2};
  ev.sigev_value.sival_int = 77;
  CHECK_SYS(mq_notify(q, &ev));
  CHECK_ERRNO(mq_notify(q, &ev), EBUSY);
  CHECK_SYS(mq_send(q, "n", 2, 0));
  sigset_t pending;  // pending when mq_send returns, as __do_notify queues it during the call
  sigpending(&pending);
  CHECK(sigismember(&pending, SIGUSR2));
  siginfo_t si;
  struct timespec wait = {5, 0};
  CHECK_EQ(sigtimedwait(&set, &si, &wait), SIGUSR2);
  CHECK_EQ(si.si_code, SI_MESGQ);
  CHECK_EQ(si.si_value.sival_int, 77);
  CHECK_EQ(si.si_pid, getpid());
  CHECK_EQ(si.si_uid, getuid());
  // One shot: a second message on a non-empty queue signals nothing, and registering again works.
  CHECK_SYS(mq_send(q, "m", 2, 0));
  struct timespec zero = {0, 50 * 1000 * 1000};
  CHECK_ERRNO(sigtimedwait(&set, &si, &zero), EAGAIN);
  CHECK_SYS(mq_notify(q, &ev));
  CHECK_SYS(mq_notify(q, NULL));
  CHECK_SYS(mq_notify(q, &ev));  // unregistered, so free again

  struct sigevent badsig = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = 65};
  CHECK_ERRNO(mq_notify(q, &badsig), EINVAL);
  struct sigevent badnotify = {.sigev_notify = 42};
  CHECK_ERRNO(mq_notify(q, &badnotify), EINVAL);
  CHECK_ERRNO(mq_notify(-1, &ev), EBADF);
  CHECK_SYS(mq_notify(q, NULL));
  char buf[64];
  while (mq_timedreceive(q, buf, sizeof buf, NULL, &(struct timespec){0, 0}) > 0) {
  }
  // Unblocked, with a handler: it has run when mq_send returns (the signal is queued during the call and
  // handled on its way out, with no other call between).
  struct sigaction sa = {0};
  sa.sa_handler = on_signal;
  sigaction(SIGUSR2, &sa, NULL);
  CHECK_SYS(mq_notify(q, &ev));
  handled = 0;
  sigprocmask(SIG_UNBLOCK, &set, NULL);
  CHECK_SYS(mq_send(q, "h", 2, 0));
  CHECK_EQ(handled, 1);
  sigprocmask(SIG_BLOCK, &set, NULL);
  sa.sa_handler = SIG_DFL;
  sigaction(SIGUSR2, &sa, NULL);
  while (mq_timedreceive(q, buf, sizeof buf, NULL, &(struct timespec){0, 0}) > 0) {
  }

  // SIGEV_THREAD: glibc's helper thread receives the kernel's cookie on a netlink socket.
  sem_init(&thread_notified, 0, 0);
  struct sigevent tev = {.sigev_notify = SIGEV_THREAD, .sigev_notify_function = on_notify};
  tev.sigev_value.sival_int = 99;
  CHECK_SYS(mq_notify(q, &tev));
  CHECK_SYS(mq_send(q, "t", 2, 0));
  struct timespec dl = in_ms(5000);
  CHECK_SYS(sem_timedwait(&thread_notified, &dl));
  CHECK_EQ(thread_value, 99);
  CHECK_SYS(mq_close(q));
  CHECK_SYS(mq_unlink(qname));
  sigprocmask(SIG_UNBLOCK, &set, NULL);
}

static void test_other_process(void) {
  mqd_t q = open_queue(O_RDWR | O_EXCL);
  REQUIRE(q != (mqd_t)-1);
  pid_t pid = fork();
  if (pid == 0) {
    char buf[64];
    unsigned prio;
    if (mq_receive(q, buf, sizeof buf, &prio) != 5 || prio != 9) _exit(1);
    _exit(strcmp(buf, "ping") == 0 ? 0 : 2);
  }
  usleep(50 * 1000);
  CHECK_SYS(mq_send(q, "ping", 5, 9));
  int status;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK_SYS(mq_close(q));
  CHECK_SYS(mq_unlink(qname));
}

int main(int argc, char** argv) {
  snprintf(qname, sizeof qname, "/a64run-test-%d", getpid());
  mq_unlink(qname);
  if (argc == 2 && strcmp(argv[1], "procs") == 0) {
    test_other_process();
    return check_done();
  }
  test_basic();
  test_blocking();
  if (!on_reference_qemu()) test_notify();
  return check_done();
}
