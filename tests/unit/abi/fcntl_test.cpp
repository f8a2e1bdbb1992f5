// Tests the guest<->host open flag translation bit by bit and against the host kernel, and guest::flock.
#include "syscalls/abi/fcntl.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "syscalls/abi/errno.h"

namespace {

TEST(OpenFlagsTest, EverySingleBitRoundTrips) {
  for (int bit = 0; bit < 32; ++bit) {
    const uint32_t flag = 1u << bit;
    EXPECT_EQ(guest::guest_open_flags(guest::host_open_flags(flag)), flag) << "guest bit " << bit;
    EXPECT_EQ(guest::host_open_flags(guest::guest_open_flags(static_cast<int>(flag))), static_cast<int>(flag))
        << "host bit " << bit;
  }
}

TEST(OpenFlagsTest, EveryNamedFlagMapsToTheHostMacro) {
  struct Case {
    uint32_t guest;
    int host;
    const char* name;
  };
  const Case cases[] = {
      {guest::kO_WRONLY, O_WRONLY, "O_WRONLY"},
      {guest::kO_RDWR, O_RDWR, "O_RDWR"},
      {guest::kO_CREAT, O_CREAT, "O_CREAT"},
      {guest::kO_EXCL, O_EXCL, "O_EXCL"},
      {guest::kO_NOCTTY, O_NOCTTY, "O_NOCTTY"},
      {guest::kO_TRUNC, O_TRUNC, "O_TRUNC"},
      {guest::kO_APPEND, O_APPEND, "O_APPEND"},
      {guest::kO_NONBLOCK, O_NONBLOCK, "O_NONBLOCK"},
      {guest::kO_DSYNC, O_DSYNC, "O_DSYNC"},
      {guest::kFASYNC, FASYNC, "FASYNC"},
      {guest::kO_DIRECT, O_DIRECT, "O_DIRECT"},
      {guest::kO_DIRECTORY, O_DIRECTORY, "O_DIRECTORY"},
      {guest::kO_NOFOLLOW, O_NOFOLLOW, "O_NOFOLLOW"},
      {guest::kO_NOATIME, O_NOATIME, "O_NOATIME"},
      {guest::kO_CLOEXEC, O_CLOEXEC, "O_CLOEXEC"},
      {guest::kO_SYNC, O_SYNC, "O_SYNC"},
      {guest::kO_PATH, O_PATH, "O_PATH"},
      {guest::kO_TMPFILE, O_TMPFILE, "O_TMPFILE"},
      {guest::kO_LARGEFILE, 0100000, "O_LARGEFILE (kernel value)"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(guest::host_open_flags(c.guest), c.host) << c.name;
    EXPECT_EQ(guest::guest_open_flags(c.host), c.guest) << c.name;
  }
}

TEST(OpenFlagsTest, Arm64OnlyValuesDifferFromTheHost) {
  EXPECT_NE(guest::kO_DIRECTORY, static_cast<uint32_t>(O_DIRECTORY));
  EXPECT_NE(guest::kO_NOFOLLOW, static_cast<uint32_t>(O_NOFOLLOW));
  EXPECT_NE(guest::kO_DIRECT, static_cast<uint32_t>(O_DIRECT));
  // arm64's O_DIRECTORY is x86-64's O_DIRECT: passing it through untranslated would be a silent bug.
  EXPECT_EQ(guest::kO_DIRECTORY, static_cast<uint32_t>(O_DIRECT));
  EXPECT_EQ(guest::host_open_flags(guest::kO_DIRECTORY) & O_DIRECT, 0);
}

TEST(OpenFlagsTest, CombinationsTranslateEachBit) {
  const uint32_t g = guest::kO_RDWR | guest::kO_CREAT | guest::kO_NOFOLLOW | guest::kO_CLOEXEC |
                     guest::kO_LARGEFILE | guest::kO_DIRECT;
  EXPECT_EQ(guest::host_open_flags(g), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | 0100000 | O_DIRECT);
  EXPECT_EQ(guest::guest_open_flags(guest::host_open_flags(g)), g);
  EXPECT_EQ(guest::guest_open_flags(guest::host_open_flags(0xffffffffu)), 0xffffffffu);
}

class OpenFlagsHostTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/a64run_fcntl_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    file_ = dir_ + "/file";
    link_ = dir_ + "/link";
    const int fd = ::open(file_.c_str(), O_CREAT | O_WRONLY, 0600);
    ASSERT_GE(fd, 0);
    ::close(fd);
    ASSERT_EQ(::symlink(file_.c_str(), link_.c_str()), 0);
  }
  void TearDown() override {
    ::unlink(link_.c_str());
    ::unlink(file_.c_str());
    ::rmdir(dir_.c_str());
  }
  // Opens with guest flags, the way sys_openat will.
  static int64_t guest_open(const std::string& path, uint32_t guest_flags) {
    const int64_t r = guest::from_host(::open(path.c_str(), guest::host_open_flags(guest_flags), 0600));
    if (r >= 0) ::close(static_cast<int>(r));
    return r;
  }

