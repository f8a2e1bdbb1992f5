// unshare(2) of what a process or thread shares, as Linux does it. A child of clone(CLONE_FILES) that
// unshares its descriptor table gets a copy: what it opens or closes afterwards is its own, what it did
// before was the parent's too. A child of clone(CLONE_FS), and a thread, that unshare their fs attributes
// change directory and umask for themselves alone. CLONE_SIGHAND and CLONE_VM need a single thread
// (EINVAL with two), and unknown flags are EINVAL.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static int exit_status(pid_t pid) {
  int status = -1;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

static int is_open(int fd) {
  return fcntl(fd, F_GETFD) >= 0;
}

static char g_dir[64];
static char g_thread_cwd[256];
static int g_thread_unshare = -1;
static pthread_barrier_t g_started, g_checked;

static void* fs_thread(void* arg) {
  (void)arg;
  pthread_barrier_wait(&g_started);
  g_thread_unshare = unshare(CLONE_FS) == 0 ? 0 : errno;
  if (chdir(g_dir) != 0 || getcwd(g_thread_cwd, sizeof g_thread_cwd) == NULL) g_thread_cwd[0] = 0;
  umask(077);
  pthread_barrier_wait(&g_checked);
  return NULL;
}

static void* idle_thread(void* arg) {
  (void)arg;
  pthread_barrier_wait(&g_checked);
  return NULL;
}

int main(void) {
  strcpy(g_dir, "/tmp/a64run-unshare-XXXXXX");
  REQUIRE(mkdtemp(g_dir) != NULL);
  char start[256];
  REQUIRE(getcwd(start, sizeof start) != NULL);
  errno = 0;
  CHECK_EQ(unshare(CLONE_PTRACE), -1);  // not a flag unshare knows
  CHECK_EQ(errno, EINVAL);
  if (on_reference_qemu()) {
    // qemu-aarch64 7.2 passes unshare to the host, where its own threads share the handlers: EINVAL.
    NOTE("qemu-aarch64 7.2: unshare(CLONE_SIGHAND) of a single thread is left out");
  } else {
    CHECK_EQ(unshare(CLONE_SIGHAND), 0);  // nothing shares them: nothing to do
  }
  CHECK_EQ(unshare(CLONE_FILES | CLONE_FS | CLONE_SYSVSEM), 0);

  // ---- The descriptor table.
  int ready[2];
  REQUIRE(pipe(ready) == 0);
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  REQUIRE(sigprocmask(SIG_BLOCK, &usr1, NULL) == 0);
  errno = 0;
  long pid = syscall(SYS_clone, CLONE_FILES | SIGCHLD, 0, 0, 0, 0);
  if (pid < 0 && errno == EINVAL && on_reference_qemu()) {
    NOTE(
        "qemu-aarch64 7.2 refuses clone(CLONE_FILES) without CLONE_VM: the shared-table checks are left out");
  } else if (pid == 0) {
    // Shared: this descriptor is the parent's too; then a private copy.
    int before = open("/dev/null", O_RDONLY);
    if (before != 40 && dup2(before, 40) != 40) _exit(10);
    if (unshare(CLONE_FILES) != 0) _exit(11);
    if (!is_open(40)) _exit(12);  // the copy has it
    close(40);                    // closed in the copy only
    if (dup2(0, 41) != 41) _exit(13);
    // A signalfd made in the copy: a signal from another process makes it readable.
    int sfd = signalfd(-1, &usr1, SFD_CLOEXEC);
    if (sfd < 0 || write(ready[1], "r", 1) != 1) _exit(14);
    struct pollfd p = {sfd, POLLIN, 0};
    if (poll(&p, 1, 10000) != 1) _exit(15);
    struct signalfd_siginfo si;
    if (read(sfd, &si, sizeof si) != sizeof si || si.ssi_signo != SIGUSR1) _exit(16);
    _exit(0);
  } else {
    CHECK(pid > 0);
    char c;
    CHECK_EQ(read(ready[0], &c, 1), 1);
    CHECK_EQ(kill((pid_t)pid, SIGUSR1), 0);
    CHECK_EQ(exit_status((pid_t)pid), 0);
    CHECK(is_open(40));   // opened before the unshare: shared then
    CHECK(!is_open(41));  // opened after: the child's alone
    close(40);
  }

  // ---- The fs attributes of a process.
  errno = 0;
  pid = syscall(SYS_clone, CLONE_FS | SIGCHLD, 0, 0, 0, 0);
  if (pid < 0 && errno == EINVAL && on_reference_qemu()) {
    NOTE("qemu-aarch64 7.2 refuses clone(CLONE_FS) without CLONE_VM: the shared-fs checks are left out");
  } else if (pid == 0) {
    if (chdir("/") != 0) _exit(20);  // shared: the parent's too
    if (unshare(CLONE_FS) != 0) _exit(21);
    if (chdir(g_dir) != 0) _exit(22);  // the child's alone
    umask(077);
    _exit(0);
  } else {
    CHECK(pid > 0);
    CHECK_EQ(exit_status((pid_t)pid), 0);
    char now[256] = "";
    CHECK(getcwd(now, sizeof now) != NULL && strcmp(now, "/") == 0);
    mode_t old = umask(022);
    CHECK_EQ(old, 022);
    umask(old);
    CHECK_EQ(chdir(start), 0);
  }

  // ---- The fs attributes of a thread: Linux gives a thread of a multithreaded process its own.
  pthread_barrier_init(&g_started, NULL, 2);
  pthread_barrier_init(&g_checked, NULL, 2);
  umask(022);
  pthread_t th;
  REQUIRE(pthread_create(&th, NULL, fs_thread, NULL) == 0);
  pthread_barrier_wait(&g_started);
  pthread_barrier_wait(&g_checked);
  pthread_join(th, NULL);
  CHECK_EQ(g_thread_unshare, 0);
  CHECK_EQ(strcmp(g_thread_cwd, g_dir), 0);
  char now[256] = "";
  CHECK(getcwd(now, sizeof now) != NULL && strcmp(now, start) == 0);
  mode_t old = umask(022);
  CHECK_EQ(old, 022);

  // ---- With two threads, the signal handlers and the memory cannot be unshared.
  pthread_barrier_init(&g_checked, NULL, 2);
  REQUIRE(pthread_create(&th, NULL, idle_thread, NULL) == 0);
  errno = 0;
  CHECK_EQ(unshare(CLONE_SIGHAND), -1);
  CHECK_EQ(errno, EINVAL);
  errno = 0;
  CHECK_EQ(unshare(CLONE_VM), -1);
  CHECK_EQ(errno, EINVAL);
  errno = 0;
  CHECK_EQ(unshare(CLONE_THREAD), -1);
  CHECK_EQ(errno, EINVAL);
  pthread_barrier_wait(&g_checked);
  pthread_join(th, NULL);
  rmdir(g_dir);
  return check_done();
}
