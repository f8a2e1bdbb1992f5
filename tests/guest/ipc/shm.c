// SysV shared memory: shmget, shmat (placement, SHM_RND, SHM_REMAP, SHM_RDONLY), shmdt, shmctl (IPC_STAT,
// IPC_SET, IPC_INFO, SHM_INFO, SHM_STAT, IPC_RMID while attached) and the arm64 struct layouts.
// With the argument "procs": the attach across fork, exec and exit, and the same segment seen by a host
// program (ipcs) as a native process sees it.
#define _GNU_SOURCE
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../procs/self_exec.h"
#include "check.h"
#include "mem_util.h"

static const size_t kPage = 4096;

static sigjmp_buf fault_jmp;
static void on_segv(int sig) {
  (void)sig;
  siglongjmp(fault_jmp, 1);
}

// 1 when writing *p faults.
static int write_faults(volatile char* p) {
  struct sigaction sa = {0}, old;
  sa.sa_handler = on_segv;
  sigaction(SIGSEGV, &sa, &old);
  int faulted = 1;
  if (sigsetjmp(fault_jmp, 1) == 0) {
    *p = 1;
    faulted = 0;
  }
  sigaction(SIGSEGV, &old, NULL);
  return faulted;
}

static struct shmid_ds stat_of(int id) {
  struct shmid_ds ds;
  memset(&ds, 0xa5, sizeof ds);
  CHECK_SYS(shmctl(id, IPC_STAT, &ds));
  return ds;
}

// The line of /proc/self/maps that starts at addr, or "" (a static buffer).
static const char* maps_line(void* addr) {
  static char line[512];
  char want[32];
  snprintf(want, sizeof want, "%lx-", (unsigned long)addr);
  FILE* f = fopen("/proc/self/maps", "r");
  line[0] = '\0';
  if (!f) return line;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, want, strlen(want)) == 0) break;
    line[0] = '\0';
  }
  fclose(f);
  return line;
}

// A free, page-aligned range of len bytes (mapped and unmapped again).
static void test_layout(void) {
  // The arm64 (asm-generic) layouts glibc's structs must match the kernel's.
  CHECK_EQ(sizeof(struct shmid_ds), 112);
  CHECK_EQ(offsetof(struct shmid_ds, shm_segsz), 48);
  CHECK_EQ(offsetof(struct shmid_ds, shm_cpid), 80);
  CHECK_EQ(offsetof(struct shmid_ds, shm_nattch), 88);
}

static void test_attach_stat(void) {
  const size_t size = 3 * kPage + 100;
  int id = CHECK_SYS(shmget(IPC_PRIVATE, size, IPC_CREAT | 0600));
  struct shmid_ds ds = stat_of(id);
  CHECK_EQ(ds.shm_segsz, size);
  CHECK_EQ(ds.shm_nattch, 0);
  CHECK_EQ(ds.shm_cpid, getpid());
  CHECK_EQ(ds.shm_atime, 0);
  CHECK_EQ(ds.shm_perm.mode & 0777, 0600);
  CHECK_EQ(ds.shm_perm.uid, getuid());
  CHECK_EQ(ds.shm_perm.__key, IPC_PRIVATE);

  char* a = shmat(id, NULL, 0);
  REQUIRE(a != (char*)-1);
  CHECK_EQ((uintptr_t)a % kPage, 0);
  for (size_t i = 0; i < size; i++) a[i] = (char)(i * 7);
  char* b = shmat(id, NULL, 0);
  REQUIRE(b != (char*)-1);
  CHECK(b != a);
  CHECK_MEMEQ(a, b, size);
  b[5] = 99;
  CHECK_EQ(a[5], 99);
  ds = stat_of(id);
  CHECK_EQ(ds.shm_nattch, 2);
  CHECK_EQ(ds.shm_lpid, getpid());
  CHECK_GT(ds.shm_atime, 0);
  // The whole pages of the segment are mapped, shared, named as Linux names them.
  const char* line = maps_line(a);
  CHECK(strstr(line, "rw-s") != NULL);
  CHECK(strstr(line, "/SYSV00000000 (deleted)") != NULL);
  unsigned long s = 0, e = 0;
  sscanf(line, "%lx-%lx", &s, &e);
  CHECK_EQ(e - s, 4 * kPage);

  CHECK_SYS(shmdt(b));
  CHECK_EQ(stat_of(id).shm_nattch, 1);
  CHECK_GT(stat_of(id).shm_dtime, 0);
  CHECK_ERRNO(shmdt(b), EINVAL);          // nothing attached there any more
  CHECK_ERRNO(shmdt(a + 1), EINVAL);      // not page aligned
  CHECK_ERRNO(shmdt(a + kPage), EINVAL);  // inside the attach, not its start
  CHECK_SYS(shmdt(a));
  CHECK_EQ(stat_of(id).shm_nattch, 0);
  CHECK(maps_line(a)[0] == '\0');
  CHECK_SYS(shmctl(id, IPC_RMID, NULL));
  CHECK_ERRNO(shmctl(id, IPC_STAT, &ds), EINVAL);
}

