// seccomp(2) and prctl(PR_SET_SECCOMP) as Linux gives them: the operations and their errors (bad flags,
// programs the kernel's checker refuses, EFAULT, EACCES without no_new_privs or CAP_SYS_ADMIN, ENOMEM past
// 32768 instructions); every action (ERRNO with its clamp, TRAP with the SIGSYS siginfo and registers,
// KILL_THREAD, KILL_PROCESS, TRACE and USER_NOTIF without a tracer or listener, LOG, ALLOW) and their
// precedence across a chain; 64-bit arguments, the architecture and the instruction pointer as a filter sees
// them; strict mode; inheritance by fork, threads and execve; TSYNC; /proc/self/status. Each case runs in a
// child of its own, since a filter cannot be removed.
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "../procs/self_exec.h"
#include "check.h"

#define LOAD_NR BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))
#define RET(v) BPF_STMT(BPF_RET | BPF_K, (v))
#define ALLOW RET(SECCOMP_RET_ALLOW)

static long install(const struct sock_filter* f, unsigned short n, unsigned flags) {
  struct sock_fprog prog = {n, (struct sock_filter*)f};
  return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
}

// One filter: `ret` for system call nr, everything else allowed.
static long install_nr(int nr, uint32_t ret) {
  const struct sock_filter f[] = {LOAD_NR, BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1), RET(ret), ALLOW};
  return install(f, 4, 0);
}

// Runs fn in a child with no_new_privs and no core dumps; returns its wait status.
static int in_child(int (*fn)(void)) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) _exit(90);
    _exit(fn());
  }
  int status = -1;
  if (pid > 0) waitpid(pid, &status, 0);
  return status;
}

#define CHECK_EXITS_0(fn) CHECK_EQ(in_child(fn), 0)
#define CHECK_KILLED_BY(fn, sig)                        \
  do {                                                  \
    int st_ = in_child(fn);                             \
    CHECK(WIFSIGNALED(st_));                            \
    if (WIFSIGNALED(st_)) CHECK_EQ(WTERMSIG(st_), sig); \
  } while (0)

// The value of a "Key:\t<n>" line of /proc/<path>/status, or -1.
static long status_value(const char* path, const char* key) {
  char line[256];
  long v = -1;
  FILE* f = fopen(path, "r");
  while (f && fgets(line, sizeof line, f)) {
    if (strncmp(line, key, strlen(key)) == 0 && line[strlen(key)] == ':')
      v = strtol(line + strlen(key) + 1, NULL, 10);
  }
  if (f) fclose(f);
  return v;
}

