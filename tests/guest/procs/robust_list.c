// get_robust_list(2) as Linux answers it: the caller's head (pid 0 or its own tid), another thread's head
// by its tid, ESRCH for a pid no process has, EPERM for a process the caller may not look at (an
// unprivileged caller and pid 1), EFAULT for an address that cannot be written; the size is 24. A
// native process's head is the host's answer; another emulated process's is unknown to a64run (ENOSYS).
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static struct robust_list_head g_thread_head;
static pid_t g_thread_tid;
static pthread_barrier_t g_set, g_done;

static void* thread_main(void* arg) {
  (void)arg;
  g_thread_head.list.next = &g_thread_head.list;
  // The thread's own head replaces glibc's for a moment; glibc's comes back before the thread ends.
  struct robust_list_head* old = NULL;
  size_t old_len = 0;
  syscall(SYS_get_robust_list, 0, &old, &old_len);
  syscall(SYS_set_robust_list, &g_thread_head, sizeof g_thread_head);
  g_thread_tid = (pid_t)syscall(SYS_gettid);
  pthread_barrier_wait(&g_set);
  pthread_barrier_wait(&g_done);
  syscall(SYS_set_robust_list, old, old_len);
  return NULL;
}

// get_robust_list's result: 0 (with *head and *len), or the errno.
static int get_list(pid_t pid, void** head, size_t* len) {
  errno = 0;
  return syscall(SYS_get_robust_list, pid, head, len) == 0 ? 0 : errno;
}

int main(void) {
  void* head = NULL;
  size_t len = 0;
  if (on_reference_qemu()) {
    // qemu-aarch64 7.2 has no robust lists (set_robust_list and get_robust_list are ENOSYS).
    CHECK_EQ(get_list(0, &head, &len), ENOSYS);
    NOTE("qemu-aarch64 7.2 has no get_robust_list: the checks are left out");
    return check_done();
  }
  // The caller's: glibc's head, set at startup.
  CHECK_EQ(get_list(0, &head, &len), 0);
  CHECK(head != NULL);
  CHECK_EQ(len, 24);
  void* own = head;
  head = NULL;
  CHECK_EQ(get_list((pid_t)syscall(SYS_gettid), &head, &len), 0);
  CHECK(head == own);

  // Another thread's, by its tid.
  pthread_barrier_init(&g_set, NULL, 2);
  pthread_barrier_init(&g_done, NULL, 2);
  pthread_t th;
  REQUIRE(pthread_create(&th, NULL, thread_main, NULL) == 0);
  pthread_barrier_wait(&g_set);
  head = NULL;
  len = 0;
  CHECK_EQ(get_list(g_thread_tid, &head, &len), 0);
  CHECK(head == &g_thread_head);
  CHECK_EQ(len, 24);
  pthread_barrier_wait(&g_done);
  pthread_join(th, NULL);

  // A pid no process has; bad addresses.
  pid_t gone = fork();
  if (gone == 0) _exit(0);
  REQUIRE(waitpid(gone, NULL, 0) == gone);
  CHECK_EQ(get_list(gone, &head, &len), ESRCH);
  void* unwritable = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(unwritable != MAP_FAILED);
  CHECK_EQ(get_list(0, unwritable, &len), EFAULT);
  CHECK_EQ(get_list(0, &head, unwritable), EFAULT);

  // An unprivileged caller may not look at pid 1 (ptrace_may_access).
  if (geteuid() == 0) {
    pid_t child = fork();
    if (child == 0) {
      if (setresuid(65534, 65534, 65534) != 0) _exit(2);
      _exit(get_list(1, &head, &len) == EPERM ? 0 : 1);
    }
    int status = -1;
    CHECK_EQ(waitpid(child, &status, 0), child);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  } else {
    NOTE("not root: the EPERM check is left out");
  }
  return check_done();
}
