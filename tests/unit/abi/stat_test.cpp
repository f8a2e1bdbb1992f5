// Tests guest::stat, guest::statfs and guest::statx conversions against real host results.
#include "syscalls/abi/stat.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace {

class StatAbiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/a64run_stat_XXXXXX";
    fd_ = ::mkstemp(tmpl);
    ASSERT_GE(fd_, 0);
    path_ = tmpl;
    ASSERT_EQ(::write(fd_, "0123456789abcdef", 16), 16);
    ASSERT_EQ(::fchmod(fd_, 0640), 0);
    const ::timespec times[2] = {{1000, 123456789}, {2000, 987654321}};
    ASSERT_EQ(::futimens(fd_, times), 0);
  }
  void TearDown() override {
    if (fd_ >= 0) ::close(fd_);
    ::unlink(path_.c_str());
  }

  int fd_ = -1;
  std::string path_;
};

TEST_F(StatAbiTest, ConvertsRealFileStat) {
  struct ::stat h {};
  ASSERT_EQ(::fstat(fd_, &h), 0);
  const guest::stat g = guest::to_guest(h);
  EXPECT_EQ(g.st_dev, h.st_dev);
  EXPECT_EQ(g.st_ino, h.st_ino);
  EXPECT_EQ(g.st_mode, S_IFREG | 0640u);
  EXPECT_EQ(g.st_nlink, 1u);
  EXPECT_EQ(g.st_uid, ::getuid());
  EXPECT_EQ(g.st_gid, h.st_gid);
  EXPECT_EQ(g.st_rdev, 0u);
  EXPECT_EQ(g.st_size, 16);
  EXPECT_EQ(g.st_blksize, h.st_blksize);
  EXPECT_EQ(g.st_blocks, h.st_blocks);
  EXPECT_EQ(g.st_atime_sec, 1000);
  EXPECT_EQ(g.st_atime_nsec, 123456789u);
  EXPECT_EQ(g.st_mtime_sec, 2000);
  EXPECT_EQ(g.st_mtime_nsec, 987654321u);
  EXPECT_EQ(g.st_ctime_sec, h.st_ctim.tv_sec);
  EXPECT_EQ(g.st_ctime_nsec, static_cast<uint64_t>(h.st_ctim.tv_nsec));
  EXPECT_EQ(g.pad1, 0u);
  EXPECT_EQ(g.pad2, 0);
  EXPECT_EQ(g.unused4, 0u);
  EXPECT_EQ(g.unused5, 0u);
}

// The bytes a guest reads sit where arm64 glibc expects them (asm-generic/stat.h offsets).
TEST_F(StatAbiTest, GuestBytesFollowArm64Layout) {
  struct ::stat h {};
  ASSERT_EQ(::fstat(fd_, &h), 0);
  const guest::stat g = guest::to_guest(h);
  unsigned char bytes[sizeof(g)];
  std::memcpy(bytes, &g, sizeof(g));
  int64_t size = 0;
  uint32_t mode = 0;
  int64_t mtime = 0;
  std::memcpy(&size, bytes + 48, 8);
  std::memcpy(&mode, bytes + 16, 4);
  std::memcpy(&mtime, bytes + 88, 8);
  EXPECT_EQ(size, 16);
  EXPECT_EQ(mode, S_IFREG | 0640u);
  EXPECT_EQ(mtime, 2000);
}

TEST_F(StatAbiTest, ConvertsDirectoryAndCharDevice) {
  struct ::stat h {};
  ASSERT_EQ(::stat("/dev/null", &h), 0);
  guest::stat g = guest::to_guest(h);
  EXPECT_EQ(g.st_mode & guest::kS_IFMT, guest::kS_IFCHR);
  EXPECT_EQ(g.st_rdev, h.st_rdev);
  EXPECT_NE(g.st_rdev, 0u);
  ASSERT_EQ(::stat("/tmp", &h), 0);
  g = guest::to_guest(h);
  EXPECT_EQ(g.st_mode & guest::kS_IFMT, guest::kS_IFDIR);
  EXPECT_EQ(g.st_nlink, h.st_nlink);
}

TEST_F(StatAbiTest, ConvertsStatfs) {
  struct ::statfs h {};
  ASSERT_EQ(::fstatfs(fd_, &h), 0);
  const guest::statfs g = guest::to_guest(h);
  EXPECT_EQ(g.f_type, h.f_type);
  EXPECT_EQ(g.f_bsize, h.f_bsize);
  EXPECT_EQ(g.f_blocks, h.f_blocks);
  EXPECT_EQ(g.f_bfree, h.f_bfree);
  EXPECT_EQ(g.f_bavail, h.f_bavail);
  EXPECT_EQ(g.f_files, h.f_files);
  EXPECT_EQ(g.f_ffree, h.f_ffree);
  EXPECT_EQ(g.f_fsid[0], h.f_fsid.__val[0]);
  EXPECT_EQ(g.f_fsid[1], h.f_fsid.__val[1]);
  EXPECT_EQ(g.f_namelen, h.f_namelen);
  EXPECT_EQ(g.f_frsize, h.f_frsize);
  EXPECT_EQ(g.f_flags, h.f_flags);
  EXPECT_EQ(g.f_spare[0], 0);
}

TEST_F(StatAbiTest, ConvertsStatxAndAgreesWithStat) {
  struct ::statx h {};
  ASSERT_EQ(::statx(fd_, "", AT_EMPTY_PATH, STATX_BASIC_STATS | STATX_BTIME, &h), 0);
  const guest::statx g = guest::to_guest(h);
  struct ::stat s {};
  ASSERT_EQ(::fstat(fd_, &s), 0);
  EXPECT_EQ(g.stx_mask, h.stx_mask);
  EXPECT_EQ(g.stx_mask & guest::kSTATX_BASIC_STATS, guest::kSTATX_BASIC_STATS);
  EXPECT_EQ(g.stx_ino, s.st_ino);
  EXPECT_EQ(g.stx_size, 16u);
  EXPECT_EQ(g.stx_mode, S_IFREG | 0640u);
  EXPECT_EQ(g.stx_nlink, 1u);
  EXPECT_EQ(g.stx_blocks, static_cast<uint64_t>(s.st_blocks));
  EXPECT_EQ(g.stx_mtime.tv_sec, 2000);
  EXPECT_EQ(g.stx_mtime.tv_nsec, 987654321u);
  EXPECT_EQ(g.stx_atime.tv_nsec, 123456789u);
  EXPECT_EQ(g.stx_dev_major, major(s.st_dev));
  EXPECT_EQ(g.stx_dev_minor, minor(s.st_dev));
  EXPECT_EQ(g.spare3[11], 0u);
}

}  // namespace