static int case_operations(void) {
  // Actions: all of Linux's are known but USER_NOTIF, which a kernel without user notification refuses with
  // NEW_LISTENER alike; an unknown one is EOPNOTSUPP.
  const uint32_t known[] = {SECCOMP_RET_KILL_PROCESS, SECCOMP_RET_KILL_THREAD, SECCOMP_RET_TRAP,
                            SECCOMP_RET_ERRNO,        SECCOMP_RET_TRACE,       SECCOMP_RET_LOG,
                            SECCOMP_RET_ALLOW};
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    CHECK_EQ(syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &known[i]), 0);
  const uint32_t unknown = 0x00010000;
  CHECK_ERRNO(syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &unknown), EOPNOTSUPP);
  CHECK_ERRNO(syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 1, &known[0]), EINVAL);
  CHECK_ERRNO(syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, (void*)8), EFAULT);
  const uint32_t notif = SECCOMP_RET_USER_NOTIF;
  const int notif_avail = syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &notif) == 0;
  if (!notif_avail) CHECK_EQ(errno, EOPNOTSUPP);
  struct seccomp_notif_sizes sizes;
  memset(&sizes, 0xff, sizeof sizes);
  CHECK_EQ(syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes), 0);
  CHECK_EQ(sizes.seccomp_notif, 80);
  CHECK_EQ(sizes.seccomp_notif_resp, 24);
  CHECK_EQ(sizes.seccomp_data, 64);
  CHECK_ERRNO(syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 1, &sizes), EINVAL);
  CHECK_ERRNO(syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, (void*)8), EFAULT);
  CHECK_ERRNO(syscall(SYS_seccomp, 4, 0, NULL), EINVAL);
  CHECK_ERRNO(syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 1, NULL), EINVAL);
  CHECK_ERRNO(syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 0, &sizes), EINVAL);
  CHECK_EQ(prctl(PR_GET_SECCOMP, 0, 0, 0, 0), 0);
  CHECK_ERRNO(prctl(PR_SET_SECCOMP, 3, 0, 0, 0), EINVAL);

  // Programs the kernel refuses.
  const struct sock_filter ok[] = {ALLOW};
  struct sock_filter big[BPF_MAXINSNS + 1];
  for (int i = 0; i <= BPF_MAXINSNS; i++) big[i] = (struct sock_filter)ALLOW;
  CHECK_ERRNO(install(ok, 0, 0), EINVAL);
  CHECK_ERRNO(install(big, BPF_MAXINSNS + 1, 0), EINVAL);
  CHECK_ERRNO(install(NULL, 1, 0), EINVAL);
  CHECK_ERRNO(install((void*)8, 1, 0), EFAULT);
  CHECK_ERRNO(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, (void*)8), EFAULT);
  CHECK_ERRNO(install(ok, 1, 1u << 6), EINVAL);
  CHECK_ERRNO(install(ok, 1, SECCOMP_FILTER_FLAG_TSYNC | SECCOMP_FILTER_FLAG_NEW_LISTENER), EINVAL);
  CHECK_ERRNO(install(ok, 1, SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV), EINVAL);
  const struct sock_filter mod[] = {BPF_STMT(BPF_ALU | BPF_MOD | BPF_K, 3), ALLOW};
  const struct sock_filter far[] = {BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 64), ALLOW};
  const struct sock_filter odd[] = {BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 2), ALLOW};
  const struct sock_filter half[] = {BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 0), ALLOW};
  const struct sock_filter jump[] = {BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0), ALLOW};
  const struct sock_filter ja[] = {BPF_STMT(BPF_JMP | BPF_JA, 1), ALLOW};
  const struct sock_filter noret[] = {BPF_STMT(BPF_LD | BPF_IMM, 0)};
  const struct sock_filter unset[] = {BPF_STMT(BPF_LD | BPF_MEM, 3), ALLOW};
  const struct sock_filter path[] = {LOAD_NR, BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1),
                                     BPF_STMT(BPF_ST, 5), BPF_STMT(BPF_LD | BPF_MEM, 5), ALLOW};
  const struct sock_filter div0[] = {BPF_STMT(BPF_ALU | BPF_DIV | BPF_K, 0), ALLOW};
  const struct sock_filter shift[] = {BPF_STMT(BPF_ALU | BPF_LSH | BPF_K, 32), ALLOW};
  const struct sock_filter slot[] = {BPF_STMT(BPF_ST, 16), ALLOW};
  CHECK_ERRNO(install(mod, 2, 0), EINVAL);
  CHECK_ERRNO(install(far, 2, 0), EINVAL);
  CHECK_ERRNO(install(odd, 2, 0), EINVAL);
  CHECK_ERRNO(install(half, 2, 0), EINVAL);
  CHECK_ERRNO(install(jump, 2, 0), EINVAL);
  CHECK_ERRNO(install(ja, 2, 0), EINVAL);
  CHECK_ERRNO(install(noret, 1, 0), EINVAL);
  CHECK_ERRNO(install(unset, 2, 0), EINVAL);
  CHECK_ERRNO(install(path, 5, 0), EINVAL);
  CHECK_ERRNO(install(div0, 2, 0), EINVAL);
  CHECK_ERRNO(install(shift, 2, 0), EINVAL);
  CHECK_ERRNO(install(slot, 2, 0), EINVAL);
  CHECK_EQ(prctl(PR_GET_SECCOMP, 0, 0, 0, 0), 0);  // nothing was installed
  CHECK_EQ(status_value("/proc/self/status", "Seccomp"), 0);
  if (!notif_avail) CHECK_ERRNO(install(ok, 1, SECCOMP_FILTER_FLAG_NEW_LISTENER), EINVAL);

  // Up to 32768 instructions on a path, each older filter counting 4 more: seven of 4096, not eight.
  for (int i = 0; i < 7; i++) CHECK_EQ(install(big, BPF_MAXINSNS, 0), 0);
  CHECK_ERRNO(install(big, BPF_MAXINSNS, 0), ENOMEM);
  CHECK_EQ(status_value("/proc/self/status", "Seccomp_filters"), 7);
  CHECK_EQ(status_value("/proc/self/status", "Seccomp"), 2);
  CHECK_EQ(prctl(PR_GET_SECCOMP, 0, 0, 0, 0), 2);
  CHECK_ERRNO(syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 0, NULL), EINVAL);  // filter mode stays
  return check_done();
}

