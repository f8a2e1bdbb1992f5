// process_vm_readv/process_vm_writev between a process and its fork child, kcmp on the host objects behind
// guest pids and descriptors, and setns into a namespace the process is already in.
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define KCMP_FILE 0
#define KCMP_VM 1
#define KCMP_FILES 2

static char shared_text[64] = "the child's text";

static void test_process_vm(void) {
  // qemu-aarch64 7.2 has no process_vm_readv/writev (ENOSYS).
  if (process_vm_readv(getpid(), NULL, 0, NULL, 0, 0) == -1 && errno == ENOSYS) {
    CHECK(on_reference_qemu());
    return;
  }
  int ready[2], done[2];
  REQUIRE_SYS(pipe(ready));
  REQUIRE_SYS(pipe(done));
  pid_t pid = fork();
  if (pid == 0) {
    strcpy(shared_text, "changed in the child");
    write(ready[1], "r", 1);
    char c;
    read(done[0], &c, 1);
    // The parent wrote into our copy.
    _exit(strcmp(shared_text, "written by the parent") == 0 ? 0 : 1);
  }
  char c;
  read(ready[0], &c, 1);
  // The child's copy of the same address (a fork: the same layout).
  char buf[64] = {0};
  struct iovec local = {buf, sizeof buf}, remote = {shared_text, sizeof shared_text};
  CHECK_EQ(process_vm_readv(pid, &local, 1, &remote, 1, 0), (long)sizeof shared_text);
  CHECK_STREQ(buf, "changed in the child");
  CHECK_STREQ(shared_text, "the child's text");  // ours is untouched

  // Scattered both ways.
  char a[5] = {0}, b[20] = {0};
  struct iovec locals[2] = {{a, 4}, {b, 4}};
  CHECK_EQ(process_vm_readv(pid, locals, 2, &remote, 1, 0), 8);
  CHECK(memcmp(a, "chan", 4) == 0 && memcmp(b, "ged ", 4) == 0);

  char msg[64] = "written by the parent";
  struct iovec out = {msg, strlen(msg) + 1};
  CHECK_EQ(process_vm_writev(pid, &out, 1, &remote, 1, 0), (long)strlen(msg) + 1);

  // Bad arguments.
  CHECK_ERRNO(process_vm_readv(pid, &local, 1, &remote, 1, 1), EINVAL);
  struct iovec bad_local = {(void*)8, 16};
  CHECK_ERRNO(process_vm_readv(pid, &bad_local, 1, &remote, 1, 0), EFAULT);
  struct iovec bad_remote = {(void*)8, 16};
  CHECK_ERRNO(process_vm_readv(pid, &local, 1, &bad_remote, 1, 0), EFAULT);
  CHECK_ERRNO(process_vm_readv(pid, (struct iovec*)8, 1, &remote, 1, 0), EFAULT);
  CHECK_ERRNO(process_vm_readv(pid, &local, 1, &remote, 2000, 0), EINVAL);
  // A read-only local buffer cannot take a read.
  char* ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  struct iovec ro_local = {ro, 16};
  CHECK_ERRNO(process_vm_readv(pid, &ro_local, 1, &remote, 1, 0), EFAULT);
  munmap(ro, 4096);

  // This process itself: the guest's protections hold (no FOLL_FORCE), addresses past its mappings fault,
  // and a remote vector stops at the first page it cannot use.
  char* own = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(own != MAP_FAILED);
  memset(own, 'o', 3 * 4096);
  REQUIRE_SYS(mprotect(own + 4096, 4096, PROT_READ));
  REQUIRE_SYS(mprotect(own + 2 * 4096, 4096, PROT_NONE));
  struct iovec mine = {msg, 8};
  struct iovec ro_remote = {own + 4096, 8}, none_remote = {own + 2 * 4096, 8};
  struct iovec far_remote = {(void*)(1ull << 46), 8};
  CHECK_ERRNO(process_vm_writev(getpid(), &mine, 1, &ro_remote, 1, 0), EFAULT);
  CHECK_EQ(own[4096], 'o');
  CHECK_ERRNO(process_vm_readv(getpid(), &mine, 1, &none_remote, 1, 0), EFAULT);
  CHECK_ERRNO(process_vm_readv(getpid(), &mine, 1, &far_remote, 1, 0), EFAULT);
  struct iovec across = {own + 2 * 4096 - 4, 8};  // 4 readable bytes, then the PROT_NONE page
  CHECK_EQ(process_vm_readv(getpid(), &mine, 1, &across, 1, 0), 4);
  struct iovec two[2] = {{own + 4096 - 4, 8}, {own, 4}};  // stops inside the first: the second is not read
  CHECK_EQ(process_vm_writev(getpid(), &mine, 1, two, 2, 0), 4);
  munmap(own, 3 * 4096);

  write(done[1], "d", 1);
  int status;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK_ERRNO(process_vm_readv(pid, &local, 1, &remote, 1, 0), ESRCH);
}

static void test_kcmp(void) {
  int fd = CHECK_SYS(open("/proc/self/exe", O_RDONLY));
  int dup_fd = CHECK_SYS(dup(fd));
  int other = CHECK_SYS(open("/proc/self/exe", O_RDONLY));
  pid_t me = getpid();
  long r = syscall(SYS_kcmp, me, me, KCMP_FILE, fd, dup_fd);
  if (r == -1 && errno == ENOSYS) {
    CHECK(on_reference_qemu());  // qemu-aarch64 7.2 has no kcmp
    return;
  }
  CHECK_EQ(r, 0);  // the same open file
  r = syscall(SYS_kcmp, me, me, KCMP_FILE, fd, other);
  CHECK(r == 1 || r == 2);  // two opens of one file: ordered, not equal
  CHECK_ERRNO(syscall(SYS_kcmp, me, me, KCMP_FILE, fd, 999), EBADF);
  CHECK_EQ(syscall(SYS_kcmp, me, me, KCMP_VM, 0, 0), 0);
  pid_t pid = fork();
  if (pid == 0) {
    pause();
    _exit(0);
  }
  CHECK_NE(syscall(SYS_kcmp, me, pid, KCMP_VM, 0, 0), 0);      // a fork has its own memory
  CHECK_NE(syscall(SYS_kcmp, me, pid, KCMP_FILES, 0, 0), 0);   // and its own descriptor table
  CHECK_EQ(syscall(SYS_kcmp, me, pid, KCMP_FILE, fd, fd), 0);  // sharing the open files
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  CHECK_ERRNO(syscall(SYS_kcmp, me, me, 99, 0, 0), EINVAL);
  close(fd);
  close(dup_fd);
  close(other);
}

static void test_setns(void) {
  int fd = open("/proc/self/ns/uts", O_RDONLY);
  if (fd < 0) {
    NOTE("no /proc/self/ns; setns skipped");
    return;
  }
  int r = setns(fd, CLONE_NEWUTS);
  if (r == -1 && errno == EPERM) {
    NOTE("setns needs CAP_SYS_ADMIN; skipped");
  } else {
    CHECK_EQ(r, 0);  // already in it
  }
  CHECK_ERRNO(setns(fd, CLONE_NEWNET), EINVAL);  // not a network namespace
  CHECK_ERRNO(setns(999, 0), EBADF);
  close(fd);
}

int main(void) {
  test_process_vm();
  test_kcmp();
  test_setns();
  return check_done();
}
