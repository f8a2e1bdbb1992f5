// unshare(CLONE_NEWUSER) and setns into a user namespace need a single-threaded process: a one-thread guest
// gets them (a64run's own thread steps aside for the call), and signals from other processes and the expiries
// of a POSIX timer armed before the call still arrive afterwards; a guest with a second thread gets EINVAL,
// as on Linux. Unsharing a PID namespace with the user namespace leaves a64run its thread too. A guest whose
// threads have all been joined is single-threaded again: unshare right after the joins succeeds, and then
// getuid and a kill's si_uid give the overflow uid of the new namespace, not the uid from before; once
// the parent writes the child's uid_map, they give the mapped uid.
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static volatile sig_atomic_t got;
static void on_usr1(int sig) {
  (void)sig;
  got++;
}

static volatile sig_atomic_t ticks;
static void on_alrm(int sig) {
  (void)sig;
  ticks++;
}

// A periodic POSIX timer (SIGALRM every 5 ms) armed before the call: it must go on signalling after it.
static int arm_timer(void) {
  struct sigaction sa = {0};
  sa.sa_handler = on_alrm;
  sigaction(SIGALRM, &sa, NULL);
  struct sigevent ev = {0};
  ev.sigev_notify = SIGEV_SIGNAL;
  ev.sigev_signo = SIGALRM;
  timer_t timer;
  if (timer_create(CLOCK_MONOTONIC, &ev, &timer) != 0) return -1;
  struct itimerspec its = {{0, 5 * 1000 * 1000}, {0, 5 * 1000 * 1000}};
  return timer_settime(timer, 0, &its, NULL);
}

// Ticks counted from now on within about a second (stops at 3).
static int ticks_after(void) {
  const sig_atomic_t start = ticks;
  for (int i = 0; i < 100 && ticks - start < 3; i++) usleep(10 * 1000);
  return ticks - start;
}

static void* idle(void* arg) {
  (void)arg;
  pause();
  return NULL;
}

// The exit status of a child whose unshare of a user namespace failed: 2 not allowed here, 6 EINVAL (a
// multithreaded process), 3 anything else.
static int unshare_failure(void) {
  return errno == EPERM || errno == ENOSPC ? 2 : errno == EINVAL ? 6 : 3;
}

// The parent's side: true (and a note) for a child's exit status that leaves its case out: 2, not allowed
// here (`why`), or 6 under qemu-aarch64 7.2, which runs an RCU thread in every process, so that `call` is
// EINVAL there.
static bool left_out(int status, const char* why, const char* call) {
  if (WEXITSTATUS(status) == 2) {
    NOTE("%s", why);
    return true;
  }
  if (WEXITSTATUS(status) == 6 && on_reference_qemu()) {
    NOTE("qemu-aarch64 7.2 runs an RCU thread in every process: %s is EINVAL there", call);
    return true;
  }
  return false;
}

// In a child: unshare a user namespace, then take a signal another process sends. Exit status 0: done,
// 2: user namespaces not allowed here, 6: EINVAL (a multithreaded process), else a failure.
static int child_unshare(void) {
  struct sigaction sa = {0};
  sa.sa_handler = on_usr1;
  sigaction(SIGUSR1, &sa, NULL);  // before the parent may send it
  if (arm_timer() != 0) return 7;
  if (unshare(CLONE_NEWUSER) != 0) {
    const int code = unshare_failure();
    kill(getppid(), SIGUSR2);  // the parent need not wait
    return code;
  }
  // Unmapped in the new namespace: the overflow ids.
  if (getuid() != 65534) return 4;
  if (ticks_after() < 3) return 8;
  // The parent's signal comes through the (new) intake thread.
  write(1, "", 0);
  kill(getppid(), SIGUSR2);
  for (int i = 0; i < 500 && !got; i++) usleep(10 * 1000);
  if (!got) return 5;
  // The parent's setns child joins this namespace meanwhile; a second SIGUSR1 ends the wait.
  for (int i = 0; i < 1000 && got < 2; i++) usleep(10 * 1000);
  return got >= 2 ? 0 : 9;
}