static int case_errno(void) {
  CHECK_EQ(install_nr(SYS_getppid, SECCOMP_RET_ERRNO | EPERM), 0);
  CHECK_ERRNO(syscall(SYS_getppid), EPERM);
  CHECK_EQ(install_nr(SYS_getpgid, SECCOMP_RET_ERRNO | 5000), 0);
  errno = 0;
  CHECK_EQ(syscall(SYS_getpgid, 0), -1);
  CHECK_EQ(errno, 4095);  // clamped to MAX_ERRNO
  // ERRNO with 0: the call is not made and returns 0.
  CHECK_EQ(install_nr(SYS_close, SECCOMP_RET_ERRNO | 0), 0);
  CHECK_EQ(syscall(SYS_close, -1), 0);
  // 512 (ERESTARTSYS's number) is an errno like any other here.
  CHECK_EQ(install_nr(SYS_getsid, SECCOMP_RET_ERRNO | 512), 0);
  CHECK_ERRNO(syscall(SYS_getsid, 0), 512);
  // TRACE without a tracer and USER_NOTIF without a listener: ENOSYS. LOG and ALLOW run the call.
  CHECK_EQ(install_nr(SYS_getpriority, SECCOMP_RET_TRACE | 3), 0);
  CHECK_ERRNO(syscall(SYS_getpriority, PRIO_PROCESS, 0), ENOSYS);
  CHECK_EQ(install_nr(SYS_getrandom, SECCOMP_RET_USER_NOTIF), 0);
  char b;
  CHECK_ERRNO(syscall(SYS_getrandom, &b, 1, 0), ENOSYS);
  CHECK_EQ(install_nr(SYS_gettid, SECCOMP_RET_LOG), 0);
  CHECK_EQ(syscall(SYS_gettid), getpid());
  CHECK_EQ(prctl(PR_GET_SECCOMP, 0, 0, 0, 0), 2);
  CHECK_EQ(status_value("/proc/self/status", "Seccomp_filters"), 7);
  return check_done();
}

// Precedence: the lowest action wins over the whole chain; among equal actions, the newest filter's data.
static int case_precedence(void) {
  CHECK_EQ(install_nr(SYS_getppid, SECCOMP_RET_ERRNO | 1), 0);
  CHECK_EQ(install_nr(SYS_getppid, SECCOMP_RET_ERRNO | 2), 0);
  CHECK_ERRNO(syscall(SYS_getppid), 2);
  CHECK_EQ(install_nr(SYS_getppid, SECCOMP_RET_LOG), 0);
  CHECK_ERRNO(syscall(SYS_getppid), 2);
  CHECK_EQ(install_nr(SYS_getppid, SECCOMP_RET_ERRNO | 3), 0);
  CHECK_ERRNO(syscall(SYS_getppid), 3);
  CHECK_EQ(install_nr(SYS_getppid, SECCOMP_RET_ALLOW), 0);
  CHECK_ERRNO(syscall(SYS_getppid), 3);
  CHECK_EQ(install_nr(SYS_getppid, SECCOMP_RET_KILL_PROCESS), 0);
  syscall(SYS_getppid);
  return 1;  // not reached
}

