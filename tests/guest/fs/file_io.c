// Tests file I/O on regular files: open flags and their errors, read/write/pread/pwrite/readv/writev and
// their offsets, lseek, ftruncate, fsync, rename/unlink, dup/dup3/fcntl, O_APPEND, locks and close_range.
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/close_range.h>
#include <stdint.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "check.h"

// The arm64 kernel's O_LARGEFILE (asm-generic/fcntl.h): 64-bit kernels add it to every open file's flags
// (force_o_largefile), so F_GETFL shows it, although glibc's aarch64 O_LARGEFILE is 0. qemu-aarch64 7.2 drops
// it: its flag table translates the host glibc's O_LARGEFILE, which is 0 on x86-64.
#define KERNEL_O_LARGEFILE (on_reference_qemu() ? 0 : 0400000)

static off_t file_size(int fd) {
  struct stat st;
  return fstat(fd, &st) == 0 ? st.st_size : -1;
}

static void test_open_errors(void) {
  int fd = CHECK_SYS(open("exists", O_CREAT | O_EXCL | O_WRONLY, 0644));
  CHECK_SYS(write(fd, "x", 1));
  CHECK_SYS(close(fd));
  CHECK_ERRNO(open("exists", O_CREAT | O_EXCL | O_WRONLY, 0644), EEXIST);
  CHECK_ERRNO(open("missing", O_RDONLY), ENOENT);
  CHECK_ERRNO(open("missing/child", O_RDONLY), ENOENT);
  CHECK_ERRNO(open("exists/child", O_RDONLY), ENOTDIR);
  // O_DIRECTORY differs between arm64 (040000) and x86-64 (0200000): a wrong translation opens the file.
  CHECK_ERRNO(open("exists", O_RDONLY | O_DIRECTORY), ENOTDIR);
  fd = CHECK_SYS(open(".", O_RDONLY | O_DIRECTORY));
  CHECK_SYS(close(fd));
  CHECK_ERRNO(open(".", O_WRONLY), EISDIR);
  // O_NOFOLLOW differs too (arm64 0100000, x86-64 0400000).
  CHECK_SYS(symlink("exists", "link"));
  CHECK_ERRNO(open("link", O_RDONLY | O_NOFOLLOW), ELOOP);
  fd = CHECK_SYS(open("link", O_RDONLY));
  CHECK_SYS(close(fd));
  // O_PATH gives a descriptor that cannot be read.
  fd = CHECK_SYS(open("exists", O_PATH));
  char c;
  CHECK_ERRNO(read(fd, &c, 1), EBADF);
  CHECK_SYS(close(fd));
  // O_TRUNC empties; O_CLOEXEC sets FD_CLOEXEC.
  fd = CHECK_SYS(open("exists", O_RDWR | O_TRUNC | O_CLOEXEC));
  CHECK_EQ(file_size(fd), 0);
  CHECK_EQ(fcntl(fd, F_GETFD), FD_CLOEXEC);
  CHECK_ERRNO(write(-1, "x", 1), EBADF);
  CHECK_SYS(close(fd));
  CHECK_ERRNO(close(fd), EBADF);
  fd = CHECK_SYS(open("exists", O_WRONLY));
  CHECK_ERRNO(read(fd, &c, 1), EBADF);
  CHECK_SYS(close(fd));
  // O_TMPFILE contains O_DIRECTORY's bit, so it also needs translating; an unnamed file in the directory.
  fd = open(".", O_TMPFILE | O_RDWR, 0600);
  if (fd >= 0) {
    CHECK_EQ(write(fd, "tmp", 3), 3);
    struct stat st;
    CHECK_SYS(fstat(fd, &st));
    CHECK_EQ(st.st_nlink, 0);
    CHECK_SYS(close(fd));
  } else {
    CHECK_EQ(errno, EOPNOTSUPP);
  }
  CHECK_SYS(unlink("link"));
  CHECK_SYS(unlink("exists"));
}

