// Unit tests for the debugger's view of an arm64 thread (gdb/arm64_target.h).
#include "gdb/arm64_target.h"

#include <gtest/gtest.h>

#include <string>

namespace gdb {
namespace {

TEST(Arm64TargetTest, RegisterFileLayout) {
  emu::CpuState s;
  s.x[0] = 0x1122334455667788;
  s.pc = 0x400000;
  s.nzcv = 0x60000000 | 0x3c5;  // only NZCV shows
  s.v[0].lo = 0x5a5a5a5a5a5a5a5a;
  s.fpcr = 0x03000000;
  const std::string g = encode_registers(s);
  // x0-x30, sp, pc: 8 bytes each; cpsr 4; v0-v31 16 each; fpsr, fpcr 4 each; tpidr 8.
  ASSERT_EQ(g.size(), size_t{2} * (33 * 8 + 4 + 32 * 16 + 4 + 4 + 8));
  EXPECT_EQ(g.substr(0, 16), "8877665544332211");
  EXPECT_EQ(g.substr(32 * 16, 16), "0000400000000000");
  EXPECT_EQ(g.substr(33 * 16, 8), "00000060");
  std::string one;
  ASSERT_TRUE(encode_register(s, 34, &one));
  EXPECT_EQ(one, "5a5a5a5a5a5a5a5a0000000000000000");
  ASSERT_TRUE(encode_register(s, 67, &one));
  EXPECT_EQ(one, "00000003");
  EXPECT_FALSE(encode_register(s, kNumRegs, &one));
  EXPECT_FALSE(encode_register(s, -1, &one));
}

TEST(Arm64TargetTest, WritesRoundTripAndRejectBadInput) {
  emu::CpuState s;
  s.x[3] = 7;
  emu::CpuState t;
  ASSERT_TRUE(decode_registers(encode_registers(s), &t));
  EXPECT_EQ(t.x[3], 7u);
  EXPECT_FALSE(decode_registers("00", &t));
  EXPECT_FALSE(decode_register(0, "zz00000000000000", &t));
  EXPECT_FALSE(decode_register(0, "00", &t));
  ASSERT_TRUE(decode_register(33, "ffffffff", &t));
  EXPECT_EQ(t.nzcv, 0xf0000000u);  // cpsr: only NZCV is written
  ASSERT_TRUE(decode_register(32, "0010000000000000", &t));
  EXPECT_EQ(t.pc, 0x1000u);
}

TEST(Arm64TargetTest, SignalNumbers) {
  EXPECT_EQ(to_gdb_signal(11), 11);  // SIGSEGV
  EXPECT_EQ(to_gdb_signal(10), 30);  // SIGUSR1
  EXPECT_EQ(to_gdb_signal(7), 10);   // SIGBUS
  EXPECT_EQ(to_gdb_signal(17), 20);  // SIGCHLD
  EXPECT_EQ(to_gdb_signal(23), 16);  // SIGURG
  EXPECT_EQ(to_gdb_signal(32), 77);  // SIGRTMIN on Linux: gdb's REALTIME_32
  EXPECT_EQ(to_gdb_signal(33), 45);
  EXPECT_EQ(to_gdb_signal(64), 78);
  for (int sig = 1; sig <= 64; ++sig) {
    if (sig == 16) continue;  // SIGSTKFLT has no gdb number
    EXPECT_EQ(from_gdb_signal(to_gdb_signal(sig)), sig) << sig;
  }
  EXPECT_EQ(from_gdb_signal(143), 0);
  EXPECT_EQ(from_gdb_signal(0), 0);
}

TEST(Arm64TargetTest, TargetDescriptionNamesGdbsFeatures) {
  const std::string_view xml = target_xml();
  EXPECT_NE(xml.find("org.gnu.gdb.aarch64.core"), std::string_view::npos);
  EXPECT_NE(xml.find("org.gnu.gdb.aarch64.fpu"), std::string_view::npos);
  EXPECT_NE(xml.find("<reg name=\"v31\" bitsize=\"128\" type=\"aarch64v\" regnum=\"65\"/>"),
            std::string_view::npos);
  EXPECT_NE(xml.find("<reg name=\"fpcr\" bitsize=\"32\"/>"), std::string_view::npos);
}

}  // namespace
}  // namespace gdb
