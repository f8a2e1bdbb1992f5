// Tests directory and name operations: mkdirat, chdir/fchdir/getcwd, symlinkat/readlinkat, linkat,
// unlinkat (AT_REMOVEDIR), renameat2, faccessat, fchmodat, utimensat and umask.
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static char start_dir[PATH_MAX];

static void write_file(const char* path, const char* content) {
  int fd = REQUIRE_SYS(open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644));
  CHECK_EQ(write(fd, content, strlen(content)), (long long)strlen(content));
  CHECK_SYS(close(fd));
}

static int file_is(const char* path, const char* content) {
  char buf[64] = {0};
  int fd = open(path, O_RDONLY);
  if (fd < 0) return 0;
  ssize_t n = read(fd, buf, sizeof(buf) - 1);
  close(fd);
  return n >= 0 && strcmp(buf, content) == 0;
}

static void test_cwd(void) {
  REQUIRE(getcwd(start_dir, sizeof(start_dir)) != NULL);
  CHECK_EQ(start_dir[0], '/');
  CHECK_SYS(mkdirat(AT_FDCWD, "a", 0755));
  CHECK_ERRNO(mkdirat(AT_FDCWD, "a", 0755), EEXIST);
  CHECK_ERRNO(mkdir("missing/a", 0755), ENOENT);
  int a = REQUIRE_SYS(open("a", O_RDONLY | O_DIRECTORY));
  CHECK_SYS(mkdirat(a, "b", 0700));

  char expected[PATH_MAX + 8], cwd[PATH_MAX];
  snprintf(expected, sizeof(expected), "%s/a/b", start_dir);
  CHECK_SYS(chdir("a/b"));
  CHECK(getcwd(cwd, sizeof(cwd)) != NULL);
  CHECK_STREQ(cwd, expected);
  // getcwd returns the length including the NUL; a short buffer is ERANGE.
  CHECK_EQ(syscall(SYS_getcwd, cwd, sizeof(cwd)), (long long)strlen(expected) + 1);
  CHECK_ERRNO(syscall(SYS_getcwd, cwd, 4), ERANGE);
  CHECK_SYS(chdir(".."));
  CHECK(getcwd(cwd, sizeof(cwd)) != NULL);
  snprintf(expected, sizeof(expected), "%s/a", start_dir);
  CHECK_STREQ(cwd, expected);
  int top = REQUIRE_SYS(open(start_dir, O_RDONLY | O_DIRECTORY));
  CHECK_SYS(fchdir(top));
  CHECK(getcwd(cwd, sizeof(cwd)) != NULL);
  CHECK_STREQ(cwd, start_dir);
  write_file("file", "x");
  int file = REQUIRE_SYS(open("file", O_RDONLY));
  CHECK_ERRNO(fchdir(file), ENOTDIR);
  CHECK_ERRNO(chdir("file"), ENOTDIR);
  CHECK_ERRNO(chdir("missing"), ENOENT);
  CHECK_SYS(close(file));
  CHECK_SYS(close(top));

  // Relative names resolve against the dirfd, not the cwd.
  int fd = REQUIRE_SYS(openat(a, "inside", O_CREAT | O_WRONLY, 0644));
  CHECK_SYS(close(fd));
  CHECK_SYS(access("a/inside", F_OK));
  CHECK_ERRNO(access("inside", F_OK), ENOENT);
  // unlinkat: a directory needs AT_REMOVEDIR, a non-empty one cannot go, "." is EINVAL.
  CHECK_ERRNO(unlinkat(AT_FDCWD, "a/b", 0), EISDIR);
  CHECK_ERRNO(unlinkat(AT_FDCWD, "a", AT_REMOVEDIR), ENOTEMPTY);
  CHECK_ERRNO(unlinkat(a, "inside", AT_REMOVEDIR), ENOTDIR);
  CHECK_ERRNO(rmdir("a/b/."), EINVAL);
  CHECK_SYS(unlinkat(a, "b", AT_REMOVEDIR));
  CHECK_SYS(unlinkat(a, "inside", 0));
  CHECK_SYS(close(a));
  CHECK_SYS(unlinkat(AT_FDCWD, "a", AT_REMOVEDIR));
  CHECK_ERRNO(access("a", F_OK), ENOENT);
  CHECK_SYS(unlink("file"));
}