// In a child: join the user namespace of process `pid` (made by a root-owned unshare, so root may). 0: done,
// 2: EPERM (not allowed here), 6: EINVAL, else a failure.
static int child_setns(pid_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/ns/user", (int)pid);
  const int fd = open(path, O_RDONLY);
  if (fd < 0) return 3;
  if (arm_timer() != 0) return 7;
  if (setns(fd, CLONE_NEWUSER) != 0) return errno == EPERM ? 2 : errno == EINVAL ? 6 : 3;
  if (getuid() != 65534) return 4;
  return ticks_after() < 3 ? 8 : 0;
}

static volatile sig_atomic_t chld;
static void on_chld(int sig) {
  (void)sig;
  chld++;
}

// In a child: unshare a user and a PID namespace at once (the intake thread must come back before the PID
// namespace forbids the process new threads), then: no thread can be made (EINVAL, as on Linux), the first
// child is PID 1 of the new namespace, its SIGCHLD arrives, and so does the parent's SIGUSR1; the call takes
// well under its timer slack. Exit status 0: done, 2: not allowed here, 6: EINVAL, else a failure.
static int child_unshare_pid(void) {
  struct sigaction sa = {0};
  sa.sa_handler = on_usr1;
  sigaction(SIGUSR1, &sa, NULL);
  sa.sa_handler = on_chld;
  sigaction(SIGCHLD, &sa, NULL);
  // A timer slack of 3 s, which stretches this thread's sleeps (a64run's waits in the call must not sleep).
  prctl(PR_SET_TIMERSLACK, 3000000000UL, 0, 0, 0);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  if (unshare(CLONE_NEWUSER | CLONE_NEWPID) != 0) {
    const int code = unshare_failure();
    kill(getppid(), SIGUSR2);
    return code;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  prctl(PR_SET_TIMERSLACK, 0, 0, 0, 0);  // the default again
  if (t1.tv_sec - t0.tv_sec >= 2) return 10;
  pthread_t th;
  if (pthread_create(&th, NULL, idle, NULL) != EINVAL) return 4;
  // A nested user namespace, before the PID namespace has a process: Linux gives it to a one-thread
  // process; a64run, whose own thread could not start again now, answers as for a multithreaded one. The
  // signals below must still arrive either way.
  if (unshare(CLONE_NEWUSER) != 0 && errno != EINVAL) return 11;
  const pid_t pid1 = fork();
  if (pid1 == 0) _exit(getpid() == 1 ? 42 : 1);
  if (pid1 < 0) return 5;
  int status;
  if (waitpid(pid1, &status, 0) != pid1 || !WIFEXITED(status) || WEXITSTATUS(status) != 42) return 7;
  if (!chld) return 8;
  kill(getppid(), SIGUSR2);
  for (int i = 0; i < 500 && !got; i++) usleep(10 * 1000);
  return got ? 0 : 9;
}

static void unshare_pid(sigset_t* set) {
  got = 0;
  pid_t pid = fork();
  if (pid == 0) _exit(child_unshare_pid());
  siginfo_t si;
  struct timespec wait = {10, 0};
  const int s = sigtimedwait(set, &si, &wait);
  if (s == SIGUSR2) kill(pid, SIGUSR1);
  int status;
  CHECK_EQ(waitpid(pid, &status, 0), pid);
  REQUIRE(WIFEXITED(status));
  if (!left_out(status, "user and PID namespaces are not allowed here: unshare of both is left out",
                "unshare(CLONE_NEWUSER)")) {
    CHECK_EQ(s, SIGUSR2);
    CHECK_EQ(WEXITSTATUS(status), 0);
  }
}

// The stress: while a child joins its own mount namespace again and again (setns needs a single-threaded
// process for that too, so a64run's intake thread ends and starts each time), the parent queues it
// kStressSignals RT signals; every one must arrive, none lost in the gaps.
enum { kStressJoins = 200, kStressSignals = 400 };
static volatile sig_atomic_t rt_count;
static void on_rt(int sig) {
  (void)sig;
  rt_count++;
}

// Exit status 0: all joins done and every signal taken, 2: not allowed here (EPERM), 6: EINVAL (a
// multithreaded process), 10: signals missing, else a failure.
static int child_stress(void) {
  const int fd = open("/proc/self/ns/mnt", O_RDONLY);
  if (fd < 0) return 3;
  int code = 0;
  for (int i = 0; i < kStressJoins && code == 0; i++) {
    if (setns(fd, CLONE_NEWNS) != 0) code = errno == EPERM ? 2 : errno == EINVAL ? 6 : 3;
    if (i == 0) kill(getppid(), SIGUSR2);  // the parent starts sending
  }
  for (int i = 0; i < 500 && rt_count < kStressSignals; i++) usleep(10 * 1000);
  if (code != 0) return code;
  return rt_count == kStressSignals ? 0 : 10;
}

static void* quit(void* arg) {
  return arg;
}

static volatile sig_atomic_t self_uid = -1;
static void on_self(int sig, siginfo_t* si, void* ctx) {
  (void)sig;
  (void)ctx;
  self_uid = (sig_atomic_t)si->si_uid;
}

// SIGUSR1's handler records the si_uid it gets in self_uid.
static void catch_self_uid(void) {
  struct sigaction sa = {0};
  sa.sa_sigaction = on_self;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGUSR1, &sa, NULL);
}

