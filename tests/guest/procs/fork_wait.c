// Tests fork and the wait family: the exit status matrix (codes 0, 1, 42, 255 by exit, _exit and return;
// death by SIGKILL, SIGTERM and SIGABRT sent with kill(getpid(), ...) under default dispositions); waitpid
// WNOHANG returns 0 while the child runs; waitid with WEXITED fills si_signo, si_pid, si_uid, si_status and
// si_code (CLD_EXITED, CLD_KILLED) and WNOWAIT leaves the child waitable; wait4 fills the rusage; wait()
// reaps several children in any order; ECHILD without children; the child's memory is a copy; getppid; stop
// and continue reported with WUNTRACED and WCONTINUED; fork from a process with a running thread; a
// SIGCHLD handler has run for a child by the time waitpid returns it (LTP kill12); clone with CLONE_NEWUTS
// makes a process in a new UTS namespace when privileged, else fails with EPERM (LTP clone09).
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

enum How { kExit, kUnderscoreExit, kKill };

// Forks a child that ends as told; returns its pid.
static pid_t spawn_ending(enum How how, int value) {
  pid_t pid = REQUIRE_SYS(fork());
  if (pid != 0) return pid;
  switch (how) {
    case kExit:
      exit(value);
    case kUnderscoreExit:
      _exit(value);
    case kKill:
      kill(getpid(), value);
      for (;;) pause();  // the signal ends us
  }
  _exit(99);
}

static int wait_status(pid_t pid) {
  int status = 0;
  pid_t got;
  do {
    got = waitpid(pid, &status, 0);
  } while (got == -1 && errno == EINTR);
  CHECK_EQ(got, pid);
  return status;
}

// waitpid with a deadline of 10 s, after which the child is killed with SIGKILL (the status then says so).
static int wait_status_within_10s(pid_t pid) {
  for (int i = 0; i < 10000; i++) {
    int status = 0;
    pid_t got = waitpid(pid, &status, WNOHANG);
    if (got == pid) return status;
    if (got != 0) {
      CHECK_EQ(got, 0);
      return -1;
    }
    usleep(1000);
  }
  NOTE("child %d still alive after 10 s: killing it", (int)pid);
  kill(pid, SIGKILL);
  return wait_status(pid);
}

static void test_status_matrix(void) {
  static const int codes[] = {0, 1, 42, 255};
  for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
    for (enum How how = kExit; how <= kUnderscoreExit; how++) {
      int status = wait_status(spawn_ending(how, codes[i]));
      if (!CHECK(WIFEXITED(status) && !WIFSIGNALED(status) && WEXITSTATUS(status) == codes[i]))
        NOTE("exit code %d via %s: status 0x%x", codes[i], how == kExit ? "exit" : "_exit", status);
    }
  }
  static const int signals[] = {SIGKILL, SIGTERM, SIGABRT};
  for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
    int status = wait_status(spawn_ending(kKill, signals[i]));
    if (!CHECK(WIFSIGNALED(status) && !WIFEXITED(status) && WTERMSIG(status) == signals[i]))
      NOTE("kill(getpid(), %s): status 0x%x", strsignal(signals[i]), status);
  }
}

static void test_wnohang(void) {
  int to_child[2];
  REQUIRE_SYS(pipe(to_child));
  pid_t pid = REQUIRE_SYS(fork());
  if (pid == 0) {
    close(to_child[1]);
    char c;
    ssize_t n = read(to_child[0], &c, 1);  // blocks until the parent writes
    _exit(n == 1 ? c : 100);
  }
  close(to_child[0]);
  int status = -1;
  CHECK_EQ(waitpid(pid, &status, WNOHANG), 0);  // still running (blocked in read)
  CHECK_EQ(status, -1);                         // and status untouched
  siginfo_t si;
  memset(&si, 0xff, sizeof si);
  CHECK_EQ(waitid(P_PID, pid, &si, WEXITED | WNOHANG), 0);
  CHECK_EQ(si.si_pid, 0);  // waitid's WNOHANG with nothing to report zeroes si_pid
  CHECK_EQ(write(to_child[1], "\x07", 1), 1);
  close(to_child[1]);
  status = wait_status(pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 7);
  CHECK_ERRNO(waitpid(pid, &status, WNOHANG), ECHILD);  // reaped
}