static void test_links(void) {
  write_file("target", "T");
  int dir = REQUIRE_SYS(open(".", O_RDONLY | O_DIRECTORY));
  CHECK_SYS(symlinkat("target", dir, "sym"));
  CHECK_ERRNO(symlinkat("target", dir, "sym"), EEXIST);
  // readlink returns the length and writes no NUL; a short buffer truncates.
  char buf[64];
  memset(buf, '#', sizeof(buf));
  CHECK_EQ(readlinkat(dir, "sym", buf, sizeof(buf)), 6);
  CHECK_MEMEQ(buf, "target#", 7);
  CHECK_EQ(readlinkat(AT_FDCWD, "sym", buf, 3), 3);
  CHECK_MEMEQ(buf, "tar", 3);
  CHECK_ERRNO(readlink("target", buf, sizeof(buf)), EINVAL);
  CHECK_ERRNO(readlink("missing", buf, sizeof(buf)), ENOENT);
  CHECK(file_is("sym", "T"));
  CHECK_SYS(symlink("nowhere", "dangling"));
  CHECK_ERRNO(open("dangling", O_RDONLY), ENOENT);
  CHECK_SYS(symlink("loop", "loop"));
  CHECK_ERRNO(open("loop", O_RDONLY), ELOOP);

  // linkat: a second name for the same inode; through a symlink only with AT_SYMLINK_FOLLOW.
  struct stat st, st2;
  CHECK_SYS(linkat(dir, "target", dir, "hard", 0));
  CHECK_SYS(stat("target", &st));
  CHECK_SYS(stat("hard", &st2));
  CHECK_EQ(st.st_nlink, 2);
  CHECK_EQ(st2.st_ino, st.st_ino);
  CHECK_SYS(linkat(AT_FDCWD, "sym", AT_FDCWD, "hard_to_sym", 0));
  CHECK_SYS(lstat("hard_to_sym", &st2));
  CHECK(S_ISLNK(st2.st_mode));
  CHECK_SYS(linkat(AT_FDCWD, "sym", AT_FDCWD, "hard_followed", AT_SYMLINK_FOLLOW));
  CHECK_SYS(lstat("hard_followed", &st2));
  CHECK_EQ(st2.st_ino, st.st_ino);
  CHECK_EQ(st2.st_nlink, 3);
  CHECK_ERRNO(linkat(AT_FDCWD, "target", AT_FDCWD, "hard", 0), EEXIST);
  CHECK_SYS(mkdir("dir", 0755));
  CHECK_ERRNO(link("dir", "dirlink"), EPERM);
  static const char* const kNames[] = {"sym", "dangling", "loop", "hard", "hard_to_sym", "hard_followed"};
  for (size_t i = 0; i < sizeof(kNames) / sizeof(kNames[0]); i++) CHECK_SYS(unlinkat(dir, kNames[i], 0));
  CHECK_SYS(stat("target", &st));
  CHECK_EQ(st.st_nlink, 1);
  CHECK_SYS(rmdir("dir"));
  CHECK_SYS(unlink("target"));
  CHECK_SYS(close(dir));
}

static void test_rename(void) {
  write_file("r1", "one");
  write_file("r2", "two");
  CHECK_ERRNO(renameat2(AT_FDCWD, "r1", AT_FDCWD, "r2", RENAME_NOREPLACE), EEXIST);
  CHECK_SYS(renameat2(AT_FDCWD, "r1", AT_FDCWD, "r3", RENAME_NOREPLACE));
  CHECK(file_is("r3", "one"));
  CHECK_ERRNO(access("r1", F_OK), ENOENT);
  // RENAME_EXCHANGE swaps two names atomically.
  CHECK_SYS(renameat2(AT_FDCWD, "r2", AT_FDCWD, "r3", RENAME_EXCHANGE));
  CHECK(file_is("r2", "one"));
  CHECK(file_is("r3", "two"));
  CHECK_ERRNO(renameat2(AT_FDCWD, "r2", AT_FDCWD, "r1", RENAME_EXCHANGE), ENOENT);
  CHECK_ERRNO(renameat2(AT_FDCWD, "r2", AT_FDCWD, "r3", RENAME_EXCHANGE | RENAME_NOREPLACE), EINVAL);
  // Plain rename: over a file replaces it; a directory cannot replace a file, nor go inside itself.
  CHECK_SYS(renameat(AT_FDCWD, "r2", AT_FDCWD, "r3"));
  CHECK(file_is("r3", "one"));
  CHECK_SYS(mkdir("d1", 0755));
  CHECK_ERRNO(rename("d1", "r3"), ENOTDIR);
  CHECK_ERRNO(rename("d1", "d1/inner"), EINVAL);
  CHECK_SYS(rename("r3", "d1/r3"));
  CHECK(file_is("d1/r3", "one"));
  CHECK_SYS(rename("d1", "d2"));
  CHECK(file_is("d2/r3", "one"));
  CHECK_SYS(unlink("d2/r3"));
  CHECK_SYS(rmdir("d2"));
}