// What a filter sees: the number, the architecture, the 64-bit arguments.
static int case_data(void) {
  // args[0]'s high word selects, args[5]'s low bits come back as the errno.
  const struct sock_filter g[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_AARCH64, 1, 0),
      RET(SECCOMP_RET_KILL_PROCESS),
      LOAD_NR,
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_close, 0, 6),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]) + 4),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x12345678, 0, 4),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[5])),
      BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xfff),
      BPF_STMT(BPF_ALU | BPF_OR | BPF_K, SECCOMP_RET_ERRNO),
      BPF_STMT(BPF_RET | BPF_A, 0),
      ALLOW,
  };
  CHECK_EQ(install(g, sizeof g / sizeof g[0], 0), 0);
  CHECK_ERRNO(syscall(SYS_close, 0x1234567800000063L, 0, 0, 0, 0, 0x7777000000000021L), 0x21);
  CHECK_ERRNO(syscall(SYS_close, 0x0000000100000063L, 0, 0, 0, 0, 0x21), EBADF);  // ran: fd 99 is not open
  CHECK_ERRNO(syscall(SYS_close, 99), EBADF);
  return check_done();
}

static volatile siginfo_t g_info;
static volatile uint64_t g_x0, g_pc, g_insn;
static volatile int g_sigsys;

static void on_sigsys(int sig, siginfo_t* si, void* ctx) {
  (void)sig;
  ucontext_t* uc = ctx;
  g_info = *si;
  g_x0 = uc->uc_mcontext.regs[0];
  g_pc = uc->uc_mcontext.pc;
  g_insn = *(const uint32_t*)(uintptr_t)(uc->uc_mcontext.pc - 4);
  g_sigsys++;
}

// TRAP: SIGSYS with SYS_SECCOMP, the data as si_errno, the call and architecture; x0 keeps the first
// argument, the PC is past the svc, and the call is not made.
static int case_trap(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigsys;
  sa.sa_flags = SA_SIGINFO;
  CHECK_EQ(sigaction(SIGSYS, &sa, NULL), 0);
  umask(022);
  CHECK_EQ(install_nr(SYS_umask, SECCOMP_RET_TRAP | 42), 0);
  CHECK_EQ(syscall(SYS_umask, 0777), 0777);  // x0 untouched: the argument comes back
  CHECK_EQ(g_sigsys, 1);
  CHECK_EQ(g_info.si_signo, SIGSYS);
  CHECK_EQ(g_info.si_code, 1);  // SYS_SECCOMP
  CHECK_EQ(g_info.si_errno, 42);
  CHECK_EQ(g_info.si_syscall, SYS_umask);
  CHECK_EQ(g_info.si_arch, AUDIT_ARCH_AARCH64);
  CHECK_EQ((uint64_t)(uintptr_t)g_info.si_call_addr, g_pc);
  CHECK_EQ(g_insn, 0xd4000001);  // svc #0
  CHECK_EQ(g_x0, 0777);
  CHECK_EQ(status_value("/proc/self/status", "Umask"), 22);  // "0022", read as decimal digits
  return check_done();
}

// TRAP with SIGSYS blocked (or ignored): forced, with its default action.
static int case_trap_blocked(void) {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGSYS);
  sigprocmask(SIG_BLOCK, &s, NULL);
  if (install_nr(SYS_getppid, SECCOMP_RET_TRAP) != 0) return 2;
  syscall(SYS_getppid);
  return 1;
}
static int case_trap_ignored(void) {
  signal(SIGSYS, SIG_IGN);
  if (install_nr(SYS_getppid, SECCOMP_RET_TRAP) != 0) return 2;
  syscall(SYS_getppid);
  return 1;
}

static int case_kill_process(void) {
  if (install_nr(SYS_getppid, SECCOMP_RET_KILL_PROCESS) != 0) return 2;
  syscall(SYS_getppid);
  return 1;
}
static int case_kill_thread_alone(void) {
  if (install_nr(SYS_getppid, SECCOMP_RET_KILL_THREAD) != 0) return 2;
  syscall(SYS_getppid);
  return 1;
}
// An unknown action kills like KILL_PROCESS.
static int case_unknown_action(void) {
  if (install_nr(SYS_getppid, 0x00010000) != 0) return 2;
  syscall(SYS_getppid);
  return 1;
}

