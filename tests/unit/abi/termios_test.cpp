// Tests guest::termios and guest::winsize against the host kernel's TCGETS/TIOC*WINSZ on a pseudo-terminal.
#include "syscalls/abi/termios.h"

// The kernel's own struct termios (this file must not include glibc's <termios.h>).
#include <asm/termbits.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>

namespace {

// The host kernel's TCGETS struct has the guest's layout, which is what lets sys_ioctl pass it through.
static_assert(sizeof(::termios) == sizeof(guest::termios));
static_assert(offsetof(::termios, c_lflag) == offsetof(guest::termios, c_lflag));
static_assert(offsetof(::termios, c_line) == offsetof(guest::termios, c_line));
static_assert(offsetof(::termios, c_cc) == offsetof(guest::termios, c_cc) && NCCS == guest::kNCCS);
static_assert(sizeof(::termios2) == sizeof(guest::termios2));
static_assert(TCGETS2 == guest::kTCGETS2 && TCSETS2 == guest::kTCSETS2);

class TermiosAbiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    master_ = ::posix_openpt(O_RDWR | O_NOCTTY);
    if (master_ < 0) GTEST_SKIP() << "no pseudo-terminals here";
    ASSERT_EQ(::grantpt(master_), 0);
    ASSERT_EQ(::unlockpt(master_), 0);
  }
  void TearDown() override {
    if (master_ >= 0) ::close(master_);
  }
  int master_ = -1;
};

TEST_F(TermiosAbiTest, TcgetsFillsTheGuestStruct) {
  guest::termios g{};
  ASSERT_EQ(::ioctl(master_, guest::kTCGETS, &g), 0);
  ::termios k{};
  ASSERT_EQ(::ioctl(master_, TCGETS, &k), 0);
  EXPECT_EQ(g.c_iflag, k.c_iflag);
  EXPECT_EQ(g.c_oflag, k.c_oflag);
  EXPECT_EQ(g.c_cflag, k.c_cflag);
  EXPECT_EQ(g.c_lflag, k.c_lflag);
  EXPECT_EQ(g.c_cc[VINTR], 3);  // ^C, the kernel default
  EXPECT_EQ(g.c_cc[VMIN], k.c_cc[VMIN]);
  guest::termios2 g2{};
  ASSERT_EQ(::ioctl(master_, guest::kTCGETS2, &g2), 0);
  EXPECT_EQ(g2.c_cflag, g.c_cflag);
  EXPECT_GT(g2.c_ospeed, 0u);
}

TEST_F(TermiosAbiTest, TcsetsAppliesGuestFlags) {
  guest::termios g{};
  ASSERT_EQ(::ioctl(master_, guest::kTCGETS, &g), 0);
  g.c_lflag &= ~static_cast<uint32_t>(ECHO | ICANON);
  g.c_cc[VMIN] = 0;
  ASSERT_EQ(::ioctl(master_, guest::kTCSETS, &g), 0);
  guest::termios again{};
  ASSERT_EQ(::ioctl(master_, guest::kTCGETS, &again), 0);
  EXPECT_EQ(again.c_lflag & (ECHO | ICANON), 0u);
  EXPECT_EQ(again.c_cc[VMIN], 0);
}

TEST_F(TermiosAbiTest, WinsizeRoundTrips) {
  const guest::winsize want{40, 132, 1, 2};
  const ::winsize h = guest::to_host(want);
  ASSERT_EQ(::ioctl(master_, guest::kTIOCSWINSZ, &h), 0);
  ::winsize got{};
  ASSERT_EQ(::ioctl(master_, guest::kTIOCGWINSZ, &got), 0);
  const guest::winsize g = guest::to_guest(got);
  EXPECT_EQ(g.ws_row, 40);
  EXPECT_EQ(g.ws_col, 132);
  EXPECT_EQ(g.ws_xpixel, 1);
  EXPECT_EQ(g.ws_ypixel, 2);
}

TEST(IoctlEncodingTest, DecodesDirectionAndSize) {
  EXPECT_EQ(guest::ioc_dir(guest::kTCGETS2), guest::kIOC_READ);
  EXPECT_EQ(guest::ioc_size(guest::kTCGETS2), sizeof(guest::termios2));
  EXPECT_EQ(guest::ioc_type(guest::kTCGETS2), static_cast<uint32_t>('T'));
  EXPECT_EQ(guest::ioc_nr(guest::kTCGETS2), 0x2Au);
  EXPECT_EQ(guest::ioc_dir(guest::kTIOCGPTPEER), guest::kIOC_NONE);
}

}  // namespace
