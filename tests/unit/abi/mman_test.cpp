// Tests the guest mmap flag and prot translation, including a host mapping made from guest flags.
#include "syscalls/abi/mman.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstdint>

namespace {

TEST(MmanAbiTest, HostFlagsDropOnlyTheMap32bitBit) {
  const uint32_t flags = guest::kMAP_PRIVATE | guest::kMAP_ANONYMOUS | guest::kMAP_NORESERVE |
                         guest::kMAP_STACK | guest::kMAP_FIXED_NOREPLACE;
  EXPECT_EQ(guest::host_mmap_flags(flags), static_cast<int>(flags));
  EXPECT_EQ(guest::host_mmap_flags(flags | 0x40), static_cast<int>(flags));
  EXPECT_EQ(guest::kLEGACY_MAP_MASK & 0x40, 0u);
}

TEST(MmanAbiTest, ProtBtiAndMteAreArm64Only) {
  EXPECT_EQ(guest::host_prot(guest::kPROT_READ | guest::kPROT_EXEC | guest::kPROT_BTI),
            PROT_READ | PROT_EXEC);
  EXPECT_EQ(guest::host_prot(guest::kPROT_READ | guest::kPROT_MTE), PROT_READ);
  EXPECT_TRUE(guest::guest_prot_valid(guest::kPROT_READ | guest::kPROT_WRITE, false, false));
  EXPECT_FALSE(guest::guest_prot_valid(guest::kPROT_EXEC | guest::kPROT_BTI, false, false));
  EXPECT_TRUE(guest::guest_prot_valid(guest::kPROT_EXEC | guest::kPROT_BTI, true, false));
  EXPECT_FALSE(guest::guest_prot_valid(guest::kPROT_READ | guest::kPROT_MTE, true, false));
  EXPECT_FALSE(guest::guest_prot_valid(0x40, true, true));
}

// Guest flags carrying 0x40 would mean MAP_32BIT to the host; translated, the mapping is an ordinary one.
TEST(MmanAbiTest, TranslatedFlagsMapOnTheHost) {
  const size_t len = 1 << 20;
  void* p = ::mmap(nullptr, len, guest::host_prot(guest::kPROT_READ | guest::kPROT_WRITE | guest::kPROT_BTI),
                   guest::host_mmap_flags(guest::kMAP_PRIVATE | guest::kMAP_ANONYMOUS | 0x40), -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  EXPECT_GE(reinterpret_cast<uintptr_t>(p), uintptr_t{1} << 32);
  static_cast<volatile char*>(p)[0] = 1;
  EXPECT_EQ(::munmap(p, len), 0);
}

}  // namespace
