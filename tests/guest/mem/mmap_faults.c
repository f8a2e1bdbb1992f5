// Tests that bad memory accesses kill the process with the right signal: each access runs in a forked child
// and the parent checks WTERMSIG (SIGSEGV for unmapped, protected and non-executable memory, SIGBUS past the
// end of a mapped file). Needs fork and default signal actions, not signal handlers.
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define kPage 4096L

// Runs fn(arg) in a child and checks how the child ended: killed by `sig`, or exited 0 when sig is 0.
static void expect_death(const char* what, void (*fn)(void*), void* arg, int sig) {
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    fn(arg);
    _exit(0);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  int ok =
      sig ? WIFSIGNALED(status) && WTERMSIG(status) == sig : WIFEXITED(status) && WEXITSTATUS(status) == 0;
  check_count++;
  if (!ok) {
    check_fail_header(__FILE__, __LINE__, what);
    if (WIFSIGNALED(status)) {
      fprintf(stderr, "  the child was killed by signal %d (%s)", WTERMSIG(status),
              strsignal(WTERMSIG(status)));
    } else {
      fprintf(stderr, "  the child exited with status %d", WEXITSTATUS(status));
    }
    fprintf(stderr, "; expected %s %d (%s)\n", sig ? "signal" : "exit status 0 / no signal", sig,
            sig ? strsignal(sig) : "-");
  }
}

static void read_byte(void* p) {
  (void)*(volatile char*)p;
}
static void write_byte(void* p) {
  *(volatile char*)p = 1;
}
static void call_code(void* p) {
  ((void (*)(void))p)();
}

static char* map_anon(size_t size, int prot) {
  char* p = mmap(NULL, size, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(p != MAP_FAILED);
  return p;
}

// Deep enough to pass any stack limit (1 KiB frames); volatile so that the compiler keeps every frame.
static volatile long recursion_limit = 1L << 40;
static __attribute__((noinline)) int recurse(volatile char* prev, long depth) {
  volatile char frame[1024];
  frame[0] = prev ? prev[0] + 1 : 0;
  if (depth >= recursion_limit) return frame[0];
  return recurse(frame, depth + 1) + frame[1];
}
static void overflow_stack(void* unused) {
  (void)unused;
  recurse(NULL, 0);
}

int main(void) {
  // Control: the harness sees a child that does not fault as a normal exit.
  char* rw = map_anon(kPage, PROT_READ | PROT_WRITE);
  expect_death("a write to writable memory does not fault", write_byte, rw, 0);

  char* gone = map_anon(2 * kPage, PROT_READ | PROT_WRITE);
  REQUIRE_SYS(munmap(gone, 2 * kPage));
  expect_death("a read of unmapped memory is SIGSEGV", read_byte, gone + 100, SIGSEGV);
  expect_death("a write to unmapped memory is SIGSEGV", write_byte, gone + kPage, SIGSEGV);
  expect_death("a read of address 0 is SIGSEGV", read_byte, NULL, SIGSEGV);

  char* ro = map_anon(kPage, PROT_READ | PROT_WRITE);
  REQUIRE_SYS(mprotect(ro, kPage, PROT_READ));
  expect_death("a read of PROT_READ memory does not fault", read_byte, ro, 0);
  expect_death("a write to PROT_READ memory is SIGSEGV", write_byte, ro, SIGSEGV);
  char* none = map_anon(kPage, PROT_NONE);
  expect_death("a read of PROT_NONE memory is SIGSEGV", read_byte, none, SIGSEGV);
  REQUIRE_SYS(mprotect(none, kPage, PROT_READ | PROT_WRITE));
  expect_death("after mprotect(PROT_READ|PROT_WRITE) a write does not fault", write_byte, none, 0);

  // Code in memory without PROT_EXEC cannot run; with it, it can. 0xd65f03c0 is `ret`.
  uint32_t* code = (uint32_t*)map_anon(kPage, PROT_READ | PROT_WRITE);
  code[0] = 0xd65f03c0;
  __builtin___clear_cache((char*)code, (char*)(code + 1));
  expect_death("a jump to PROT_READ|PROT_WRITE memory is SIGSEGV", call_code, code, SIGSEGV);
  REQUIRE_SYS(mprotect(code, kPage, PROT_READ | PROT_EXEC));
  expect_death("a jump to PROT_EXEC memory runs", call_code, code, 0);

  // The program's own code and read-only data are not writable.
  expect_death("a write to the program's code is SIGSEGV", write_byte, (void*)&main, SIGSEGV);
  expect_death("a write to a string literal is SIGSEGV", write_byte, (void*)"literal", SIGSEGV);

  // A file mapping reaches past the file's end: the rest of the last page reads as zero, pages wholly
  // beyond the end are SIGBUS.
  int fd = REQUIRE_SYS(open("short", O_CREAT | O_RDWR | O_TRUNC, 0644));
  REQUIRE(write(fd, "data", 4) == 4);
  char* file = mmap(NULL, 3 * kPage, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  REQUIRE(file != MAP_FAILED);
  expect_death("a read within the file's last page does not fault", read_byte, file + kPage - 1, 0);
  expect_death("a read past the file's last page is SIGBUS", read_byte, file + kPage, SIGBUS);
  expect_death("a write past the file's last page is SIGBUS", write_byte, file + 2 * kPage + 5, SIGBUS);
  CHECK_SYS(close(fd));

  expect_death("unbounded recursion overflows the stack into SIGSEGV", overflow_stack, NULL, SIGSEGV);
  return check_done();
}
