// Tests queued signals: RT signals queue in order with their siginfo (sigqueue's si_value), a handler whose
// sa_mask blocks them sees them one by one, lowest number first and in arrival order within one number;
// every one of 32..64 can be caught by a handler and taken by rt_sigtimedwait (raw syscalls, as glibc keeps
// 32 and 33 for itself); standard signals coalesce (per pending queue: these are all process-directed) and
// keep the first siginfo; RLIMIT_SIGPENDING bounds the
// queue (sigqueue fails with EAGAIN, nothing queued is lost); rt_sigqueueinfo may use a non-negative si_code
// only towards the caller itself (EPERM for another process or from another thread), rt_tgsigqueueinfo only
// towards the calling thread, and both deliver the caller's siginfo to the target.
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define MAX_SIG 64

struct seen {
  int sig, code, value;
};
static struct seen seen[256];
static volatile int nseen;

static void record(int sig, siginfo_t* info, void* uc) {
  (void)uc;
  if (nseen < 256) seen[nseen++] = (struct seen){sig, info->si_code, info->si_value.sival_int};
}

// Raw rt_sigaction / rt_sigprocmask / rt_sigtimedwait with the kernel's 8-byte sigset.
struct ksigaction {
  void* handler;
  unsigned long flags;
  void* restorer;
  uint64_t mask;
};
static long kaction(int sig, void* handler, unsigned long flags, uint64_t mask) {
  struct ksigaction k = {handler, flags, NULL, mask};
  return syscall(SYS_rt_sigaction, sig, &k, NULL, 8);
}
static long kmask(int how, uint64_t set, uint64_t* old) {
  return syscall(SYS_rt_sigprocmask, how, &set, old, 8);
}
static uint64_t bit(int sig) {
  return 1ull << (sig - 1);
}
static long queue_self(int sig, int code, int value) {
  siginfo_t si;
  memset(&si, 0, sizeof si);
  si.si_signo = sig;
  si.si_code = code;
  si.si_pid = getpid();
  si.si_uid = getuid();
  si.si_value.sival_int = value;
  return syscall(SYS_rt_sigqueueinfo, getpid(), sig, &si);
}

// The highest RT signal this lane can use: qemu 7.2 gap, it cannot deliver guest signals 63 and 64.
static int top_rt(void) {
  return on_reference_qemu() ? 62 : MAX_SIG;
}

static void test_order_and_payload(void) {
  const int lo = SIGRTMIN, hi = SIGRTMIN + 2;
  uint64_t both = bit(lo) | bit(hi);
  REQUIRE_SYS(kaction(lo, (void*)record, SA_SIGINFO, both));
  REQUIRE_SYS(kaction(hi, (void*)record, SA_SIGINFO, both));
  REQUIRE_SYS(kmask(SIG_BLOCK, both, NULL));
  for (int i = 1; i <= 4; i++) {
    CHECK_SYS(sigqueue(getpid(), hi, (union sigval){.sival_int = 200 + i}));
    CHECK_SYS(sigqueue(getpid(), lo, (union sigval){.sival_int = 100 + i}));
  }
  nseen = 0;
  REQUIRE_SYS(kmask(SIG_UNBLOCK, both, NULL));
  CHECK_EQ(nseen, 8);
  for (int i = 0; i < 8 && i < nseen; i++) {
    const int want_sig = i < 4 ? lo : hi;
    const int want_value = (i < 4 ? 101 : 201) + i % 4;
    CHECK_EQ(seen[i].sig, want_sig);
    CHECK_EQ(seen[i].code, SI_QUEUE);
    if (!CHECK_EQ(seen[i].value, want_value)) NOTE("position %d", i);
  }
  signal(lo, SIG_DFL);
  signal(hi, SIG_DFL);
}

// Every RT signal, 32 included: a handler runs for each, and rt_sigtimedwait takes two of each in order.
static void test_every_rt_signal(void) {
  const int top = top_rt();
  uint64_t all = 0;
  for (int sig = 32; sig <= top; sig++) all |= bit(sig);
  for (int sig = 32; sig <= top; sig++) REQUIRE_SYS(kaction(sig, (void*)record, SA_SIGINFO, 0));
  nseen = 0;
  for (int sig = 32; sig <= top; sig++) CHECK_SYS(syscall(SYS_tgkill, getpid(), gettid(), sig));
  CHECK_EQ(nseen, top - 31);
  for (int i = 0; i < nseen; i++) {
    CHECK_EQ(seen[i].sig, 32 + i);
    CHECK_EQ(seen[i].code, SI_TKILL);
  }

  uint64_t old;
  REQUIRE_SYS(kmask(SIG_BLOCK, all, &old));
  for (int sig = top; sig >= 32; sig--) {
    CHECK_SYS(queue_self(sig, SI_QUEUE, sig * 10));
    CHECK_SYS(queue_self(sig, SI_QUEUE, sig * 10 + 1));
  }
  for (int sig = 32; sig <= top; sig++) {
    for (int k = 0; k < 2; k++) {
      siginfo_t si;
      struct timespec zero = {0, 0};
      long r = syscall(SYS_rt_sigtimedwait, &all, &si, &zero, 8);
      if (!CHECK_EQ(r, sig)) continue;
      CHECK_EQ(si.si_signo, sig);
      CHECK_EQ(si.si_code, SI_QUEUE);
      CHECK_EQ(si.si_value.sival_int, sig * 10 + k);
    }
  }
  struct timespec zero = {0, 0};
  CHECK_ERRNO(syscall(SYS_rt_sigtimedwait, &all, NULL, &zero, 8), EAGAIN);
  kmask(SIG_SETMASK, old, NULL);
  for (int sig = 32; sig <= top; sig++) kaction(sig, SIG_DFL, 0, 0);
}

