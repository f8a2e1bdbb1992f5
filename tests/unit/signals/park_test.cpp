// This file tests signals::Park, the one way a guest thread sleeps: an unpark before or during a wait ends
// it, a deadline ends it with false, and a spin budget (futex waits) changes neither.
#include "signals/park.h"

#include <gtest/gtest.h>

#include <chrono>
#include <limits>
#include <thread>

namespace signals {
namespace {

constexpr uint64_t kMs = 1'000'000;

timespec in_ns(uint64_t ns) {
  return add(now(CLOCK_MONOTONIC),
             timespec{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)});
}

class ParkTest : public ::testing::TestWithParam<uint64_t> {};

TEST_P(ParkTest, PendingUnparkEndsTheNextWaitAtOnce) {
  Park& p = Park::make();
  p.unpark();
  const timespec dl = in_ns(2000 * kMs);
  const uint64_t t0 = now_ns();
  EXPECT_TRUE(p.wait(&dl, CLOCK_MONOTONIC, GetParam()));
  EXPECT_LT(now_ns() - t0, 1000 * kMs);
  Park::recycle(p);
}

TEST_P(ParkTest, UnparkFromAnotherThreadEndsTheWait) {
  Park& p = Park::make();
  const uint64_t t0 = now_ns();
  std::thread waker([&p] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    p.unpark();
  });
  EXPECT_TRUE(p.wait(nullptr, CLOCK_MONOTONIC, GetParam()));
  const uint64_t waited = now_ns() - t0;
  waker.join();
  EXPECT_GE(waited, 19 * kMs);  // it parked: a wait that never blocks cannot pass
  EXPECT_LT(waited, 2000 * kMs);
  Park::recycle(p);
}

TEST_P(ParkTest, DeadlineEndsTheWaitWithFalse) {
  Park& p = Park::make();
  const uint64_t t0 = now_ns();
  const timespec dl = in_ns(30 * kMs);
  EXPECT_FALSE(p.wait(&dl, CLOCK_MONOTONIC, GetParam()));
  const uint64_t waited = now_ns() - t0;
  EXPECT_GE(waited, 30 * kMs);
  EXPECT_LT(waited, 2000 * kMs);
  // The token was never posted, so a wait after the timeout still sleeps.
  const timespec dl2 = in_ns(5 * kMs);
  EXPECT_FALSE(p.wait(&dl2, CLOCK_MONOTONIC, GetParam()));
  Park::recycle(p);
}

TEST_P(ParkTest, OneUnparkEndsOneWait) {
  Park& p = Park::make();
  p.unpark();
  p.unpark();  // tokens do not count: the second finds one posted
  const timespec dl = in_ns(2000 * kMs);
  EXPECT_TRUE(p.wait(&dl, CLOCK_MONOTONIC, GetParam()));
  const timespec short_dl = in_ns(5 * kMs);
  EXPECT_FALSE(p.wait(&short_dl, CLOCK_MONOTONIC, GetParam()));
  Park::recycle(p);
}

// No spin, the futex waits' budget, and a spin longer than the unpark takes to come.
INSTANTIATE_TEST_SUITE_P(SpinBudgets, ParkTest, ::testing::Values(uint64_t{0}, uint64_t{5000}, 50 * kMs));

}  // namespace
}  // namespace signals

namespace signals {
namespace {

// A deadline of now plus a guest's largest relative time saturates instead of wrapping into the past (which
// would end a nanosleep of 2^63-1 s at once, and is signed overflow).
TEST(TimespecAddTest, SaturatesAtTheLargestTime) {
  const timespec big = add({22496, 5}, {std::numeric_limits<time_t>::max(), 999'999'999});
  EXPECT_EQ(big.tv_sec, std::numeric_limits<time_t>::max());
  EXPECT_EQ(big.tv_nsec, 999'999'999);
  const timespec carry = add({std::numeric_limits<time_t>::max(), 600'000'000}, {0, 500'000'000});
  EXPECT_EQ(carry.tv_sec, std::numeric_limits<time_t>::max());
  const timespec normal = add({1, 600'000'000}, {2, 500'000'000});
  EXPECT_EQ(normal.tv_sec, 4);
  EXPECT_EQ(normal.tv_nsec, 100'000'000);
}

}  // namespace
}  // namespace signals
