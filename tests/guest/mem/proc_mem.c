// /proc/PID/mem and /proc/PID/pagemap take guest addresses, as Linux's do for an arm64 process: reads and
// writes of mapped pages whatever their protection (FOLL_FORCE), EIO at an unmapped first page, a short count
// at a later one, and nothing at all of the emulator's own memory, whatever the offset. Also through other
// names for the same file (thread-self, task/TID, a symlink, "..", a dup), every read and write call, writes
// into code that then runs, and the memory of a fork child and of an exec'd child.
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../procs/self_exec.h"
#include "check.h"

#define PAGE 4096

static char data[64] = "guest data";
static char child_text[64] = "the exec'd child";

static int open_mem(const char* path, int flags) {
  int fd = open(path, flags);
  if (fd < 0) fprintf(stderr, "open %s: %s\n", path, strerror(errno));
  return fd;
}

static void test_names(void) {
  char path[128], buf[16];
  const char* fixed[] = {"/proc/self/mem", "/proc/thread-self/mem", "/proc/self/../self/mem", "link-to-mem"};
  REQUIRE_SYS(symlink("/proc/self/mem", "link-to-mem"));
  for (size_t i = 0; i < sizeof fixed / sizeof *fixed; ++i) {
    int fd = open_mem(fixed[i], O_RDONLY);
    if (!CHECK(fd >= 0)) continue;
    memset(buf, 0, sizeof buf);
    CHECK_EQ(pread(fd, buf, 10, (off_t)(uintptr_t)data), 10);
    CHECK_STREQ(buf, "guest data");
    close(fd);
  }
  snprintf(path, sizeof path, "/proc/%d/mem", getpid());
  int by_pid = open_mem(path, O_RDONLY);
  snprintf(path, sizeof path, "/proc/self/task/%ld/mem", (long)syscall(SYS_gettid));
  int by_tid = open_mem(path, O_RDONLY);
  snprintf(path, sizeof path, "/proc/%ld/task/%ld/mem", (long)getpid(), (long)syscall(SYS_gettid));
  int by_task = open_mem(path, O_RDONLY);
  int fds[] = {by_pid, by_tid, by_task, by_pid >= 0 ? dup(by_pid) : -1};
  for (size_t i = 0; i < sizeof fds / sizeof *fds; ++i) {
    if (!CHECK(fds[i] >= 0)) continue;
    memset(buf, 0, sizeof buf);
    CHECK_EQ(pread(fds[i], buf, 10, (off_t)(uintptr_t)data), 10);
    CHECK_STREQ(buf, "guest data");
    close(fds[i]);
  }
}

// read, write, lseek, readv, writev, preadv, pwritev, preadv2, pwritev2 at guest addresses.
static void test_calls(int fd) {
  char buf[16] = {0};
  CHECK_EQ(lseek(fd, (off_t)(uintptr_t)data, SEEK_SET), (off_t)(uintptr_t)data);
  CHECK_EQ(read(fd, buf, 5), 5);
  CHECK_MEMEQ(buf, "guest", 5);
  CHECK_EQ(lseek(fd, 0, SEEK_CUR), (off_t)(uintptr_t)data + 5);  // moved by the read
  CHECK_EQ(write(fd, "-", 1), 1);
  CHECK_STREQ(data, "guest-data");
  char a[3] = {0}, b[4] = {0};
  struct iovec v[2] = {{a, 2}, {b, 3}};
  CHECK_EQ(preadv(fd, v, 2, (off_t)(uintptr_t)data), 5);
  CHECK(memcmp(a, "gu", 2) == 0 && memcmp(b, "est", 3) == 0);
  CHECK_EQ(lseek(fd, (off_t)(uintptr_t)data + 6, SEEK_SET), (off_t)(uintptr_t)data + 6);
  CHECK_EQ(readv(fd, v, 2), 5);  // "data", then the NUL
  CHECK(memcmp(a, "da", 2) == 0 && memcmp(b, "ta", 3) == 0);
  struct iovec w[2] = {{"DA", 2}, {"TA", 2}};
  CHECK_EQ(pwritev(fd, w, 2, (off_t)(uintptr_t)data + 6), 4);
  CHECK_STREQ(data, "guest-DATA");
  CHECK_EQ(lseek(fd, (off_t)(uintptr_t)data, SEEK_SET), (off_t)(uintptr_t)data);
  CHECK_EQ(writev(fd, w, 1), 2);
  CHECK_STREQ(data, "DAest-DATA");
  CHECK_EQ(pwritev2(fd, w + 1, 1, (off_t)(uintptr_t)data + 2, 0), 2);
  // qemu-aarch64 7.2 refuses every RWF_ flag of preadv2 (EOPNOTSUPP), RWF_HIPRI too.
  if (!on_reference_qemu()) {
    CHECK_EQ(preadv2(fd, v, 2, (off_t)(uintptr_t)data, RWF_HIPRI), 5);
    CHECK(memcmp(a, "DA", 2) == 0 && memcmp(b, "TAt", 3) == 0);
  }
  CHECK_ERRNO(preadv2(fd, v, 2, (off_t)(uintptr_t)data, RWF_NOWAIT), EOPNOTSUPP);  // mem has no read_iter
  CHECK_EQ(pwrite(fd, "guest data", 11, (off_t)(uintptr_t)data), 11);
  CHECK_STREQ(data, "guest data");
  // The file's own rules: pread64's negative position, lseek from the end.
  CHECK_ERRNO(pread(fd, buf, 1, -1), EINVAL);
  CHECK_ERRNO(lseek(fd, 0, SEEK_END), EINVAL);
}

