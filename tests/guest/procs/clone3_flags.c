// clone3's own features, as Linux gives them: CLONE_CLEAR_SIGHAND (handlers back to SIG_DFL in the child,
// ignored signals stay ignored, flags and masks cleared; the parent's untouched), set_tid (the child gets
// the pid asked for; its checks: at most 32, array and size together, a pid in use is EEXIST, an unreadable
// array EFAULT), CLONE_INTO_CGROUP (the child starts in the cgroup the descriptor names; a descriptor that
// names none is EBADF; the field needs the VER2 size) and CLONE_NEWTIME, which only clone3 can ask for. Each
// for fork and for posix_spawn's CLONE_VM|CLONE_VFORK. The argument checks of copy_clone_args_from_user and
// clone3_args_valid, in their order.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#ifndef CLONE_CLEAR_SIGHAND
#define CLONE_CLEAR_SIGHAND 0x100000000ULL
#endif
#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif
#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

struct args3 {
  uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid, set_tid_size,
      cgroup;
};

static long clone3_raw(struct args3* a, size_t size) {
  return syscall(SYS_clone3, a, size);
}

// clone3 whose child runs fn() and exits with its value: on args->stack when one is given (the child of a
// CLONE_VM clone must not return into the caller's frames), else on its copy of the caller's stack. fn may
// use only globals.
static long clone3_run(struct args3* a, size_t size, int (*fn)(void)) {
  register long x0 __asm__("x0") = (long)a;
  register long x1 __asm__("x1") = (long)size;
  register long x8 __asm__("x8") = SYS_clone3;
  register long x9 __asm__("x9") = (long)fn;
  __asm__ volatile(
      "svc #0\n\t"
      "cbnz x0, 1f\n\t"
      "blr x9\n\t"
      "mov x8, #93\n\t" /* exit */
      "svc #0\n"
      "1:"
      : "+r"(x0)
      : "r"(x1), "r"(x8), "r"(x9)
      : "memory");
  if (x0 < 0 && x0 > -4096) {
    errno = (int)-x0;
    return -1;
  }
  return x0;
}

static int unexpected_child(void) {
  return 99;
}

static int reap(long pid) {
  if (pid <= 0) return -1;
  int status;
  if (waitpid((pid_t)pid, &status, 0) != pid || !WIFEXITED(status)) return -2;
  return WEXITSTATUS(status);
}

// A clone3 with args `a` of `size` bytes that must fail with `err` (a child it makes anyway exits at once).
#define EXPECT_FAIL(size, err)                            \
  do {                                                    \
    errno = 0;                                            \
    long pid_ = clone3_run(&a, (size), unexpected_child); \
    CHECK_EQ(pid_, -1);                                   \
    CHECK_EQ(errno, (err));                               \
    reap(pid_);                                           \
  } while (0)

static void on_usr1(int sig) {
  (void)sig;
}

// In the child: 0 when SIGUSR1 is SIG_DFL with no flags or mask, SIGUSR2 still SIG_IGN, SIGTERM SIG_DFL.
static int handlers_cleared(void) {
  struct sigaction a;
  if (sigaction(SIGUSR1, NULL, &a) != 0 || a.sa_handler != SIG_DFL) return 1;
  if (a.sa_flags != 0 || sigismember(&a.sa_mask, SIGINT)) return 2;
  if (sigaction(SIGUSR2, NULL, &a) != 0 || a.sa_handler != SIG_IGN || a.sa_flags != 0) return 3;
  if (sigaction(SIGTERM, NULL, &a) != 0 || a.sa_handler != SIG_DFL) return 4;
  return 0;
}

// A pid no process has, above the last one given out (or 0 when none is found).
static pid_t free_pid(void) {
  FILE* f = fopen("/proc/sys/kernel/ns_last_pid", "r");
  long last = 0;
  if (f == NULL) return 0;
  if (fscanf(f, "%ld", &last) != 1) last = 0;
  fclose(f);
  for (long p = last + 100; p < last + 1100; p += 7) {
    if (kill((pid_t)p, 0) != 0 && errno == ESRCH) return (pid_t)p;
  }
  return 0;
}

// The line of /proc/self/cgroup for the unified hierarchy ("0::/path"), or "" without one.
static void own_cgroup(char* out, size_t size) {
  out[0] = 0;
  FILE* f = fopen("/proc/self/cgroup", "r");
  if (f == NULL) return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    if (strncmp(line, "0::", 3) == 0) snprintf(out, size, "%s", line);
  }
  fclose(f);
}

