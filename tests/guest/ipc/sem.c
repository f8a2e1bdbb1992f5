// SysV semaphores: semget, semctl (GETALL/SETALL, GETVAL/SETVAL, IPC_STAT/IPC_SET with the arm64 semid_ds,
// IPC_INFO, SEM_INFO, SEM_STAT), semop and semtimedop (IPC_NOWAIT, timeouts, blocking until another thread
// posts, EINTR from a signal handler whatever SA_RESTART says, EIDRM when the set goes away).
// With the argument "procs": SEM_UNDO undone at exit, a waiter woken by another process, GETPID, GETNCNT.
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

union semun {
  int val;
  struct semid_ds* buf;
  unsigned short* array;
  struct seminfo* info;
};

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int semval(int id, int n) {
  return semctl(id, n, GETVAL);
}

static void test_layout(void) {
  // asm-generic's semid64_ds: no padding words after the times (x86-64 has them).
  CHECK_EQ(sizeof(struct semid_ds), 88);
  CHECK_EQ(offsetof(struct semid_ds, sem_otime), 48);
  CHECK_EQ(offsetof(struct semid_ds, sem_ctime), 56);
  CHECK_EQ(offsetof(struct semid_ds, sem_nsems), 64);
}

static void test_ctl(void) {
  int id = CHECK_SYS(semget(IPC_PRIVATE, 3, IPC_CREAT | 0600));
  unsigned short set[3] = {1, 2, 3}, got[3] = {0};
  CHECK_SYS(semctl(id, 0, SETALL, (union semun){.array = set}));
  CHECK_SYS(semctl(id, 0, GETALL, (union semun){.array = got}));
  CHECK_EQ(got[0], 1);
  CHECK_EQ(got[1], 2);
  CHECK_EQ(got[2], 3);
  CHECK_SYS(semctl(id, 1, SETVAL, (union semun){.val = 7}));
  CHECK_EQ(semval(id, 1), 7);
  CHECK_ERRNO(semctl(id, 1, SETVAL, (union semun){.val = 40000}), ERANGE);
  CHECK_ERRNO(semctl(id, 3, GETVAL), EINVAL);
  CHECK_EQ(semctl(id, 0, GETNCNT), 0);
  CHECK_EQ(semctl(id, 0, GETZCNT), 0);
  CHECK_EQ(semctl(id, 1, GETPID), getpid());  // SETVAL records the pid

  struct semid_ds ds;
  memset(&ds, 0xa5, sizeof ds);
  CHECK_SYS(semctl(id, 0, IPC_STAT, (union semun){.buf = &ds}));
  CHECK_EQ(ds.sem_nsems, 3);
  CHECK_EQ(ds.sem_otime, 0);  // no semop yet
  CHECK_GT(ds.sem_ctime, 0);
  CHECK_EQ(ds.sem_perm.mode & 0777, 0600);
  CHECK_EQ(ds.sem_perm.uid, getuid());
  ds.sem_perm.mode = 0640;
  CHECK_SYS(semctl(id, 0, IPC_SET, (union semun){.buf = &ds}));
  memset(&ds, 0, sizeof ds);
  CHECK_SYS(semctl(id, 0, IPC_STAT, (union semun){.buf = &ds}));
  CHECK_EQ(ds.sem_perm.mode & 0777, 0640);
  CHECK_EQ(ds.sem_nsems, 3);

  struct seminfo si;
  memset(&si, 0, sizeof si);
  CHECK_GE(semctl(0, 0, IPC_INFO, (union semun){.info = &si}), 0);
  CHECK_GT(si.semmsl, 0);
  CHECK_GT(si.semopm, 0);
  CHECK_EQ(si.semvmx, 32767);
  memset(&si, 0, sizeof si);
  int max = CHECK_SYS(semctl(0, 0, SEM_INFO, (union semun){.info = &si}));
  CHECK_GE(si.semusz, 1);  // sets in use
  int found = 0;
  for (int i = 0; i <= max; i++) {
    if (semctl(i, 0, SEM_STAT, (union semun){.buf = &ds}) == id) found = ds.sem_nsems == 3;
  }
  CHECK(found);
  CHECK_ERRNO(semctl(id, 0, 0x7777), EINVAL);
  CHECK_ERRNO(syscall(SYS_semctl, id, 0, IPC_STAT, (void*)8), EFAULT);
  CHECK_ERRNO(syscall(SYS_semctl, id, 0, GETALL, (void*)8), EFAULT);
  CHECK_ERRNO(syscall(SYS_semctl, id, 0, SETALL, (void*)8), EFAULT);
  CHECK_SYS(semctl(id, 0, IPC_RMID));
  CHECK_ERRNO(semctl(id, 0, GETVAL), EINVAL);
}

