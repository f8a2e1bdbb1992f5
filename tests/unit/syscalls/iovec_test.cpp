// This file tests guest iovec import: the kernel's length rules (negative is EINVAL, the total is clamped
// to MAX_RW_COUNT), UIO_MAXIOV, and EFAULT for arrays or buffers outside the guest's mappings.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <vector>

#include "emu/address_space.h"
#include "emu/guest_mem.h"
#include "syscalls/host_call.h"
#include "syscalls/sys_file.h"

namespace syscalls {
namespace {

TEST(IovecTest, ClampKeepsSmallLengths) {
  std::vector<guest::iovec> v = {{0x1000, 10}, {0x2000, 0}, {0x3000, 5}};
  EXPECT_EQ(clamp_iovecs(v), 15);
  EXPECT_EQ(v[0].iov_len, 10u);
  EXPECT_EQ(v[2].iov_len, 5u);
}

TEST(IovecTest, NegativeLengthIsEinval) {
  std::vector<guest::iovec> v = {{0x1000, 10}, {0x2000, ~0ull}};
  EXPECT_EQ(clamp_iovecs(v), -EINVAL);
  std::vector<guest::iovec> w = {{0x1000, 1ull << 63}};
  EXPECT_EQ(clamp_iovecs(w), -EINVAL);
}

TEST(IovecTest, TotalIsClampedToMaxRwCount) {
  std::vector<guest::iovec> v = {{0x1000, kMaxRwCount - 10}, {0x2000, 100}, {0x3000, 100}};
  EXPECT_EQ(clamp_iovecs(v), static_cast<int64_t>(kMaxRwCount));
  EXPECT_EQ(v[1].iov_len, 10u);
  EXPECT_EQ(v[2].iov_len, 0u);
  std::vector<guest::iovec> w = {{0x1000, 0x7fffffffffffffffull}};
  EXPECT_EQ(clamp_iovecs(w), static_cast<int64_t>(kMaxRwCount));
}

class HostIovecsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    as_ = emu::AddressSpace::create(1ull << 32, &error);
    ASSERT_NE(as_, nullptr) << error;
    ASSERT_EQ(as_->mmap(kRw, 2 * emu::kPageSize, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, emu::MapSource{}),
              static_cast<int64_t>(kRw));
    ASSERT_EQ(
        as_->mmap(kRo, emu::kPageSize, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, emu::MapSource{}),
        static_cast<int64_t>(kRo));
  }
  void put(const std::vector<guest::iovec>& v) {
    ASSERT_EQ(emu::copy_out(*as_, kRw, v.data(), v.size() * sizeof(guest::iovec)), 0);
  }

  static constexpr uint64_t kRw = 0x10000;
  static constexpr uint64_t kRo = 0x20000;
  std::unique_ptr<emu::AddressSpace> as_;
};

TEST_F(HostIovecsTest, PointsIntoTheGuestWindow) {
  put({{kRw + 0x1000, 16}, {0xdead0000, 0}, {kRo, 8}});
  HostIovecs h;
  ASSERT_EQ(h.import(*as_, kRw, 3, PROT_READ), 0);
  ASSERT_EQ(h.count(), 3);
  EXPECT_EQ(h.data()[0].iov_base, as_->host(kRw + 0x1000));
  EXPECT_EQ(h.data()[0].iov_len, 16u);
  EXPECT_EQ(h.data()[1].iov_len, 0u);  // a zero-length segment is never checked
  EXPECT_EQ(h.data()[2].iov_base, as_->host(kRo));
}

TEST_F(HostIovecsTest, DirectionDecidesWhatFaults) {
  put({{kRo, 8}});
  HostIovecs h;
  EXPECT_EQ(h.import(*as_, kRw, 1, PROT_READ), 0);
  // A first buffer the call cannot use reaches the host as the fault address (it answers EFAULT in its
  // order).
  EXPECT_EQ(h.import(*as_, kRw, 1, PROT_WRITE), 0);
  EXPECT_EQ(h.data()[0].iov_base, syscalls::kHostFaultAddr);
}

TEST_F(HostIovecsTest, UnmappedBuffersAndArraysFault) {
  put({{kRw + 2 * emu::kPageSize - 4, 8}});  // runs off the end: the host stops at the unmapped page
  HostIovecs h;
  EXPECT_EQ(h.import(*as_, kRw, 1, PROT_WRITE), 0);
  EXPECT_EQ(h.data()[0].iov_len, 8u);
  EXPECT_EQ(h.import(*as_, 0x30000, 1, PROT_WRITE), -EFAULT);
  EXPECT_EQ(h.import(*as_, kRw + 2 * emu::kPageSize - 8, 1, PROT_WRITE), -EFAULT);
}

TEST_F(HostIovecsTest, CountLimits) {
  HostIovecs h;
  EXPECT_EQ(h.import(*as_, 0, 0, PROT_READ), 0);  // nothing to read, not even the array
  EXPECT_EQ(h.count(), 0);
  EXPECT_EQ(h.import(*as_, kRw, 1025, PROT_READ), -EINVAL);
  EXPECT_EQ(h.import(*as_, kRw, ~0ull, PROT_READ), -EINVAL);
  std::vector<guest::iovec> many(20, guest::iovec{kRw, 1});
  put(many);
  ASSERT_EQ(h.import(*as_, kRw, 20, PROT_READ), 0);
  EXPECT_EQ(h.count(), 20);
  EXPECT_EQ(h.data()[19].iov_base, as_->host(kRw));
  put({{kRw, ~0ull}});
  EXPECT_EQ(h.import(*as_, kRw, 1, PROT_READ), -EINVAL);
}

}  // namespace
}  // namespace syscalls