static void test_coalesce(void) {
  REQUIRE_SYS(kaction(SIGUSR1, (void*)record, SA_SIGINFO, 0));
  REQUIRE_SYS(kmask(SIG_BLOCK, bit(SIGUSR1), NULL));
  CHECK_SYS(sigqueue(getpid(), SIGUSR1, (union sigval){.sival_int = 7}));
  CHECK_SYS(sigqueue(getpid(), SIGUSR1, (union sigval){.sival_int = 8}));
  CHECK_SYS(kill(getpid(), SIGUSR1));
  nseen = 0;
  REQUIRE_SYS(kmask(SIG_UNBLOCK, bit(SIGUSR1), NULL));
  CHECK_EQ(nseen, 1);
  CHECK_EQ(seen[0].value, 7);
  CHECK_EQ(seen[0].code, SI_QUEUE);
  signal(SIGUSR1, SIG_DFL);
}

// RLIMIT_SIGPENDING: queued RT signals beyond the limit fail with EAGAIN; the queued ones all arrive.
static void test_rlimit(void) {
  struct rlimit saved;
  REQUIRE_SYS(getrlimit(RLIMIT_SIGPENDING, &saved));
  REQUIRE(saved.rlim_max >= 16);
  struct rlimit lim = {16, saved.rlim_max};
  REQUIRE_SYS(setrlimit(RLIMIT_SIGPENDING, &lim));
  const int sig = SIGRTMIN + 3;
  REQUIRE_SYS(kaction(sig, (void*)record, SA_SIGINFO, 0));
  REQUIRE_SYS(kmask(SIG_BLOCK, bit(sig), NULL));
  int queued = 0, err = 0;
  for (int i = 0; i < 64; i++) {
    if (sigqueue(getpid(), sig, (union sigval){.sival_int = i}) != 0) {
      err = errno;
      break;
    }
    queued++;
  }
  CHECK_EQ(err, EAGAIN);
  // Linux counts the pending signals of the whole user (other processes of this uid may hold some) and qemu
  // keeps one signal in its own table, so the reference lane can only bound the count; a64run counts this
  // process's queue: exactly the limit.
  CHECK_GE(queued, 1);
  CHECK_LE(queued, 17);
  if (!on_reference_qemu()) CHECK_EQ(queued, 16);
  nseen = 0;
  REQUIRE_SYS(kmask(SIG_UNBLOCK, bit(sig), NULL));
  CHECK_EQ(nseen, queued);
  for (int i = 0; i < nseen; i++) CHECK_EQ(seen[i].value, i);
  // Below the limit again: queueing works.
  CHECK_SYS(sigqueue(getpid(), sig, (union sigval){.sival_int = 99}));
  CHECK_SYS(setrlimit(RLIMIT_SIGPENDING, &saved));
  signal(sig, SIG_DFL);
}

static volatile long other_thread_result, other_thread_errno;
static void* queue_from_other_thread(void* arg) {
  (void)arg;
  other_thread_result = queue_self(SIGUSR1, SI_USER, 5);
  other_thread_errno = errno;
  return NULL;
}