// Pages the guest maps whatever their protection; the end of the mappings.
static void test_protections(int fd) {
  char* p = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(p != MAP_FAILED);
  memset(p, 'a', 4 * PAGE);
  REQUIRE_SYS(munmap(p + 3 * PAGE, PAGE));
  REQUIRE_SYS(mprotect(p + PAGE, PAGE, PROT_READ));
  REQUIRE_SYS(mprotect(p + 2 * PAGE, PAGE, PROT_NONE));
  const off_t at = (off_t)(uintptr_t)p;
  // FOLL_FORCE: a read-only page takes a write, a PROT_NONE page both.
  CHECK_EQ(pwrite(fd, "ro", 2, at + PAGE), 2);
  CHECK(memcmp(p + PAGE, "roa", 3) == 0);
  char buf[2 * PAGE];
  CHECK_EQ(pwrite(fd, "none", 4, at + 2 * PAGE), 4);
  memset(buf, 0, sizeof buf);
  CHECK_EQ(pread(fd, buf, 5, at + 2 * PAGE), 5);
  CHECK_MEMEQ(buf, "nonea", 5);
  // A read and a write across the end of the mappings are short; at the hole they fail.
  CHECK_EQ(pread(fd, buf, 16, at + 3 * PAGE - 8), 8);
  CHECK_EQ(pread(fd, buf, 2 * PAGE, at + 2 * PAGE), PAGE);
  CHECK_ERRNO(pread(fd, buf, 16, at + 3 * PAGE), EIO);
  CHECK_EQ(pwrite(fd, "0123456789abcdef", 16, at + 3 * PAGE - 8), 8);
  CHECK_ERRNO(pwrite(fd, "x", 1, at + 3 * PAGE), EIO);
  // The caller's buffer: a bad one is EFAULT where memory was there to copy, EIO comes first otherwise.
  void* volatile bad = (void*)8;
  CHECK_ERRNO(pread(fd, bad, 8, (off_t)(uintptr_t)data), EFAULT);
  // (qemu-aarch64 7.2 checks the buffer of every pread before the host's call: EFAULT.)
  if (!on_reference_qemu()) CHECK_ERRNO(pread(fd, bad, 8, at + 3 * PAGE), EIO);
  CHECK_ERRNO(pwrite(fd, bad, 8, at + 3 * PAGE), EFAULT);               // a write copies the buffer first
  CHECK_ERRNO(pread(fd, p + PAGE, 8, (off_t)(uintptr_t)data), EFAULT);  // a read-only buffer
  // A shared page without PROT_WRITE is no copy-on-write mapping: FOLL_FORCE does not write it.
  char* shared = mmap(NULL, PAGE, PROT_READ, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  REQUIRE(shared != MAP_FAILED);
  CHECK_ERRNO(pwrite(fd, "s", 1, (off_t)(uintptr_t)shared), EIO);
  CHECK_EQ(pread(fd, buf, 1, (off_t)(uintptr_t)shared), 1);
  munmap(shared, PAGE);
  munmap(p, 3 * PAGE);
}

// Guest addresses past the window and the kernel's; host mappings the guest does not have.
static int guest_maps_page(uintptr_t addr) {
  return msync((void*)(addr & ~(uintptr_t)(PAGE - 1)), PAGE, MS_ASYNC) == 0 || errno != ENOMEM;
}

static void test_out_of_reach(int fd) {
  char buf[8];
  const uint64_t far[] = {1ull << 40,          (1ull << 40) + (uintptr_t)data,
                          1ull << 46,          (1ull << 47) - PAGE,
                          (1ull << 48) - PAGE, 1ull << 48,
                          1ull << 62};
  for (size_t i = 0; i < sizeof far / sizeof *far; ++i) {
    if (guest_maps_page(far[i])) continue;
    CHECK_ERRNO(pread(fd, buf, sizeof buf, (off_t)far[i]), EIO);
    CHECK_ERRNO(pwrite(fd, "x", 1, (off_t)far[i]), EIO);
  }
  // Kernel addresses (positions past 2^63, through lseek): EIO, and EOVERFLOW when the count wraps.
  CHECK_EQ(syscall(SYS_lseek, fd, (long)0xffff800000000000ull, SEEK_SET), (long)0xffff800000000000ull);
  CHECK_ERRNO(read(fd, buf, sizeof buf), EIO);
  CHECK_ERRNO(write(fd, "x", 1), EIO);
  (void)syscall(SYS_lseek, fd, -4L, SEEK_SET);  // -4 reads as an error return, but the position is set
  CHECK_ERRNO(read(fd, buf, sizeof buf), EOVERFLOW);
  CHECK_ERRNO(read(fd, buf, 3), EIO);  // 3 bytes fit below 2^64: a kernel address
  CHECK_ERRNO(pread(fd, buf, sizeof buf, (off_t)0x8000000000000000ull), EINVAL);
  // Every mapping of the emulating process (read from the host's maps: "/proc/self/../self/maps" is not the
  // file a64run makes for the guest) that the guest does not map: nothing reads or writes there, and the
  // window's base plus a guest address is no way in either.
  FILE* f = fopen("/proc/self/../self/maps", "r");
  if (!CHECK(f != NULL)) return;
  char line[512];
  int tried = 0, reachable = 0;
  while (fgets(line, sizeof line, f)) {
    unsigned long long s, e;
    if (sscanf(line, "%llx-%llx", &s, &e) != 2) continue;
    const unsigned long long probes[] = {s, e - 8, s + (uintptr_t)data};
    for (int k = 0; k < 3; ++k) {
      // (A position past 2^63, as [vsyscall]'s, is pread's EINVAL: the kernel addresses are tried above.)
      if (probes[k] >= e || probes[k] >> 63 || guest_maps_page(probes[k]) || guest_maps_page(probes[k] + 7))
        continue;
      ++tried;
      const char before = data[0];
      if (pread(fd, buf, sizeof buf, (off_t)probes[k]) != -1 || errno != EIO) ++reachable;
      if (pwrite(fd, "X", 1, (off_t)probes[k]) != -1 || errno != EIO) {
        ++reachable;
        NOTE("reached %#llx: %s", probes[k], line);
      }
      CHECK_EQ(data[0], before);
    }
  }
  fclose(f);
  NOTE("%d emulator addresses tried", tried);
  // qemu-aarch64 7.2 hands /proc/self/mem to the host: its own memory reads and writes through it.
  if (!on_reference_qemu()) CHECK_EQ(reachable, 0);
}

__attribute__((noinline, aligned(PAGE))) static int patched(void) {
  return 1;
}

// A write into code that ran: the new instructions run, with no cache maintenance by the program (the
// kernel makes mem writes coherent).
static void test_code(int fd) {
  int (*volatile fn)(void) = patched;
  CHECK_EQ(fn(), 1);
  const uint32_t insns[2] = {0x52800040, 0xd65f03c0};  // mov w0, #2; ret
  CHECK_EQ(pwrite(fd, insns, sizeof insns, (off_t)(uintptr_t)patched), (long)sizeof insns);
  // qemu-aarch64 7.2 keeps running its old translation of code the kernel wrote through /proc/self/mem.
  if (!on_reference_qemu()) CHECK_EQ(fn(), 2);
}

#define PM_PRESENT (1ull << 63)
#define PM_PFN_MASK ((1ull << 55) - 1)

static void test_pagemap(void) {
  int fd = open("/proc/self/pagemap", O_RDONLY);
  if (!CHECK(fd >= 0)) return;
  char* p = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(p != MAP_FAILED);
  p[0] = 1;
  REQUIRE_SYS(munmap(p + PAGE, PAGE));
  uint64_t e[2] = {0, 0};
  CHECK_EQ(pread(fd, e, 16, (off_t)((uintptr_t)p / PAGE * 8)), 16);
  CHECK(e[0] & PM_PRESENT);
  if (getuid() == 0) CHECK_NE(e[0] & PM_PFN_MASK, 0);  // PFNs are shown to CAP_SYS_ADMIN
  CHECK_EQ(e[1], 0);                                   // unmapped
  // The same through lseek and read, as LTP's msync04 reads it.
  CHECK_EQ(lseek(fd, (off_t)((uintptr_t)p / PAGE * 8), SEEK_SET), (off_t)((uintptr_t)p / PAGE * 8));
  uint64_t again = 0;
  CHECK_EQ(read(fd, &again, 8), 8);
  CHECK_EQ(again, e[0]);
  // Outside every mapping, far above the guest's: zeros; past TASK_SIZE (2^48 on arm64): nothing.
  const uint64_t far[] = {1ull << 40, 1ull << 44, (1ull << 47) - PAGE, (1ull << 48) - PAGE};
  for (size_t i = 0; i < sizeof far / sizeof *far; ++i) {
    // qemu-aarch64 7.2 hands pagemap to the host, whose TASK_SIZE on x86-64 ends at 2^47 - 4096.
    if (guest_maps_page(far[i]) || (on_reference_qemu() && far[i] >= (1ull << 47) - PAGE)) continue;
    uint64_t v = 1;
    CHECK_EQ(pread(fd, &v, 8, (off_t)(far[i] / PAGE * 8)), 8);
    CHECK_EQ(v, 0);
  }
  CHECK_EQ(pread(fd, e, 8, (off_t)((1ull << 48) / PAGE * 8)), 0);
  CHECK_ERRNO(pread(fd, e, 8, 4), EINVAL);  // entries are 8 bytes, and so must the position and count be
  CHECK_ERRNO(pread(fd, e, 4, 0), EINVAL);
  CHECK_ERRNO(write(fd, e, 8), EBADF);
  munmap(p, PAGE);
  close(fd);
}

// A fork child's memory: same addresses, its own contents.
static void test_fork_child(void) {
  int ready[2], done[2];
  REQUIRE_SYS(pipe(ready));
  REQUIRE_SYS(pipe(done));
  pid_t pid = fork();
  if (pid == 0) {
    strcpy(data, "child's copy");
    char c;
    (void)!write(ready[1], "r", 1);
    (void)!read(done[0], &c, 1);
    _exit(strcmp(data, "parent wrote") == 0 ? 0 : 1);
  }
  char c, path[64], buf[16] = {0};
  REQUIRE(read(ready[0], &c, 1) == 1);
  snprintf(path, sizeof path, "/proc/%d/mem", pid);
  int fd = open_mem(path, O_RDWR);
  if (CHECK(fd >= 0)) {
    CHECK_EQ(pread(fd, buf, 13, (off_t)(uintptr_t)data), 13);
    CHECK_STREQ(buf, "child's copy");
    CHECK_EQ(pwrite(fd, "parent wrote", 13, (off_t)(uintptr_t)data), 13);
    CHECK_STREQ(data, "guest data");  // ours is untouched
    CHECK_ERRNO(pread(fd, buf, 8, (off_t)(1ull << 46)), EIO);
    close(fd);
  }
  (void)!write(done[1], "d", 1);
  int status;
  REQUIRE_SYS(waitpid(pid, &status, 0));
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  close(ready[0]), close(ready[1]), close(done[0]), close(done[1]);
}

// A child sharing the descriptor table (CLONE_FILES without CLONE_VM) opens its own mem file: the parent
// finds the descriptor in the table and reads the child's memory through it, not the emulator's. Run first,
// before this process has opened a mem file itself.
static void test_shared_table(void) {
  int ready[2], done[2];
  REQUIRE_SYS(pipe(ready));
  REQUIRE_SYS(pipe(done));
  long pid = syscall(SYS_clone, CLONE_FILES | SIGCHLD, 0, 0, 0, 0);
  if (pid == -1 && errno == EINVAL) {
    CHECK(on_reference_qemu());  // qemu-aarch64 7.2 refuses CLONE_FILES without CLONE_VM
    return;
  }
  if (pid == 0) {
    char c;
    strcpy(data, "child's table");
    int fd = open("/proc/self/mem", O_RDONLY);
    (void)!write(ready[1], &fd, sizeof fd);
    (void)!read(done[0], &c, 1);
    _exit(0);
  }
  REQUIRE(pid > 0);
  int fd = -1;
  char buf[16] = {0};
  REQUIRE(read(ready[0], &fd, sizeof fd) == sizeof fd);
  if (CHECK(fd >= 0)) {
    CHECK_EQ(pread(fd, buf, 14, (off_t)(uintptr_t)data), 14);
    CHECK_STREQ(buf, "child's table");
    CHECK_ERRNO(pread(fd, buf, 8, (off_t)(1ull << 46)), EIO);
  }
  (void)!write(done[1], "d", 1);
  REQUIRE_SYS(waitpid(pid, NULL, 0));
  close(fd);
  close(ready[0]), close(ready[1]), close(done[0]), close(done[1]);
}

// The exec'd child: a program of its own, another emulator process with a window of its own. Its fd 3 is
// its parent's /proc/self/mem, inherited across execve; its fd 4 a socket on which the parent sends another.
static int child_main(void) {
  char c, buf[16] = {0};
  strcpy(child_text, "child is ready");
  void* gone = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  munmap(gone, PAGE);
  uintptr_t report[2] = {(uintptr_t)child_text, (uintptr_t)gone};
  (void)!write(1, report, sizeof report);
  // The parent's memory (its `data` is at the same address: the same program), through either descriptor.
  CHECK_EQ(pread(3, buf, 14, (off_t)(uintptr_t)data), 14);
  CHECK_STREQ(buf, "parent's data");
  char cbuf[CMSG_SPACE(sizeof(int))];
  struct iovec iov = {&c, 1};
  struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
  if (CHECK_EQ(recvmsg(4, &m, 0), 1)) {
    int got;
    memcpy(&got, CMSG_DATA(CMSG_FIRSTHDR(&m)), sizeof got);
    memset(buf, 0, sizeof buf);
    CHECK_EQ(pread(got, buf, 14, (off_t)(uintptr_t)data), 14);
    CHECK_STREQ(buf, "parent's data");
  }
  int own = open("/proc/self/mem", O_RDONLY);
  memset(buf, 0, sizeof buf);
  CHECK_EQ(pread(own, buf, 11, (off_t)(uintptr_t)data), 11);
  CHECK_STREQ(buf, "guest data");  // its own
  (void)!read(0, &c, 1);
  CHECK_STREQ(child_text, "parent wrote");
  return check_done();
}

static void test_exec_child(void) {
  int to_child[2], from_child[2], sock[2];
  REQUIRE_SYS(pipe(to_child));
  REQUIRE_SYS(pipe(from_child));
  REQUIRE_SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, sock));
  strcpy(data, "parent's data");
  int mine = REQUIRE_SYS(open("/proc/self/mem", O_RDONLY));
  pid_t pid = fork();
  if (pid == 0) {
    dup2(to_child[0], 0);
    dup2(from_child[1], 1);
    dup2(mine, 3);
    dup2(sock[1], 4);
    char* argv[] = {"proc_mem", "child", NULL};
    exec_guest(self_path(), argv, environ);
    _exit(127);
  }
  close(to_child[0]);
  close(from_child[1]);
  close(sock[1]);
  char cbuf[CMSG_SPACE(sizeof(int))] = {0};
  struct iovec iov = {"f", 1};
  struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
  struct cmsghdr* cm = CMSG_FIRSTHDR(&m);
  cm->cmsg_level = SOL_SOCKET;
  cm->cmsg_type = SCM_RIGHTS;
  cm->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(cm), &mine, sizeof mine);
  CHECK_EQ(sendmsg(sock[0], &m, 0), 1);
  uintptr_t report[2];
  REQUIRE(read(from_child[0], report, sizeof report) == sizeof report);
  char path[64], buf[16] = {0};
  snprintf(path, sizeof path, "/proc/%d/mem", pid);
  int fd = open_mem(path, O_RDWR);
  if (CHECK(fd >= 0)) {
    CHECK_EQ(pread(fd, buf, 15, (off_t)report[0]), 15);
    CHECK_STREQ(buf, "child is ready");
    CHECK_ERRNO(pread(fd, buf, 8, (off_t)report[1]), EIO);  // unmapped in the child
    CHECK_EQ(pwrite(fd, "parent wrote", 13, (off_t)report[0]), 13);
    close(fd);
  }
  struct iovec local = {buf, 13}, remote = {(void*)report[0], 13};
  memset(buf, 0, sizeof buf);
  if (process_vm_readv(pid, &local, 1, &remote, 1, 0) == -1 && errno == ENOSYS) {
    CHECK(on_reference_qemu());  // qemu-aarch64 7.2 has no process_vm_readv/writev
  } else {
    CHECK_STREQ(buf, "parent wrote");
    struct iovec gone = {(void*)report[1], 8};
    CHECK_ERRNO(process_vm_readv(pid, &local, 1, &gone, 1, 0), EFAULT);
    struct iovec out = {"parent wrote", 13};
    CHECK_EQ(process_vm_writev(pid, &out, 1, &remote, 1, 0), 13);
    CHECK_ERRNO(process_vm_writev(pid, &out, 1, &gone, 1, 0), EFAULT);
  }
  // The child's pagemap: its page with the text is there.
  snprintf(path, sizeof path, "/proc/%d/pagemap", pid);
  int pm = open(path, O_RDONLY);
  if (CHECK(pm >= 0)) {
    uint64_t e = 0;
    CHECK_EQ(pread(pm, &e, 8, (off_t)(report[0] / PAGE * 8)), 8);
    CHECK(e & PM_PRESENT);
    close(pm);
  }
  (void)!write(to_child[1], "d", 1);
  int status;
  REQUIRE_SYS(waitpid(pid, &status, 0));
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  close(mine);
  strcpy(data, "guest data");
}

