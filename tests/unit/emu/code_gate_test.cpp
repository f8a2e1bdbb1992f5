// Tests for the code gate (emu/code_gate.h): its wake, and its lifetime rule: a writer closing the gate looks
// at every vCPU of the address space and waits for those in guest code, while other threads make and free
// vCPUs (a CLONE_VM child's helper frees the child's at any time). A walk over a copy of the list reached
// freed vCPUs; AddressSanitizer (check-asan) reports any such read.
#include "emu/code_gate.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "emu/address_space.h"
#include "emu/vcpu.h"

namespace emu {
namespace {

constexpr uint64_t kCode = 0x10000;
// loop: add x2, x2, #1; b loop
constexpr uint32_t kSpin[] = {0x91000442, 0x17ffffff};

TEST(CodeGateTest, ClosingNeverTouchesAFreedVcpu) {
  std::string error;
  auto as = AddressSpace::create(uint64_t{1} << 30, &error);
  ASSERT_NE(as, nullptr) << error;
  ASSERT_EQ(as->mmap(kCode, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, {}),
            static_cast<int64_t>(kCode));
  memcpy(as->host(kCode), kSpin, sizeof kSpin);
  ASSERT_EQ(as->mprotect(kCode, 4096, PROT_READ | PROT_EXEC), 0);
  std::atomic<bool> done{false};
  // vCPUs in guest code, more than there are cores: every close waits until each has left, which takes a
  // scheduler slice when its thread is not on a CPU, while the vCPUs made below are freed.
  std::vector<std::unique_ptr<Vcpu>> running(6);
  std::vector<std::thread> runners;
  for (auto& cpu : running) {
    cpu = std::make_unique<Vcpu>(*as, nullptr);
    cpu->set_pc(kCode);
    runners.emplace_back([&done, c = cpu.get()] {
      while (!done.load(std::memory_order_acquire)) {
        c->run();
        c->take_requests();
      }
    });
  }
  std::atomic<uint64_t> closes{0};
  std::thread writer([&] {
    while (!done.load(std::memory_order_acquire)) {
      {
        CodeGate::Closed closed(as->gate());
        closes.fetch_add(1, std::memory_order_relaxed);
      }
      std::this_thread::sleep_for(std::chrono::microseconds(100));  // the runners go back into code
    }
  });
  // vCPUs that live a little (a CLONE_VM child's), freed while a close may be waiting for the runners.
  for (int round = 0; round < 50; ++round) {
    std::unique_ptr<Vcpu> brief[4];
    for (auto& v : brief) v = std::make_unique<Vcpu>(*as, nullptr);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    for (auto& v : brief) v.reset();
  }
  done.store(true, std::memory_order_release);
  writer.join();
  for (size_t i = 0; i < runners.size(); ++i) {
    while (running[i]->in_code()) running[i]->request(Vcpu::kRequestYield);
    running[i]->request(Vcpu::kRequestYield);
    runners[i].join();
  }
  EXPECT_GT(closes.load(), 10u);  // the writer did walk while vCPUs came and went
}

// reopen wakes only when a waiter has counted itself (code_gate.cpp's invariant): threads that find the gate
// closed wait in wait_open while a writer closes and reopens it as fast as it can. A lost wake leaves a
// waiter asleep on an open gate for good: the join below never returns (the test's timeout).
TEST(CodeGateTest, ReopenWakesEveryWaiter) {
  CodeGate gate;
  std::atomic<bool> done{false};
  std::atomic<uint64_t> waits{0};
  std::vector<std::thread> waiters;
  waiters.reserve(4);
  for (int i = 0; i < 4; ++i) {
    waiters.emplace_back([&] {
      while (!done.load(std::memory_order_acquire)) {
        if (!gate.open()) {
          gate.wait_open();
          waits.fetch_add(1, std::memory_order_relaxed);
        }
      }
    });
  }
  for (int round = 0; round < 20000; ++round) {
    gate.close();                                    // no vCPUs: at once
    if (round % 64 == 0) std::this_thread::yield();  // long enough for a waiter to fall asleep
    gate.reopen();
  }
  done.store(true, std::memory_order_release);
  for (auto& t : waiters) t.join();
  EXPECT_GT(waits.load(), 0u);  // waiters did find the gate closed
}

}  // namespace
}  // namespace emu
