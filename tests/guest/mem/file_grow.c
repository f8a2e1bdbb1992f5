// A file mapping longer than its file: Linux decides at each access whether a page lies past the end of the
// file, so the pages past the end give SIGBUS (BUS_ADRERR, si_addr the access) while the file is short and
// read the file once it has grown (by ftruncate, write or fallocate, from this process or another), and a
// shrink makes them SIGBUS again. LMDB maps its whole map size over a smaller file and grows the file with
// pwrite and ftruncate. Checked for MAP_SHARED (writes reach the file) and MAP_PRIVATE (reads see the file,
// writes stay private), for plain loads and stores, atomics, write(2) from such a buffer (EFAULT), after
// mprotect, mremap and MAP_FIXED over such pages, and for mappings locked by MAP_LOCKED or
// mlockall(MCL_FUTURE).
#define _GNU_SOURCE
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

#define kPage 4096L
#define kPages 4

static sigjmp_buf jump_back;
static volatile sig_atomic_t fault_count;
static siginfo_t last_info;

static void handler(int sig, siginfo_t* info, void* ucontext) {
  (void)sig;
  (void)ucontext;
  fault_count++;
  last_info = *info;
  siglongjmp(jump_back, 1);
}

enum Access { kRead, kWrite, kAtomicAdd };

// Makes one access at p; returns 1 when it raised a signal (the handler jumped back), else 0 with the value
// read (or the old value of the atomic) in *value.
static int faults(volatile char* p, enum Access how, char* value) {
  fault_count = 0;
  memset(&last_info, 0, sizeof last_info);
  if (sigsetjmp(jump_back, 1) == 0) {
    if (how == kRead) {
      *value = *p;
    } else if (how == kWrite) {
      *p = 'w';
    } else {
      *value = (char)__atomic_fetch_add((volatile uint32_t*)p, 1, __ATOMIC_SEQ_CST);
    }
    return 0;
  }
  return 1;
}

static void check_signal(const char* what, volatile char* p, enum Access how, int sig, int code) {
  char value = 0;
  const int before = check_failures;
  if (CHECK(faults(p, how, &value))) {
    CHECK_EQ(fault_count, 1);
    CHECK_EQ(last_info.si_signo, sig);
    CHECK_EQ(last_info.si_code, code);
    CHECK_EQ((uintptr_t)last_info.si_addr, (uintptr_t)p);
  }
  if (check_failures != before) fprintf(stderr, "  for: %s (expected signal %d, code %d)\n", what, sig, code);
}

static void check_sigbus(const char* what, volatile char* p, enum Access how) {
  check_signal(what, p, how, SIGBUS, BUS_ADRERR);
}

// The access works and (for a read or an atomic) finds `want`.
static void check_reads(const char* what, volatile char* p, enum Access how, char want) {
  char value = 0;
  const int before = check_failures;
  if (CHECK(!faults(p, how, &value)) && how != kWrite) CHECK_EQ(value, want);
  if (check_failures != before) fprintf(stderr, "  for: %s\n", what);
}

static char file_byte(int fd, off_t off) {
  char c = 0;
  CHECK_EQ(pread(fd, &c, 1, off), 1);
  return c;
}

// write(2) from the mapped buffer: Linux's copy_from_user faults past the end of the file.
static void check_write_from(int pipe_w, int pipe_r, const char* buf, int works) {
  char sink[64];
  if (works) {
    if (CHECK_EQ(write(pipe_w, buf, 16), 16)) CHECK_EQ(read(pipe_r, sink, sizeof sink), 16);
  } else {
    CHECK_ERRNO(write(pipe_w, buf, 16), EFAULT);
  }
}

