// Guard pages (MADV_GUARD_INSTALL, MADV_GUARD_REMOVE; Linux 6.13) as Linux gives them. Installing one zaps
// the page; any access to it is SIGSEGV with SEGV_MAPERR at the exact address, a system call that touches
// it is EFAULT; it stays through MADV_DONTNEED, mprotect and fork, splits no VMA in /proc/self/maps, and
// goes with MADV_GUARD_REMOVE (the page reads zero again) or a new mapping. An mlocked range takes none
// (EINVAL), an unmapped one is ENOMEM. Run with A64RUN_SOFTMMU=1 too (the softmmu path's TLB fill).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "mem_util.h"

#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102
#define MADV_GUARD_REMOVE 103
#endif

enum { kPage = 4096 };

static sigjmp_buf g_jump;
static volatile int g_signo, g_code;
static volatile uintptr_t g_addr;

static void on_segv(int sig, siginfo_t* si, void* ctx) {
  (void)ctx;
  g_signo = sig;
  g_code = si->si_code;
  g_addr = (uintptr_t)si->si_addr;
  siglongjmp(g_jump, 1);
}

// 1 when a read (or a write) of *p faulted, with the fault's signal, code and address noted.
static int faults(volatile char* p, int write) {
  g_signo = g_code = 0;
  g_addr = 0;
  if (sigsetjmp(g_jump, 1) == 0) {
    if (write)
      *p = 1;
    else
      (void)*p;
    return 0;
  }
  return 1;
}

int main(void) {
  const int rw = PROT_READ | PROT_WRITE;
  char* p = mmap(NULL, 8 * kPage, rw, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(p != MAP_FAILED);
  memset(p, 0x33, 8 * kPage);
  errno = 0;
  const int r = madvise(p + 2 * kPage, 2 * kPage, MADV_GUARD_INSTALL);
  if (r != 0 && on_reference_qemu()) {
    NOTE("qemu-aarch64 7.2 has no guard pages: nothing to check");
    return check_done();
  }
  if (on_reference_qemu() && r == 0) {
    // qemu-aarch64 7.2 accepts every madvise advice and does nothing.
    NOTE("qemu-aarch64 7.2 ignores MADV_GUARD_INSTALL: nothing to check");
    return check_done();
  }
  CHECK_EQ(r, 0);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO;
  REQUIRE(sigaction(SIGSEGV, &sa, NULL) == 0);

  // The pages around keep their data; the guarded ones fault, read or write, at the exact address.
  CHECK_EQ(p[2 * kPage - 1], 0x33);
  CHECK_EQ(p[4 * kPage], 0x33);
  CHECK(faults(p + 2 * kPage + 123, 0));
  CHECK_EQ(g_signo, SIGSEGV);
  CHECK_EQ(g_code, SEGV_MAPERR);
  CHECK_EQ(g_addr, (uintptr_t)(p + 2 * kPage + 123));
  CHECK(faults(p + 4 * kPage - 1, 1));
  CHECK_EQ(g_code, SEGV_MAPERR);
  CHECK_EQ(g_addr, (uintptr_t)(p + 4 * kPage - 1));

  // System calls: EFAULT.
  int pipefd[2];
  REQUIRE(pipe(pipefd) == 0);
  errno = 0;
  CHECK_EQ(write(pipefd[1], p + 2 * kPage, 16), -1);
  CHECK_EQ(errno, EFAULT);
  CHECK_EQ(write(pipefd[1], "0123456789abcdef", 16), 16);
  errno = 0;
  CHECK_EQ(read(pipefd[0], p + 3 * kPage, 16), -1);
  CHECK_EQ(errno, EFAULT);
  close(pipefd[0]);
  close(pipefd[1]);

  // One VMA still; the guard stays through MADV_DONTNEED, mprotect and fork.
  CHECK_EQ(maps_lines((uintptr_t)p, (uintptr_t)(p + 8 * kPage)), 1);
  CHECK_EQ(madvise(p, 8 * kPage, MADV_DONTNEED), 0);
  CHECK(faults(p + 2 * kPage, 0));
  CHECK(!faults(p + kPage, 0) && p[kPage] == 0);
  CHECK_EQ(mprotect(p, 8 * kPage, PROT_READ), 0);
  CHECK(faults(p + 3 * kPage, 0));
  CHECK_EQ(mprotect(p, 8 * kPage, rw), 0);
  pid_t pid = fork();
  if (pid == 0) _exit(faults(p + 2 * kPage, 0) && g_code == SEGV_MAPERR ? 0 : 1);
  int status = -1;
  CHECK_EQ(waitpid(pid, &status, 0), pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);

  // Removed: the page reads zero and takes writes again.
  CHECK_EQ(madvise(p + 2 * kPage, kPage, MADV_GUARD_REMOVE), 0);
  CHECK(!faults(p + 2 * kPage, 0) && p[2 * kPage] == 0);
  CHECK(!faults(p + 2 * kPage, 1));
  CHECK(faults(p + 3 * kPage, 0));  // its neighbour keeps its guard
  // A new mapping over it has none.
  CHECK(mmap(p + 3 * kPage, kPage, rw, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == p + 3 * kPage);
  CHECK(!faults(p + 3 * kPage, 1));

  // Refusals: a locked range (EINVAL), a hole (ENOMEM).
  if (mlock(p + 6 * kPage, kPage) == 0) {
    errno = 0;
    CHECK_EQ(madvise(p + 6 * kPage, kPage, MADV_GUARD_INSTALL), -1);
    CHECK_EQ(errno, EINVAL);
    munlock(p + 6 * kPage, kPage);
  }
  REQUIRE(munmap(p + 7 * kPage, kPage) == 0);
  errno = 0;
  CHECK_EQ(madvise(p + 7 * kPage, kPage, MADV_GUARD_INSTALL), -1);
  CHECK_EQ(errno, ENOMEM);
  munmap(p, 7 * kPage);
  return check_done();
}
