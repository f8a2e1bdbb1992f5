// Tests clone(CLONE_VM) without CLONE_THREAD or CLONE_VFORK: a process of its own (pid, parent, exit status,
// signals) in its parent's memory, whose CLONE_PARENT_SETTID word holds its pid before it runs. The child's
// writes and mmaps are the parent's; atomics between the two lose nothing; a private futex wakes across them
// (Linux keys it by the shared mm); CLONE_FILES, CLONE_FS and CLONE_SIGHAND share descriptors, the working
// directory and signal actions, and without them the child's changes stay its own; a signal sent to the child
// runs its handler; death by a signal reaches waitpid; the child outlives a parent that exits first or is
// killed by SIGKILL while running; an exec'ing child leaves the memory and runs the new program.
//
// The children share the calling thread's TLS (no CLONE_SETTLS), as with glibc's clone(): they use only raw
// system calls and atomics, never stdio or malloc.
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "self_exec.h"

enum { kStackSize = 256 * 1024 };

static char* new_stack(void) {
  char* s = mmap(NULL, kStackSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  REQUIRE(s != MAP_FAILED);
  return s + kStackSize;
}

static pid_t spawn_vm(int (*fn)(void*), int flags, void* arg) {
  return clone(fn, new_stack(), CLONE_VM | flags, arg);
}

static int wait_status(pid_t pid) {
  int status = -1;
  pid_t got;
  do {
    got = waitpid(pid, &status, __WALL);
  } while (got < 0 && errno == EINTR);
  CHECK_EQ(got, pid);
  return status;
}

static long futex(atomic_int* word, int op, int val) {
  return syscall(SYS_futex, word, op, val, NULL, NULL, 0);
}

// --- identity, shared writes, exit status ---

static volatile int written;
static volatile pid_t child_saw_pid, child_saw_ppid, child_saw_ptid;
static volatile pid_t ptid;

static int identity_child(void* arg) {
  (void)arg;
  child_saw_ptid = ptid;  // CLONE_PARENT_SETTID: stored before the child runs (LTP clone08)
  child_saw_pid = (pid_t)syscall(SYS_getpid);
  child_saw_ppid = (pid_t)syscall(SYS_getppid);
  written = 4321;
  return 7;
}

static void test_identity(void) {
  for (int i = 0; i < 20; i++) {
    written = 0;
    ptid = 0;
    pid_t pid = clone(identity_child, new_stack(), CLONE_VM | CLONE_PARENT_SETTID | SIGCHLD, NULL, &ptid);
    REQUIRE(pid > 0);
    int status = wait_status(pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 7);
    CHECK_EQ(written, 4321);
    CHECK_EQ(child_saw_pid, pid);
    CHECK_EQ(child_saw_ptid, pid);
    CHECK_EQ(ptid, pid);
    if (check_failures) break;
  }
  written = 0;
  pid_t pid = spawn_vm(identity_child, SIGCHLD, NULL);
  REQUIRE(pid > 0);
  int status = wait_status(pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 7);
  CHECK_EQ(written, 4321);
  CHECK_EQ(child_saw_pid, pid);
  CHECK_NE(child_saw_pid, getpid());
  CHECK_EQ(child_saw_ppid, getpid());
}

// --- memory: atomics, mmap, futex ---

enum { kIncrements = 200000 };
static atomic_long counter;
static atomic_int go, futex_word;
static void* volatile child_map;

static int atomics_child(void* arg) {
  (void)arg;
  while (!atomic_load(&go)) {
  }
  for (int i = 0; i < kIncrements; i++) atomic_fetch_add(&counter, 1);
  // A page of the child's own: the parent reads it through the shared memory.
  char* p = (char*)syscall(SYS_mmap, NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  p[100] = 'm';
  child_map = p;
  // Wakes the parent from a private futex wait.
  atomic_store(&futex_word, 1);
  futex(&futex_word, FUTEX_WAKE_PRIVATE, 1);
  return 0;
}

static void test_shared_memory(void) {
  atomic_store(&counter, 0);
  atomic_store(&go, 0);
  atomic_store(&futex_word, 0);
  child_map = NULL;
  pid_t pid = spawn_vm(atomics_child, SIGCHLD, NULL);
  REQUIRE(pid > 0);
  atomic_store(&go, 1);
  for (int i = 0; i < kIncrements; i++) atomic_fetch_add(&counter, 1);
  while (atomic_load(&futex_word) == 0) futex(&futex_word, FUTEX_WAIT_PRIVATE, 0);
  CHECK(child_map != NULL && ((char*)child_map)[100] == 'm');
  int status = wait_status(pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK_EQ(atomic_load(&counter), 2L * kIncrements);
  if (child_map) munmap(child_map, 4096);
}

// --- CLONE_FILES, CLONE_FS, CLONE_SIGHAND ---

static volatile int child_fd = -1;
static void on_usr2(int sig) {
  (void)sig;
}

static int sharing_child(void* arg) {
  (void)arg;
  child_fd = (int)syscall(SYS_openat, AT_FDCWD, "/dev/null", O_RDONLY | O_CLOEXEC);
  syscall(SYS_chdir, "/");
  struct sigaction sa = {0};
  sa.sa_handler = on_usr2;
  // The raw call: glibc's sigaction would go through its own restorer, fine either way.
  sigaction(SIGUSR2, &sa, NULL);
  return 0;
}

static void run_sharing(int flags, int expect_shared) {
  char before[4096];
  REQUIRE(getcwd(before, sizeof before) != NULL);
  signal(SIGUSR2, SIG_DFL);
  child_fd = -1;
  pid_t pid = spawn_vm(sharing_child, flags | SIGCHLD, NULL);
  REQUIRE(pid > 0);
  int status = wait_status(pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  REQUIRE(child_fd >= 0);
  const int fd_open = fcntl(child_fd, F_GETFD) >= 0;
  char after[4096];
  REQUIRE(getcwd(after, sizeof after) != NULL);
  struct sigaction cur;
  sigaction(SIGUSR2, NULL, &cur);
  if (expect_shared) {
    CHECK(fd_open);
    CHECK_STREQ(after, "/");
    CHECK(cur.sa_handler == on_usr2);
    close(child_fd);
    REQUIRE(chdir(before) == 0);
  } else {
    CHECK(!fd_open);
    CHECK_STREQ(after, before);
    CHECK(cur.sa_handler == SIG_DFL);
  }
  signal(SIGUSR2, SIG_DFL);
}

static void test_sharing_flags(void) {
  run_sharing(CLONE_FILES | CLONE_FS | CLONE_SIGHAND, 1);
  run_sharing(0, 0);
}

// --- signals ---

static atomic_int handled_in, child_ready;

static void on_usr1(int sig) {
  (void)sig;
  atomic_store(&handled_in, (int)syscall(SYS_getpid));
}

static int signal_child(void* arg) {
  (void)arg;
  atomic_store(&child_ready, 1);
  // Waits in a host sleep; the handler ends it.
  while (atomic_load(&handled_in) == 0) {
    struct timespec ts = {0, 2 * 1000 * 1000};
    syscall(SYS_nanosleep, &ts, NULL);
  }
  return 3;
}

static int term_child(void* arg) {
  (void)arg;
  syscall(SYS_kill, syscall(SYS_getpid), SIGTERM);
  return 0;
}

static void test_signals(void) {
  // The child's own actions (a copy): the handler installed before the clone is in both.
  struct sigaction sa = {0};
  sa.sa_handler = on_usr1;
  sigaction(SIGUSR1, &sa, NULL);
  atomic_store(&handled_in, 0);
  atomic_store(&child_ready, 0);
  pid_t pid = spawn_vm(signal_child, SIGCHLD, NULL);
  REQUIRE(pid > 0);
  while (!atomic_load(&child_ready)) sched_yield();
  CHECK_EQ(kill(pid, SIGUSR1), 0);
  int status = wait_status(pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 3);
  CHECK_EQ(atomic_load(&handled_in), pid);  // ran in the child, not here
  signal(SIGUSR1, SIG_DFL);

  pid = spawn_vm(term_child, SIGCHLD, NULL);
  REQUIRE(pid > 0);
  status = wait_status(pid);
  CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
}

// --- the parent exits first, or is killed ---

static int out_pipe[2];

// Reads until n bytes or end of file.
static ssize_t read_full(int fd, char* buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = read(fd, buf + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += (size_t)r;
  }
  return (ssize_t)got;
}

static int survivor_child(void* arg) {
  (void)arg;
  // Says it runs, outlives the parent (which exits at once or is killed), then reports through the pipe.
  syscall(SYS_write, out_pipe[1], "r", 1);
  struct timespec ts = {0, 100 * 1000 * 1000};
  syscall(SYS_nanosleep, &ts, NULL);
  for (volatile int i = 0; i < 100000; i++) {
  }
  syscall(SYS_write, out_pipe[1], "alive", 5);
  return 0;
}

// The parent either exits at once, or runs guest code (so it often holds the emulator's run lock) until
// SIGKILL ends it, when no exit_group of its own runs. Either way the child runs on and reports.
static void test_survives_parent(int kill_parent) {
  REQUIRE(pipe(out_pipe) == 0);
  pid_t mid = fork();
  REQUIRE(mid >= 0);
  if (mid == 0) {
    close(out_pipe[0]);
    pid_t c = spawn_vm(survivor_child, SIGCHLD, NULL);
    if (c <= 0 || !kill_parent) _exit(c > 0 ? 0 : 1);
    for (volatile unsigned long i = 0;; i++) {
    }
  }
  close(out_pipe[1]);
  char ready = 0;
  CHECK_EQ(read_full(out_pipe[0], &ready, 1), 1);
  CHECK_EQ(ready, 'r');
  if (kill_parent) {
    struct timespec ts = {0, 10 * 1000 * 1000};
    nanosleep(&ts, NULL);
    CHECK_EQ(kill(mid, SIGKILL), 0);
  }
  int status = wait_status(mid);
  if (kill_parent) {
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  } else {
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  char buf[8] = {0};
  CHECK_EQ(read_full(out_pipe[0], buf, sizeof buf), 5);
  CHECK_STREQ(buf, "alive");
  close(out_pipe[0]);
}

// --- exec ---

extern char** environ;
static const char* exec_path;

static int exec_child(void* arg) {
  (void)arg;
  char* argv[] = {"cloned", "--exit", "19", NULL};
  syscall(SYS_execve, exec_path, argv, environ);
  return 100;
}

static void test_exec(void) {
  exec_path = self_path();
  pid_t pid = spawn_vm(exec_child, SIGCHLD, NULL);
  REQUIRE(pid > 0);
  int status = wait_status(pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 19);
  // This process's memory is still whole after the child left it.
  test_identity();
}

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], "--exit") == 0) return atoi(argv[2]);
  if (on_reference_qemu()) {
    // qemu-aarch64 7.2 accepts CLONE_VM only with the full thread flag set (linux-user/syscall.c do_fork):
    // anything else is EINVAL.
    NOTE("skipped under qemu: clone(CLONE_VM) without CLONE_THREAD is EINVAL in qemu 7.2");
    CHECK_EQ(spawn_vm(identity_child, SIGCHLD, NULL), -1);
    CHECK_EQ(errno, EINVAL);
    return check_done();
  }
  test_identity();
  test_shared_memory();
  test_sharing_flags();
  test_signals();
  test_survives_parent(0);
  test_survives_parent(1);
  test_exec();
  return check_done();
}
