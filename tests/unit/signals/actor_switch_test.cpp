// Tests for signals::ActorSwitch, the handshake that moves the queueing of host signals from the intake
// thread to its worker (signals/host_signals.h).
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "signals/host_signals.h"

namespace signals {
namespace {

// The invariant: once to_worker() returns, the intake thread acts on no signal itself. An actor thread
// takes signals as fast as it can, acting on each itself (a short spin) while the switch lets it; the main
// thread switches to the worker and then raises a mark. A self-act that sees the mark overlapped the
// switch's return: with to_worker's wait for the acting mark removed, most rounds have one.
TEST(ActorSwitchTest, NoSelfActAfterTheSwitch) {
  int overlapping_rounds = 0;
  for (int round = 0; round < 2000; ++round) {
    ActorSwitch sw;
    std::atomic<bool> switched{false};
    std::atomic<bool> acted{false};
    std::atomic<int> overlaps{0};
    std::thread actor([&] {
      while (sw.begin_self_act()) {
        acted.store(true, std::memory_order_relaxed);
        std::atomic<int> spin{0};
        while (spin.fetch_add(1, std::memory_order_relaxed) < 100 + round % 300) {
        }
        if (switched.load(std::memory_order_seq_cst)) overlaps.fetch_add(1, std::memory_order_relaxed);
        sw.end_self_act();
      }
    });
    while (!acted.load(std::memory_order_relaxed)) std::this_thread::yield();
    ASSERT_TRUE(sw.claim());
    sw.to_worker();
    switched.store(true, std::memory_order_seq_cst);
    actor.join();
    if (overlaps.load() != 0) ++overlapping_rounds;
    EXPECT_TRUE(sw.worker());
    EXPECT_FALSE(sw.claim());  // a worker acts already
  }
  EXPECT_EQ(overlapping_rounds, 0);
}

// One thread starts the worker: a second claim waits while the first is starting, and gets the start
// itself when the first gives up (the host refused the thread).
TEST(ActorSwitchTest, OneStarterAtATime) {
  ActorSwitch sw;
  ASSERT_TRUE(sw.claim());
  std::atomic<int> second{-1};
  std::thread other([&] { second.store(sw.claim() ? 1 : 0, std::memory_order_release); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(second.load(std::memory_order_acquire), -1);  // still waiting
  EXPECT_TRUE(sw.begin_self_act());                       // the intake thread still acts while it starts
  sw.end_self_act();
  sw.abandon();
  other.join();
  EXPECT_EQ(second.load(), 1);
  sw.to_worker();
  EXPECT_FALSE(sw.begin_self_act());
  sw.reset(false);  // a fork child of a process without signalfds
  EXPECT_FALSE(sw.worker());
  EXPECT_TRUE(sw.begin_self_act());
  sw.end_self_act();
}

}  // namespace
}  // namespace signals
