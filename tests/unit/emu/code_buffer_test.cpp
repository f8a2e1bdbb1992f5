// Tests that every engine's code buffer is guarded against Unicorn's silent first wipe (emu/code_buffer.cpp)
// by the link's wrapper on the pinned build, not by the costly fallback flush.
#include "emu/code_buffer.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "emu/address_space.h"
#include "emu/vcpu.h"

namespace emu {
namespace {

TEST(CodeBufferTest, ThisUnicornBuildIsGuardedByTheWrapper) {
  std::string error;
  auto as = AddressSpace::create(uint64_t{1} << 32, &error);
  ASSERT_NE(as, nullptr) << error;
  const uint64_t before = code_buffers_guarded_here();
  auto first = std::make_unique<Vcpu>(*as, nullptr);
  auto second = std::make_unique<Vcpu>(*as, nullptr);
  // One guard per engine made on this thread; had the layout check failed, each engine would have been
  // flushed instead (32 MiB cleared per vCPU) and the count would not move.
  EXPECT_EQ(code_buffers_guarded_here(), before + 2);
  EXPECT_TRUE(code_buffer_wrapper_recognised_all());
}

}  // namespace
}  // namespace emu
