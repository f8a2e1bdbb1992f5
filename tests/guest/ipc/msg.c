// SysV message queues: msgget, msgsnd and msgrcv by type (0, exact, negative, MSG_EXCEPT), MSG_NOERROR,
// MSG_COPY, IPC_NOWAIT, blocking send and receive woken by another thread, EINTR after a handler (with or
// without SA_RESTART), EIDRM when the queue goes away, msgctl (IPC_STAT, IPC_SET, IPC_INFO, MSG_INFO,
// MSG_STAT) with the arm64 msqid_ds. With the argument "procs": a receiver in another process.
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

struct msg {
  long mtype;
  char mtext[64];
};

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int send_text(int id, long type, const char* text) {
  struct msg m = {.mtype = type};
  strcpy(m.mtext, text);
  return msgsnd(id, &m, strlen(text) + 1, IPC_NOWAIT);
}

// Receives one message; returns its type, or -1 (errno set). The text goes to `text` when not NULL.
static long recv_type(int id, long type, int flags, char* text) {
  struct msg m;
  memset(&m, 0, sizeof m);
  ssize_t n = msgrcv(id, &m, sizeof m.mtext, type, flags | IPC_NOWAIT);
  if (n < 0) return -1;
  if (text) strcpy(text, m.mtext);
  return m.mtype;
}

static void test_layout(void) {
  CHECK_EQ(sizeof(struct msqid_ds), 120);
  CHECK_EQ(offsetof(struct msqid_ds, msg_stime), 48);
  CHECK_EQ(offsetof(struct msqid_ds, msg_qnum), 80);
  CHECK_EQ(offsetof(struct msqid_ds, msg_lspid), 96);
}

static void test_types(void) {
  int id = CHECK_SYS(msgget(IPC_PRIVATE, IPC_CREAT | 0600));
  CHECK_SYS(send_text(id, 3, "three"));
  CHECK_SYS(send_text(id, 1, "one"));
  CHECK_SYS(send_text(id, 2, "two"));
  CHECK_SYS(send_text(id, 1, "one again"));
  struct msqid_ds ds;
  memset(&ds, 0xa5, sizeof ds);
  CHECK_SYS(msgctl(id, IPC_STAT, &ds));
  CHECK_EQ(ds.msg_qnum, 4);
  CHECK_EQ(ds.__msg_cbytes, 6 + 4 + 4 + 10);
  CHECK_EQ(ds.msg_lspid, getpid());
  CHECK_EQ(ds.msg_lrpid, 0);
  CHECK_GT(ds.msg_stime, 0);
  CHECK_EQ(ds.msg_rtime, 0);
  CHECK_GT(ds.msg_qbytes, 0);

  // MSG_COPY: a copy of the message at an index, the queue unchanged.
  struct msg m;
  memset(&m, 0, sizeof m);
  ssize_t n = msgrcv(id, &m, sizeof m.mtext, 1, MSG_COPY | IPC_NOWAIT);
  if (n >= 0) {
    CHECK_EQ(m.mtype, 1);
    CHECK_STREQ(m.mtext, "one");
  } else {
    CHECK_EQ(errno, ENOSYS);  // a kernel without CONFIG_CHECKPOINT_RESTORE
  }
  CHECK_ERRNO(msgrcv(id, &m, sizeof m.mtext, 0, MSG_COPY), EINVAL);  // needs IPC_NOWAIT
  CHECK_ERRNO(msgrcv(id, &m, sizeof m.mtext, 0, MSG_COPY | MSG_EXCEPT | IPC_NOWAIT), EINVAL);

  char text[64];
  CHECK_EQ(recv_type(id, 2, 0, text), 2);  // the first of type 2
  CHECK_STREQ(text, "two");
  CHECK_EQ(recv_type(id, 1, MSG_EXCEPT, text), 3);  // the first not of type 1
  CHECK_EQ(recv_type(id, -5, 0, text), 1);          // the lowest type <= 5, oldest first
  CHECK_STREQ(text, "one");
  CHECK_EQ(recv_type(id, 0, 0, text), 1);
  CHECK_STREQ(text, "one again");
  CHECK_EQ(recv_type(id, 0, 0, NULL), -1);
  CHECK_EQ(errno, ENOMSG);
  CHECK_SYS(msgctl(id, IPC_STAT, &ds));
  CHECK_EQ(ds.msg_qnum, 0);
  // qemu-aarch64 7.2's host_to_target_msqid_ds leaves msg_lrpid 0.
  if (!on_reference_qemu()) CHECK_EQ(ds.msg_lrpid, getpid());

  // Too long for the buffer: E2BIG and the message stays, or truncated with MSG_NOERROR.
  CHECK_SYS(send_text(id, 9, "0123456789"));
  CHECK_ERRNO(msgrcv(id, &m, 4, 0, IPC_NOWAIT), E2BIG);
  memset(&m, 0, sizeof m);
  CHECK_EQ(msgrcv(id, &m, 4, 0, IPC_NOWAIT | MSG_NOERROR), 4);
  CHECK(memcmp(m.mtext, "0123", 4) == 0 && m.mtext[4] == 0);

  // Bad arguments, in Linux's order.
  m.mtype = 0;
  CHECK_ERRNO(msgsnd(id, &m, 1, IPC_NOWAIT), EINVAL);  // mtype < 1
  m.mtype = 1;
  CHECK_ERRNO(msgsnd(id, &m, (size_t)-1, IPC_NOWAIT), EINVAL);
  CHECK_ERRNO(msgsnd(id, (void*)8, 1, IPC_NOWAIT), EFAULT);
  CHECK_ERRNO(msgsnd(-1, &m, 1, IPC_NOWAIT), EINVAL);
  CHECK_ERRNO(msgrcv(-1, &m, 1, 0, IPC_NOWAIT), EINVAL);
  CHECK_ERRNO(msgrcv(id, &m, (size_t)-1, 0, IPC_NOWAIT), EINVAL);
  CHECK_SYS(msgctl(id, IPC_RMID, NULL));
  CHECK_ERRNO(msgsnd(id, &m, 1, IPC_NOWAIT), EINVAL);
}

