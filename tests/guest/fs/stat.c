// Tests the stat family (stat, lstat, fstat, newfstatat, statx, statfs/fstatfs) against the host's stat(1)
// values that stat_wrapper.sh passes as arguments: the arm64 struct stat differs from x86-64's.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "check.h"

// What the host said about "statme" (see stat_wrapper.sh for the order).
static struct {
  long long size, ino, nlink, uid, gid, mode, dev, blocks, blksize;
  struct timespec atime, mtime, ctime;
  long long fs_type, fs_bsize, fs_namelen;
} host;

static struct timespec parse_time(const char* s) {
  struct timespec ts = {0, 0};
  char* end;
  ts.tv_sec = strtoll(s, &end, 10);
  if (*end == '.') ts.tv_nsec = strtol(end + 1, NULL, 10);
  return ts;
}

static void parse_args(int argc, char** argv) {
  if (argc != 17) {
    fprintf(stderr,
            "usage: stat SIZE INO NLINK UID GID MODE_HEX DEV BLOCKS 512 BLKSIZE ATIME MTIME CTIME "
            "FS_TYPE_HEX FS_BSIZE FS_NAMELEN (run it through stat_wrapper.sh)\n");
    exit(2);
  }
  host.size = atoll(argv[1]);
  host.ino = strtoull(argv[2], NULL, 10);
  host.nlink = atoll(argv[3]);
  host.uid = atoll(argv[4]);
  host.gid = atoll(argv[5]);
  host.mode = strtoll(argv[6], NULL, 16);
  host.dev = strtoull(argv[7], NULL, 10);
  host.blocks = atoll(argv[8]);
  REQUIRE(atoll(argv[9]) == 512);
  host.blksize = atoll(argv[10]);
  host.atime = parse_time(argv[11]);
  host.mtime = parse_time(argv[12]);
  host.ctime = parse_time(argv[13]);
  host.fs_type = strtoll(argv[14], NULL, 16);
  host.fs_bsize = atoll(argv[15]);
  host.fs_namelen = atoll(argv[16]);
}

#define CHECK_FIELD(how, actual, expected) \
  if (!CHECK_EQ(actual, expected)) fprintf(stderr, "  (from %s)\n", how)

static void check_stat(const char* how, const struct stat* st) {
  CHECK_FIELD(how, st->st_size, host.size);
  CHECK_FIELD(how, st->st_ino, host.ino);
  CHECK_FIELD(how, st->st_nlink, host.nlink);
  CHECK_FIELD(how, st->st_uid, host.uid);
  CHECK_FIELD(how, st->st_gid, host.gid);
  CHECK_FIELD(how, st->st_mode, host.mode);
  CHECK_FIELD(how, st->st_mode, S_IFREG | 0640);
  CHECK_FIELD(how, st->st_dev, host.dev);
  CHECK_FIELD(how, st->st_rdev, 0);
  CHECK_FIELD(how, st->st_blocks, host.blocks);
  CHECK_FIELD(how, st->st_blksize, host.blksize);
  CHECK_FIELD(how, st->st_atim.tv_sec, host.atime.tv_sec);
  CHECK_FIELD(how, st->st_atim.tv_nsec, host.atime.tv_nsec);
  CHECK_FIELD(how, st->st_mtim.tv_sec, 1600000000);
  CHECK_FIELD(how, st->st_mtim.tv_nsec, 123456789);
  CHECK_FIELD(how, st->st_ctim.tv_sec, host.ctime.tv_sec);
  CHECK_FIELD(how, st->st_ctim.tv_nsec, host.ctime.tv_nsec);
}

static void test_stat_calls(void) {
  struct stat st;
  memset(&st, 0xa5, sizeof(st));
  if (CHECK_SYS(stat("statme", &st)) == 0) check_stat("stat", &st);
  memset(&st, 0xa5, sizeof(st));
  if (CHECK_SYS(lstat("statme", &st)) == 0) check_stat("lstat", &st);
  memset(&st, 0xa5, sizeof(st));
  if (CHECK_SYS(stat("statme.symlink", &st)) == 0) check_stat("stat through a symlink", &st);

  int fd = REQUIRE_SYS(open("statme", O_RDONLY));
  memset(&st, 0xa5, sizeof(st));
  if (CHECK_SYS(fstat(fd, &st)) == 0) check_stat("fstat", &st);
  // glibc may implement fstat with newfstatat; call both syscalls directly (arm64 has no plain stat).
  memset(&st, 0xa5, sizeof(st));
  if (CHECK_SYS(syscall(SYS_fstat, fd, &st)) == 0) check_stat("SYS_fstat", &st);
  memset(&st, 0xa5, sizeof(st));
  if (CHECK_SYS(syscall(SYS_newfstatat, AT_FDCWD, "statme", &st, 0)) == 0) check_stat("SYS_newfstatat", &st);
  memset(&st, 0xa5, sizeof(st));
  if (CHECK_SYS(syscall(SYS_newfstatat, fd, "", &st, AT_EMPTY_PATH)) == 0) {
    check_stat("SYS_newfstatat AT_EMPTY_PATH", &st);
  }
  CHECK_ERRNO(syscall(SYS_newfstatat, fd, "", &st, 0), ENOENT);
  CHECK_ERRNO(syscall(SYS_newfstatat, AT_FDCWD, "statme", &st, 0x40000000), EINVAL);
  int dir = REQUIRE_SYS(open(".", O_RDONLY | O_DIRECTORY));
  memset(&st, 0xa5, sizeof(st));
  if (CHECK_SYS(fstatat(dir, "statme", &st, 0)) == 0) check_stat("fstatat(dirfd)", &st);
  CHECK_ERRNO(fstatat(fd, "statme", &st, 0), ENOTDIR);
  CHECK_SYS(close(dir));

  // The hard link is the same inode; the symlink itself is a link whose size is the target's length.
  CHECK_SYS(stat("statme.hardlink", &st));
  CHECK_EQ(st.st_ino, host.ino);
  CHECK_SYS(lstat("statme.symlink", &st));
  CHECK(S_ISLNK(st.st_mode));
  CHECK_EQ(st.st_size, strlen("statme"));
  CHECK_NE(st.st_ino, host.ino);
  CHECK_SYS(fstatat(AT_FDCWD, "statme.symlink", &st, AT_SYMLINK_NOFOLLOW));
  CHECK(S_ISLNK(st.st_mode));

  CHECK_ERRNO(stat("missing", &st), ENOENT);
  CHECK_ERRNO(stat("statme/child", &st), ENOTDIR);
  CHECK_ERRNO(fstat(-1, &st), EBADF);
  CHECK_SYS(stat(".", &st));
  CHECK(S_ISDIR(st.st_mode));
  CHECK_EQ(st.st_dev, host.dev);
  CHECK_SYS(stat("/dev/null", &st));
  CHECK(S_ISCHR(st.st_mode));
  CHECK_EQ(major(st.st_rdev), 1);
  CHECK_EQ(minor(st.st_rdev), 3);
  CHECK_SYS(close(fd));
}