static void test_semop(void) {
  int id = CHECK_SYS(semget(IPC_PRIVATE, 2, IPC_CREAT | 0600));
  struct sembuf up = {0, 2, 0}, down = {0, -1, IPC_NOWAIT};
  CHECK_SYS(semop(id, &up, 1));
  CHECK_SYS(semop(id, &down, 1));
  CHECK_SYS(semop(id, &down, 1));
  CHECK_ERRNO(semop(id, &down, 1), EAGAIN);
  struct semid_ds ds;
  CHECK_SYS(semctl(id, 0, IPC_STAT, (union semun){.buf = &ds}));
  CHECK_GT(ds.sem_otime, 0);
  // Both operations or neither.
  struct sembuf two[2] = {{0, 1, 0}, {1, -1, IPC_NOWAIT}};
  CHECK_ERRNO(semop(id, two, 2), EAGAIN);
  CHECK_EQ(semval(id, 0), 0);
  // Wait for zero.
  struct sembuf zero = {1, 0, IPC_NOWAIT};
  CHECK_SYS(semop(id, &zero, 1));

  CHECK_ERRNO(semop(id, &up, 0), EINVAL);
  struct sembuf many[600];
  memset(many, 0, sizeof many);
  CHECK_ERRNO(semop(id, many, 600), E2BIG);  // SEMOPM is 500
  struct sembuf bad = {2, 1, 0};
  CHECK_ERRNO(semop(id, &bad, 1), EFBIG);
  CHECK_ERRNO(semop(id, (struct sembuf*)8, 1), EFAULT);
  CHECK_ERRNO(semop(-1, &up, 1), EINVAL);

  // semtimedop: the timeout passes (EAGAIN), neither early nor very late.
  struct sembuf wait1 = {0, -1, 0};
  struct timespec ts = {0, 200 * 1000 * 1000};
  double t0 = now_s();
  CHECK_ERRNO(semtimedop(id, &wait1, 1, &ts), EAGAIN);
  double waited = now_s() - t0;
  CHECK_GE(waited, 0.19);
  CHECK_LT(waited, 5.0);
  struct timespec bad_ts = {0, 1000 * 1000 * 1000};
  CHECK_ERRNO(semtimedop(id, &wait1, 1, &bad_ts), EINVAL);
  CHECK_ERRNO(semtimedop(id, &wait1, 1, (struct timespec*)8), EFAULT);
  CHECK_SYS(semctl(id, 0, IPC_RMID));
}

static int poster_id;
static void* poster(void* arg) {
  (void)arg;
  usleep(100 * 1000);
  struct sembuf up = {0, 1, 0};
  semop(poster_id, &up, 1);
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
  usleep(100 * 1000);
  semctl(*(int*)arg, 0, IPC_RMID);
  return NULL;
}

