// Tests mount and umount2 with a tmpfs on a scratch directory: the file system type and the options string
// arrive (statfs's f_type, the root's mode and size), files live there until the unmount, and the errors
// (unknown type, bad options pointer, unmounting what is not mounted). Without the privilege it checks EPERM.
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

#define TMPFS_MAGIC 0x01021994

int main(void) {
  REQUIRE_SYS(mkdir("mnt", 0755));
  if (mount("none", "mnt", "tmpfs", 0, "size=1m,mode=0700") != 0) {
    CHECK_EQ(errno, EPERM);
    NOTE("mount: %s (not privileged here): only EPERM checked", strerror(errno));
    return check_done();
  }
  struct statfs sf;
  CHECK_SYS(statfs("mnt", &sf));
  CHECK_EQ(sf.f_type, TMPFS_MAGIC);
  CHECK_EQ((long long)sf.f_blocks * sf.f_bsize, 1 << 20);
  struct stat st;
  CHECK_SYS(stat("mnt", &st));
  CHECK_EQ(st.st_mode & 07777, 0700);
  int fd = REQUIRE_SYS(open("mnt/file", O_CREAT | O_WRONLY, 0644));
  CHECK_SYS(close(fd));
  CHECK_ERRNO(umount2("mnt", 0x80000000), EINVAL);  // no such flag
  CHECK_SYS(umount2("mnt", 0));
  CHECK_ERRNO(access("mnt/file", F_OK), ENOENT);  // it lived on the tmpfs
  CHECK_ERRNO(umount2("mnt", 0), EINVAL);         // not a mount point any more
  CHECK_ERRNO(mount("none", "mnt", "no-such-fs", 0, NULL), ENODEV);
  CHECK_ERRNO(mount("none", "missing", "tmpfs", 0, NULL), ENOENT);
  CHECK_ERRNO(syscall(SYS_mount, "none", "mnt", "tmpfs", 0, 8L), EFAULT);
  // Options that end just before an unmapped page: Linux copies up to the page's end, no EFAULT.
  char* two = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(two != MAP_FAILED);
  CHECK_SYS(munmap(two + 4096, 4096));
  char* opts = two + 4096 - sizeof "mode=0750";
  memcpy(opts, "mode=0750", sizeof "mode=0750");
  CHECK_SYS(mount("none", "mnt", "tmpfs", 0, opts));
  CHECK_SYS(stat("mnt", &st));
  CHECK_EQ(st.st_mode & 07777, 0750);
  CHECK_SYS(umount2("mnt", MNT_DETACH));
  return check_done();
}
