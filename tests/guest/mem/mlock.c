// mlock accounting: /proc/self/smaps's Locked: and /proc/self/status's VmLck: count the pages mlock and
// MAP_LOCKED lock, munlock gives them back (splitting the entry), and a fork child has none. qemu-aarch64 7.2
// synthesizes smaps with Locked: 0, so there only status is checked.
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define LEN (1ul << 20)

// The Locked: value (kB) of the smaps entry that starts at addr, or -1.
static long smaps_locked(void* addr) {
  FILE* f = fopen("/proc/self/smaps", "r");
  if (!f) return -1;
  char line[512];
  long v = -1;
  int in = 0;
  while (fgets(line, sizeof line, f)) {
    unsigned long s, e;
    if (sscanf(line, "%lx-%lx ", &s, &e) == 2) {
      in = s == (unsigned long)addr;
      continue;
    }
    if (in && strncmp(line, "Locked:", 7) == 0) v = strtol(line + 7, NULL, 10);
  }
  fclose(f);
  return v;
}

static long vmlck_kb(void) {
  FILE* f = fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  long v = -1;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "VmLck:", 6) == 0) v = strtol(line + 6, NULL, 10);
  }
  fclose(f);
  return v;
}

int main(void) {
  const long before = vmlck_kb();
  CHECK_GE(before, 0);
  char* p = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(p != MAP_FAILED);
  memset(p, 1, LEN);
  if (mlock(p, LEN) != 0 && errno == EPERM) {
    NOTE("mlock needs a larger RLIMIT_MEMLOCK here; skipped");
    return check_done();
  }
  if (!on_reference_qemu()) CHECK_EQ(smaps_locked(p), LEN / 1024);
  CHECK_EQ(vmlck_kb() - before, LEN / 1024);
  // A fork child inherits no memory locks.
  pid_t pid = fork();
  if (pid == 0) _exit((on_reference_qemu() || smaps_locked(p) == 0) && vmlck_kb() == 0 ? 0 : 1);
  int status;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK_SYS(munlock(p, LEN / 2));
  if (!on_reference_qemu()) CHECK_EQ(smaps_locked(p), 0);  // the unlocked half is its own entry now
  CHECK_EQ(vmlck_kb() - before, LEN / 2048);
  CHECK_SYS(munlock(p, LEN));
  CHECK_EQ(vmlck_kb(), before);
  CHECK_SYS(munmap(p, LEN));

  // MAP_LOCKED locks (and populates) at once.
  p = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED, -1, 0);
  REQUIRE(p != MAP_FAILED);
  if (!on_reference_qemu()) CHECK_EQ(smaps_locked(p), LEN / 1024);
  CHECK_EQ(vmlck_kb() - before, LEN / 1024);
  CHECK_SYS(munmap(p, LEN));
  CHECK_EQ(vmlck_kb(), before);
  return check_done();
}