// In a child: three threads created and joined, then at once unshare(CLONE_NEWUSER). Exit status as
// child_unshare's; 9: a kill of itself carried the uid from before the unshare (a64run kept it cached).
static int child_after_threads(void) {
  catch_self_uid();
  kill(getpid(), SIGUSR1);  // si_uid: the uid before
  if (self_uid != (sig_atomic_t)getuid()) return 9;
  for (int i = 0; i < 3; i++) {
    pthread_t th;
    if (pthread_create(&th, NULL, quit, NULL) != 0 || pthread_join(th, NULL) != 0) return 5;
  }
  if (unshare(CLONE_NEWUSER) != 0) return unshare_failure();
  if (getuid() != 65534) return 4;  // unmapped in the new namespace: the overflow id
  kill(getpid(), SIGUSR1);
  return self_uid == 65534 ? 0 : 9;
}

// In a child: unshare(CLONE_NEWUSER), a kill of itself (si_uid: the overflow uid), then the parent maps
// uid 0 through the child's uid_map (pipe `ask`, answer on `done`: 'y' mapped, 'n' not allowed): getuid
// and the next kill's si_uid are then 0, with no call of the child's in between. Exit status as
// child_after_threads's; 10: the map was not allowed.
static int child_mapped_later(int ask, int done) {
  catch_self_uid();
  if (unshare(CLONE_NEWUSER) != 0) return unshare_failure();
  kill(getpid(), SIGUSR1);
  if (self_uid != 65534) return 9;
  char c = 'm';
  if (write(ask, &c, 1) != 1 || read(done, &c, 1) != 1) return 3;
  if (c != 'y') return 10;
  if (getuid() != 0) return 4;
  kill(getpid(), SIGUSR1);
  return self_uid == 0 ? 0 : 9;
}

static void mapped_later(void) {
  int ask[2], done[2];
  REQUIRE_SYS(pipe(ask));
  REQUIRE_SYS(pipe(done));
  pid_t pid = fork();
  if (pid == 0) _exit(child_mapped_later(ask[1], done[0]));
  close(ask[1]);  // a child that ends early ends the read below
  close(done[0]);
  char c;
  if (read(ask[0], &c, 1) == 1) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/uid_map", (int)pid);
    int fd = open(path, O_WRONLY);
    c = fd >= 0 && write(fd, "0 0 1\n", 6) == 6 ? 'y' : 'n';
    if (fd >= 0) close(fd);
    CHECK_EQ(write(done[1], &c, 1), 1);
  }
  int status;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 10) {
    NOTE("uid maps are not allowed here: a map written later is not checked");
  } else if (!left_out(status, "user namespaces are not allowed here: a map written later is not checked",
                       "unshare(CLONE_NEWUSER)")) {
    CHECK_EQ(WEXITSTATUS(status), 0);
  }
  close(ask[0]);
  close(done[1]);
}