  std::string dir_, file_, link_;
};

TEST_F(OpenFlagsHostTest, DirectoryFlagBehavesAsOnArm64) {
  EXPECT_GE(guest_open(dir_, guest::kO_RDONLY | guest::kO_DIRECTORY), 0);
  EXPECT_EQ(guest_open(file_, guest::kO_RDONLY | guest::kO_DIRECTORY), -ENOTDIR);
}

TEST_F(OpenFlagsHostTest, NofollowFlagBehavesAsOnArm64) {
  EXPECT_EQ(guest_open(link_, guest::kO_RDONLY | guest::kO_NOFOLLOW), -ELOOP);
  EXPECT_GE(guest_open(link_, guest::kO_RDONLY), 0);
}

TEST_F(OpenFlagsHostTest, TmpfileCreatesAnUnnamedFile) {
  const int64_t r = guest_open(dir_, guest::kO_TMPFILE | guest::kO_RDWR);
  if (r == -EOPNOTSUPP) GTEST_SKIP() << "the file system under /tmp has no O_TMPFILE";
  EXPECT_GE(r, 0);
  // __O_TMPFILE without its O_DIRECTORY partner is EINVAL on arm64; the host must see the same pairing.
  EXPECT_EQ(guest_open(dir_, guest::k__O_TMPFILE | guest::kO_RDWR), -EINVAL);
}

TEST_F(OpenFlagsHostTest, GetflReportsGuestBitsIncludingLargefile) {
  const uint32_t flags = guest::kO_RDWR | guest::kO_APPEND | guest::kO_NONBLOCK;
  const int fd = ::open(file_.c_str(), guest::host_open_flags(flags));
  ASSERT_GE(fd, 0);
  const uint32_t got = guest::guest_open_flags(::fcntl(fd, F_GETFL));
  // A 64-bit kernel forces O_LARGEFILE, and arm64 reports it at its own bit.
  EXPECT_EQ(got, flags | guest::kO_LARGEFILE);
  ASSERT_EQ(::fcntl(fd, F_SETFL, guest::host_open_flags(guest::kO_RDWR)), 0);
  EXPECT_EQ(guest::guest_open_flags(::fcntl(fd, F_GETFL)), guest::kO_RDWR | guest::kO_LARGEFILE);
  ::close(fd);
}

TEST_F(OpenFlagsHostTest, FlockConvertsAndReportsConflicts) {
  const int fd = ::open(file_.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  guest::flock g{};
  g.l_type = guest::kF_WRLCK;
  g.l_whence = SEEK_SET;
  g.l_start = 4;
  g.l_len = 8;
  ::flock h = guest::to_host(g);
  ASSERT_EQ(::fcntl(fd, F_OFD_SETLK, &h), 0);
  // An OFD lock on another open file description conflicts and F_OFD_GETLK reports it back.
  const int fd2 = ::open(file_.c_str(), O_RDWR);
  ASSERT_GE(fd2, 0);
  guest::flock q{};
  q.l_type = guest::kF_RDLCK;
  q.l_whence = SEEK_SET;
  q.l_start = 0;
  q.l_len = 0;
  ::flock hq = guest::to_host(q);
  ASSERT_EQ(::fcntl(fd2, F_OFD_GETLK, &hq), 0);
  const guest::flock back = guest::to_guest(hq);
  EXPECT_EQ(back.l_type, guest::kF_WRLCK);
  EXPECT_EQ(back.l_start, 4);
  EXPECT_EQ(back.l_len, 8);
  EXPECT_EQ(back.l_pid, -1);  // OFD locks have no owning pid
  ::close(fd2);
  ::close(fd);
}

TEST(FcntlCommandsTest, Lk64CommandsAreInvalidOnA64BitKernel) {
  const int fd = ::open("/dev/null", O_RDONLY);
  ASSERT_GE(fd, 0);
  for (int cmd = 12; cmd <= 14; ++cmd) {
    EXPECT_EQ(guest::from_host(::syscall(SYS_fcntl, fd, cmd, 0)), -EINVAL) << cmd;
  }
  ::close(fd);
}

}  // namespace
