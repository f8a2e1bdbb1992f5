// This file implements the slow-core signal model: the busy-waits at handler entry and at rt_sigreturn.
#include "signals/slow_core.h"

#include <atomic>

#include "emu/task.h"
#include "signals/park.h"

namespace signals {
namespace {

std::atomic<uint32_t> g_pre_ack_us{0};
std::atomic<uint32_t> g_post_ack_us{0};

// Spins on the clock rather than sleeping: a slow core is busy, not idle (the host thread keeps its CPU, as
// the guest thread would keep its core). The run lock is released so that the delay stays this thread's.
void busy_wait(emu::Task& t, uint32_t us) {
  if (us == 0) return;
  emu::RunLockReleaser unlocked(t.proc().run_lock(), &t.cpu());
  const uint64_t deadline = now_ns() + uint64_t{us} * 1000;
  while (now_ns() < deadline) {
    __builtin_ia32_pause();
  }
}

}  // namespace

void set_signal_delays(uint32_t pre_ack_us, uint32_t post_ack_us) {
  g_pre_ack_us = pre_ack_us;
  g_post_ack_us = post_ack_us;
}

std::vector<std::string> signal_delay_args() {
  std::vector<std::string> args;
  if (const uint32_t us = g_pre_ack_us.load())
    args.push_back("--signal-delay-pre-ack-us=" + std::to_string(us));
  if (const uint32_t us = g_post_ack_us.load())
    args.push_back("--signal-delay-post-ack-us=" + std::to_string(us));
  return args;
}

void delay_before_handler(emu::Task& t) {
  busy_wait(t, g_pre_ack_us.load(std::memory_order_relaxed));
}

void delay_after_sigreturn(emu::Task& t) {
  busy_wait(t, g_post_ack_us.load(std::memory_order_relaxed));
}

}  // namespace signals