static void test_blocking(void) {
  poster_id = CHECK_SYS(semget(IPC_PRIVATE, 1, IPC_CREAT | 0600));
  pthread_t th;
  pthread_create(&th, NULL, poster, NULL);
  struct sembuf down = {0, -1, 0};
  double t0 = now_s();
  CHECK_SYS(semop(poster_id, &down, 1));
  CHECK_GE(now_s() - t0, 0.09);
  pthread_join(th, NULL);

  // A handled signal ends a blocked semop with EINTR, SA_RESTART or not (semop is never restarted).
  for (int restart = 0; restart < 2; restart++) {
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sa.sa_flags = restart ? SA_RESTART : 0;
    sigaction(SIGUSR1, &sa, NULL);
    handled = 0;
    pthread_t self = pthread_self();
    pthread_create(&th, NULL, signaller, &self);
    t0 = now_s();
    CHECK_ERRNO(semop(poster_id, &down, 1), EINTR);
    CHECK_GE(now_s() - t0, 0.09);
    CHECK_LT(now_s() - t0, 5.0);
    CHECK_EQ(handled, 1);
    pthread_join(th, NULL);
    // semtimedop too.
    struct timespec ts = {10, 0};
    pthread_create(&th, NULL, signaller, &self);
    CHECK_ERRNO(semtimedop(poster_id, &down, 1, &ts), EINTR);
    pthread_join(th, NULL);
  }
  CHECK_EQ(semval(poster_id, 0), 0);

  // The set removed under a waiter: EIDRM.
  pthread_create(&th, NULL, remover, &poster_id);
  CHECK_ERRNO(semop(poster_id, &down, 1), EIDRM);
  pthread_join(th, NULL);
}

// --- procs ---

static void test_undo(void) {
  int id = CHECK_SYS(semget(IPC_PRIVATE, 1, IPC_CREAT | 0600));
  CHECK_SYS(semctl(id, 0, SETVAL, (union semun){.val = 5}));
  pid_t pid = fork();
  if (pid == 0) {
    struct sembuf op = {0, -3, SEM_UNDO};
    if (semop(id, &op, 1) != 0) _exit(1);
    struct sembuf op2 = {0, 1, SEM_UNDO};
    if (semop(id, &op2, 1) != 0) _exit(2);
    _exit(semctl(id, 0, GETVAL) == 3 ? 0 : 3);
  }
  int status;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK_EQ(semval(id, 0), 5);  // the child's adjustments were undone at its exit
  CHECK_EQ(semctl(id, 0, GETPID), pid);

  // Undo when the process dies of a signal, too.
  pid = fork();
  if (pid == 0) {
    struct sembuf op = {0, -5, SEM_UNDO};
    semop(id, &op, 1);
    pause();
    _exit(0);
  }
  while (semval(id, 0) != 0) usleep(1000);
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  CHECK(WIFSIGNALED(status));
  CHECK_EQ(semval(id, 0), 5);
  CHECK_SYS(semctl(id, 0, IPC_RMID));
}

static void test_cross_process_wait(void) {
  int id = CHECK_SYS(semget(IPC_PRIVATE, 1, IPC_CREAT | 0600));
  pid_t pid = fork();
  if (pid == 0) {
    struct sembuf down = {0, -1, 0};
    _exit(semop(id, &down, 1) == 0 ? 0 : 1);
  }
  // The child waits: GETNCNT counts it.
  double t0 = now_s();
  while (semctl(id, 0, GETNCNT) != 1 && now_s() - t0 < 10) usleep(1000);
  CHECK_EQ(semctl(id, 0, GETNCNT), 1);
  struct sembuf up = {0, 1, 0};
  CHECK_SYS(semop(id, &up, 1));
  int status;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK_EQ(semctl(id, 0, GETPID), pid);
  CHECK_SYS(semctl(id, 0, IPC_RMID));
}

int main(int argc, char** argv) {
  if (argc == 2 && strcmp(argv[1], "procs") == 0) {
    test_undo();
    test_cross_process_wait();
    return check_done();
  }
  test_layout();
  test_ctl();
  test_semop();
  test_blocking();
  return check_done();
}
