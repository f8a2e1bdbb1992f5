// Tests the signal lines of /proc/<pid>/status and fields 31-34 of /proc/<pid>/stat (fs/proc/array.c):
// SigPnd is the thread's own pending signals, ShdPnd the process's, SigBlk the thread's mask, SigIgn the
// actions set to SIG_IGN, SigCgt those with a handler; stat's signal, blocked, sigignore and sigcatch are the
// same sets' low 31 bits in decimal. A second thread's /proc/self/task/<tid>/status and /proc/thread-self
// show its own mask and pending set. execve(2) keeps the mask, the ignored signals and the pending ones
// (signal(7): "the pending signal set is preserved across an execve"), and resets the caught ones.
//
// qemu-aarch64 7.2 passes /proc/self/status through from its host process (whose signal state is qemu's
// own, not the guest's) and fakes stat's signal fields as 0, and its execve loses the signals pending in
// its own queues: those checks are a64run's only (on_reference_qemu).
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../procs/self_exec.h"
#include "check.h"

// Two RT signals (glibc's SIGRTMIN is 34, a function call).
#define SIG_RT3 37
#define SIG_RT5 39
#define BIT(sig) (1ull << ((sig)-1))
// glibc's own signals (SIGCANCEL, SIGSETXID): its handlers may be installed (over an inherited SIG_IGN, at
// the first pthread_create), never in a mask it reports.
#define GLIBC_SIGS (BIT(32) | BIT(33))

static const uint64_t kSetIgnored = BIT(SIGUSR2) | BIT(SIG_RT3);
// Those and the signals ignored when the test started (its environment's: ctest's 32 and 33, a background
// job's SIGINT), which every execve passes on.
static uint64_t kIgnored;

// The signals whose action is SIG_IGN, read with rt_sigaction itself (glibc's refuses 32 and 33).
static uint64_t ignored_now(void) {
  uint64_t set = 0;
  for (int sig = 1; sig <= 64; sig++) {
    struct {
      unsigned long handler, flags, restorer, mask;
    } act = {0};
    if (syscall(SYS_rt_sigaction, sig, NULL, &act, 8) == 0 && act.handler == (unsigned long)SIG_IGN)
      set |= BIT(sig);
  }
  return set;
}
static const uint64_t kCaught = BIT(SIGUSR1) | BIT(SIGALRM);
static const uint64_t kBlocked = BIT(SIGTERM) | BIT(SIG_RT5) | BIT(64) | BIT(SIGHUP);
static const uint64_t kThreadPending = BIT(SIGTERM);
static const uint64_t kSharedPending = BIT(SIG_RT5) | BIT(SIGHUP);

static void on_signal(int sig) {
  (void)sig;
}

// The hexadecimal set on the line starting with `name` of the status file at `path`.
static uint64_t status_set(const char* path, const char* name) {
  FILE* f = fopen(path, "r");
  REQUIRE(f != NULL);
  char line[256];
  uint64_t v = UINT64_MAX;
  const size_t n = strlen(name);
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, name, n) == 0 && line[n] == ':') {
      CHECK_EQ(strlen(line), n + 2 + 16 + 1);  // "Name:\t" 16 hex digits "\n" (render_sigset_t)
      v = strtoull(line + n + 1, NULL, 16);
    }
  }
  fclose(f);
  if (!CHECK_NE(v, UINT64_MAX)) NOTE("%s: no %s line", path, name);
  return v;
}

// Field `field` (1-based) of /proc/self/stat.
static unsigned long long stat_field(int field) {
  FILE* f = fopen("/proc/self/stat", "r");
  REQUIRE(f != NULL);
  char buf[2048];
  const size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  char* p = strrchr(buf, ')');
  REQUIRE(p != NULL);
  p += 2;  // field 3
  for (int i = 3; i < field; i++) {
    p = strchr(p, ' ');
    REQUIRE(p != NULL);
    p++;
  }
  return strtoull(p, NULL, 10);
}

static void check_process(const char* path, uint64_t caught, uint64_t thread_pending) {
  NOTE("%s", path);
  CHECK_EQ(status_set(path, "SigPnd"), thread_pending);
  CHECK_EQ(status_set(path, "ShdPnd"), kSharedPending);
  CHECK_EQ(status_set(path, "SigBlk"), kBlocked);
  CHECK_EQ(status_set(path, "SigIgn") & ~GLIBC_SIGS, kIgnored & ~GLIBC_SIGS);
  CHECK_EQ(status_set(path, "SigCgt") & ~GLIBC_SIGS, caught);
}

static pthread_barrier_t ready, checked;
static int second_tid;

static void* second_thread(void* arg) {
  (void)arg;
  sigset_t more;
  sigemptyset(&more);
  sigaddset(&more, SIGUSR1);
  sigaddset(&more, SIGWINCH);
  REQUIRE_SYS(pthread_sigmask(SIG_BLOCK, &more, NULL));
  REQUIRE_SYS(syscall(SYS_tgkill, getpid(), gettid(), SIGWINCH));  // pending on this thread only
  second_tid = gettid();
  if (!on_reference_qemu()) {
    CHECK_EQ(status_set("/proc/thread-self/status", "SigBlk"), kBlocked | BIT(SIGUSR1) | BIT(SIGWINCH));
    CHECK_EQ(status_set("/proc/thread-self/status", "SigPnd"), BIT(SIGWINCH));
    CHECK_EQ(status_set("/proc/thread-self/status", "ShdPnd"), kSharedPending);
  }
  pthread_barrier_wait(&ready);
  pthread_barrier_wait(&checked);
  return NULL;
}

