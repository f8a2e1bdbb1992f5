// Tests that /proc/self describes the guest program, not the emulator: cmdline, exe, maps (its code,
// stack and mappings, with their permissions), stat (pid, comm, ppid, start of stack) and fd links.
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../procs/self_exec.h"
#include "check.h"

static char exe_path[PATH_MAX];

static ssize_t read_all(const char* path, char* buf, size_t size) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  size_t got = 0;
  ssize_t n;
  while (got < size - 1 && (n = read(fd, buf + got, size - 1 - got)) > 0) got += n;
  close(fd);
  buf[got] = 0;
  return (ssize_t)got;
}

static void test_cmdline(int argc, char** argv) {
  char expected[4096], buf[4096];
  size_t len = 0;
  for (int i = 0; i < argc; i++) {
    size_t n = strlen(argv[i]) + 1;
    REQUIRE(len + n < sizeof(expected));
    memcpy(expected + len, argv[i], n);
    len += n;
  }
  CHECK_EQ(read_all("/proc/self/cmdline", buf, sizeof(buf)), len);
  CHECK_MEMEQ(buf, expected, len);
  char path[64];
  snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)getpid());
  CHECK_EQ(read_all(path, buf, sizeof(buf)), len);
  CHECK_MEMEQ(buf, expected, len);
}

static void test_exe(const char* argv0) {
  ssize_t n = readlink("/proc/self/exe", exe_path, sizeof(exe_path) - 1);
  REQUIRE(n > 0);
  exe_path[n] = 0;
  CHECK_EQ(exe_path[0], '/');
  const char* base = strrchr(exe_path, '/');
  CHECK_STREQ(base, "/proc_self");
  char real[PATH_MAX];
  REQUIRE(realpath(argv0, real) != NULL);
  CHECK_STREQ(exe_path, real);
  // Opening /proc/self/exe opens the program.
  struct stat a, b;
  int fd = CHECK_SYS(open("/proc/self/exe", O_RDONLY));
  CHECK_SYS(fstat(fd, &a));
  CHECK_SYS(stat(argv0, &b));
  CHECK_EQ(a.st_ino, b.st_ino);
  CHECK_EQ(a.st_dev, b.st_dev);
  close(fd);
  // So does stat through the link; qemu-aarch64 7.2 only emulates open and readlink of /proc/self/exe, its
  // stat describes qemu's own binary.
  CHECK_SYS(stat("/proc/self/exe", &a));
  if (!on_reference_qemu()) CHECK_EQ(a.st_ino, b.st_ino);
}

struct MapLine {
  uintptr_t start, end;
  char perms[5];
  char path[PATH_MAX];
};

// Finds the /proc/self/maps line whose range holds addr; also checks that the lines are sorted.
static int find_map(const char* maps, uintptr_t addr, struct MapLine* out) {
  int found = 0;
  uintptr_t prev_end = 0;
  for (const char* line = maps; *line;) {
    const char* nl = strchr(line, '\n');
    struct MapLine m = {0};
    unsigned long start, end;
    int path_at = 0;
    if (sscanf(line, "%lx-%lx %4s %*x %*x:%*x %*u %n", &start, &end, m.perms, &path_at) < 3) {
      CHECK(!"a /proc/self/maps line parses");
      break;
    }
    m.start = start;
    m.end = end;
    size_t path_len = (nl ? (size_t)(nl - line) : strlen(line)) - path_at;
    if (path_at && path_len < sizeof(m.path)) memcpy(m.path, line + path_at, path_len);
    if (!CHECK_GE(m.start, prev_end)) fprintf(stderr, "  /proc/self/maps is not sorted at %lx\n", start);
    prev_end = m.end;
    if (m.start <= addr && addr < m.end) {
      *out = m;
      found = 1;
    }
    if (!nl) break;
    line = nl + 1;
  }
  return found;
}

