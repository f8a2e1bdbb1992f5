// personality(2): any persona but PER_LINUX32 (no 32-bit EL0) is accepted and reported back; UNAME26 makes
// uname report a 2.6 release, STICKY_TIMEOUTS leaves select's timeout alone, READ_IMPLIES_EXEC makes readable
// mappings executable, and execve keeps the flags.
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/select.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../procs/self_exec.h"
#include "check.h"

// The permissions of the /proc/self/maps line that starts at addr ("" if none; a static buffer).
static const char* perms_of(void* addr) {
  static char perms[8];
  char line[512], want[32];
  snprintf(want, sizeof want, "%lx-", (unsigned long)addr);
  perms[0] = '\0';
  FILE* f = fopen("/proc/self/maps", "r");
  while (f && fgets(line, sizeof line, f)) {
    if (strncmp(line, want, strlen(want)) == 0) sscanf(line, "%*s %7s", perms);
  }
  if (f) fclose(f);
  return perms;
}

int main(int argc, char** argv) {
  if (argc == 2 && strcmp(argv[1], "after-exec") == 0) {
    // The flags survive execve; the base type is PER_LINUX again.
    return personality(0xffffffff) == (PER_LINUX | UNAME26) ? 0 : 1;
  }
  const int orig = personality(0xffffffff);
  CHECK_EQ(orig & PER_MASK, PER_LINUX);
  CHECK_EQ(personality(PER_SVR4), orig);
  CHECK_EQ(personality(0xffffffff), PER_SVR4);
  CHECK_EQ(personality(PER_LINUX), PER_SVR4);
  // qemu-aarch64 7.2 passes personality to the x86-64 host, which accepts PER_LINUX32.
  if (!on_reference_qemu()) CHECK_ERRNO(personality(PER_LINUX32), EINVAL);
  CHECK_EQ(personality(0xffffffff), PER_LINUX);

  struct utsname u;
  CHECK_SYS(personality(PER_LINUX | UNAME26));
  CHECK_SYS(uname(&u));
  CHECK(strncmp(u.release, "2.6.", 4) == 0);
  CHECK_STREQ(u.machine, "aarch64");
  // The rest of the release buffer holds no stale bytes.
  size_t n = strlen(u.release);
  int clean = 1;
  for (size_t i = n; i < sizeof u.release; i++) clean &= u.release[i] == 0;
  CHECK(clean);

  pid_t pid = fork();
  if (pid == 0) {
    char* args[] = {argv[0], "after-exec", NULL};
    exec_guest(self_path(), args, environ);
    _exit(127);
  }
  int status;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK_SYS(personality(PER_LINUX));
  CHECK_SYS(uname(&u));
  CHECK(strncmp(u.release, "2.6.", 4) != 0);

  // STICKY_TIMEOUTS: select leaves the time left alone.
  CHECK_SYS(personality(PER_LINUX | STICKY_TIMEOUTS));
  struct timeval tv = {0, 20000};
  CHECK_EQ(select(0, NULL, NULL, NULL, &tv), 0);
  CHECK_EQ(tv.tv_usec, 20000);
  CHECK_SYS(personality(PER_LINUX));
  tv = (struct timeval){0, 20000};
  CHECK_EQ(select(0, NULL, NULL, NULL, &tv), 0);
  CHECK_EQ(tv.tv_usec, 0);

  // READ_IMPLIES_EXEC: readable anonymous memory is executable too (qemu-aarch64 7.2 ignores the flag).
  CHECK_SYS(personality(PER_LINUX | READ_IMPLIES_EXEC));
  void* p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(p != MAP_FAILED);
  if (!on_reference_qemu()) CHECK_STREQ(perms_of(p), "r-xp");
  CHECK_SYS(personality(PER_LINUX));
  void* q = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK_STREQ(perms_of(q), "r--p");
  return check_done();
}
