// This file tests the pure time and scheduling ABI helpers of syscalls/abi/time_abi.h: the request check of
// the sleeps, the clock classification of clock_nanosleep, getrandom's flag check, sched_attr sizes, and the
// timex, timezone and sched_param conversions.
#include "syscalls/abi/time_abi.h"

#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <climits>
#include <cstring>

namespace guest {
namespace {

// Linux's encodings (include/linux/posix-timers.h, posix-clock.h), spelled out independently of time_abi.h.
constexpr int32_t process_cpu_clock(int32_t pid, int32_t which) {
  return (~pid << 3) | which;
}
constexpr int32_t thread_cpu_clock(int32_t tid, int32_t which) {
  return (~tid << 3) | which | 4;
}
constexpr int32_t fd_clock(int32_t fd) {
  return (~fd << 3) | 3;
}

TEST(TimeAbiTest, TimespecValidBounds) {
  EXPECT_TRUE(timespec_valid({0, 0}));
  EXPECT_TRUE(timespec_valid({0, 999999999}));
  EXPECT_TRUE(timespec_valid({INT64_MAX, 0}));
  EXPECT_FALSE(timespec_valid({0, 1000000000}));
  EXPECT_FALSE(timespec_valid({0, -1}));
  EXPECT_FALSE(timespec_valid({-1, 0}));
  EXPECT_FALSE(timespec_valid({1, INT64_MAX}));
  EXPECT_FALSE(timespec_valid({INT64_MIN, 500}));
}

TEST(TimeAbiTest, ClassifySleepClockStaticIds) {
  EXPECT_EQ(classify_sleep_clock(kCLOCK_REALTIME), SleepClock::kTimer);
  EXPECT_EQ(classify_sleep_clock(kCLOCK_MONOTONIC), SleepClock::kTimer);
  EXPECT_EQ(classify_sleep_clock(kCLOCK_BOOTTIME), SleepClock::kTimer);
  EXPECT_EQ(classify_sleep_clock(kCLOCK_TAI), SleepClock::kTimer);
  EXPECT_EQ(classify_sleep_clock(kCLOCK_REALTIME_ALARM), SleepClock::kAlarm);
  EXPECT_EQ(classify_sleep_clock(kCLOCK_BOOTTIME_ALARM), SleepClock::kAlarm);
  EXPECT_EQ(classify_sleep_clock(kCLOCK_PROCESS_CPUTIME_ID), SleepClock::kCpu);
  EXPECT_EQ(classify_sleep_clock(kCLOCK_THREAD_CPUTIME_ID), SleepClock::kNoSleep);
  EXPECT_EQ(classify_sleep_clock(kCLOCK_MONOTONIC_RAW), SleepClock::kNoSleep);
  EXPECT_EQ(classify_sleep_clock(kCLOCK_REALTIME_COARSE), SleepClock::kNoSleep);
  EXPECT_EQ(classify_sleep_clock(kCLOCK_MONOTONIC_COARSE), SleepClock::kNoSleep);
  EXPECT_EQ(classify_sleep_clock(10), SleepClock::kInvalid);  // the removed CLOCK_SGI_CYCLE
  EXPECT_EQ(classify_sleep_clock(12), SleepClock::kInvalid);
  EXPECT_EQ(classify_sleep_clock(16), SleepClock::kInvalid);
  EXPECT_EQ(classify_sleep_clock(INT32_MAX), SleepClock::kInvalid);
}

TEST(TimeAbiTest, ClassifySleepClockDynamicIds) {
  EXPECT_EQ(classify_sleep_clock(process_cpu_clock(0, 2)), SleepClock::kCpu);
  EXPECT_EQ(classify_sleep_clock(process_cpu_clock(1234, 0)), SleepClock::kCpu);
  EXPECT_EQ(classify_sleep_clock(thread_cpu_clock(1234, 2)), SleepClock::kCpu);
  EXPECT_EQ(classify_sleep_clock(fd_clock(0)), SleepClock::kNoSleep);
  EXPECT_EQ(classify_sleep_clock(fd_clock(5)), SleepClock::kNoSleep);
  EXPECT_EQ(classify_sleep_clock(-1), SleepClock::kCpu);  // thread clock of type 3: the host says EINVAL
  EXPECT_TRUE(clock_is_fd(fd_clock(7)));
  EXPECT_FALSE(clock_is_fd(process_cpu_clock(7, 1)));
  EXPECT_FALSE(clock_is_fd(kCLOCK_TAI));
}

// The classification agrees with the host kernel on what it refuses before it reads the request: a NULL
// request is EFAULT exactly for the clocks that can sleep.
TEST(TimeAbiTest, ClassifySleepClockMatchesHostKernel) {
  const int32_t ids[] = {0,
                         1,
                         2,
                         3,
                         4,
                         5,
                         6,
                         7,
                         8,
                         9,
                         10,
                         11,
                         12,
                         15,
                         63,
                         -1,
                         -2,
                         fd_clock(3),
                         fd_clock(1000),
                         process_cpu_clock(0, 2),
                         thread_cpu_clock(0, 2)};
  for (const int32_t id : ids) {
    errno = 0;
    const long r = ::syscall(SYS_clock_nanosleep, id, 0, nullptr, nullptr);
    ASSERT_EQ(r, -1) << "clock " << id;
    switch (classify_sleep_clock(id)) {
      case SleepClock::kInvalid:
        EXPECT_EQ(errno, EINVAL) << "clock " << id;
        break;
      case SleepClock::kNoSleep:
        EXPECT_EQ(errno, EOPNOTSUPP) << "clock " << id;
        break;
      case SleepClock::kTimer:
      case SleepClock::kCpu:
        EXPECT_EQ(errno, EFAULT) << "clock " << id;
        break;
      case SleepClock::kAlarm:
        break;  // depends on the host's RTC
    }
  }
}

TEST(TimeAbiTest, GetrandomFlags) {
  EXPECT_TRUE(getrandom_flags_valid(0));
  EXPECT_TRUE(getrandom_flags_valid(kGRND_NONBLOCK));
  EXPECT_TRUE(getrandom_flags_valid(kGRND_RANDOM));
  EXPECT_TRUE(getrandom_flags_valid(kGRND_INSECURE));
  EXPECT_TRUE(getrandom_flags_valid(kGRND_NONBLOCK | kGRND_RANDOM));
  EXPECT_TRUE(getrandom_flags_valid(kGRND_NONBLOCK | kGRND_INSECURE));
  EXPECT_FALSE(getrandom_flags_valid(kGRND_RANDOM | kGRND_INSECURE));
  EXPECT_FALSE(getrandom_flags_valid(kGRND_NONBLOCK | kGRND_RANDOM | kGRND_INSECURE));
  EXPECT_FALSE(getrandom_flags_valid(8));
  EXPECT_FALSE(getrandom_flags_valid(0x80000000u));
}

TEST(TimeAbiTest, SchedAttrReadSize) {
  EXPECT_EQ(sched_attr_read_size(0), kSCHED_ATTR_SIZE_VER0);
  EXPECT_EQ(sched_attr_read_size(48), 48u);
  EXPECT_EQ(sched_attr_read_size(56), 56u);
  EXPECT_EQ(sched_attr_read_size(100), 100u);
  EXPECT_EQ(sched_attr_read_size(4096), 4096u);
  EXPECT_EQ(sched_attr_read_size(4097), 4u);  // E2BIG after reading the size field only
  EXPECT_EQ(sched_attr_read_size(47), 4u);
  EXPECT_EQ(sched_attr_read_size(1), 4u);
  EXPECT_EQ(sched_attr_read_size(UINT32_MAX), 4u);
}

// Layouts measured with aarch64-linux-gnu-gcc on linux/timex.h and linux/sched/types.h.
TEST(TimeAbiTest, Arm64Layouts) {
  static_assert(sizeof(timex) == 208 && offsetof(timex, tai) == 160 && offsetof(timex, stbcnt) == 152);
  static_assert(sizeof(sched_attr) == 56 && kSCHED_ATTR_SIZE_VER0 == 48 && kSCHED_ATTR_SIZE_VER1 == 56);
  static_assert(sizeof(timezone) == 8);
  SUCCEED();
}

TEST(TimeAbiTest, TimexRoundTripsEveryByte) {
  timex g;
  auto* bytes = reinterpret_cast<unsigned char*>(&g);
  for (size_t i = 0; i < sizeof g; ++i) bytes[i] = static_cast<unsigned char>(i * 7 + 1);
  const ::timex h = to_host(g);
  EXPECT_EQ(h.modes, g.modes);
  EXPECT_EQ(h.offset, g.offset);
  EXPECT_EQ(h.time.tv_sec, g.time.tv_sec);
  EXPECT_EQ(h.time.tv_usec, g.time.tv_usec);
  EXPECT_EQ(h.tai, g.tai);
  const timex back = to_guest(h);
  EXPECT_EQ(std::memcmp(&back, &g, sizeof g), 0);
}

TEST(TimeAbiTest, TimezoneAndSchedParamConversions) {
  const struct ::timezone hz = to_host(timezone{-120, 1});
  EXPECT_EQ(hz.tz_minuteswest, -120);
  EXPECT_EQ(hz.tz_dsttime, 1);
  const timezone gz = to_guest(hz);
  EXPECT_EQ(gz.tz_minuteswest, -120);
  EXPECT_EQ(gz.tz_dsttime, 1);
  EXPECT_EQ(to_host(sched_param{42}).sched_priority, 42);
  ::sched_param hp{};
  hp.sched_priority = 7;
  EXPECT_EQ(to_guest(hp).sched_priority, 7);
}

}  // namespace
}  // namespace guest