static void test_maps(int* stack_var) {
  static char maps[1 << 17];
  REQUIRE(read_all("/proc/self/maps", maps, sizeof(maps)) > 0);
  struct MapLine m;
  // The program's code: executable, backed by the program file.
  if (CHECK(find_map(maps, (uintptr_t)&test_maps, &m))) {
    CHECK_STREQ(m.perms, "r-xp");
    CHECK_STREQ(m.path, exe_path);
  }
  // Its read-write data, also from the program file (static build: .data is file-backed).
  static int data_var = 1;
  if (CHECK(find_map(maps, (uintptr_t)&data_var, &m))) {
    CHECK_EQ(m.perms[0], 'r');
    CHECK_EQ(m.perms[1], 'w');
    CHECK_EQ(m.perms[2], '-');
  }
  // The stack.
  if (CHECK(find_map(maps, (uintptr_t)stack_var, &m))) {
    CHECK_STREQ(m.perms, "rw-p");
    CHECK_STREQ(m.path, "[stack]");
  }

  // A fresh mapping shows with its exact range and permissions; mprotect of the middle splits it.
  char* p = mmap(NULL, 3 * 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(p != MAP_FAILED);
  REQUIRE_SYS(mprotect(p + 4096, 4096, PROT_READ | PROT_WRITE));
  REQUIRE(read_all("/proc/self/maps", maps, sizeof(maps)) > 0);
  if (CHECK(find_map(maps, (uintptr_t)p, &m))) {
    CHECK_EQ(m.start, (uintptr_t)p);
    CHECK_EQ(m.end, (uintptr_t)p + 4096);
    CHECK_STREQ(m.perms, "r--p");
  }
  if (CHECK(find_map(maps, (uintptr_t)p + 4096, &m))) {
    CHECK_EQ(m.start, (uintptr_t)p + 4096);
    CHECK_EQ(m.end, (uintptr_t)p + 2 * 4096);
    CHECK_STREQ(m.perms, "rw-p");
  }
  CHECK_SYS(munmap(p, 3 * 4096));
  REQUIRE(read_all("/proc/self/maps", maps, sizeof(maps)) > 0);
  CHECK(!find_map(maps, (uintptr_t)p + 4096, &m));

  // A file mapping names its file.
  int fd = REQUIRE_SYS(open("mapped_file", O_CREAT | O_RDWR, 0644));
  REQUIRE_SYS(ftruncate(fd, 4096));
  char* f = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
  REQUIRE(f != MAP_FAILED);
  REQUIRE(read_all("/proc/self/maps", maps, sizeof(maps)) > 0);
  char cwd[PATH_MAX], want[PATH_MAX + 16];
  REQUIRE(getcwd(cwd, sizeof(cwd)) != NULL);
  snprintf(want, sizeof(want), "%s/mapped_file", cwd);
  if (CHECK(find_map(maps, (uintptr_t)f, &m))) {
    CHECK_STREQ(m.perms, "r--s");
    CHECK_STREQ(m.path, want);
  }
  CHECK_SYS(munmap(f, 4096));

  // /proc/self/fd/N links to the open file.
  char link[PATH_MAX + 16], fdpath[64];
  snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
  ssize_t n = readlink(fdpath, link, sizeof(link) - 1);
  if (CHECK_GT(n, 0)) {
    link[n] = 0;
    CHECK_STREQ(link, want);
  }
  CHECK_SYS(close(fd));
}

static void test_stat(char** argv) {
  char buf[4096];
  REQUIRE(read_all("/proc/self/stat", buf, sizeof(buf)) > 0);
  int pid = 0;
  char comm[64] = {0};
  REQUIRE(sscanf(buf, "%d (%63[^)])", &pid, comm) == 2);
  CHECK_EQ(pid, getpid());
  CHECK_STREQ(comm, "proc_self");
  // Fields after the comm: state(3) ppid(4) ... starttime(22) ... startstack(28).
  const char* rest = strrchr(buf, ')');
  REQUIRE(rest != NULL);
  unsigned long long field[64] = {0};
  int count = 0;
  const char* p = rest + 2;
  // Field 3 (state) is a letter on Linux; skip it whatever it is.
  p = strchr(p, ' ');
  for (count = 4; p && count < 64; count++) {
    field[count] = strtoull(p + 1, NULL, 10);
    p = strchr(p + 1, ' ');
  }
  CHECK_GE(count, 44);
  CHECK_EQ(field[4], getppid());
  CHECK_GT(field[22], 0);
  // startstack: where argc sits, right below argv.
  CHECK_EQ(field[28], (uintptr_t)argv - 8);
}

// The program started by a relative path and by a symbolic link to it: /proc/self/exe and the maps lines of
// its code still name the file as Linux's d_path does (absolute, the link resolved). The child runs
// test_exe and test_maps only (its comm is the link's name), in the parent's working directory.
static void test_named_otherwise(void) {
  char dir[PATH_MAX];
  REQUIRE(strlen(exe_path) < sizeof(dir));
  strcpy(dir, exe_path);
  *strrchr(dir, '/') = 0;
  char tmp[] = "/tmp/proc_self_XXXXXX";
  REQUIRE(mkdtemp(tmp) != NULL);
  char link[PATH_MAX], cwd[PATH_MAX];
  snprintf(link, sizeof(link), "%s/link", tmp);
  REQUIRE(getcwd(cwd, sizeof(cwd)) != NULL);
  CHECK_SYS(symlink(exe_path, link));
  for (int how = 0; how < 2; how++) {
    pid_t pid = CHECK_SYS(fork());
    if (pid == 0) {
      char* path = how == 0 ? "./proc_self" : link;
      char* args[] = {path, "--named-otherwise", cwd, NULL};
      if (how == 1 || chdir(dir) == 0) exec_guest(path, args, environ);
      _exit(120);
    }
    int status = 0;
    CHECK_SYS(waitpid(pid, &status, 0));
    if (!CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0))
      fprintf(stderr, "  started %s: status %#x\n", how == 0 ? "as ./proc_self" : link, status);
  }
  CHECK_SYS(unlink(link));
  CHECK_SYS(rmdir(tmp));
}

int main(int argc, char** argv) {
  int stack_var = 0;
  if (argc == 3 && strcmp(argv[1], "--named-otherwise") == 0) {
    test_exe(argv[0]);
    REQUIRE_SYS(chdir(argv[2]));  // back to the scratch directory, where test_maps makes its file
    test_maps(&stack_var);
    return check_done();
  }
  test_cmdline(argc, argv);
  test_exe(argv[0]);
  test_maps(&stack_var);
  test_stat(argv);
  test_named_otherwise();
  return check_done();
}
