// This file tests the pure helpers of the descriptor and directory syscalls: close_range's split around
// reserved descriptors, getdents64 filtering of /proc fd listings, and the ioctl table.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "syscalls/abi/termios.h"
#include "syscalls/abi/types.h"
#include "syscalls/sys_dir.h"
#include "syscalls/sys_fd.h"
#include "syscalls/sys_ioctl.h"

namespace syscalls {
namespace {

using Ranges = std::vector<std::pair<uint32_t, uint32_t>>;

TEST(CloseRangeTest, SplitsAroundReservedDescriptors) {
  EXPECT_EQ(split_fd_range(3, ~0u, {}), (Ranges{{3, ~0u}}));
  EXPECT_EQ(split_fd_range(3, ~0u, {900, 901, 950}), (Ranges{{3, 899}, {902, 949}, {951, ~0u}}));
  EXPECT_EQ(split_fd_range(900, 900, {900}), Ranges{});
  EXPECT_EQ(split_fd_range(0, 10, {0, 10}), (Ranges{{1, 9}}));
  EXPECT_EQ(split_fd_range(5, 10, {1, 20}), (Ranges{{5, 10}}));
  EXPECT_EQ(split_fd_range(0, ~0u, {0x7fffffff}), (Ranges{{0, 0x7ffffffe}, {0x80000000u, ~0u}}));
}

// Appends one linux_dirent64 record (8-byte aligned) to buf.
void add_dirent(std::vector<uint8_t>* buf, uint64_t ino, const char* name) {
  const size_t reclen = (guest::kDirent64NameOffset + strlen(name) + 1 + 7) & ~size_t{7};
  const size_t at = buf->size();
  buf->resize(at + reclen, 0);
  guest::linux_dirent64 d{ino, static_cast<int64_t>(at + reclen), static_cast<uint16_t>(reclen), 4};
  memcpy(buf->data() + at, &d, guest::kDirent64NameOffset);
  memcpy(buf->data() + at + guest::kDirent64NameOffset, name, strlen(name) + 1);
}

std::vector<std::string> names(const uint8_t* buf, size_t len) {
  std::vector<std::string> out;
  for (size_t pos = 0; pos < len;) {
    uint16_t reclen;
    memcpy(&reclen, buf + pos + 16, 2);
    out.emplace_back(reinterpret_cast<const char*>(buf + pos + guest::kDirent64NameOffset));
    pos += reclen;
  }
  return out;
}

bool hide_9xx(int fd) {
  return fd >= 900 && fd < 1000;
}

TEST(GetdentsTest, FilterDropsHiddenNumbersOnly) {
  std::vector<uint8_t> buf;
  for (const char* n : {".", "..", "0", "900", "a_name_that_is_long", "901", "42", "0900x"})
    add_dirent(&buf, 1, n);
  const size_t len = filter_dirents(buf, &hide_9xx);
  EXPECT_EQ(len % 8, 0u);
  EXPECT_EQ(names(buf.data(), len),
            (std::vector<std::string>{".", "..", "0", "a_name_that_is_long", "42", "0900x"}));
}

TEST(GetdentsTest, FilterCanEmptyABuffer) {
  std::vector<uint8_t> buf;
  add_dirent(&buf, 1, "900");
  EXPECT_EQ(filter_dirents(buf, &hide_9xx), 0u);
}

TEST(GetdentsTest, ProcFdDirectories) {
  EXPECT_TRUE(is_proc_fd_dir("/proc/77/fd", 77));
  EXPECT_TRUE(is_proc_fd_dir("/proc/77/fdinfo", 77));
  EXPECT_TRUE(is_proc_fd_dir("/proc/77/task/78/fd", 77));
  EXPECT_FALSE(is_proc_fd_dir("/proc/7/fd", 77));
  EXPECT_FALSE(is_proc_fd_dir("/proc/777/fd", 77));
  EXPECT_FALSE(is_proc_fd_dir("/proc/77/fd/3", 77));
  EXPECT_FALSE(is_proc_fd_dir("/proc/77/task//fd", 77));
  EXPECT_FALSE(is_proc_fd_dir("/tmp/fd", 77));
}

TEST(IoctlTest, TableCarriesKnownRequestsOnly) {
  const IoctlSpec* tcgets = find_ioctl(guest::kTCGETS);
  ASSERT_NE(tcgets, nullptr);
  EXPECT_EQ(tcgets->arg, IoctlArg::kOut);
  EXPECT_EQ(tcgets->size, sizeof(guest::termios));
  ASSERT_NE(find_ioctl(guest::kTCSETSW), nullptr);
  EXPECT_TRUE(find_ioctl(guest::kTCSETSW)->blocks);
  ASSERT_NE(find_ioctl(guest::kTIOCSCTTY), nullptr);
  EXPECT_EQ(find_ioctl(guest::kTIOCSCTTY)->arg, IoctlArg::kValue);
  EXPECT_EQ(find_ioctl(guest::kTIOCGPTPEER)->arg, IoctlArg::kOpenFlags);
  EXPECT_EQ(find_ioctl(guest::kTIOCGWINSZ)->size, sizeof(guest::winsize));
  EXPECT_EQ(find_ioctl(0x12345678), nullptr);
  EXPECT_EQ(find_ioctl(0), nullptr);
}

}  // namespace
}  // namespace syscalls
