// This file tests copy_in_for_host: what it hands the host for a NULL, an unreadable and a readable guest
// struct, and that the host kernel really answers kHostFaultAddr with EFAULT only after its other checks.
#include "syscalls/host_call.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "syscalls/abi/time_abi.h"

namespace syscalls {
namespace {

class HostCallTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    as_ = emu::AddressSpace::create(uint64_t{1} << 32, &error);
    ASSERT_NE(as_, nullptr) << error;
    ASSERT_EQ(
        as_->mmap(kPage, emu::kPageSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, {}),
        static_cast<int64_t>(kPage));
  }

  static constexpr uint64_t kPage = 0x10000;
  std::unique_ptr<emu::AddressSpace> as_;
};

TEST_F(HostCallTest, NullGuestPointerIsNullHostPointer) {
  ::timespec h{};
  EXPECT_EQ(copy_in_for_host(*as_, emu::GuestPtr<const guest::timespec>{0}, &h), nullptr);
}

TEST_F(HostCallTest, UnreadableGuestStructIsTheFaultAddress) {
  ::timespec h{};
  EXPECT_EQ(copy_in_for_host(*as_, emu::GuestPtr<const guest::timespec>{kPage + 0x100000}, &h),
            kHostFaultAddr);
  // A struct that straddles the end of the mapping does not copy in either.
  EXPECT_EQ(copy_in_for_host(*as_, emu::GuestPtr<const guest::timespec>{kPage + emu::kPageSize - 8}, &h),
            kHostFaultAddr);
}

TEST_F(HostCallTest, ReadableGuestStructIsConverted) {
  const guest::timespec g{12, 345};
  ASSERT_EQ(emu::copy_out(*as_, kPage + 64, &g, sizeof g), 0);
  ::timespec h{};
  EXPECT_EQ(copy_in_for_host(*as_, emu::GuestPtr<const guest::timespec>{kPage + 64}, &h), &h);
  EXPECT_EQ(h.tv_sec, 12);
  EXPECT_EQ(h.tv_nsec, 345);

  const guest::sched_param gp{3};
  ASSERT_EQ(emu::copy_out(*as_, kPage + 128, &gp, sizeof gp), 0);
  ::sched_param hp{};
  EXPECT_EQ(copy_in_for_host(*as_, emu::GuestPtr<const guest::sched_param>{kPage + 128}, &hp), &hp);
  EXPECT_EQ(hp.sched_priority, 3);
}

// The premise: the host checks the rest first and faults on kHostFaultAddr without touching anything.
TEST(HostFaultAddrTest, HostKernelFaultsAfterItsOwnChecks) {
  errno = 0;
  EXPECT_EQ(::syscall(SYS_clock_settime, CLOCK_MONOTONIC, kHostFaultAddr), -1);
  EXPECT_EQ(errno, EINVAL);  // a clock that cannot be set, before the pointer
  errno = 0;
  EXPECT_EQ(::syscall(SYS_clock_settime, CLOCK_REALTIME, kHostFaultAddr), -1);
  EXPECT_EQ(errno, EFAULT);
  errno = 0;
  EXPECT_EQ(::syscall(SYS_sched_setparam, -1, kHostFaultAddr), -1);
  EXPECT_EQ(errno, EINVAL);  // a negative pid, before the pointer
  errno = 0;
  EXPECT_EQ(::syscall(SYS_sched_setparam, 0, kHostFaultAddr), -1);
  EXPECT_EQ(errno, EFAULT);
}

}  // namespace
}  // namespace syscalls
