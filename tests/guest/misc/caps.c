// capget/capset: the version handshake (an unknown version gets the kernel's preferred one written back and
// EINVAL, or 0 with a null data pointer), this process's sets as /proc/self/status shows them, and setting
// the same sets back. unshare: nothing to unshare in a one-thread process, unknown flags, a namespace (as
// root, in a child so the test's own namespaces stay).
#define _GNU_SOURCE
#include <errno.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static unsigned long long status_caps(const char* key) {
  FILE* f = fopen("/proc/self/status", "r");
  char line[256];
  unsigned long long v = ~0ull;
  while (f && fgets(line, sizeof line, f)) {
    if (strncmp(line, key, strlen(key)) == 0) sscanf(line + strlen(key), "%llx", &v);
  }
  if (f) fclose(f);
  return v;
}

int main(void) {
  struct __user_cap_header_struct h = {0x12345678, 0};
  struct __user_cap_data_struct d[2];
  CHECK_ERRNO(syscall(SYS_capget, &h, d), EINVAL);
  CHECK_EQ(h.version, (unsigned)_LINUX_CAPABILITY_VERSION_3);
  h.version = 0x12345678;
  CHECK_EQ(syscall(SYS_capget, &h, NULL), 0);  // a version probe
  CHECK_EQ(h.version, (unsigned)_LINUX_CAPABILITY_VERSION_3);

  h.version = _LINUX_CAPABILITY_VERSION_3;
  h.pid = 0;
  memset(d, 0xff, sizeof d);
  CHECK_SYS(syscall(SYS_capget, &h, d));
  unsigned long long eff = (unsigned long long)d[1].effective << 32 | d[0].effective;
  unsigned long long prm = (unsigned long long)d[1].permitted << 32 | d[0].permitted;
  CHECK_EQ(eff, status_caps("CapEff:"));
  CHECK_EQ(prm, status_caps("CapPrm:"));
  h.pid = getpid();
  CHECK_SYS(syscall(SYS_capget, &h, d));
  CHECK_SYS(syscall(SYS_capset, &h, d));  // the same sets again
  CHECK_ERRNO(syscall(SYS_capget, (void*)8, d), EFAULT);
  h.pid = 0x7ffffff0;
  CHECK_ERRNO(syscall(SYS_capget, &h, d), ESRCH);

  CHECK_SYS(unshare(0));
  CHECK_SYS(unshare(CLONE_FILES | CLONE_FS | CLONE_SYSVSEM));  // one thread: already private
  CHECK_ERRNO(unshare(0x1), EINVAL);                           // not a flag unshare takes
  pid_t pid = fork();
  if (pid == 0) {
    int r = unshare(CLONE_NEWUTS);
    if (geteuid() == 0) _exit(r == 0 && sethostname("a64run-test", 11) == 0 ? 0 : 1);
    _exit(r == -1 && errno == EPERM ? 0 : 2);
  }
  int status;
  CHECK_EQ(waitpid(pid, &status, 0), pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return check_done();
}