static void test_statx(void) {
  struct statx sx;
  memset(&sx, 0xa5, sizeof(sx));
  REQUIRE_SYS(statx(AT_FDCWD, "statme", AT_STATX_SYNC_AS_STAT, STATX_BASIC_STATS, &sx));
  CHECK_EQ(sx.stx_mask & STATX_BASIC_STATS, STATX_BASIC_STATS);
  CHECK_EQ(sx.stx_size, host.size);
  CHECK_EQ(sx.stx_ino, host.ino);
  CHECK_EQ(sx.stx_nlink, host.nlink);
  CHECK_EQ(sx.stx_uid, host.uid);
  CHECK_EQ(sx.stx_gid, host.gid);
  CHECK_EQ(sx.stx_mode, host.mode);
  CHECK_EQ(sx.stx_blocks, host.blocks);
  CHECK_EQ(sx.stx_blksize, host.blksize);
  CHECK_EQ(makedev(sx.stx_dev_major, sx.stx_dev_minor), host.dev);
  CHECK_EQ(sx.stx_mtime.tv_sec, 1600000000);
  CHECK_EQ(sx.stx_mtime.tv_nsec, 123456789);
  CHECK_EQ(sx.stx_atime.tv_sec, host.atime.tv_sec);
  CHECK_EQ(sx.stx_ctime.tv_sec, host.ctime.tv_sec);
  CHECK_EQ(sx.stx_ctime.tv_nsec, host.ctime.tv_nsec);

  int fd = REQUIRE_SYS(open("statme", O_RDONLY));
  memset(&sx, 0, sizeof(sx));
  CHECK_SYS(statx(fd, "", AT_EMPTY_PATH, STATX_INO | STATX_SIZE, &sx));
  CHECK_EQ(sx.stx_ino, host.ino);
  CHECK_EQ(sx.stx_size, host.size);
  CHECK_SYS(close(fd));
  CHECK_SYS(statx(AT_FDCWD, "statme.symlink", AT_SYMLINK_NOFOLLOW, STATX_TYPE, &sx));
  CHECK(S_ISLNK(sx.stx_mode));
  CHECK_ERRNO(statx(AT_FDCWD, "missing", 0, STATX_BASIC_STATS, &sx), ENOENT);
  CHECK_ERRNO(statx(AT_FDCWD, "statme", 0, STATX__RESERVED, &sx), EINVAL);
}

static void test_statfs(void) {
  struct statfs sf, fsf;
  memset(&sf, 0xa5, sizeof(sf));
  REQUIRE_SYS(statfs(".", &sf));
  CHECK_NE(sf.f_type, 0);
  CHECK_EQ(sf.f_type, host.fs_type);
  CHECK_EQ(sf.f_bsize, host.fs_bsize);
  CHECK_EQ(sf.f_namelen, host.fs_namelen);
  CHECK_GT(sf.f_blocks, 0);
  CHECK_LE(sf.f_bfree, sf.f_blocks);
  CHECK_LE(sf.f_bavail, sf.f_bfree);
  int fd = REQUIRE_SYS(open("statme", O_RDONLY));
  memset(&fsf, 0x5a, sizeof(fsf));
  CHECK_SYS(fstatfs(fd, &fsf));
  CHECK_EQ(fsf.f_type, sf.f_type);
  CHECK_EQ(fsf.f_bsize, sf.f_bsize);
  CHECK_EQ(fsf.f_blocks, sf.f_blocks);
  CHECK_EQ(fsf.f_files, sf.f_files);
  CHECK_EQ(fsf.f_namelen, sf.f_namelen);
  CHECK_EQ(fsf.f_frsize, sf.f_frsize);
  CHECK_MEMEQ(&fsf.f_fsid, &sf.f_fsid, sizeof(sf.f_fsid));
  CHECK_SYS(close(fd));
  CHECK_ERRNO(statfs("missing", &sf), ENOENT);
  CHECK_SYS(statfs("/proc", &sf));
  CHECK_EQ(sf.f_type, 0x9fa0);  // PROC_SUPER_MAGIC
}

int main(int argc, char** argv) {
  parse_args(argc, argv);
  test_stat_calls();
  test_statx();
  test_statfs();
  return check_done();
}