static void test_waitid(void) {
  pid_t pid = spawn_ending(kUnderscoreExit, 42);
  siginfo_t si;
  // WNOWAIT: report but leave it waitable.
  memset(&si, 0, sizeof si);
  CHECK_EQ(waitid(P_PID, pid, &si, WEXITED | WNOWAIT), 0);
  CHECK_EQ(si.si_signo, SIGCHLD);
  CHECK_EQ(si.si_pid, pid);
  CHECK_EQ(si.si_code, CLD_EXITED);
  CHECK_EQ(si.si_status, 42);
  memset(&si, 0, sizeof si);
  CHECK_EQ(waitid(P_PID, pid, &si, WEXITED), 0);
  CHECK_EQ(si.si_signo, SIGCHLD);
  CHECK_EQ(si.si_pid, pid);
  CHECK_EQ(si.si_uid, getuid());
  CHECK_EQ(si.si_code, CLD_EXITED);
  CHECK_EQ(si.si_status, 42);
  CHECK_ERRNO(waitid(P_PID, pid, &si, WEXITED | WNOHANG), ECHILD);

  pid = spawn_ending(kKill, SIGTERM);
  memset(&si, 0, sizeof si);
  CHECK_EQ(waitid(P_ALL, 0, &si, WEXITED), 0);
  CHECK_EQ(si.si_signo, SIGCHLD);
  CHECK_EQ(si.si_pid, pid);
  CHECK_EQ(si.si_code, CLD_KILLED);
  CHECK_EQ(si.si_status, SIGTERM);

  pid = spawn_ending(kKill, SIGKILL);
  memset(&si, 0, sizeof si);
  CHECK_EQ(waitid(P_PGID, getpgrp(), &si, WEXITED), 0);
  CHECK_EQ(si.si_pid, pid);
  CHECK_EQ(si.si_code, CLD_KILLED);
  CHECK_EQ(si.si_status, SIGKILL);
}

static void test_wait4_rusage(void) {
  pid_t pid = REQUIRE_SYS(fork());
  if (pid == 0) {
    // Some CPU time: spin for at least 50 ms of wall time.
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    volatile unsigned long n = 0;
    do {
      for (int i = 0; i < 100000; i++) n++;
      clock_gettime(CLOCK_MONOTONIC, &now);
    } while ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) < 50000000L);
    _exit(3);
  }
  struct rusage ru;
  memset(&ru, 0xff, sizeof ru);
  int status = 0;
  CHECK_EQ(wait4(pid, &status, 0, &ru), pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 3);
  CHECK(ru.ru_utime.tv_sec >= 0 && ru.ru_utime.tv_usec >= 0 && ru.ru_utime.tv_usec < 1000000);
  CHECK(ru.ru_stime.tv_sec >= 0 && ru.ru_stime.tv_usec >= 0 && ru.ru_stime.tv_usec < 1000000);
  long cpu_us =
      (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000L + ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
  CHECK_GT(cpu_us, 0);  // the child's spinning shows
  CHECK_LT(cpu_us, 60 * 1000000L);
  CHECK_GT(ru.ru_maxrss, 0);
  CHECK_GE(ru.ru_minflt, 0);
  // RUSAGE_CHILDREN now includes it.
  struct rusage children;
  CHECK_EQ(getrusage(RUSAGE_CHILDREN, &children), 0);
  CHECK_GE((children.ru_utime.tv_sec + children.ru_stime.tv_sec) * 1000000L + children.ru_utime.tv_usec +
               children.ru_stime.tv_usec,
           cpu_us);
}