// The mapping is one VMA of all its pages in /proc/self/maps, whatever the file's length.
static void check_maps_line(const char* map, long pages) {
  FILE* f = fopen("/proc/self/maps", "r");
  if (!CHECK(f != NULL)) return;
  char line[512];
  int found = 0;
  while (fgets(line, sizeof line, f)) {
    unsigned long start, end;
    if (sscanf(line, "%lx-%lx", &start, &end) == 2 && start == (uintptr_t)map) {
      found = 1;
      CHECK_EQ(end - start, pages * kPage);
    }
  }
  fclose(f);
  CHECK(found);
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO;
  REQUIRE_SYS(sigaction(SIGBUS, &sa, NULL));
  REQUIRE_SYS(sigaction(SIGSEGV, &sa, NULL));

  const int fd = REQUIRE_SYS(open("grow", O_CREAT | O_RDWR | O_TRUNC, 0600));
  char first[kPage];
  memset(first, 'f', sizeof first);
  REQUIRE(write(fd, first, kPage) == kPage);
  char* shared = mmap(NULL, kPages * kPage, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  REQUIRE(shared != MAP_FAILED);
  char* priv = mmap(NULL, kPages * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  REQUIRE(priv != MAP_FAILED);
  int pipefd[2];
  REQUIRE_SYS(pipe(pipefd));
  check_maps_line(shared, kPages);
  check_maps_line(priv, kPages);

  // One page of file: the first page works, the rest is past the end.
  check_reads("first page, shared", shared + 5, kRead, 'f');
  check_reads("first page, private", priv + 5, kRead, 'f');
  check_sigbus("read of page 3, shared", shared + 3 * kPage + 5, kRead);
  check_sigbus("read of page 3, private", priv + 3 * kPage + 5, kRead);
  check_sigbus("write to page 2, shared", shared + 2 * kPage + 9, kWrite);
  check_sigbus("write to page 1, private", priv + kPage, kWrite);
  check_sigbus("atomic add on page 3, shared", shared + 3 * kPage + 64, kAtomicAdd);
  check_write_from(pipefd[1], pipefd[0], shared + 3 * kPage, 0);
  check_write_from(pipefd[1], pipefd[0], priv + 2 * kPage, 0);

  // Grown by ftruncate: the same pages read zeros; a store through the shared map reaches the file, the
  // private map reads what pwrite wrote after the growth and keeps its own stores to itself.
  REQUIRE_SYS(ftruncate(fd, kPages * kPage));
  check_reads("read of page 3 after ftruncate, shared", shared + 3 * kPage + 5, kRead, 0);
  check_reads("read of page 3 after ftruncate, private", priv + 3 * kPage + 5, kRead, 0);
  check_reads("atomic add on page 3 after ftruncate", shared + 3 * kPage + 64, kAtomicAdd, 0);
  check_reads("write to page 3, shared", shared + 3 * kPage + 10, kWrite, 0);
  CHECK_EQ(file_byte(fd, 3 * kPage + 10), 'w');
  // The private map has not copied that page: it shows the file.
  check_reads("page 3 of the private map after the shared store", priv + 3 * kPage + 10, kRead, 'w');
  CHECK_EQ(pwrite(fd, "p", 1, 2 * kPage + 20), 1);
  check_reads("page 2 after pwrite, private", priv + 2 * kPage + 20, kRead, 'p');
  check_reads("page 2 after pwrite, shared", shared + 2 * kPage + 20, kRead, 'p');
  check_reads("write to page 1, private", priv + kPage + 30, kWrite, 0);
  CHECK_EQ(file_byte(fd, kPage + 30), 0);  // MAP_PRIVATE: the store stays in the private copy
  check_reads("the private copy of page 1", priv + kPage + 30, kRead, 'w');
  check_write_from(pipefd[1], pipefd[0], shared + 3 * kPage, 1);
  check_write_from(pipefd[1], pipefd[0], priv + 2 * kPage, 1);
  check_reads("atomic add on page 3 just before the shrink", shared + 3 * kPage + 64, kAtomicAdd, 1);

  // Truncated back to one page: past the end again, the private map's copied page too (truncation unmaps
  // private copies of the pages it removes). The pages were just used, so an emulator may still hold
  // them in its TLB.
  REQUIRE_SYS(ftruncate(fd, kPage));
  check_sigbus("atomic add on page 3 after the shrink", shared + 3 * kPage + 64, kAtomicAdd);
  check_sigbus("read of page 3 after the shrink, shared", shared + 3 * kPage + 5, kRead);
  check_sigbus("read of page 2 after the shrink, private", priv + 2 * kPage + 20, kRead);
  check_sigbus("read of the copied page 1 after the shrink, private", priv + kPage + 30, kRead);
  check_write_from(pipefd[1], pipefd[0], shared + 3 * kPage, 0);
  check_reads("first page after the shrink", shared + 5, kRead, 'f');

  // Grown by a write past the end: the pages up to the new end read the file (zeros before the data).
  CHECK_EQ(pwrite(fd, "x", 1, 3 * kPage + 100), 1);
  check_reads("page 3 after a write past the end, shared", shared + 3 * kPage + 100, kRead, 'x');
  check_reads("page 2 after a write past the end, private", priv + 2 * kPage + 20, kRead, 0);
  check_reads("page 3 after a write past the end, private", priv + 3 * kPage + 100, kRead, 'x');

  // Grown by another process: a child ftruncates the file the parent maps.
  REQUIRE_SYS(ftruncate(fd, kPage));
  check_sigbus("read of page 2 before the child's growth", shared + 2 * kPage, kRead);
  const pid_t pid = fork();
  REQUIRE_SYS(pid);
  if (pid == 0) _exit(ftruncate(fd, kPages * kPage) == 0 ? 0 : 1);
  int status = 0;
  CHECK_EQ(waitpid(pid, &status, 0), pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  check_reads("page 2 after the child's growth, shared", shared + 2 * kPage, kRead, 0);
  check_reads("page 3 after the child's growth, private", priv + 3 * kPage + 100, kRead, 0);
  check_reads("write to page 3 after the child's growth", shared + 3 * kPage + 1, kWrite, 0);
  CHECK_EQ(file_byte(fd, 3 * kPage + 1), 'w');

  // Grown by fallocate (where the file system has it).
  REQUIRE_SYS(ftruncate(fd, kPage));
  check_sigbus("read of page 3 before fallocate", shared + 3 * kPage, kRead);
  if (fallocate(fd, 0, 0, kPages * kPage) == 0) {
    check_reads("page 3 after fallocate, shared", shared + 3 * kPage, kRead, 0);
    check_reads("page 3 after fallocate, private", priv + 3 * kPage, kRead, 0);
  } else {
    NOTE("fallocate: %s; growth by fallocate not checked", strerror(errno));
  }

  // mprotect covers the pages past the end as well: a read there is SIGBUS, a write to a read-only page
  // SIGSEGV (the protection is checked first).
  REQUIRE_SYS(ftruncate(fd, kPage));
  REQUIRE_SYS(mprotect(shared, kPages * kPage, PROT_READ));
  check_sigbus("read past the end of a read-only mapping", shared + 2 * kPage + 3, kRead);
  check_signal("write past the end of a read-only mapping", shared + 2 * kPage + 3, kWrite, SIGSEGV,
               SEGV_ACCERR);
  REQUIRE_SYS(mprotect(shared, kPages * kPage, PROT_READ | PROT_WRITE));

  // mremap grows the mapping with the next part of the file, past its end too, and it follows the file.
  long shared_pages = kPages;
  char* grown = mremap(shared, kPages * kPage, 6 * kPage, MREMAP_MAYMOVE);
  if (CHECK(grown != MAP_FAILED)) {
    shared = grown;
    shared_pages = 6;
    check_maps_line(shared, 6);
    check_reads("first page after mremap", shared + 5, kRead, 'f');
    check_sigbus("read of page 5 after mremap", shared + 5 * kPage + 7, kRead);
    REQUIRE_SYS(ftruncate(fd, 6 * kPage));
    check_reads("write to page 5 after the file grew", shared + 5 * kPage + 7, kWrite, 0);
    CHECK_EQ(file_byte(fd, 5 * kPage + 7), 'w');
  }

  // MAP_FIXED over pages past the end: an anonymous mapping there reads zeros whatever the file's length;
  // the file mapped again there follows the file.
  REQUIRE_SYS(ftruncate(fd, kPage));
  char* over =
      mmap(shared + 2 * kPage, kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  if (CHECK(over == shared + 2 * kPage)) check_reads("anonymous page over the file mapping", over, kRead, 0);
  over = mmap(shared + 2 * kPage, kPage, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 2 * kPage);
  if (CHECK(over == shared + 2 * kPage)) {
    check_sigbus("file page mapped again over it, past the end", over + 9, kRead);
    REQUIRE_SYS(ftruncate(fd, 3 * kPage));
    check_reads("file page mapped again over it, after growth", over + 9, kRead, 0);
  }

  // Locked mappings of the short file: Linux locks them and leaves the pages past the end unpopulated
  // (mm_populate ignores the fault), so the mmap succeeds and those pages still give SIGBUS.
  REQUIRE_SYS(ftruncate(fd, kPage));
  char* locked = mmap(NULL, kPages * kPage, PROT_READ, MAP_SHARED | MAP_LOCKED, fd, 0);
  if (CHECK(locked != MAP_FAILED)) {
    check_reads("first page of a MAP_LOCKED mapping", locked + 5, kRead, 'f');
    check_sigbus("read past the end of a MAP_LOCKED mapping", locked + 2 * kPage, kRead);
    CHECK_SYS(munmap(locked, kPages * kPage));
  }
  if (mlockall(MCL_FUTURE) == 0) {
    char* future = mmap(NULL, kPages * kPage, PROT_READ, MAP_PRIVATE, fd, 0);
    CHECK_SYS(munlockall());
    if (CHECK(future != MAP_FAILED)) {
      check_sigbus("read past the end of a mapping made under MCL_FUTURE", future + 3 * kPage, kRead);
      CHECK_SYS(munmap(future, kPages * kPage));
    }
  } else {
    NOTE("mlockall(MCL_FUTURE): %s; a mapping made under it not checked", strerror(errno));
  }

  CHECK_SYS(munmap(shared, shared_pages * kPage));
  CHECK_SYS(munmap(priv, kPages * kPage));
  close(fd);
  return check_done();
}