static void after_threads(void) {
  for (int round = 0; round < 100; round++) {
    pid_t pid = fork();
    if (pid == 0) _exit(child_after_threads());
    int status;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    REQUIRE(WIFEXITED(status));
    if (left_out(status, "user namespaces are not allowed here: unshare after joined threads is not checked",
                 "unshare(CLONE_NEWUSER)"))
      return;
    if (!CHECK_EQ(WEXITSTATUS(status), 0)) NOTE("round %d", round);
  }
}

static void stress(sigset_t* set) {
  struct sigaction sa = {0};
  sa.sa_handler = on_rt;
  sigaction(SIGRTMIN, &sa, NULL);  // the child inherits it
  pid_t pid = fork();
  if (pid == 0) _exit(child_stress());
  siginfo_t si;
  struct timespec wait = {10, 0};
  CHECK_EQ(sigtimedwait(set, &si, &wait), SIGUSR2);
  union sigval v = {0};
  int sent = 0;
  for (int i = 0; i < kStressSignals; i++) sent += sigqueue(pid, SIGRTMIN, v) == 0;
  CHECK_EQ(sent, kStressSignals);
  int status;
  CHECK_EQ(waitpid(pid, &status, 0), pid);
  REQUIRE(WIFEXITED(status));
  if (!left_out(status, "setns into a mount namespace is not allowed here: the stress is left out",
                "setns of a mount namespace"))
    CHECK_EQ(WEXITSTATUS(status), 0);
}

int main(void) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR2);
  sigprocmask(SIG_BLOCK, &set, NULL);
  pid_t pid = fork();
  if (pid == 0) _exit(child_unshare());
  siginfo_t si;
  struct timespec wait = {10, 0};
  int s = sigtimedwait(&set, &si, &wait);
  if (s == SIGUSR2) kill(pid, SIGUSR1);
  int status;
  // The child's namespace for a second child to join, while the first waits in pause().
  int joined = -1;
  if (s == SIGUSR2 && waitpid(pid, &status, WNOHANG) == 0) {
    pid_t joiner = fork();
    if (joiner == 0) _exit(child_setns(pid));
    int js;
    waitpid(joiner, &js, 0);
    joined = WIFEXITED(js) ? WEXITSTATUS(js) : 100;
    kill(pid, SIGUSR1);  // ends the first child's second wait
  }
  waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 2) CHECK_EQ(s, SIGUSR2);  // the child refused, then said so
  if (!left_out(status, "user namespaces are not allowed here: only the multithreaded case is checked",
                "unshare(CLONE_NEWUSER)")) {
    CHECK_EQ(s, SIGUSR2);
    CHECK_EQ(WEXITSTATUS(status), 0);
    if (joined == 2) {
      NOTE("setns into a child's user namespace is not allowed here");
    } else {
      CHECK_EQ(joined, 0);
    }
  }

  stress(&set);
  unshare_pid(&set);
  after_threads();
  mapped_later();

  // With a second thread: EINVAL. (qemu-aarch64 7.2 runs a thread of its own in every process: the same.)
  pthread_t th;
  pthread_create(&th, NULL, idle, NULL);
  CHECK_ERRNO(unshare(CLONE_NEWUSER), EINVAL);
  int fd = open("/proc/self/ns/user", O_RDONLY);
  if (fd >= 0) {
    CHECK_ERRNO(setns(fd, CLONE_NEWUSER), EINVAL);
    close(fd);
  }
  return check_done();
}
