// The new mount API on a tmpfs in a scratch directory: fsopen, fsconfig (a string option, create), fsmount,
// move_mount, mount_setattr (read-only), open_tree (a detached clone), fspick (reconfigure), and the mount
// queries statmount and listmount; the answers to bad arguments. Without the privilege it checks EPERM.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

#define TMPFS_MAGIC 0x01021994
#ifndef FSCONFIG_SET_STRING
#define FSCONFIG_SET_STRING 1
#endif
#ifndef FSCONFIG_CMD_CREATE
#define FSCONFIG_CMD_CREATE 6
#endif
#ifndef FSCONFIG_CMD_RECONFIGURE
#define FSCONFIG_CMD_RECONFIGURE 7
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x4
#endif
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef MOUNT_ATTR_RDONLY
#define MOUNT_ATTR_RDONLY 0x1
#endif
#define STATMOUNT_SB_BASIC 0x1
#define STATMOUNT_FS_TYPE 0x20
#define LSMT_ROOT 0xffffffffffffffffull

struct mount_attr_v0 {
  uint64_t attr_set, attr_clr, propagation, userns_fd;
};
struct mnt_id_req_v0 {
  uint32_t size, spare;
  uint64_t mnt_id, param;
};

static uint64_t mount_id_of(const char* path) {
  struct statx sx;
  if (statx(AT_FDCWD, path, 0, 0x4000 /* STATX_MNT_ID_UNIQUE, what statmount takes */, &sx) != 0) return 0;
  return sx.stx_mnt_id;
}

int main(void) {
  REQUIRE_SYS(mkdir("mnt", 0755));
  int fs = syscall(430, "tmpfs", 0);  // fsopen
  if (fs < 0 && errno == ENOSYS) {
    CHECK(on_reference_qemu());  // qemu-aarch64 7.2 has no new mount API
    return check_done();
  }
  if (fs < 0 && errno == EPERM) {
    NOTE("fsopen: not privileged here: only EPERM checked");
    return check_done();
  }
  REQUIRE(fs >= 0);
  CHECK_SYS(syscall(431, fs, FSCONFIG_SET_STRING, "size", "1m", 0));
  CHECK_ERRNO(syscall(431, fs, FSCONFIG_SET_STRING, "no-such-option", "x", 0), EINVAL);
  CHECK_ERRNO(syscall(431, fs, FSCONFIG_SET_STRING, (char*)8, "x", 0), EFAULT);
  CHECK_SYS(syscall(431, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0));
  int mfd = CHECK_SYS(syscall(432, fs, 0, 0));  // fsmount
  CHECK_SYS(syscall(429, mfd, "", AT_FDCWD, "mnt", MOVE_MOUNT_F_EMPTY_PATH));
  struct statfs sf;
  CHECK_SYS(statfs("mnt", &sf));
  CHECK_EQ(sf.f_type, TMPFS_MAGIC);
  CHECK_EQ((long long)sf.f_blocks * sf.f_bsize, 1 << 20);
  int fd = CHECK_SYS(open("mnt/file", O_CREAT | O_WRONLY, 0644));
  close(fd);

  // statmount and listmount know the new mount.
  const uint64_t id = mount_id_of("mnt");
  CHECK_NE(id, 0);
  struct mnt_id_req_v0 req = {
      .size = sizeof req, .mnt_id = id, .param = STATMOUNT_SB_BASIC | STATMOUNT_FS_TYPE};
  union {
    struct {
      uint32_t size, spare1;
      uint64_t mask;
      uint32_t sb_dev_major, sb_dev_minor;
      uint64_t sb_magic;
      uint32_t sb_flags, fs_type;
    } sm;
    char raw[4096];
  } buf;
  memset(&buf, 0, sizeof buf);
  CHECK_SYS(syscall(457, &req, &buf, sizeof buf, 0));  // statmount
  CHECK_EQ(buf.sm.sb_magic, TMPFS_MAGIC);
  CHECK_STREQ(buf.raw + 8 * 64 + buf.sm.fs_type, "tmpfs");  // strings follow the 512-byte header
  req.mnt_id = LSMT_ROOT;
  req.param = 0;
  uint64_t ids[4096];
  long n = syscall(458, &req, ids, 4096, 0);  // listmount
  CHECK_GT(n, 0);
  int listed = 0;
  for (long i = 0; i < n; i++) listed |= ids[i] == id;
  CHECK(listed);
  req.size = 2;
  CHECK_ERRNO(syscall(457, &req, &buf, sizeof buf, 0), EINVAL);

  // mount_setattr: read-only.
  struct mount_attr_v0 attr = {.attr_set = MOUNT_ATTR_RDONLY};
  CHECK_SYS(syscall(442, AT_FDCWD, "mnt", 0, &attr, sizeof attr));
  CHECK_ERRNO(open("mnt/other", O_CREAT | O_WRONLY, 0644), EROFS);
  attr = (struct mount_attr_v0){.attr_clr = MOUNT_ATTR_RDONLY};
  CHECK_SYS(syscall(442, AT_FDCWD, "mnt", 0, &attr, sizeof attr));
  CHECK_ERRNO(syscall(442, AT_FDCWD, "mnt", 0, &attr, 8), EINVAL);  // smaller than the first version

  // open_tree: a detached copy that sees the same files.
  int tree = CHECK_SYS(syscall(428, AT_FDCWD, "mnt", OPEN_TREE_CLONE));
  CHECK_SYS(faccessat(tree, "file", F_OK, 0));
  close(tree);
  // fspick: the superblock again, for a reconfigure.
  int pick = CHECK_SYS(syscall(433, AT_FDCWD, "mnt", 0));
  CHECK_SYS(syscall(431, pick, FSCONFIG_SET_STRING, "size", "2m", 0));
  CHECK_SYS(syscall(431, pick, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0));
  CHECK_SYS(statfs("mnt", &sf));
  CHECK_EQ((long long)sf.f_blocks * sf.f_bsize, 2 << 20);
  close(pick);

  close(mfd);  // an open mount descriptor would keep the mount busy
  close(fs);
  CHECK_SYS(umount2("mnt", 0));
  CHECK_ERRNO(access("mnt/file", F_OK), ENOENT);
  umount2("mnt", MNT_DETACH);  // nothing left mounted even after a failed check
  CHECK_ERRNO(syscall(430, "no-such-fs", 0), ENODEV);
  CHECK_ERRNO(syscall(430, (char*)8, 0), EFAULT);
  CHECK_ERRNO(syscall(428, AT_FDCWD, "missing", 0), ENOENT);
  return check_done();
}
