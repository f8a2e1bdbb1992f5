// Tests for the jump slots between translated blocks (emu/block_chain.cpp): an unchained slot is a
// `test` that falls through to the block's exit, chaining makes it a `jmp` to the next block, and each
// state a thread running the block can see while another patches it goes where it should.
#include "emu/block_chain.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstring>

#if A64RUN_WRAP_TRANSLATOR

extern "C" void tb_set_jmp_target_aarch64(void* tb, int n, uintptr_t addr);

namespace emu {
namespace {

// A block's code as QEMU's x86 backend lays out a goto_tb: the jump's displacement 4-byte aligned at
// kDisp, the exit right after it (the reset offset), and a next block elsewhere. The code is entered at
// the slot; the exit returns 1, the next block 2.
constexpr size_t kDisp = 8;
constexpr size_t kExit = kDisp + 4;
constexpr size_t kNext = 64;
// TranslationBlock fields emu/block_chain.cpp reads.
constexpr size_t kTbCode = 0x20;
constexpr size_t kTbJmpResetOffset = 0x58;
constexpr size_t kTbJmpTargetArg = 0x60;

class BlockChainTest : public ::testing::Test {
 protected:
  void SetUp() override {
    void* p = mmap(nullptr, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(p, MAP_FAILED);
    code_ = static_cast<unsigned char*>(p);
    const unsigned char slot[] = {0xe9, 0, 0, 0, 0};
    const unsigned char ret1[] = {0xb8, 1, 0, 0, 0, 0xc3};  // mov $1,%eax; ret
    const unsigned char ret2[] = {0xb8, 2, 0, 0, 0, 0xc3};
    memcpy(code_ + kDisp - 1, slot, sizeof slot);
    memcpy(code_ + kExit, ret1, sizeof ret1);
    memcpy(code_ + kNext, ret2, sizeof ret2);
    memset(tb_, 0, sizeof tb_);
    put(kTbCode, code_);
    put(kTbJmpResetOffset, static_cast<uint16_t>(kExit));
    put(kTbJmpResetOffset + 2, static_cast<uint16_t>(0xffff));  // no second slot
    put(kTbJmpTargetArg, uintptr_t{kDisp});
  }
  void TearDown() override { munmap(code_, 4096); }

  template <typename T>
  void put(size_t off, T v) {
    memcpy(tb_ + off, &v, sizeof v);
  }
  int run() const {
    auto* fn = reinterpret_cast<int (*)()>(code_ + kDisp - 1);
    return fn();
  }
  int32_t disp() const {
    int32_t d;
    memcpy(&d, code_ + kDisp, sizeof d);
    return d;
  }
  uintptr_t at(size_t off) const { return reinterpret_cast<uintptr_t>(code_ + off); }

  unsigned char* code_ = nullptr;
  alignas(8) unsigned char tb_[0xa0];
};

TEST_F(BlockChainTest, AnUnchainedSlotFallsThroughAndAChainedOneJumps) {
  ASSERT_EQ(run(), 1);  // QEMU's form: jmp to the next instruction
  prepare_chain_slots(tb_);
  EXPECT_EQ(code_[kDisp - 1], 0xa9) << "the unchained slot is not a test";
  EXPECT_EQ(run(), 1);
  const uint64_t chained = chained_slots();
  tb_set_jmp_target_aarch64(tb_, 0, at(kNext));
  EXPECT_EQ(code_[kDisp - 1], 0xe9);
  EXPECT_EQ(disp(), static_cast<int32_t>(kNext - kExit));
  EXPECT_EQ(chained_slots(), chained + 1);
  EXPECT_EQ(run(), 2);
  // A reset (the next block invalidated) points the jump back at the exit; chained again, it jumps again.
  tb_set_jmp_target_aarch64(tb_, 0, at(kExit));
  EXPECT_EQ(disp(), 0);
  EXPECT_EQ(code_[kDisp - 1], 0xe9);
  EXPECT_EQ(run(), 1);
  tb_set_jmp_target_aarch64(tb_, 0, at(kNext));
  EXPECT_EQ(run(), 2);
  EXPECT_EQ(chained_slots(), chained + 1) << "only a test slot's chaining counts";
}

TEST_F(BlockChainTest, EveryStateOfAPatchGoesToTheExitOrTheNextBlock) {
  // While one thread chains the slot (displacement first, then the opcode) another may run it: the
  // `test` with either displacement falls through, the `jmp` with the old one (0) is the exit.
  const auto d = static_cast<int32_t>(kNext - kExit);
  const struct {
    unsigned char op;
    int32_t disp;
    int want;
  } states[] = {{0xa9, 0, 1}, {0xa9, d, 1}, {0xe9, 0, 1}, {0xe9, d, 2}};
  for (const auto& s : states) {
    code_[kDisp - 1] = s.op;
    memcpy(code_ + kDisp, &s.disp, sizeof s.disp);
    EXPECT_EQ(run(), s.want) << "opcode " << int{s.op} << " displacement " << s.disp;
  }
}

TEST_F(BlockChainTest, ASlotThatIsNotQemusIsLeftAlone) {
  // A displacement already set (a chained slot), a misaligned one, a reset offset elsewhere, no slot:
  // prepare_chain_slots keeps its hands off, and chaining stores only the displacement.
  int32_t d = 16;
  memcpy(code_ + kDisp, &d, sizeof d);
  prepare_chain_slots(tb_);
  EXPECT_EQ(code_[kDisp - 1], 0xe9);
  d = 0;
  memcpy(code_ + kDisp, &d, sizeof d);
  put(kTbJmpResetOffset, static_cast<uint16_t>(kExit + 1));
  prepare_chain_slots(tb_);
  EXPECT_EQ(code_[kDisp - 1], 0xe9);
  put(kTbJmpResetOffset, static_cast<uint16_t>(0xffff));
  prepare_chain_slots(tb_);
  EXPECT_EQ(code_[kDisp - 1], 0xe9);
  put(kTbJmpResetOffset, static_cast<uint16_t>(kExit));
  put(kTbJmpTargetArg, uintptr_t{kDisp + 1});
  prepare_chain_slots(tb_);
  EXPECT_EQ(code_[kDisp - 1], 0xe9);
  EXPECT_EQ(code_[kDisp], 0);
  put(kTbJmpTargetArg, uintptr_t{kDisp});
  tb_set_jmp_target_aarch64(tb_, 0, at(kNext));
  EXPECT_EQ(code_[kDisp - 1], 0xe9);
  EXPECT_EQ(run(), 2);
}

}  // namespace
}  // namespace emu

#endif  // A64RUN_WRAP_TRANSLATOR