static void test_modes_and_times(void) {
  // umask applies to creation modes and returns the previous mask.
  mode_t old = umask(027);
  CHECK_EQ(umask(027), 027);
  int fd = REQUIRE_SYS(open("masked", O_CREAT | O_WRONLY, 0777));
  CHECK_SYS(close(fd));
  CHECK_SYS(mkdir("masked_dir", 0777));
  struct stat st;
  CHECK_SYS(stat("masked", &st));
  CHECK_EQ(st.st_mode & 07777, 0750);
  CHECK_SYS(stat("masked_dir", &st));
  CHECK_EQ(st.st_mode & 07777, 0750);
  umask(old);

  CHECK_SYS(fchmodat(AT_FDCWD, "masked", 0604, 0));
  CHECK_SYS(stat("masked", &st));
  CHECK_EQ(st.st_mode, S_IFREG | 0604);
  fd = REQUIRE_SYS(open("masked", O_RDONLY));
  CHECK_SYS(fchmod(fd, 04711));
  CHECK_SYS(fstat(fd, &st));
  CHECK_EQ(st.st_mode & 07777, 04711);
  CHECK_SYS(close(fd));
  CHECK_ERRNO(fchmodat(AT_FDCWD, "missing", 0600, 0), ENOENT);
  CHECK_SYS(fchownat(AT_FDCWD, "masked", getuid(), getgid(), 0));

  // faccessat: existence always; execute needs an x bit even for root (the tests may run as root, which
  // bypasses read and write permission).
  CHECK_SYS(faccessat(AT_FDCWD, "masked", F_OK, 0));
  CHECK_SYS(faccessat(AT_FDCWD, "masked", X_OK, 0));
  CHECK_SYS(chmod("masked", 0644));
  CHECK_ERRNO(faccessat(AT_FDCWD, "masked", X_OK, 0), EACCES);
  CHECK_SYS(faccessat(AT_FDCWD, "masked", R_OK | W_OK, 0));
  CHECK_SYS(faccessat(AT_FDCWD, "masked", R_OK, AT_EACCESS));
  CHECK_ERRNO(faccessat(AT_FDCWD, "missing", F_OK, 0), ENOENT);
  CHECK_ERRNO(syscall(SYS_faccessat, AT_FDCWD, "masked", 0x100, 0), EINVAL);
  if (getuid() != 0) {
    CHECK_SYS(chmod("masked", 0400));
    CHECK_ERRNO(access("masked", W_OK), EACCES);
    CHECK_ERRNO(open("masked", O_WRONLY), EACCES);
  }

  // utimensat: exact nanoseconds, UTIME_OMIT keeps one, UTIME_NOW sets the current time.
  struct timespec times[2] = {{1000000000, 111}, {1200000000, 222222222}};
  CHECK_SYS(utimensat(AT_FDCWD, "masked", times, 0));
  CHECK_SYS(stat("masked", &st));
  CHECK_EQ(st.st_atim.tv_sec, 1000000000);
  CHECK_EQ(st.st_atim.tv_nsec, 111);
  CHECK_EQ(st.st_mtim.tv_sec, 1200000000);
  CHECK_EQ(st.st_mtim.tv_nsec, 222222222);
  struct timespec before;
  clock_gettime(CLOCK_REALTIME, &before);
  struct timespec now_omit[2] = {{0, UTIME_NOW}, {0, UTIME_OMIT}};
  CHECK_SYS(utimensat(AT_FDCWD, "masked", now_omit, 0));
  CHECK_SYS(stat("masked", &st));
  CHECK_GE(st.st_atim.tv_sec, before.tv_sec - 1);
  CHECK_LE(st.st_atim.tv_sec, before.tv_sec + 5);
  CHECK_EQ(st.st_mtim.tv_sec, 1200000000);
  CHECK_EQ(st.st_mtim.tv_nsec, 222222222);
  fd = REQUIRE_SYS(open("masked", O_RDONLY));
  struct timespec ftimes[2] = {{5, 0}, {6, 7}};
  CHECK_SYS(futimens(fd, ftimes));
  CHECK_SYS(fstat(fd, &st));
  CHECK_EQ(st.st_atim.tv_sec, 5);
  CHECK_EQ(st.st_mtim.tv_sec, 6);
  CHECK_EQ(st.st_mtim.tv_nsec, 7);
  CHECK_SYS(close(fd));
  struct timespec bad[2] = {{0, 1000000000}, {0, 0}};
  CHECK_ERRNO(utimensat(AT_FDCWD, "masked", bad, 0), EINVAL);
  // On a symlink with AT_SYMLINK_NOFOLLOW the link's own times change.
  CHECK_SYS(symlink("masked", "masked_link"));
  CHECK_SYS(utimensat(AT_FDCWD, "masked_link", times, AT_SYMLINK_NOFOLLOW));
  CHECK_SYS(lstat("masked_link", &st));
  CHECK_EQ(st.st_mtim.tv_sec, 1200000000);
  CHECK_SYS(stat("masked_link", &st));
  CHECK_EQ(st.st_mtim.tv_sec, 6);
  CHECK_SYS(unlink("masked_link"));
  CHECK_SYS(unlink("masked"));
  CHECK_SYS(rmdir("masked_dir"));
}

int main(void) {
  test_cwd();
  test_links();
  test_rename();
  test_modes_and_times();
  return check_done();
}