static void after_exec(const char* ignored) {
  NOTE("after execve");
  kIgnored = strtoull(ignored, NULL, 16);
  // qemu-aarch64 7.2 puts its host handler over a signal ignored when it started, so its execve does not
  // keep that ignore: there only the test's own count.
  if (on_reference_qemu()) kIgnored = kSetIgnored;
  for (int sig = 1; sig < 65; sig++) {
    if (sig == SIGKILL || sig == SIGSTOP || sig == 32 || sig == 33) continue;
    struct sigaction sa;
    REQUIRE_SYS(sigaction(sig, NULL, &sa));
    if (!CHECK_EQ(sa.sa_handler == SIG_IGN, (kIgnored & BIT(sig)) != 0)) NOTE("signal %d", sig);
    if (!CHECK(sa.sa_handler == SIG_IGN || sa.sa_handler == SIG_DFL)) NOTE("signal %d", sig);
  }
  sigset_t pending;
  REQUIRE_SYS(sigpending(&pending));
  if (!on_reference_qemu()) {
    check_process("/proc/self/status", 0, kThreadPending);
    for (int sig = 1; sig < 65; sig++) {
      if (sig == 32 || sig == 33) continue;
      const int want = ((kThreadPending | kSharedPending) & BIT(sig)) != 0;
      if (!CHECK_EQ(sigismember(&pending, sig), want)) NOTE("pending %d", sig);
    }
    // The kept signals are taken as before, with their siginfo: the thread's first, then the shared ones,
    // lowest first (the system call itself: glibc's sigtimedwait reports SI_TKILL as SI_USER).
    siginfo_t info;
    const struct timespec now = {0, 0};
    sigset_t all;
    sigfillset(&all);
#define TAKE() syscall(SYS_rt_sigtimedwait, &all, &info, &now, 8)
    CHECK_EQ(TAKE(), SIGTERM);
    CHECK_EQ(info.si_code, SI_TKILL);
    CHECK_EQ(info.si_pid, getpid());
    CHECK_EQ(TAKE(), SIGHUP);
    CHECK_EQ(info.si_code, SI_USER);
    CHECK_EQ(info.si_pid, getpid());
    CHECK_EQ(TAKE(), SIG_RT5);
    CHECK_EQ(info.si_code, SI_QUEUE);
    CHECK_EQ(info.si_value.sival_int, 4242);
    CHECK_EQ(TAKE(), -1);
  }
  exit(check_done());
}

int main(int argc, char** argv) {
  if (argc > 2 && strcmp(argv[1], "after-exec") == 0) after_exec(argv[2]);
  kIgnored = kSetIgnored | ignored_now();

  for (int sig = 1; sig < 65; sig++) {
    if (kSetIgnored & BIT(sig)) REQUIRE(signal(sig, SIG_IGN) != SIG_ERR);
    if (kCaught & BIT(sig)) REQUIRE(signal(sig, on_signal) != SIG_ERR);
  }
  sigset_t mask;
  sigemptyset(&mask);
  for (int sig = 1; sig < 65; sig++) {
    if (kBlocked & BIT(sig)) sigaddset(&mask, sig);
  }
  REQUIRE_SYS(sigprocmask(SIG_SETMASK, &mask, NULL));
  REQUIRE_SYS(raise(SIGTERM));  // tgkill: this thread's
  REQUIRE_SYS(kill(getpid(), SIGHUP));
  REQUIRE_SYS(sigqueue(getpid(), SIG_RT5, (union sigval){.sival_int = 4242}));
  REQUIRE_SYS(kill(getpid(), SIGUSR2));  // ignored and not blocked: discarded, never pending

  if (!on_reference_qemu()) {
    check_process("/proc/self/status", kCaught, kThreadPending);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", getpid());
    check_process(path, kCaught, kThreadPending);
    snprintf(path, sizeof path, "/proc/%d/task/%d/status", getpid(), gettid());
    check_process(path, kCaught, kThreadPending);
    CHECK_EQ(stat_field(31), kThreadPending & 0x7fffffff);
    CHECK_EQ(stat_field(32), kBlocked & 0x7fffffff);
    CHECK_EQ(stat_field(33), kIgnored & 0x7fffffff);
    CHECK_EQ(stat_field(34) & ~GLIBC_SIGS, kCaught & 0x7fffffff);
  }
  CHECK_EQ(status_set("/proc/self/status", "SigBlk") & BIT(SIGKILL), 0);

  sigset_t pending;
  REQUIRE_SYS(sigpending(&pending));
  CHECK_EQ(sigismember(&pending, SIGUSR2), 0);

  pthread_t th;
  pthread_barrier_init(&ready, NULL, 2);
  pthread_barrier_init(&checked, NULL, 2);
  REQUIRE(pthread_create(&th, NULL, second_thread, NULL) == 0);
  pthread_barrier_wait(&ready);
  if (!on_reference_qemu()) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/status", second_tid);
    CHECK_EQ(status_set(path, "SigBlk"), kBlocked | BIT(SIGUSR1) | BIT(SIGWINCH));
    CHECK_EQ(status_set(path, "SigPnd"), BIT(SIGWINCH));
    CHECK_EQ(status_set(path, "SigIgn") & ~GLIBC_SIGS, kIgnored & ~GLIBC_SIGS);
    snprintf(path, sizeof path, "/proc/self/task/%d/status", getpid());
    check_process(path, kCaught, kThreadPending);
  }
  pthread_barrier_wait(&checked);
  REQUIRE(pthread_join(th, NULL) == 0);

  char ignored[32];
  snprintf(ignored, sizeof ignored, "%llx", (unsigned long long)kIgnored);
  char* again[] = {argv[0], "after-exec", ignored, NULL};
  exec_guest(self_path(), again, environ);
  CHECK(!"execve failed");
  return check_done();
}
