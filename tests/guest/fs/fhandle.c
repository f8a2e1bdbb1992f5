// File handles (name_to_handle_at, open_by_handle_at), fchmodat2 and cachestat.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

#ifndef AT_HANDLE_FID
#define AT_HANDLE_FID 0x200
#endif

static void test_handles(void) {
  int fd = CHECK_SYS(open("data", O_CREAT | O_RDWR | O_TRUNC, 0600));
  CHECK_EQ(write(fd, "handled", 7), 7);
  close(fd);
  CHECK_SYS(symlink("data", "link"));

  // Too small: EOVERFLOW and the size needed.
  struct file_handle probe = {.handle_bytes = 0};
  int mount_id = -1;
  int r = name_to_handle_at(AT_FDCWD, "data", &probe, &mount_id, 0);
  if (r == -1 && (errno == EOPNOTSUPP || errno == ENOTSUP)) {
    NOTE("the file system cannot encode handles; skipped");
    return;
  }
  CHECK_EQ(r, -1);
  CHECK_EQ(errno, EOVERFLOW);
  CHECK_GT(probe.handle_bytes, 0);
  CHECK_LE(probe.handle_bytes, MAX_HANDLE_SZ);
  CHECK_GE(mount_id, 0);

  union {
    struct file_handle fh;
    char room[sizeof(struct file_handle) + MAX_HANDLE_SZ];
  } h;
  h.fh.handle_bytes = MAX_HANDLE_SZ;
  mount_id = -1;
  CHECK_SYS(name_to_handle_at(AT_FDCWD, "data", &h.fh, &mount_id, 0));
  CHECK_EQ(h.fh.handle_bytes, probe.handle_bytes);
  CHECK_GE(mount_id, 0);

  // Following the link gives the same file's handle; not following it, the link's.
  union {
    struct file_handle fh;
    char room[sizeof(struct file_handle) + MAX_HANDLE_SZ];
  } hl, hn;
  hl.fh.handle_bytes = hn.fh.handle_bytes = MAX_HANDLE_SZ;
  CHECK_SYS(name_to_handle_at(AT_FDCWD, "link", &hl.fh, &mount_id, AT_SYMLINK_FOLLOW));
  CHECK_SYS(name_to_handle_at(AT_FDCWD, "link", &hn.fh, &mount_id, 0));
  CHECK_EQ(hl.fh.handle_bytes, h.fh.handle_bytes);
  CHECK_MEMEQ(hl.fh.f_handle, h.fh.f_handle, h.fh.handle_bytes);
  CHECK(memcmp(hn.fh.f_handle, h.fh.f_handle, h.fh.handle_bytes) != 0);

  // Opening by handle (needs CAP_DAC_READ_SEARCH) finds the file.
  int dirfd = CHECK_SYS(open(".", O_RDONLY | O_DIRECTORY));
  int byh = open_by_handle_at(dirfd, &h.fh, O_RDONLY);
  if (byh < 0 && errno == EPERM) {
    NOTE("open_by_handle_at needs CAP_DAC_READ_SEARCH; skipped");
  } else {
    CHECK_GE(byh, 0);
    char buf[16] = {0};
    CHECK_EQ(read(byh, buf, sizeof buf), 7);
    CHECK_STREQ(buf, "handled");
    close(byh);
    struct file_handle bad = {.handle_bytes = 0};
    CHECK_ERRNO(open_by_handle_at(dirfd, &bad, O_RDONLY), EINVAL);
    CHECK_ERRNO(open_by_handle_at(dirfd, (struct file_handle*)8, O_RDONLY), EFAULT);
  }
  close(dirfd);

  // AT_EMPTY_PATH names the descriptor itself.
  fd = CHECK_SYS(open("data", O_RDONLY));
  union {
    struct file_handle fh;
    char room[sizeof(struct file_handle) + MAX_HANDLE_SZ];
  } he;
  he.fh.handle_bytes = MAX_HANDLE_SZ;
  CHECK_SYS(name_to_handle_at(fd, "", &he.fh, &mount_id, AT_EMPTY_PATH));
  CHECK_MEMEQ(he.fh.f_handle, h.fh.f_handle, h.fh.handle_bytes);
  close(fd);

  struct file_handle big = {.handle_bytes = MAX_HANDLE_SZ + 1};
  CHECK_ERRNO(name_to_handle_at(AT_FDCWD, "data", &big, &mount_id, 0), EINVAL);
  CHECK_ERRNO(name_to_handle_at(AT_FDCWD, "data", (struct file_handle*)8, &mount_id, 0), EFAULT);
  CHECK_ERRNO(name_to_handle_at(AT_FDCWD, "missing", &h.fh, &mount_id, 0), ENOENT);
  CHECK_ERRNO(name_to_handle_at(AT_FDCWD, "data", &h.fh, &mount_id, 0x40000000), EINVAL);
}

static void test_fchmodat2(void) {
  int fd = CHECK_SYS(open("modes", O_CREAT | O_RDWR, 0600));
  close(fd);
  long r = syscall(452, AT_FDCWD, "modes", 0640, 0);
  if (r == -1 && errno == ENOSYS) {
    CHECK(on_reference_qemu());  // qemu-aarch64 7.2 predates fchmodat2 (Linux 6.6)
    return;
  }
  CHECK_EQ(r, 0);
  struct stat st;
  CHECK_SYS(stat("modes", &st));
  CHECK_EQ(st.st_mode & 0777, 0640);
  CHECK_SYS(symlink("modes", "modes_link"));
  // A symlink's own mode cannot change on Linux file systems.
  CHECK_ERRNO(syscall(452, AT_FDCWD, "modes_link", 0600, AT_SYMLINK_NOFOLLOW), EOPNOTSUPP);
  fd = CHECK_SYS(open("modes", O_RDONLY));
  CHECK_SYS(syscall(452, fd, "", 0604, AT_EMPTY_PATH));
  CHECK_SYS(stat("modes", &st));
  CHECK_EQ(st.st_mode & 0777, 0604);
  close(fd);
  CHECK_ERRNO(syscall(452, AT_FDCWD, "modes", 0600, 0x8), EINVAL);
  CHECK_ERRNO(syscall(452, AT_FDCWD, (char*)8, 0600, 0), EFAULT);
}

static void test_cachestat(void) {
  int fd = CHECK_SYS(open("cached", O_CREAT | O_RDWR | O_TRUNC, 0600));
  char page[4096];
  memset(page, 7, sizeof page);
  for (int i = 0; i < 4; i++) CHECK_EQ(write(fd, page, sizeof page), (long)sizeof page);
  struct {
    uint64_t off, len;
  } range = {0, 0};
  uint64_t cs[5] = {0};
  long r = syscall(451, fd, &range, cs, 0);
  if (r == -1 && errno == ENOSYS) {
    CHECK(on_reference_qemu());  // qemu-aarch64 7.2 predates cachestat (Linux 6.5)
    close(fd);
    return;
  }
  CHECK_EQ(r, 0);
  CHECK_EQ(cs[0], 4);  // nr_cache: the four pages just written
  CHECK_ERRNO(syscall(451, fd, &range, cs, 1), EINVAL);
  CHECK_ERRNO(syscall(451, fd, (void*)8, cs, 0), EFAULT);
  CHECK_ERRNO(syscall(451, fd, &range, (void*)8, 0), EFAULT);
  CHECK_ERRNO(syscall(451, 9999, &range, cs, 0), EBADF);
  close(fd);
}

int main(void) {
  test_handles();
  test_fchmodat2();
  test_cachestat();
  return check_done();
}