// Where the unified (cgroup2) hierarchy is mounted, or "" when it is not.
static void cgroup2_mount(char* out, size_t size) {
  out[0] = 0;
  FILE* f = fopen("/proc/self/mounts", "r");
  if (f == NULL) return;
  char dev[256], dir[256], type[64];
  while (fscanf(f, "%255s %255s %63s %*[^\n]", dev, dir, type) == 3) {
    if (strcmp(type, "cgroup2") == 0) {
      snprintf(out, size, "%s", dir);
      break;
    }
  }
  fclose(f);
}

static char g_stack[256 * 1024] __attribute__((aligned(16)));
static pid_t g_want;
static char g_mine[512];  // the parent's line of /proc/self/cgroup, without its newline
static char g_ns[64];     // the parent's time namespace

static int has_wanted_pid(void) {
  return getpid() == g_want ? 0 : 21;
}

// clone3 of `a` with set_tid at a pid free a moment before (g_want): another process of the host may take it
// first (the test suite forks in parallel), so a few tries, each at a pid further on.
static long clone3_free_pid(struct args3* a) {
  long pid = -1;
  for (int attempt = 0; attempt < 20; ++attempt) {
    g_want = free_pid();
    if (g_want <= 0) break;
    errno = 0;
    pid = clone3_run(a, sizeof *a, has_wanted_pid);
    if (pid != -1 || errno != EEXIST) break;
  }
  return pid;
}

static int in_own_cgroup(void) {
  char there[512];
  own_cgroup(there, sizeof there);
  return strcmp(there, g_mine) == 0 ? 0 : 31;
}

static int in_new_time_ns(void) {
  char child_ns[64] = {0};
  if (readlink("/proc/self/ns/time", child_ns, sizeof child_ns - 1) <= 0) return 40;
  return strcmp(g_ns, child_ns) != 0 ? 0 : 41;
}