static void test_sigqueueinfo_codes(void) {
  REQUIRE_SYS(kaction(SIGUSR1, (void*)record, SA_SIGINFO, 0));
  // To itself (the main thread's tid is the pid): kernel si_codes are allowed, and delivered as given.
  nseen = 0;
  CHECK_SYS(queue_self(SIGUSR1, SI_USER, 11));
  CHECK_SYS(queue_self(SIGUSR1, SI_TKILL, 12));
  CHECK_SYS(queue_self(SIGUSR1, SI_QUEUE, 13));
  CHECK_EQ(nseen, 3);
  const int codes[] = {SI_USER, SI_TKILL, SI_QUEUE};
  for (int i = 0; i < 3 && i < nseen; i++) CHECK_EQ(seen[i].code, codes[i]);
  if (nseen == 3) CHECK_EQ(seen[2].value, 13);
  // From another thread of the process, a non-negative si_code is refused.
  pthread_t th;
  REQUIRE(pthread_create(&th, NULL, queue_from_other_thread, NULL) == 0);
  pthread_join(th, NULL);
  CHECK_EQ(other_thread_result, -1);
  CHECK_EQ(other_thread_errno, EPERM);

  // To another process: SI_QUEUE arrives with its value; SI_USER and SI_TKILL are refused.
  REQUIRE_SYS(kmask(SIG_BLOCK, bit(SIGUSR1), NULL));
  pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGUSR1);
    siginfo_t si;
    int r = sigwaitinfo(&s, &si);
    _exit(r == SIGUSR1 && si.si_code == SI_QUEUE && si.si_value.sival_int == 77 && si.si_pid == getppid()
              ? 0
              : 1);
  }
  siginfo_t si;
  memset(&si, 0, sizeof si);
  si.si_signo = SIGUSR1;
  si.si_pid = getpid();
  si.si_uid = getuid();
  si.si_code = SI_USER;
  CHECK_ERRNO(syscall(SYS_rt_sigqueueinfo, child, SIGUSR1, &si), EPERM);
  si.si_code = SI_TKILL;
  CHECK_ERRNO(syscall(SYS_rt_sigqueueinfo, child, SIGUSR1, &si), EPERM);
  si.si_code = SI_QUEUE;
  si.si_value.sival_int = 77;
  CHECK_SYS(syscall(SYS_rt_sigqueueinfo, child, SIGUSR1, &si));
  int status = 0;
  CHECK_EQ(waitpid(child, &status, 0), child);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  kmask(SIG_UNBLOCK, bit(SIGUSR1), NULL);
  signal(SIGUSR1, SIG_DFL);
}

// rt_tgsigqueueinfo: to a thread waiting in sigwaitinfo (SI_QUEUE), refused for SI_USER, allowed to itself.
static _Atomic int waiter_tid;
static volatile int waiter_sig, waiter_value, waiter_code;
static void* waiter_main(void* arg) {
  (void)arg;
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGUSR2);
  waiter_tid = gettid();
  siginfo_t si;
  waiter_sig = sigwaitinfo(&s, &si);
  waiter_value = si.si_value.sival_int;
  waiter_code = si.si_code;
  return NULL;
}

static void test_tgsigqueueinfo(void) {
  REQUIRE_SYS(kmask(SIG_BLOCK, bit(SIGUSR2), NULL));  // inherited by the waiter
  pthread_t th;
  REQUIRE(pthread_create(&th, NULL, waiter_main, NULL) == 0);
  while (waiter_tid == 0) {
  }
  siginfo_t si;
  memset(&si, 0, sizeof si);
  si.si_signo = SIGUSR2;
  si.si_pid = getpid();
  si.si_uid = getuid();
  si.si_code = SI_USER;
  CHECK_ERRNO(syscall(SYS_rt_tgsigqueueinfo, getpid(), waiter_tid, SIGUSR2, &si), EPERM);
  si.si_code = SI_QUEUE;
  si.si_value.sival_int = 31;
  CHECK_SYS(syscall(SYS_rt_tgsigqueueinfo, getpid(), waiter_tid, SIGUSR2, &si));
  pthread_join(th, NULL);
  CHECK_EQ(waiter_sig, SIGUSR2);
  CHECK_EQ(waiter_value, 31);
  CHECK_EQ(waiter_code, SI_QUEUE);
  // To the calling thread itself any si_code goes; the signal stays pending on this thread only.
  si.si_code = SI_USER;
  si.si_value.sival_int = 32;
  CHECK_SYS(syscall(SYS_rt_tgsigqueueinfo, getpid(), gettid(), SIGUSR2, &si));
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGUSR2);
  siginfo_t got;
  CHECK_EQ(sigwaitinfo(&s, &got), SIGUSR2);
  CHECK_EQ(got.si_code, SI_USER);
  si.si_code = SI_QUEUE;
  CHECK_ERRNO(syscall(SYS_rt_tgsigqueueinfo, getpid(), 0x3fffffff, SIGUSR2, &si), ESRCH);
  CHECK_ERRNO(syscall(SYS_rt_tgsigqueueinfo, getpid(), gettid(), 65, &si), EINVAL);
  kmask(SIG_UNBLOCK, bit(SIGUSR2), NULL);
}

int main(void) {
  test_order_and_payload();
  test_every_rt_signal();
  test_coalesce();
  test_rlimit();
  test_sigqueueinfo_codes();
  test_tgsigqueueinfo();
  return check_done();
}