static void* killed_thread(void* arg) {
  (void)arg;
  syscall(SYS_getppid);
  return (void*)1;  // not reached
}
// KILL_THREAD of one thread of two: that thread ends (its join returns), the process goes on.
static int case_kill_thread(void) {
  CHECK_EQ(install_nr(SYS_getppid, SECCOMP_RET_KILL_THREAD), 0);
  pthread_t th;
  CHECK_EQ(pthread_create(&th, NULL, killed_thread, NULL), 0);
  void* ret = NULL;
  CHECK_EQ(pthread_join(th, &ret), 0);
  CHECK(ret != (void*)1);
  return check_done();
}

// Strict mode: read, write, exit and rt_sigreturn only; anything else is SIGKILL.
static int case_strict(void) {
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 0, NULL) != 0) return 2;
  char c = 'x';
  if (syscall(SYS_write, 1, &c, 0) != 0) syscall(SYS_exit, 3);
  if (syscall(SYS_getpid) > 0) syscall(SYS_exit, 4);  // killed before it returns
  syscall(SYS_exit, 5);
  return 1;
}
static int case_strict_prctl(void) {
  if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 1234, 0, 0) != 0) return 2;  // its filter is ignored
  prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
  return 1;
}
static int case_strict_exit(void) {
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 0, NULL) != 0) return 2;
  syscall(SYS_exit, 7);  // exit is allowed: the status is 7
  return 1;
}

static void* errno_thread(void* arg) {
  (void)arg;
  return (void*)(intptr_t)(syscall(SYS_getppid) == -1 ? errno : 0);
}

static int g_go[2], g_ready[2];
static void* tsync_thread(void* arg) {
  (void)arg;
  char c;
  // Installed in another thread while this one waits: TSYNC gives it the filter.
  if (read(g_go[0], &c, 1) != 1) return (void*)-1;
  return (void*)(intptr_t)(syscall(SYS_getppid) == -1 ? errno : 0);
}
static void* own_filter_thread(void* arg) {
  (void)arg;
  if (install_nr(SYS_getsid, SECCOMP_RET_ERRNO | 9) != 0) return (void*)-1;
  char c = 'r';
  if (write(g_ready[1], &c, 1) != 1) return (void*)-1;
  if (read(g_go[0], &c, 1) != 1) return (void*)-1;
  return NULL;
}

// Inheritance: a new thread and a forked child have the chain; TSYNC gives a thread the caller's, and
// fails with the id of a thread whose chain is not an ancestor of the caller's (ESRCH with TSYNC_ESRCH).
static int case_inherit(void) {
  CHECK_EQ(install_nr(SYS_getppid, SECCOMP_RET_ERRNO | 11), 0);
  pthread_t th;
  void* ret = NULL;
  CHECK_EQ(pthread_create(&th, NULL, errno_thread, NULL), 0);
  CHECK_EQ(pthread_join(th, &ret), 0);
  CHECK_EQ((intptr_t)ret, 11);
  pid_t pid = fork();
  if (pid == 0) _exit(syscall(SYS_getppid) == -1 ? errno : 0);
  int st = -1;
  CHECK_EQ(waitpid(pid, &st, 0), pid);
  CHECK_EQ(st, 11 << 8);

  CHECK_EQ(pipe(g_go), 0);
  CHECK_EQ(pipe(g_ready), 0);
  CHECK_EQ(pthread_create(&th, NULL, tsync_thread, NULL), 0);
  CHECK_EQ(install_nr(SYS_getppid, SECCOMP_RET_ERRNO | 12), 0);  // not synced: the thread keeps 11
  const struct sock_filter f[] = {LOAD_NR, BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
                                  RET(SECCOMP_RET_ERRNO | 13), ALLOW};
  CHECK_EQ(install(f, 4, SECCOMP_FILTER_FLAG_TSYNC), 0);
  CHECK_EQ(write(g_go[1], "g", 1), 1);
  CHECK_EQ(pthread_join(th, &ret), 0);
  CHECK_EQ((intptr_t)ret, 13);

  // A thread with a filter of its own cannot be synced.
  CHECK_EQ(pthread_create(&th, NULL, own_filter_thread, NULL), 0);
  char c;
  CHECK_EQ(read(g_ready[0], &c, 1), 1);  // the thread has its own filter
  const long failed = install(f, 4, SECCOMP_FILTER_FLAG_TSYNC);
  CHECK_GT(failed, 0);
  CHECK(failed != getpid());
  CHECK_ERRNO(install(f, 4, SECCOMP_FILTER_FLAG_TSYNC | SECCOMP_FILTER_FLAG_TSYNC_ESRCH), ESRCH);
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%ld/status", failed);
  CHECK_EQ(status_value(path, "Seccomp_filters"), 4);  // the creator's three and its own
  CHECK_EQ(status_value("/proc/thread-self/status", "Seccomp_filters"), 3);
  CHECK_EQ(write(g_go[1], "g", 1), 1);
  CHECK_EQ(pthread_join(th, &ret), 0);
  CHECK(ret == NULL);
  return check_done();
}