static void test_placement(void) {
  int id = CHECK_SYS(shmget(IPC_PRIVATE, 2 * kPage, IPC_CREAT | 0600));
  char* where = free_range(4 * kPage);
  // An address hint is where the segment goes.
  char* a = shmat(id, where, 0);
  CHECK(a == where);
  a[0] = 42;
  // Unaligned: EINVAL, unless SHM_RND rounds it down to SHMLBA (a page on arm64).
  errno = 0;
  CHECK(shmat(id, where + 2 * kPage + 123, 0) == (void*)-1 && errno == EINVAL);
  char* r = shmat(id, where + 2 * kPage + 123, SHM_RND);
  CHECK(r == where + 2 * kPage);
  if (r != (char*)-1) {
    CHECK_EQ(r[0], 42);
    CHECK_SYS(shmdt(r));
  }
  // Over an existing mapping: EINVAL, unless SHM_REMAP replaces it.
  char* m = mmap(where + 2 * kPage, 2 * kPage, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  REQUIRE(m != MAP_FAILED);
  m[0] = 7;
  errno = 0;
  CHECK(shmat(id, m, 0) == (void*)-1 && errno == EINVAL);
  CHECK_EQ(m[0], 7);
  // SHM_REMAP needs an address. qemu-aarch64 7.2 (do_shmat) accepts it without one.
  if (!on_reference_qemu()) {
    errno = 0;
    CHECK(shmat(id, NULL, SHM_REMAP) == (void*)-1 && errno == EINVAL);
  }
  char* over = shmat(id, m, SHM_REMAP);
  CHECK(over == m);
  if (over != (char*)-1) {
    CHECK_EQ(over[0], 42);
    CHECK_SYS(shmdt(over));
  }
  CHECK_SYS(shmdt(a));
  // A partly unmapped attach: its first page is no attach start any more. qemu-aarch64 7.2 keeps its own
  // table of attaches (shm_regions) and still detaches the rest from the old start.
  a = shmat(id, NULL, 0);
  REQUIRE(a != (char*)-1);
  CHECK_SYS(munmap(a, kPage));
  if (!on_reference_qemu()) {
    CHECK_ERRNO(shmdt(a), EINVAL);
    CHECK_EQ(stat_of(id).shm_nattch, 1);
    CHECK_SYS(munmap(a + kPage, kPage));
    CHECK_EQ(stat_of(id).shm_nattch, 0);
  }
  CHECK_SYS(shmctl(id, IPC_RMID, NULL));
}

static void test_rdonly(void) {
  int id = CHECK_SYS(shmget(IPC_PRIVATE, kPage, IPC_CREAT | 0600));
  char* w = shmat(id, NULL, 0);
  char* ro = shmat(id, NULL, SHM_RDONLY);
  REQUIRE(w != (char*)-1 && ro != (char*)-1);
  w[10] = 5;
  CHECK_EQ(ro[10], 5);
  CHECK(write_faults(ro + 10));
  CHECK_EQ(ro[10], 5);
  CHECK(strstr(maps_line(ro), "r--s") != NULL);
  // The attach cannot be made writable: no VM_MAYWRITE.
  CHECK_ERRNO(mprotect(ro, kPage, PROT_READ | PROT_WRITE), EACCES);
  CHECK_SYS(mprotect(w, kPage, PROT_READ));
  CHECK(write_faults(w + 10));
  CHECK_SYS(mprotect(w, kPage, PROT_READ | PROT_WRITE));
  CHECK(!write_faults(w + 10));
  CHECK_SYS(shmdt(w));
  CHECK_SYS(shmdt(ro));
  CHECK_SYS(shmctl(id, IPC_RMID, NULL));
}

static void test_rmid_attached(void) {
  const key_t key = (key_t)(0x64a00000 | (getpid() & 0xfffff));
  int id = CHECK_SYS(shmget(key, kPage, IPC_CREAT | IPC_EXCL | 0600));
  CHECK_ERRNO(shmget(key, kPage, IPC_CREAT | IPC_EXCL | 0600), EEXIST);
  CHECK_EQ(shmget(key, 0, 0), id);
  CHECK_ERRNO(shmget(key, 2 * kPage, 0), EINVAL);  // larger than the segment
  char* a = shmat(id, NULL, 0);
  REQUIRE(a != (char*)-1);
  a[0] = 3;
  CHECK_SYS(shmctl(id, IPC_RMID, NULL));
  // Still attached and usable; the key is gone and the segment is marked for destruction.
  CHECK_EQ(a[0], 3);
  struct shmid_ds ds = stat_of(id);
  CHECK_EQ(ds.shm_perm.__key, IPC_PRIVATE);
  CHECK(ds.shm_perm.mode & SHM_DEST);
  CHECK_EQ(ds.shm_nattch, 1);
  CHECK_ERRNO(shmget(key, 0, 0), ENOENT);
  CHECK_SYS(shmdt(a));
  CHECK_ERRNO(shmctl(id, IPC_STAT, &ds), EINVAL);
}

static void test_ctl(void) {
  int id = CHECK_SYS(shmget(IPC_PRIVATE, kPage, IPC_CREAT | 0640));
  struct shmid_ds ds = stat_of(id);
  ds.shm_perm.mode = 0604;
  CHECK_SYS(shmctl(id, IPC_SET, &ds));
  CHECK_EQ(stat_of(id).shm_perm.mode & 0777, 0604);
  CHECK_GT(stat_of(id).shm_ctime, 0);

  struct shminfo info;
  memset(&info, 0, sizeof info);
  int max = CHECK_SYS(shmctl(0, IPC_INFO, (struct shmid_ds*)&info));
  CHECK_GE(max, 0);
  CHECK(info.shmmax != 0);
  CHECK_GT(info.shmmni, 0);
  CHECK_GE(info.shmseg, 1);
  struct shm_info si;
  memset(&si, 0, sizeof si);
  int max2 = CHECK_SYS(shmctl(0, SHM_INFO, (struct shmid_ds*)&si));
  CHECK_GE(si.used_ids, 1);
  CHECK_GE(max2, 0);
  // SHM_STAT takes an index and returns the id.
  int found = 0;
  for (int i = 0; i <= max2; i++) {
    struct shmid_ds s;
    int r = shmctl(i, SHM_STAT, &s);
    if (r == id) {
      found = 1;
      CHECK_EQ(s.shm_segsz, kPage);
    }
  }
  CHECK(found);
  CHECK_ERRNO(shmctl(id, 0x7777, &ds), EINVAL);
  // No IPC_64 version bit on arm64; qemu-aarch64 7.2 masks the command with 0xff.
  if (!on_reference_qemu()) CHECK_ERRNO(shmctl(id, IPC_STAT | 0x100, &ds), EINVAL);
  CHECK_ERRNO(shmctl(-1, IPC_STAT, &ds), EINVAL);
  CHECK_ERRNO(syscall(SYS_shmctl, id, IPC_STAT, (void*)8), EFAULT);
  CHECK_ERRNO(syscall(SYS_shmctl, id, IPC_SET, (void*)8), EFAULT);
  CHECK_ERRNO(shmat(-1, NULL, 0) == (void*)-1 ? -1 : 0, EINVAL);
  CHECK_SYS(shmctl(id, IPC_RMID, NULL));
  CHECK_ERRNO(shmat(id, NULL, 0) == (void*)-1 ? -1 : 0, EINVAL);
}

// --- procs ---

// Runs a host program and returns its first output line (a static buffer).
static const char* host_output(char* const argv[]) {
  static char out[4096];
  int fds[2];
  REQUIRE_SYS(pipe(fds));
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    execv(argv[0], argv);
    _exit(127);
  }
  close(fds[1]);
  ssize_t n = 0, r;
  while ((r = read(fds[0], out + n, sizeof out - 1 - (size_t)n)) > 0) n += r;
  out[n > 0 ? n : 0] = '\0';
  close(fds[0]);
  int status;
  waitpid(pid, &status, 0);
  return out;
}