static void test_ctl(void) {
  int id = CHECK_SYS(msgget(IPC_PRIVATE, IPC_CREAT | 0600));
  struct msqid_ds ds;
  CHECK_SYS(msgctl(id, IPC_STAT, &ds));
  ds.msg_qbytes = 100;
  ds.msg_perm.mode = 0640;
  CHECK_SYS(msgctl(id, IPC_SET, &ds));
  memset(&ds, 0, sizeof ds);
  CHECK_SYS(msgctl(id, IPC_STAT, &ds));
  CHECK_EQ(ds.msg_qbytes, 100);
  CHECK_EQ(ds.msg_perm.mode & 0777, 0640);
  struct msginfo mi;
  memset(&mi, 0, sizeof mi);
  CHECK_GE(msgctl(0, IPC_INFO, (struct msqid_ds*)&mi), 0);
  CHECK_GT(mi.msgmax, 0);
  CHECK_GT(mi.msgmnb, 0);
  CHECK_GT(mi.msgmni, 0);
  memset(&mi, 0, sizeof mi);
  int max = CHECK_SYS(msgctl(0, MSG_INFO, (struct msqid_ds*)&mi));
  CHECK_GE(mi.msgpool, 1);  // queues in use
  int found = 0;
  for (int i = 0; i <= max; i++) {
    if (msgctl(i, MSG_STAT, &ds) == id) found = ds.msg_qbytes == 100;
  }
  CHECK(found);
  CHECK_ERRNO(msgctl(id, 0x7777, &ds), EINVAL);
  CHECK_ERRNO(syscall(SYS_msgctl, id, IPC_STAT, (void*)8), EFAULT);
  CHECK_SYS(msgctl(id, IPC_RMID, NULL));
}

static int queue;
static void* sender(void* arg) {
  (void)arg;
  usleep(100 * 1000);
  send_text(queue, 5, "late");
  return NULL;
}