static const char* g_self;
// execve keeps the chain.
static int case_exec(void) {
  if (install_nr(SYS_getppid, SECCOMP_RET_ERRNO | 21) != 0) return 2;
  if (install_nr(SYS_getsid, SECCOMP_RET_ERRNO | 22) != 0) return 2;
  char* args[] = {(char*)g_self, "after-exec", NULL};
  exec_guest(g_self, args, environ);
  return 3;
}
static int after_exec(void) {
  CHECK_ERRNO(syscall(SYS_getppid), 21);
  CHECK_ERRNO(syscall(SYS_getsid, 0), 22);
  CHECK_EQ(prctl(PR_GET_SECCOMP, 0, 0, 0, 0), 2);
  CHECK_EQ(status_value("/proc/self/status", "Seccomp"), 2);
  CHECK_EQ(status_value("/proc/self/status", "Seccomp_filters"), 2);
  return check_done();
}

// EACCES: neither no_new_privs nor CAP_SYS_ADMIN (dropped from the effective set).
static int case_eacces_child(void) {
  struct __user_cap_header_struct head = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[2];
  CHECK_EQ(syscall(SYS_capget, &head, data), 0);
  data[CAP_SYS_ADMIN / 32].effective &= ~(1u << (CAP_SYS_ADMIN % 32));
  CHECK_EQ(syscall(SYS_capset, &head, data), 0);
  const struct sock_filter ok[] = {ALLOW};
  CHECK_ERRNO(install(ok, 1, 0), EACCES);
  CHECK_EQ(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
  CHECK_EQ(install(ok, 1, 0), 0);
  return check_done();
}

int main(int argc, char** argv) {
  if (argc == 2 && strcmp(argv[1], "after-exec") == 0) return after_exec();
  g_self = self_path();
  if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &(struct seccomp_notif_sizes){0}) != 0 &&
      errno == ENOSYS && on_reference_qemu()) {
    NOTE("qemu-aarch64 7.2 has no seccomp (ENOSYS; PR_SET_SECCOMP is EINVAL): nothing to check");
    return check_done();
  }
  CHECK_EXITS_0(case_operations);
  CHECK_EXITS_0(case_errno);
  CHECK_KILLED_BY(case_precedence, SIGSYS);
  CHECK_EXITS_0(case_data);
  CHECK_EXITS_0(case_trap);
  CHECK_KILLED_BY(case_trap_blocked, SIGSYS);
  CHECK_KILLED_BY(case_trap_ignored, SIGSYS);
  CHECK_KILLED_BY(case_kill_process, SIGSYS);
  CHECK_KILLED_BY(case_kill_thread_alone, SIGSYS);
  CHECK_KILLED_BY(case_unknown_action, SIGSYS);
  CHECK_EXITS_0(case_kill_thread);
  CHECK_KILLED_BY(case_strict, SIGKILL);
  CHECK_KILLED_BY(case_strict_prctl, SIGKILL);
  CHECK_EQ(in_child(case_strict_exit), 7 << 8);
  CHECK_EXITS_0(case_inherit);
  CHECK_EXITS_0(case_exec);
  // Without no_new_privs: a child of its own.
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) _exit(geteuid() == 0 ? case_eacces_child() : 0);
  int st = -1;
  CHECK_EQ(waitpid(pid, &st, 0), pid);
  CHECK_EQ(st, 0);
  return check_done();
}
