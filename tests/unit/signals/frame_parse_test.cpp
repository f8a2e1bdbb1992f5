// This file tests parse_rt_frame against arch/arm64/kernel/signal.c's rules: the record list in __reserved
// (fpsimd_context exactly once, esr_context of any 16-byte multiple, one extra_context whose data follows
// its terminator, nothing else), valid_user_regs, and what a refused frame still loads (mask, registers).
#include "signals/frame_parse_arm64.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "tests/fuzz/sigframe_testing.h"

namespace signals {
namespace {

using sigframe_testing::FrameImage;
using sigframe_testing::kFrameAddr;

// Guest memory holding `bytes` at kFrameAddr and nothing else.
ParsedFrame parse(const std::vector<uint8_t>& bytes, uint64_t addr = kFrameAddr) {
  return parse_rt_frame(addr, [&bytes](uint64_t a, void* dst, size_t len) {
    if (a < kFrameAddr || a - kFrameAddr > bytes.size() || len > bytes.size() - (a - kFrameAddr))
      return false;
    memcpy(dst, bytes.data() + (a - kFrameAddr), len);
    return true;
  });
}

TEST(FrameParseTest, FpsimdFrameRestores) {
  FrameImage img;
  img.fpsimd();
  const ParsedFrame f = parse(img.bytes());
  ASSERT_TRUE(f.valid);
  EXPECT_EQ(f.regs[19], 0xa64f000000000000ull | 19);
  EXPECT_EQ(f.sp, 0x7ff000u);
  EXPECT_EQ(f.pc, 0x400100u);
  EXPECT_EQ(f.pstate, 0x60000000u);
  EXPECT_EQ(f.mask, 0x1234u);
  EXPECT_EQ(f.v[1].lo, 0xf00d000000000002ull);
  EXPECT_EQ(f.v[31].hi, 0xf00d00000000003full);
}

// Linux skips an esr_context whatever its size (a multiple of 16 keeps the next record aligned); a64run
// used to refuse any size but 16.
TEST(FrameParseTest, EsrContextOfAnySizeIsSkipped) {
  FrameImage img;
  img.esr(48);
  img.fpsimd();
  EXPECT_TRUE(parse(img.bytes()).valid);
  FrameImage odd;  // 24 bytes: the next record is misaligned
  odd.esr(24);
  odd.fpsimd();
  EXPECT_FALSE(parse(odd.bytes()).valid);
  FrameImage tiny;  // smaller than a header
  tiny.esr(4);
  EXPECT_FALSE(parse(tiny.bytes()).valid);
}

// An extra_context whose data follows its terminator is walked like __reserved, also past the fixed frame.
TEST(FrameParseTest, ExtraContextIsWalked) {
  FrameImage img;
  img.esr(3600);
  const uint64_t e = img.begin_extra();
  img.fpsimd();
  img.end_extra(e);
  const std::vector<uint8_t> bytes = img.bytes();
  ASSERT_GT(bytes.size(), sizeof(guest::rt_sigframe));
  const ParsedFrame f = parse(bytes);
  ASSERT_TRUE(f.valid);
  EXPECT_EQ(f.v[0].lo, 0xf00d000000000000ull);
  // The data beyond the frame is missing: EFAULT, a bad frame.
  EXPECT_FALSE(parse(std::vector<uint8_t>(bytes.begin(), bytes.begin() + sizeof(guest::rt_sigframe))).valid);
}

TEST(FrameParseTest, ExtraContextRules) {
  auto frame = [](auto edit) {
    FrameImage img;
    img.fpsimd();
    const uint64_t e = img.begin_extra();
    img.esr();
    img.end_extra(e);
    std::vector<uint8_t> b = img.bytes();
    edit(b, e);
    return parse(b).valid;
  };
  EXPECT_TRUE(frame([](std::vector<uint8_t>&, uint64_t) {}));
  EXPECT_FALSE(frame([](std::vector<uint8_t>& b, uint64_t e) { b[e + 8] += 16; }));  // datap elsewhere
  EXPECT_FALSE(frame([](std::vector<uint8_t>& b, uint64_t e) { b[e + 16] += 8; }));  // size not 16-aligned
  EXPECT_FALSE(frame([](std::vector<uint8_t>& b, uint64_t e) { b[e + 32] = 1; }));   // no terminator after it
  EXPECT_FALSE(frame([](std::vector<uint8_t>& b, uint64_t e) { b[e + 4] = 16; }));  // shorter than the struct
  EXPECT_FALSE(frame([](std::vector<uint8_t>& b, uint64_t e) { b[e + 18] = 0x10; }));  // past SIGFRAME_MAXSZ
  // A second extra_context, in the first one's data.
  FrameImage twice;
  twice.fpsimd();
  const uint64_t e = twice.begin_extra();
  const uint64_t inner = twice.begin_extra();
  twice.end_extra(inner);
  twice.end_extra(e);
  EXPECT_FALSE(parse(twice.bytes()).valid);
}

TEST(FrameParseTest, RecordsLinuxRefuses) {
  FrameImage none;  // no fpsimd_context
  none.esr();
  EXPECT_FALSE(parse(none.bytes()).valid);
  FrameImage two;
  two.fpsimd();
  two.fpsimd();
  EXPECT_FALSE(parse(two.bytes()).valid);
  FrameImage sve;  // SVE is not advertised
  sve.fpsimd();
  sve.record(guest::kSVE_MAGIC, 16);
  EXPECT_FALSE(parse(sve.bytes()).valid);
  FrameImage short_fp;
  short_fp.record(guest::kFPSIMD_MAGIC, sizeof(guest::fpsimd_context) - 16);
  EXPECT_FALSE(parse(short_fp.bytes()).valid);
}

// restore_sigframe loads the mask and registers before any check: a refused frame leaves them loaded,
// with PSTATE forced to NZCV by valid_user_regs. SIGKILL and SIGSTOP never enter the mask.
TEST(FrameParseTest, RefusedFrameStillLoadsMaskAndRegisters) {
  FrameImage el1;
  el1.fpsimd();
  el1.put_u64(sigframe_testing::kPstateAt, 0xf00003c5);
  el1.put_u64(sigframe_testing::kMaskAt, ~uint64_t{0});
  const ParsedFrame f = parse(el1.bytes());
  EXPECT_FALSE(f.valid);
  EXPECT_TRUE(f.regs_loaded);
  EXPECT_TRUE(f.mask_loaded);
  EXPECT_EQ(f.mask, ~guest::kUnblockableSignals);
  EXPECT_EQ(f.pstate, 0xf0000000u);
  EXPECT_EQ(f.regs[30], 0xa64f000000000000ull | 30);
}

// A frame cut short: what could be read is loaded, the rest is 0 (__get_user_error), and the frame is bad.
TEST(FrameParseTest, PartlyReadableFrame) {
  FrameImage img;
  img.fpsimd();
  std::vector<uint8_t> b = img.bytes();
  b.resize(sigframe_testing::kRegsAt + 80);  // x0-x9
  const ParsedFrame f = parse(b);
  EXPECT_FALSE(f.valid);
  EXPECT_TRUE(f.mask_loaded);
  EXPECT_EQ(f.regs[9], 0xa64f000000000009ull);
  EXPECT_EQ(f.regs[10], 0u);
  EXPECT_EQ(f.sp, 0u);
}

TEST(FrameParseTest, MisalignedOrOutOfRangeFrameLoadsNothing) {
  FrameImage img;
  img.fpsimd();
  const ParsedFrame f = parse(img.bytes(), kFrameAddr + 8);
  EXPECT_FALSE(f.valid || f.regs_loaded || f.mask_loaded);
  const ParsedFrame high = parse(img.bytes(), (uint64_t{1} << 48) - 16);
  EXPECT_FALSE(high.valid || high.regs_loaded);
}

TEST(FrameParseTest, AltstackAfterSigreturn) {
  const guest::stack_t on{0x10000, 0, 0, 0x4000};
  const guest::stack_t frame{0x90000, 0, 0, 0x8000};
  EXPECT_EQ(altstack_after_sigreturn(on, 0x12000, frame).ss_sp, 0x10000u);  // on it: unchanged
  EXPECT_EQ(altstack_after_sigreturn(on, 0x20000, frame).ss_sp, 0x90000u);
  const guest::stack_t small{0x90000, 0, 0, 4096};  // below MINSIGSTKSZ: ignored
  EXPECT_EQ(altstack_after_sigreturn(on, 0x20000, small).ss_sp, 0x10000u);
  const guest::stack_t off{0, guest::kSS_DISABLE, 0, 0};
  EXPECT_EQ(altstack_after_sigreturn(on, 0x20000, off).ss_flags, guest::kSS_DISABLE);
}

}  // namespace
}  // namespace signals
