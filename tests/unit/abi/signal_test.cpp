// Tests the guest sigset helpers, sigaction and stack_t layouts, and the signal frame layout.
#include "syscalls/abi/signal.h"

#include <gtest/gtest.h>

#include <cstring>

#include "syscalls/abi/sigframe.h"

namespace {

TEST(SignalAbiTest, SigsetBitIsSignalMinusOne) {
  EXPECT_EQ(guest::sig_bit(guest::kSIGHUP), 1u);
  EXPECT_EQ(guest::sig_bit(guest::kSIGRTMAX), uint64_t{1} << 63);
  EXPECT_TRUE(guest::sig_in(guest::kUnblockableSignals, guest::kSIGKILL));
  EXPECT_TRUE(guest::sig_in(guest::kUnblockableSignals, guest::kSIGSTOP));
  EXPECT_FALSE(guest::sig_in(guest::kUnblockableSignals, guest::kSIGTERM));
}

TEST(SignalAbiTest, SigactionBytesFollowArm64Layout) {
  guest::sigaction act{};
  act.handler = 0x400000;
  act.sa_flags = guest::kSA_SIGINFO | guest::kSA_RESTART;
  act.sa_restorer = 0x500000;
  act.sa_mask = guest::sig_bit(guest::kSIGUSR1);
  uint64_t words[4];
  std::memcpy(words, &act, sizeof(words));
  EXPECT_EQ(words[0], 0x400000u);
  EXPECT_EQ(words[1], guest::kSA_SIGINFO | guest::kSA_RESTART);
  EXPECT_EQ(words[2], 0x500000u);
  EXPECT_EQ(words[3], uint64_t{1} << 9);
  // Unknown flag bits are what rt_sigaction drops; SA_UNSUPPORTED is the probe bit that must vanish.
  EXPECT_EQ(guest::kUAPI_SA_FLAGS & guest::kSA_UNSUPPORTED, 0u);
  EXPECT_NE(guest::kUAPI_SA_FLAGS & guest::kSA_EXPOSE_TAGBITS, 0u);
}

TEST(SignalAbiTest, FrameOffsetsMatchTheArm64Kernel) {
  guest::rt_sigframe frame{};
  frame.uc.uc_mcontext.pc = 0x1234;
  frame.uc.uc_sigmask = 0xff;
  auto* base = reinterpret_cast<unsigned char*>(&frame);
  uint64_t pc = 0;
  uint64_t mask = 0;
  std::memcpy(&pc, base + 128 + 176 + 264, 8);
  std::memcpy(&mask, base + 128 + 40, 8);
  EXPECT_EQ(pc, 0x1234u);
  EXPECT_EQ(mask, 0xffu);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(&frame.uc.uc_mcontext.reserved) % 16, 0u);
}

}  // namespace