static void test_fork_exit(void) {
  int id = CHECK_SYS(shmget(IPC_PRIVATE, kPage, IPC_CREAT | 0600));
  volatile int* a = shmat(id, NULL, 0);
  REQUIRE(a != (void*)-1);
  a[0] = 0;
  int go[2];
  REQUIRE_SYS(pipe(go));
  pid_t pid = fork();
  if (pid == 0) {
    a[0] = 1234;  // the child's attach is the same memory
    char c;
    read(go[0], &c, 1);
    _exit(0);  // exit detaches
  }
  while (a[0] != 1234) usleep(1000);
  CHECK_EQ(stat_of(id).shm_nattch, 2);  // fork inherited the attach
  write(go[1], "x", 1);
  int status;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK_EQ(stat_of(id).shm_nattch, 1);
  CHECK_SYS(shmdt((void*)a));
  CHECK_SYS(shmctl(id, IPC_RMID, NULL));
}

static void test_exec(void) {
  int id = CHECK_SYS(shmget(IPC_PRIVATE, kPage, IPC_CREAT | 0600));
  pid_t pid = fork();
  if (pid == 0) {
    char* a = shmat(id, NULL, 0);
    if (a == (char*)-1) _exit(3);
    strcpy(a, "before exec");
    char idbuf[32];
    snprintf(idbuf, sizeof idbuf, "%d", id);
    char* argv[] = {"shm", "after-exec", idbuf, NULL};
    exec_guest(self_path(), argv, environ);
    _exit(4);
  }
  int status;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status));
  CHECK_EQ(WEXITSTATUS(status), 0);
  CHECK_SYS(shmctl(id, IPC_RMID, NULL));
}