int main(void) {
  struct args3 a;
  memset(&a, 0, sizeof a);
  a.exit_signal = SIGCHLD;
  if (on_reference_qemu()) {
    // qemu-aarch64 7.2 has no clone3 (ENOSYS).
    errno = 0;
    CHECK_EQ(clone3_raw(&a, sizeof a), -1);
    CHECK_EQ(errno, ENOSYS);
    NOTE("qemu-aarch64 7.2 has no clone3: the checks are left out");
    return check_done();
  }

  // ---- The argument checks, in the kernel's order.
  EXPECT_FAIL(4097, E2BIG);  // larger than a page: E2BIG before anything is read
  a.set_tid_size = 33;
  EXPECT_FAIL(sizeof a, EINVAL);
  a.set_tid_size = 1;  // no array
  EXPECT_FAIL(sizeof a, EINVAL);
  pid_t want = 0;
  a.set_tid = (uint64_t)(uintptr_t)&want;
  a.set_tid_size = 0;  // an array of no pids
  EXPECT_FAIL(sizeof a, EINVAL);
  a.set_tid = 0;
  a.exit_signal = 65;
  EXPECT_FAIL(sizeof a, EINVAL);
  a.exit_signal = SIGCHLD;
  a.flags = CLONE_INTO_CGROUP;  // the cgroup field is past CLONE_ARGS_SIZE_VER1
  EXPECT_FAIL(80, EINVAL);
  a.cgroup = 1ULL << 31;
  EXPECT_FAIL(sizeof a, EINVAL);
  a.cgroup = 0;
  a.flags = 1ULL << 40;  // no such flag
  EXPECT_FAIL(sizeof a, EINVAL);
  a.flags = CLONE_DETACHED;
  EXPECT_FAIL(sizeof a, EINVAL);
  a.flags = CLONE_VM | CLONE_SIGHAND | CLONE_CLEAR_SIGHAND;
  EXPECT_FAIL(sizeof a, EINVAL);
  a.flags =
      CLONE_PARENT;  // a sibling of the caller signals its parent by the parent's own rules: no exit signal
  EXPECT_FAIL(sizeof a, EINVAL);
  a.flags = 0;
  a.stack = 1ULL << 52;  // past the user address space (access_ok), with 48- and 52-bit addresses alike
  a.stack_size = 4096;
  EXPECT_FAIL(sizeof a, EINVAL);
  a.stack = a.stack_size = 0;

  // ---- CLONE_CLEAR_SIGHAND.
  struct sigaction h;
  memset(&h, 0, sizeof h);
  h.sa_handler = on_usr1;
  h.sa_flags = SA_RESTART | SA_NODEFER;
  sigaddset(&h.sa_mask, SIGINT);
  REQUIRE(sigaction(SIGUSR1, &h, NULL) == 0);
  REQUIRE(signal(SIGUSR2, SIG_IGN) != SIG_ERR);
  a.flags = CLONE_CLEAR_SIGHAND;
  long pid = clone3_run(&a, sizeof a, handlers_cleared);
  CHECK_EQ(reap(pid), 0);
  // The same through posix_spawn's kind of clone: the child shares the memory, not the actions.
  a.flags = CLONE_VM | CLONE_VFORK | CLONE_CLEAR_SIGHAND;
  a.stack = (uint64_t)(uintptr_t)g_stack;
  a.stack_size = sizeof g_stack;
  pid = clone3_run(&a, sizeof a, handlers_cleared);
  CHECK_EQ(reap(pid), 0);
  a.stack = a.stack_size = 0;
  struct sigaction now;
  CHECK(sigaction(SIGUSR1, NULL, &now) == 0 && now.sa_handler == on_usr1 && (now.sa_flags & SA_RESTART) &&
        sigismember(&now.sa_mask, SIGINT));

  // ---- set_tid: the child gets the pid asked for (a privilege: EPERM for others).
  a.flags = 0;
  g_want = getpid();  // in use
  a.set_tid = (uint64_t)(uintptr_t)&g_want;
  a.set_tid_size = 1;
  errno = 0;
  pid = clone3_run(&a, sizeof a, has_wanted_pid);
  CHECK_EQ(pid, -1);
  const int in_use_errno = errno;
  if (in_use_errno == EPERM) {
    NOTE("set_tid needs CAP_CHECKPOINT_RESTORE: the pids asked for are not checked");
  } else {
    CHECK_EQ(in_use_errno, EEXIST);
    pid = clone3_free_pid(&a);
    CHECK_EQ(pid, g_want);
    CHECK_EQ(reap(pid), 0);
    // And for CLONE_VM|CLONE_VFORK.
    a.flags = CLONE_VM | CLONE_VFORK;
    a.stack = (uint64_t)(uintptr_t)g_stack;
    a.stack_size = sizeof g_stack;
    pid = clone3_free_pid(&a);
    CHECK_EQ(pid, g_want);
    CHECK_EQ(reap(pid), 0);
    a.stack = a.stack_size = 0;
    a.flags = 0;
  }
  a.set_tid = (uint64_t)(uintptr_t)MAP_FAILED & ~0xfffULL;  // unreadable
  errno = 0;
  pid = clone3_run(&a, sizeof a, has_wanted_pid);
  CHECK_EQ(pid, -1);
  CHECK_EQ(errno, EFAULT);
  a.set_tid = 0;
  a.set_tid_size = 0;

  // ---- CLONE_INTO_CGROUP: a descriptor that is no cgroup directory is EBADF; the caller's own cgroup
  // is one the child may start in.
  char path[600] = "";
  own_cgroup(g_mine, sizeof g_mine);
  int file = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  REQUIRE(file >= 0);
  a.flags = CLONE_INTO_CGROUP;
  a.cgroup = (uint64_t)file;
  errno = 0;
  pid = clone3_run(&a, sizeof a, in_own_cgroup);
  CHECK_EQ(pid, -1);
  CHECK_EQ(errno, EBADF);
  close(file);
  int dir = -1;
  char mount[256] = "";
  cgroup2_mount(mount, sizeof mount);
  if (g_mine[0] != 0 && mount[0] != 0) {
    snprintf(path, sizeof path, "%s%s", mount, g_mine + 3);
    dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  }
  if (dir < 0) {
    NOTE("no cgroup2 directory of this process (%s): CLONE_INTO_CGROUP's success is not checked", path);
  } else {
    a.cgroup = (uint64_t)dir;
    for (int vm = 0; vm < 2; vm++) {
      a.flags = CLONE_INTO_CGROUP | (vm ? CLONE_VM | CLONE_VFORK : 0);
      a.stack = vm ? (uint64_t)(uintptr_t)g_stack : 0;
      a.stack_size = vm ? sizeof g_stack : 0;
      pid = clone3_run(&a, sizeof a, in_own_cgroup);
      if (pid < 0 && errno == EBUSY) {
        NOTE("this process's cgroup takes no new processes (EBUSY): the rest is not checked");
        break;
      }
      CHECK(pid > 0);
      CHECK_EQ(reap(pid), 0);
    }
    close(dir);
  }
  a.flags = 0;
  a.cgroup = 0;
  a.stack = a.stack_size = 0;

  // ---- CLONE_NEWTIME: the child is in a new time namespace (a privilege: EPERM for others).
  REQUIRE(readlink("/proc/self/ns/time", g_ns, sizeof g_ns - 1) > 0);
  a.flags = CLONE_NEWTIME;
  pid = clone3_run(&a, sizeof a, in_new_time_ns);
  if (pid < 0 && errno == EPERM) {
    NOTE("CLONE_NEWTIME needs CAP_SYS_ADMIN: not checked");
  } else {
    CHECK(pid > 0);
    CHECK_EQ(reap(pid), 0);
  }
  return check_done();
}