static void test_read_write_seek(void) {
  int fd = CHECK_SYS(open("data", O_CREAT | O_RDWR, 0644));
  CHECK_EQ(write(fd, "hello world", 11), 11);
  CHECK_EQ(lseek(fd, 0, SEEK_CUR), 11);
  CHECK_EQ(lseek(fd, 0, SEEK_END), 11);
  CHECK_EQ(lseek(fd, -5, SEEK_END), 6);
  char buf[64] = {0};
  CHECK_EQ(read(fd, buf, sizeof(buf)), 5);
  CHECK_MEMEQ(buf, "world", 5);
  CHECK_EQ(read(fd, buf, sizeof(buf)), 0);
  CHECK_EQ(lseek(fd, 0, SEEK_SET), 0);
  CHECK_EQ(lseek(fd, 3, SEEK_CUR), 3);
  CHECK_ERRNO(lseek(fd, -100, SEEK_CUR), EINVAL);
  CHECK_ERRNO(lseek(fd, 0, 42), EINVAL);
  CHECK_EQ(lseek(fd, 0, SEEK_CUR), 3);

  // pwrite/pread use their own offset and leave the file offset alone; a write past the end leaves a hole.
  CHECK_EQ(pwrite(fd, "HOLE", 4, 100), 4);
  CHECK_EQ(lseek(fd, 0, SEEK_CUR), 3);
  CHECK_EQ(file_size(fd), 104);
  memset(buf, 'x', sizeof(buf));
  CHECK_EQ(pread(fd, buf, 8, 96), 8);
  CHECK_MEMEQ(buf, "\0\0\0\0HOLE", 8);
  CHECK_EQ(pread(fd, buf, 8, 1000), 0);
  CHECK_ERRNO(pread(fd, buf, 8, -1), EINVAL);
  CHECK_EQ(lseek(fd, 0, SEEK_CUR), 3);
  // SEEK_DATA/SEEK_HOLE: data starts at 0; the first hole is somewhere after it, at the latest at the end.
  CHECK_EQ(lseek(fd, 0, SEEK_DATA), 0);
  off_t hole = lseek(fd, 0, SEEK_HOLE);
  CHECK_GT(hole, 0);
  CHECK_LE(hole, 104);
  CHECK_ERRNO(lseek(fd, 200, SEEK_DATA), ENXIO);

  // writev/readv gather and scatter in order, at the file offset.
  CHECK_EQ(lseek(fd, 0, SEEK_SET), 0);
  struct iovec wv[3] = {{"abc", 3}, {"", 0}, {"defgh", 5}};
  CHECK_EQ(writev(fd, wv, 3), 8);
  CHECK_EQ(lseek(fd, 0, SEEK_CUR), 8);
  char a[2], b[10];
  struct iovec rv[2] = {{a, sizeof(a)}, {b, sizeof(b)}};
  CHECK_EQ(lseek(fd, 0, SEEK_SET), 0);
  CHECK_EQ(readv(fd, rv, 2), 12);
  CHECK_MEMEQ(a, "ab", 2);
  CHECK_MEMEQ(b, "cdefghrld\0", 10);
  struct iovec pv[2] = {{"PW", 2}, {"V", 1}};
  CHECK_EQ(pwritev(fd, pv, 2, 20), 3);
  CHECK_EQ(lseek(fd, 0, SEEK_CUR), 12);
  memset(b, 0, sizeof(b));
  struct iovec prv[1] = {{b, 3}};
  CHECK_EQ(preadv(fd, prv, 1, 20), 3);
  CHECK_MEMEQ(b, "PWV", 3);
  CHECK_ERRNO(syscall(SYS_readv, fd, rv, -1), EINVAL);

  // ftruncate shrinks, and grows with zeros.
  CHECK_SYS(ftruncate(fd, 5));
  CHECK_EQ(file_size(fd), 5);
  CHECK_SYS(ftruncate(fd, 4096 + 7));
  CHECK_EQ(file_size(fd), 4096 + 7);
  CHECK_EQ(pread(fd, buf, 8, 4096), 7);
  CHECK_MEMEQ(buf, "\0\0\0\0\0\0\0", 7);
  CHECK_ERRNO(ftruncate(fd, -1), EINVAL);
  CHECK_SYS(truncate("data", 11));
  CHECK_EQ(file_size(fd), 11);
  CHECK_SYS(fsync(fd));
  CHECK_SYS(fdatasync(fd));
  CHECK_SYS(close(fd));

  // rename replaces the target atomically; unlink removes the name.
  fd = CHECK_SYS(open("other", O_CREAT | O_WRONLY, 0644));
  CHECK_SYS(close(fd));
  CHECK_SYS(rename("data", "other"));
  CHECK_ERRNO(access("data", F_OK), ENOENT);
  fd = CHECK_SYS(open("other", O_RDONLY));
  CHECK_EQ(file_size(fd), 11);
  CHECK_SYS(close(fd));
  CHECK_SYS(unlink("other"));
  CHECK_ERRNO(unlink("other"), ENOENT);
  CHECK_ERRNO(open("other", O_RDONLY), ENOENT);
}