// A CLONE_VM child (a process of its own in this memory): its mem file is this memory.
static int vm_child(void* arg) {
  (void)arg;
  pause();
  return 0;
}

static void test_clone_vm(void) {
  static char stack[64 * 1024] __attribute__((aligned(16)));
  pid_t pid = clone(vm_child, stack + sizeof stack, CLONE_VM | SIGCHLD, NULL);
  if (pid == -1 && errno == EINVAL) {
    CHECK(on_reference_qemu());  // qemu-aarch64 7.2 refuses CLONE_VM without CLONE_THREAD
    return;
  }
  REQUIRE(pid > 0);
  char path[64], buf[16] = {0};
  snprintf(path, sizeof path, "/proc/%d/mem", pid);
  int fd = open_mem(path, O_RDWR);
  if (CHECK(fd >= 0)) {
    CHECK_EQ(pread(fd, buf, 11, (off_t)(uintptr_t)data), 11);
    CHECK_STREQ(buf, "guest data");
    CHECK_EQ(pwrite(fd, "G", 1, (off_t)(uintptr_t)data), 1);
    CHECK_STREQ(data, "Guest data");  // the same memory
    data[0] = 'g';
    close(fd);
  }
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
}

// fanotify hands out descriptors a64run never opened: a /proc/PID/mem one among them is still served. Run
// before this process has opened a mem file itself; a child opens ours.
static void test_fanotify(void) {
  int g = fanotify_init(FAN_CLASS_NOTIF | FAN_NONBLOCK, O_RDONLY);
  if (g < 0) {
    NOTE("fanotify_init: %s; skipped", strerror(errno));
    return;
  }
  if (!CHECK(fanotify_mark(g, FAN_MARK_ADD, FAN_OPEN, AT_FDCWD, "/proc/self/mem") == 0)) return;
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/mem", parent);
    _exit(open(path, O_RDONLY) >= 0 ? 0 : 1);
  }
  int status;
  REQUIRE_SYS(waitpid(pid, &status, 0));
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  char events[4096];
  ssize_t n = read(g, events, sizeof events);
  struct fanotify_event_metadata* ev = (struct fanotify_event_metadata*)events;
  if (CHECK(n >= (ssize_t)sizeof *ev && ev->fd >= 0)) {
    char buf[16] = {0};
    CHECK_EQ(pread(ev->fd, buf, 11, (off_t)(uintptr_t)data), 11);
    CHECK_STREQ(buf, "guest data");
    close(ev->fd);
  }
  close(g);
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "child") == 0) return child_main();
  test_shared_table();
  test_fanotify();
  test_names();
  int fd = open_mem("/proc/self/mem", O_RDWR);
  REQUIRE(fd >= 0);
  test_calls(fd);
  test_protections(fd);
  test_out_of_reach(fd);
  test_code(fd);
  close(fd);
  test_pagemap();
  test_fork_child();
  test_exec_child();
  test_clone_vm();
  return check_done();
}
