// Tests directory listing: getdents64 (raw, with a small buffer so that it takes many calls, and resuming
// from d_off) and readdir; every name appears exactly once with the right d_type and d_ino.
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

#define kFiles 200

// The kernel's struct linux_dirent64 (include/linux/dirent.h), the same on every architecture.
struct linux_dirent64 {
  uint64_t d_ino;
  int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

// Expected entries: f000..f199 (regular files), "sub" (directory), "lnk" (symlink), ".", "..".
static int seen_file[kFiles];
static int seen_sub, seen_lnk, seen_dot, seen_dotdot, seen_other;

static void reset_seen(void) {
  memset(seen_file, 0, sizeof(seen_file));
  seen_sub = seen_lnk = seen_dot = seen_dotdot = seen_other = 0;
}

static void see(int dirfd, const char* name, unsigned char type, uint64_t ino) {
  struct stat st;
  if (strcmp(name, ".") == 0) {
    seen_dot++;
    CHECK_EQ(type, DT_DIR);
    return;
  }
  if (strcmp(name, "..") == 0) {
    seen_dotdot++;
    CHECK_EQ(type, DT_DIR);
    return;
  }
  if (CHECK_SYS(fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW)) == 0 && !CHECK_EQ(ino, st.st_ino)) {
    fprintf(stderr, "  d_ino of \"%s\"\n", name);
  }
  int n;
  char extra;
  if (name[0] == 'f' && strlen(name) == 4 && sscanf(name + 1, "%3d%c", &n, &extra) == 1 && n >= 0 &&
      n < kFiles) {
    seen_file[n]++;
    if (!CHECK_EQ(type, DT_REG)) fprintf(stderr, "  d_type of \"%s\"\n", name);
  } else if (strcmp(name, "sub") == 0) {
    seen_sub++;
    CHECK_EQ(type, DT_DIR);
  } else if (strcmp(name, "lnk") == 0) {
    seen_lnk++;
    CHECK_EQ(type, DT_LNK);
  } else {
    seen_other++;
    fprintf(stderr, "unexpected directory entry \"%s\"\n", name);
  }
}

static void check_seen(const char* how, int skip_from) {
  int bad = 0;
  for (int i = 0; i < kFiles; i++) {
    int want = i >= skip_from ? 0 : 1;
    if (!CHECK_EQ(seen_file[i], want)) {
      fprintf(stderr, "  f%03d seen %d times by %s\n", i, seen_file[i], how);
      if (++bad > 5) break;
    }
  }
  CHECK_EQ(seen_sub, 1);
  CHECK_EQ(seen_lnk, 1);
  CHECK_EQ(seen_dot, 1);
  CHECK_EQ(seen_dotdot, 1);
  CHECK_EQ(seen_other, 0);
}

// Lists with getdents64 in chunks of buf_size bytes; returns the number of calls that returned entries.
static int list_getdents(int fd, size_t buf_size) {
  _Alignas(8) char buf[4096];
  int calls = 0;
  for (;;) {
    long n = syscall(SYS_getdents64, fd, buf, buf_size);
    if (!CHECK_GE(n, 0) || n == 0) break;
    calls++;
    for (long pos = 0; pos < n;) {
      struct linux_dirent64* d = (struct linux_dirent64*)(buf + pos);
      CHECK_EQ(d->d_reclen % 8, 0);
      CHECK_LE(pos + d->d_reclen, n);
      CHECK_LT(offsetof(struct linux_dirent64, d_name) + strlen(d->d_name), d->d_reclen);
      see(fd, d->d_name, d->d_type, d->d_ino);
      pos += d->d_reclen;
    }
  }
  return calls;
}

static void test_getdents64(int fd) {
  reset_seen();
  int calls = list_getdents(fd, 256);
  check_seen("getdents64", kFiles);
  CHECK_GT(calls, 10);

  // Too small a buffer for one entry: EINVAL. Rewinding and listing again gives the same set.
  CHECK_EQ(lseek(fd, 0, SEEK_SET), 0);
  char tiny[8];
  CHECK_ERRNO(syscall(SYS_getdents64, fd, tiny, sizeof(tiny)), EINVAL);
  reset_seen();
  list_getdents(fd, 4096);
  check_seen("getdents64 after rewind", kFiles);

  // Resuming at an entry's d_off gives exactly the entries after it.
  CHECK_EQ(lseek(fd, 0, SEEK_SET), 0);
  _Alignas(8) char buf[4096];
  long n = syscall(SYS_getdents64, fd, buf, sizeof(buf));
  REQUIRE(n > 0);
  struct linux_dirent64* first = (struct linux_dirent64*)buf;
  REQUIRE(first->d_reclen < n);
  struct linux_dirent64* second = (struct linux_dirent64*)(buf + first->d_reclen);
  char second_name[256];
  snprintf(second_name, sizeof(second_name), "%s", second->d_name);
  CHECK_EQ(lseek(fd, first->d_off, SEEK_SET), first->d_off);
  n = syscall(SYS_getdents64, fd, buf, sizeof(buf));
  REQUIRE(n > 0);
  CHECK_STREQ(((struct linux_dirent64*)buf)->d_name, second_name);

  CHECK_ERRNO(syscall(SYS_getdents64, -1, buf, sizeof(buf)), EBADF);
  int file = REQUIRE_SYS(openat(fd, "f000", O_RDONLY));
  CHECK_ERRNO(syscall(SYS_getdents64, file, buf, sizeof(buf)), ENOTDIR);
  CHECK_SYS(close(file));
}

static void test_readdir(int skip_from) {
  DIR* dir = opendir("d");
  REQUIRE(dir != NULL);
  for (int pass = 0; pass < 2; pass++) {
    reset_seen();
    struct dirent* e;
    errno = 0;
    while ((e = readdir(dir)) != NULL) see(dirfd(dir), e->d_name, e->d_type, e->d_ino);
    CHECK_EQ(errno, 0);
    check_seen(pass ? "readdir after rewinddir" : "readdir", skip_from);
    rewinddir(dir);
  }
  CHECK_SYS(closedir(dir));
}

int main(void) {
  REQUIRE_SYS(mkdir("d", 0755));
  for (int i = 0; i < kFiles; i++) {
    char name[16];
    snprintf(name, sizeof(name), "d/f%03d", i);
    int fd = REQUIRE_SYS(open(name, O_CREAT | O_WRONLY, 0644));
    close(fd);
  }
  REQUIRE_SYS(mkdir("d/sub", 0755));
  REQUIRE_SYS(symlink("f000", "d/lnk"));

  int fd = REQUIRE_SYS(open("d", O_RDONLY | O_DIRECTORY));
  test_getdents64(fd);
  CHECK_SYS(close(fd));
  test_readdir(kFiles);

  // Removed names disappear from a fresh listing.
  for (int i = kFiles / 2; i < kFiles; i++) {
    char name[16];
    snprintf(name, sizeof(name), "d/f%03d", i);
    CHECK_SYS(unlink(name));
  }
  test_readdir(kFiles / 2);
  return check_done();
}