static void test_dup_fcntl(void) {
  int fd = CHECK_SYS(open("dup", O_CREAT | O_RDWR | O_TRUNC, 0644));
  CHECK_EQ(write(fd, "0123456789", 10), 10);
  // A dup shares the file offset and status flags, not FD_CLOEXEC.
  int d = CHECK_SYS(dup(fd));
  CHECK_NE(d, fd);
  CHECK_EQ(lseek(d, 2, SEEK_SET), 2);
  CHECK_EQ(lseek(fd, 0, SEEK_CUR), 2);
  CHECK_EQ(fcntl(d, F_GETFD), 0);
  CHECK_SYS(close(d));
  CHECK_EQ(dup2(fd, 50), 50);
  CHECK_EQ(dup2(fd, fd), fd);
  CHECK_EQ(dup3(fd, 51, O_CLOEXEC), 51);
  CHECK_EQ(fcntl(51, F_GETFD), FD_CLOEXEC);
  CHECK_ERRNO(dup3(fd, fd, 0), EINVAL);
  CHECK_ERRNO(dup3(fd, 52, O_APPEND), EINVAL);
  CHECK_ERRNO(dup(-1), EBADF);
  int c = CHECK_SYS(fcntl(fd, F_DUPFD_CLOEXEC, 100));
  CHECK_GE(c, 100);
  CHECK_EQ(fcntl(c, F_GETFD), FD_CLOEXEC);
  CHECK_SYS(fcntl(c, F_SETFD, 0));
  CHECK_EQ(fcntl(c, F_GETFD), 0);
  int c2 = CHECK_SYS(fcntl(fd, F_DUPFD, 100));
  CHECK_GT(c2, 100);
  CHECK_EQ(fcntl(c2, F_GETFD), 0);

  // F_GETFL: the access mode plus the arm64 kernel's O_LARGEFILE; F_SETFL O_APPEND is shared by dups.
  CHECK_EQ(fcntl(fd, F_GETFL), O_RDWR | KERNEL_O_LARGEFILE);
  CHECK_SYS(fcntl(fd, F_SETFL, O_APPEND));
  CHECK_EQ(fcntl(fd, F_GETFL), O_RDWR | O_APPEND | KERNEL_O_LARGEFILE);
  CHECK_EQ(fcntl(50, F_GETFL), O_RDWR | O_APPEND | KERNEL_O_LARGEFILE);
  CHECK_SYS(fcntl(fd, F_SETFL, O_APPEND | O_NONBLOCK));
  CHECK_EQ(fcntl(fd, F_GETFL), O_RDWR | O_APPEND | O_NONBLOCK | KERNEL_O_LARGEFILE);
  // O_APPEND: every write goes to the end, whatever the offset; on Linux even pwrite appends.
  CHECK_EQ(lseek(fd, 0, SEEK_SET), 0);
  CHECK_EQ(write(fd, "AB", 2), 2);
  CHECK_EQ(lseek(fd, 0, SEEK_CUR), 12);
  CHECK_EQ(pwrite(fd, "CD", 2, 0), 2);
  char buf[16] = {0};
  CHECK_EQ(pread(fd, buf, sizeof(buf), 0), 14);
  CHECK_MEMEQ(buf, "0123456789ABCD", 14);
  CHECK_SYS(fcntl(fd, F_SETFL, 0));
  CHECK_EQ(fcntl(fd, F_GETFL), O_RDWR | KERNEL_O_LARGEFILE);

  // An O_APPEND open of a file behaves the same from the start.
  int ap = CHECK_SYS(open("dup", O_WRONLY | O_APPEND));
  CHECK_EQ(fcntl(ap, F_GETFL), O_WRONLY | O_APPEND | KERNEL_O_LARGEFILE);
  CHECK_EQ(write(ap, "E", 1), 1);
  CHECK_EQ(lseek(ap, 0, SEEK_CUR), 15);
  CHECK_SYS(close(ap));

  // Advisory locks: flock, and a POSIX lock that the owning process sees as absent (F_GETLK -> F_UNLCK).
  CHECK_SYS(flock(fd, LOCK_EX));
  CHECK_SYS(flock(fd, LOCK_UN));
  struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 10};
  CHECK_SYS(fcntl(fd, F_SETLK, &fl));
  fl.l_type = F_WRLCK;
  CHECK_SYS(fcntl(fd, F_GETLK, &fl));
  CHECK_EQ(fl.l_type, F_UNLCK);
  // An open file description lock conflicts with the process's own POSIX lock.
  struct flock ofd = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 10, .l_pid = 0};
  CHECK_SYS(fcntl(c, F_OFD_GETLK, &ofd));
  CHECK_EQ(ofd.l_type, F_WRLCK);
  CHECK_EQ(ofd.l_pid, getpid());
  fl.l_type = F_UNLCK;
  CHECK_SYS(fcntl(fd, F_SETLK, &fl));

  // close_range closes a range of descriptors, or only marks them close-on-exec.
  CHECK_SYS(close_range(50, 51, CLOSE_RANGE_CLOEXEC));
  CHECK_EQ(fcntl(50, F_GETFD), FD_CLOEXEC);
  CHECK_EQ(fcntl(51, F_GETFD), FD_CLOEXEC);
  CHECK_SYS(close_range(50, 51, 0));
  CHECK_ERRNO(fcntl(50, F_GETFD), EBADF);
  CHECK_ERRNO(fcntl(51, F_GETFD), EBADF);
  CHECK_SYS(close_range(100, ~0U, 0));
  CHECK_ERRNO(fcntl(c, F_GETFD), EBADF);
  CHECK_ERRNO(fcntl(c2, F_GETFD), EBADF);
  CHECK_EQ(fcntl(fd, F_GETFD), 0);
  CHECK_ERRNO(close_range(10, 5, 0), EINVAL);
  CHECK_SYS(close(fd));
  CHECK_SYS(unlink("dup"));
}

int main(void) {
  test_open_errors();
  test_read_write_seek();
  test_dup_fcntl();
  return check_done();
}