static void* receiver(void* arg) {
  (void)arg;
  usleep(100 * 1000);
  struct msg m;
  msgrcv(queue, &m, sizeof m.mtext, 0, 0);
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
static void* remover(void* arg) {
  (void)arg;
  usleep(100 * 1000);
  msgctl(queue, IPC_RMID, NULL);
  return NULL;
}

static void test_blocking(void) {
  queue = CHECK_SYS(msgget(IPC_PRIVATE, IPC_CREAT | 0600));
  pthread_t th;
  pthread_create(&th, NULL, sender, NULL);
  struct msg m;
  memset(&m, 0, sizeof m);
  double t0 = now_s();
  CHECK_EQ(msgrcv(queue, &m, sizeof m.mtext, 5, 0), 5);
  CHECK_GE(now_s() - t0, 0.09);
  CHECK_STREQ(m.mtext, "late");
  pthread_join(th, NULL);

  // A full queue: the sender waits until a receiver makes room.
  struct msqid_ds ds;
  CHECK_SYS(msgctl(queue, IPC_STAT, &ds));
  ds.msg_qbytes = 16;
  CHECK_SYS(msgctl(queue, IPC_SET, &ds));
  m.mtype = 1;
  CHECK_SYS(msgsnd(queue, &m, 16, 0));
  CHECK_ERRNO(msgsnd(queue, &m, 16, IPC_NOWAIT), EAGAIN);
  pthread_create(&th, NULL, receiver, NULL);
  t0 = now_s();
  CHECK_SYS(msgsnd(queue, &m, 16, 0));
  CHECK_GE(now_s() - t0, 0.09);
  pthread_join(th, NULL);

  // A handled signal ends a waiting send or receive with EINTR, SA_RESTART or not.
  pthread_t self = pthread_self();
  for (int restart = 0; restart < 2; restart++) {
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sa.sa_flags = restart ? SA_RESTART : 0;
    sigaction(SIGUSR1, &sa, NULL);
    handled = 0;
    pthread_create(&th, NULL, signaller, &self);
    CHECK_ERRNO(msgsnd(queue, &m, 16, 0), EINTR);  // the queue is still full
    pthread_join(th, NULL);
    CHECK_EQ(recv_type(queue, 0, 0, NULL), 1);
    pthread_create(&th, NULL, signaller, &self);
    t0 = now_s();
    m.mtype = 1;
    CHECK_ERRNO(msgrcv(queue, &m, sizeof m.mtext, 0, 0), EINTR);
    CHECK_GE(now_s() - t0, 0.09);
    // A failed receive leaves the buffer alone; qemu-aarch64 7.2's do_msgrcv writes mtype anyway.
    if (!on_reference_qemu()) CHECK_EQ(m.mtype, 1);
    pthread_join(th, NULL);
    CHECK_EQ(handled, 2);
    m.mtype = 1;
    CHECK_SYS(msgsnd(queue, &m, 16, 0));
  }

  pthread_create(&th, NULL, remover, NULL);
  CHECK_ERRNO(msgrcv(queue, &m, sizeof m.mtext, 77, 0), EIDRM);
  pthread_join(th, NULL);
}

static void test_other_process(void) {
  int id = CHECK_SYS(msgget(IPC_PRIVATE, IPC_CREAT | 0600));
  pid_t pid = fork();
  if (pid == 0) {
    struct msg m;
    if (msgrcv(id, &m, sizeof m.mtext, 2, 0) < 0) _exit(1);
    send_text(id, 3, m.mtext);  // echo
    _exit(0);
  }
  usleep(50 * 1000);
  CHECK_SYS(send_text(id, 2, "ping"));
  struct msg m;
  memset(&m, 0, sizeof m);
  CHECK_GT(msgrcv(id, &m, sizeof m.mtext, 3, 0), 0);
  CHECK_STREQ(m.mtext, "ping");
  int status;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  struct msqid_ds ds;
  CHECK_SYS(msgctl(id, IPC_STAT, &ds));
  CHECK_EQ(ds.msg_lspid, pid);
  if (!on_reference_qemu()) CHECK_EQ(ds.msg_lrpid, getpid());  // qemu 7.2 leaves it 0 (above)
  CHECK_SYS(msgctl(id, IPC_RMID, NULL));
}

int main(int argc, char** argv) {
  if (argc == 2 && strcmp(argv[1], "procs") == 0) {
    test_other_process();
    return check_done();
  }
  test_layout();
  test_types();
  test_ctl();
  test_blocking();
  return check_done();
}