// The new program of test_exec: execve detached the segment; attaching it again finds what was written.
static int after_exec(int id) {
  CHECK_EQ(stat_of(id).shm_nattch, 0);
  char* a = shmat(id, NULL, SHM_RDONLY);
  REQUIRE(a != (char*)-1);
  CHECK_STREQ(a, "before exec");
  return check_done();
}

static void test_host_view(void) {
  // ipcs is a native program: it sees the guest's segment, its size and its attach count.
  const size_t size = 5 * kPage + 17;
  int id = CHECK_SYS(shmget(IPC_PRIVATE, size, IPC_CREAT | 0600));
  char* a = shmat(id, NULL, 0);
  REQUIRE(a != (char*)-1);
  char idbuf[32];
  snprintf(idbuf, sizeof idbuf, "%d", id);
  char* argv[] = {"/usr/bin/ipcs", "-m", "-i", idbuf, NULL};
  const char* out = host_output(argv);
  char want[64];
  snprintf(want, sizeof want, "bytes=%zu", size);
  CHECK(strstr(out, want) != NULL);
  CHECK(strstr(out, "nattch=1") != NULL);
  if (!strstr(out, want)) NOTE("ipcs said: %s", out);
  CHECK_SYS(shmdt(a));
  CHECK_SYS(shmctl(id, IPC_RMID, NULL));
}

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], "after-exec") == 0) return after_exec(atoi(argv[2]));
  if (argc == 2 && strcmp(argv[1], "procs") == 0) {
    test_fork_exit();
    test_exec();
    if (access("/usr/bin/ipcs", X_OK) == 0) test_host_view();
    return check_done();
  }
  test_layout();
  test_attach_stat();
  test_placement();
  test_rdonly();
  test_rmid_attached();
  test_ctl();
  return check_done();
}