static void test_many_children(void) {
  enum { kChildren = 6 };
  pid_t pids[kChildren];
  for (int i = 0; i < kChildren; i++) pids[i] = spawn_ending(kExit, 10 + i);
  int seen[kChildren] = {0};
  for (int n = 0; n < kChildren; n++) {
    int status = 0;
    pid_t got = wait(&status);
    int found = 0;
    for (int i = 0; i < kChildren; i++) {
      if (pids[i] == got) {
        found = 1;
        seen[i]++;
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 10 + i);
      }
    }
    CHECK(found);
  }
  for (int i = 0; i < kChildren; i++) CHECK_EQ(seen[i], 1);
  int status;
  CHECK_ERRNO(wait(&status), ECHILD);
  CHECK_ERRNO(waitpid(-1, &status, WNOHANG), ECHILD);
}

static int shared_before_fork = 5;

static void test_copy_and_ids(void) {
  pid_t parent = getpid();
  int pipefd[2];
  REQUIRE_SYS(pipe(pipefd));
  pid_t pid = REQUIRE_SYS(fork());
  if (pid == 0) {
    shared_before_fork = 6;  // the parent must not see this
    pid_t ids[2] = {getpid(), getppid()};
    write(pipefd[1], ids, sizeof ids);
    _exit(ids[1] == parent ? 0 : 1);
  }
  pid_t ids[2] = {0, 0};
  CHECK_EQ(read(pipefd[0], ids, sizeof ids), sizeof ids);
  close(pipefd[0]);
  close(pipefd[1]);
  int status = wait_status(pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK_EQ(ids[0], pid);     // fork returned the child's pid
  CHECK_EQ(ids[1], parent);  // and the child's getppid() is us
  CHECK_NE(pid, parent);
  CHECK_EQ(shared_before_fork, 5);
}

static void test_stop_continue(void) {
  int to_child[2];
  REQUIRE_SYS(pipe(to_child));
  pid_t pid = REQUIRE_SYS(fork());
  if (pid == 0) {
    close(to_child[1]);
    char c;
    _exit(read(to_child[0], &c, 1) == 0 ? 0 : 1);  // waits for EOF
  }
  close(to_child[0]);
  CHECK_SYS(kill(pid, SIGSTOP));
  int status = 0;
  CHECK_EQ(waitpid(pid, &status, WUNTRACED), pid);
  CHECK(WIFSTOPPED(status) && WSTOPSIG(status) == SIGSTOP);
  CHECK_SYS(kill(pid, SIGCONT));
  CHECK_EQ(waitpid(pid, &status, WCONTINUED), pid);
  CHECK(WIFCONTINUED(status));
  close(to_child[1]);
  status = wait_status(pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static atomic_int spinning;

static void* spin(void* arg) {
  (void)arg;
  atomic_store(&spinning, 1);
  for (;;) {
    if (atomic_load(&spinning) == 2) return NULL;
  }
}

static void test_fork_with_thread_running(void) {
  pthread_t t;
  REQUIRE(pthread_create(&t, NULL, spin, NULL) == 0);
  while (!atomic_load(&spinning)) sched_yield();
  pid_t pid = REQUIRE_SYS(fork());
  if (pid == 0) {
    // Only the forking thread exists here; the emulator and libc must still work (malloc, stdio, threads).
    char* p = malloc(1000);
    snprintf(p, 1000, "child %d", (int)getpid());
    if (p[0] != 'c') _exit(1);
    // qemu-aarch64 7.2 aborts here ("plugins/core.c:221: qemu_plugin_vcpu_init_hook: assertion failed"):
    // the child of a fork in a multithreaded guest drops the other threads' CPUs from its list but not
    // their indices from the plugin table, so the new thread's CPU index is taken.
    if (on_reference_qemu()) _exit(0);
    pthread_t t2;
    void* r = NULL;
    int ok = pthread_create(&t2, NULL, (void* (*)(void*))strdup, "x") == 0 && pthread_join(t2, &r) == 0 &&
             r && strcmp(r, "x") == 0;
    _exit(ok ? 0 : 2);
  }
  int status = wait_status_within_10s(pid);
  if (!CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0))
    NOTE("child forked beside a running thread: status 0x%x (exit 1: malloc/stdio, 2: thread creation)",
         status);
  atomic_store(&spinning, 2);
  REQUIRE(pthread_join(t, NULL) == 0);
}

static volatile sig_atomic_t sigchld_count;

static void count_sigchld(int sig) {
  (void)sig;
  sigchld_count++;
}

// Linux queues the child's SIGCHLD before the child is waitable, so the handler runs before waitpid
// returns (or as it returns): LTP kill12 counts on it.
static void test_sigchld_before_wait_returns(void) {
  struct sigaction sa = {.sa_handler = count_sigchld}, old;
  REQUIRE_SYS(sigaction(SIGCHLD, &sa, &old));
  for (int i = 0; i < 60; i++) {
    sigchld_count = 0;
    pid_t pid = REQUIRE_SYS(fork());
    if (pid == 0) _exit(0);
    int status = wait_status(pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (!CHECK_EQ(sigchld_count, 1)) break;
  }
  REQUIRE_SYS(sigaction(SIGCHLD, &old, NULL));
}

// CAP_SYS_ADMIN (bit 21) in CapEff of /proc/self/status.
static int has_cap_sys_admin(void) {
  FILE* f = fopen("/proc/self/status", "r");
  if (!f) return 0;
  char line[256];
  unsigned long long caps = 0;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "CapEff: %llx", &caps) == 1) break;
  fclose(f);
  return (caps >> 21) & 1;
}

static void test_clone_new_uts_namespace(void) {
  // qemu-aarch64 takes a clone without CLONE_VM as fork and rejects every namespace flag but CLONE_NEWNS
  // with EINVAL.
  if (on_reference_qemu()) return;
  char mine[64] = {0};
  if (readlink("/proc/self/ns/uts", mine, sizeof mine - 1) <= 0) {
    NOTE("no /proc/self/ns/uts: skipped");
    return;
  }
  const int privileged = has_cap_sys_admin();
  long pid = syscall(SYS_clone, CLONE_NEWUTS | SIGCHLD, 0, 0, 0, 0);
  const int err = errno;
  if (!privileged) {
    if (pid == 0) _exit(0);  // unexpected success: the parent reports it
    CHECK_EQ(pid, -1);
    CHECK_EQ(err, EPERM);  // the host kernel's answer without CAP_SYS_ADMIN
    if (pid > 0) wait_status((pid_t)pid);
    return;
  }
  if (!CHECK_NE(pid, -1)) {
    NOTE("clone(CLONE_NEWUTS) with CAP_SYS_ADMIN: errno %d", err);
    return;
  }
  if (pid == 0) {
    char theirs[64] = {0};
    _exit(readlink("/proc/self/ns/uts", theirs, sizeof theirs - 1) > 0 && strcmp(mine, theirs) != 0 ? 0 : 1);
  }
  int status = wait_status((pid_t)pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(void) {
  int status;
  CHECK_ERRNO(wait(&status), ECHILD);  // no children yet
  NOTE("exit status matrix");
  test_status_matrix();
  // Return from main in the child: exit status through the normal libc path.
  pid_t pid = REQUIRE_SYS(fork());
  if (pid == 0) return 42;
  status = wait_status(pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 42);
  NOTE("WNOHANG");
  test_wnohang();
  NOTE("waitid");
  test_waitid();
  NOTE("wait4 rusage");
  test_wait4_rusage();
  NOTE("several children");
  test_many_children();
  NOTE("memory copy and ids");
  test_copy_and_ids();
  NOTE("stop and continue");
  test_stop_continue();
  NOTE("fork with a thread running");
  test_fork_with_thread_running();
  NOTE("SIGCHLD handled before waitpid returns");
  test_sigchld_before_wait_returns();
  NOTE("clone with CLONE_NEWUTS");
  test_clone_new_uts_namespace();
  return check_done();
}
