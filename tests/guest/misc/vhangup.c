// vhangup(2): the host's. A root process without a controlling terminal (a new session) gets 0, as in LTP
// vhangup02; without CAP_SYS_TTY_CONFIG (uid 65534) EPERM, as in vhangup01.
#define _GNU_SOURCE
#include <errno.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

// Child exit: 0 on the expected result, 2 when not root (nothing to check), else a failure.
static int child(int drop) {
  if (geteuid() != 0) return 2;
  if (setsid() < 0) return 3;
  if (drop && setresuid(65534, 65534, 65534) != 0) return 4;
  errno = 0;
  const long r = syscall(SYS_vhangup);
  if (drop) return r == -1 && errno == EPERM ? 0 : 5;
  return r == 0 ? 0 : 6;
}

int main(void) {
  for (int drop = 0; drop <= 1; drop++) {
    pid_t pid = fork();
    if (pid == 0) _exit(child(drop));
    int status;
    CHECK_EQ(waitpid(pid, &status, 0), pid);
    REQUIRE(WIFEXITED(status));
    if (WEXITSTATUS(status) == 2) {
      NOTE("not root: vhangup is not checked");
    } else {
      CHECK_EQ(WEXITSTATUS(status), 0);
    }
  }
  return check_done();
}
