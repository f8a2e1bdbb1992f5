// Tests for the one SIGSEGV/SIGBUS handler (emu/host_fault.h) and its three cases: a fault in a guarded
// access of a64run's (emu/fault_access.h) resumes at the fixup, a fault of the guest's access in translated
// code stops the vCPU at the faulting instruction with the exact address (a file page past the end of its
// file too, until the file grows), and any other fault ends the process with a message.
#include "emu/host_fault.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <string>

#include "emu/address_space.h"
#include "emu/fault_access.h"
#include "emu/vcpu.h"

namespace emu {
namespace {

constexpr uint64_t kCode = 0x10000;
constexpr uint64_t kData = 0x20000;
constexpr uint64_t kHole = 0x30000;  // never mapped
// ldr x1, [x0]; str x2, [x0]; udf #0
constexpr uint32_t kLoadStore[] = {0xf9400001, 0xf9000002, 0x00000000};

TEST(HostFaultTest, GuardedAccessesReturnAtTheirFixup) {
  install_host_fault_handler();
  void* p = ::mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  char buf[16];
  EXPECT_EQ(fault_copy(buf, p, sizeof buf), sizeof buf);  // SIGSEGV: nothing copied
  uint32_t v = 0;
  EXPECT_FALSE(fault_load32(static_cast<uint32_t*>(p), &v));
  uint32_t expected = 0;
  EXPECT_EQ(fault_cas32(static_cast<uint32_t*>(p), &expected, 1), -1);
  ::munmap(p, 4096);

  // SIGBUS: a shared file mapping whose file shrank under it.
  const int fd = ::memfd_create("host_fault_test", MFD_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::ftruncate(fd, 8192), 0);
  auto* f = static_cast<char*>(::mmap(nullptr, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
  ASSERT_NE(f, MAP_FAILED);
  ASSERT_EQ(::ftruncate(fd, 4096), 0);
  const char src[8] = "abcdefg";
  EXPECT_EQ(fault_copy(f + 4096 - 4, src, sizeof src), 4u);  // the first 4 bytes land, then SIGBUS
  EXPECT_EQ(std::memcmp(f + 4096 - 4, "abcd", 4), 0);
  ::munmap(f, 8192);
  ::close(fd);
}

class HostFaultVcpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    as_ = AddressSpace::create(uint64_t{1} << 32, &error);
    ASSERT_NE(as_, nullptr) << error;
    ASSERT_EQ(as_->mmap(kCode, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, {}),
              static_cast<int64_t>(kCode));
    memcpy(as_->host(kCode), kLoadStore, sizeof kLoadStore);
    ASSERT_EQ(as_->mprotect(kCode, 4096, PROT_READ | PROT_EXEC), 0);
    ASSERT_EQ(as_->mmap(kData, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, {}),
              static_cast<int64_t>(kData));
    cpu_ = std::make_unique<Vcpu>(*as_, nullptr);
    // The pinned Unicorn build must take direct access (emu/direct_memory.cpp checks its layout).
    ASSERT_TRUE(cpu_->direct_memory());
    cpu_->set_pc(kCode);
  }

  std::unique_ptr<AddressSpace> as_;
  std::unique_ptr<Vcpu> cpu_;
};

TEST_F(HostFaultVcpuTest, UnmappedLoadStopsAtTheInstructionWithTheExactAddress) {
  cpu_->set_x(0, kHole + 0x123);
  const StopInfo s = cpu_->run();
  EXPECT_EQ(s.kind, StopKind::kFault);
  EXPECT_EQ(s.host_signal, SIGSEGV);
  EXPECT_TRUE(s.exact);
  EXPECT_EQ(s.fault_addr, kHole + 0x123);
  EXPECT_EQ(s.access, PROT_READ);
  EXPECT_FALSE(s.mapped);
  EXPECT_EQ(cpu_->pc(), kCode);  // the load did not complete
}

TEST_F(HostFaultVcpuTest, StoreToReadOnlyPageIsAnAccessError) {
  cpu_->set_x(0, kData + 8);
  const StopInfo s = cpu_->run();
  EXPECT_EQ(s.kind, StopKind::kFault);
  EXPECT_EQ(s.fault_addr, kData + 8);
  EXPECT_EQ(s.access, PROT_WRITE);
  EXPECT_TRUE(s.mapped);
  EXPECT_EQ(cpu_->pc(), kCode + 4);  // the load ran, the store did not
}

TEST_F(HostFaultVcpuTest, AddressPastTheWindowNeverReachesHostMemory) {
  // 2^47 is far past this 4 GiB window: the access is clamped to the guard after it and faults there; the
  // guest gets the address it formed.
  cpu_->set_x(0, uint64_t{1} << 47);
  const StopInfo s = cpu_->run();
  EXPECT_EQ(s.kind, StopKind::kFault);
  EXPECT_EQ(s.fault_addr, uint64_t{1} << 47);
  EXPECT_EQ(cpu_->pc(), kCode);
}

// A file mapping longer than its file: the host decides at each access whether a page lies past the end
// (AddressSpace::map_fixed_locked), for translated code's direct loads and for the TLB fill hook's question.
class FileGrowTest : public HostFaultVcpuTest {
 protected:
  void SetUp() override {
    HostFaultVcpuTest::SetUp();
    install_host_fault_handler();  // page_prot's probe resumes at its fixup
    fd_ = ::memfd_create("file_grow_test", MFD_CLOEXEC);
    ASSERT_GE(fd_, 0);
    ASSERT_EQ(::ftruncate(fd_, 100), 0);  // one page of file, three mapped past its end
    MapSource src;
    src.host_fd = fd_;
    ASSERT_EQ(as_->mmap(kFile, 4 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, src),
              static_cast<int64_t>(kFile));
  }
  void TearDown() override { ::close(fd_); }

  static constexpr uint64_t kFile = 0x40000;
  int fd_ = -1;
};

TEST_F(FileGrowTest, APagePastTheEndFaultsUntilTheFileGrows) {
  cpu_->set_x(0, kFile + 3 * 4096 + 8);
  const StopInfo s = cpu_->run();
  EXPECT_EQ(s.kind, StopKind::kFault);
  EXPECT_EQ(s.host_signal, SIGBUS);
  EXPECT_TRUE(s.past_eof);
  EXPECT_EQ(s.fault_addr, kFile + 3 * 4096 + 8);
  EXPECT_EQ(cpu_->pc(), kCode);

  ASSERT_EQ(::ftruncate(fd_, 4 * 4096), 0);
  cpu_->set_x(2, 0x1122334455667788);
  const StopInfo grown = cpu_->run();  // the load and the store run, then udf
  EXPECT_NE(grown.kind, StopKind::kFault);
  EXPECT_EQ(cpu_->x(1), 0u);
  uint64_t stored = 0;
  ASSERT_EQ(::pread(fd_, &stored, sizeof stored, 3 * 4096 + 8), static_cast<ssize_t>(sizeof stored));
  EXPECT_EQ(stored, 0x1122334455667788u);  // MAP_SHARED: the store reached the file
}

// On the softmmu path a page stays in the TLB after its file shrank: an access that crosses into it goes
// through Unicorn's load helper, whose host access faults outside translated code (emu/helper_faults.cpp).
TEST_F(FileGrowTest, AHelperAccessThroughAStaleEntryIsTheGuestsFault) {
  ASSERT_EQ(::ftruncate(fd_, 4 * 4096), 0);
  cpu_->set_direct_memory(false);
  const uint64_t across = kFile + 3 * 4096 - 4;  // 8 bytes: 4 on page 2, 4 on page 3
  cpu_->set_x(0, across);
  const StopInfo filled = cpu_->run();  // both pages enter the TLB
  EXPECT_NE(filled.kind, StopKind::kFault);
  ASSERT_EQ(::ftruncate(fd_, 3 * 4096), 0);
  cpu_->set_pc(kCode);
  const StopInfo s = cpu_->run();
  EXPECT_EQ(s.kind, StopKind::kFault);
  EXPECT_EQ(s.host_signal, SIGBUS);
  EXPECT_TRUE(s.past_eof);
  EXPECT_EQ(s.fault_addr, kFile + 3 * 4096);
  EXPECT_EQ(cpu_->pc(), kCode);  // the load did not complete
}

TEST_F(FileGrowTest, PageProtAsksTheHostAtEachLook) {
  bool past_eof = true;
  EXPECT_EQ(as_->page_prot(kFile + 8, &past_eof), PROT_READ | PROT_WRITE);
  EXPECT_FALSE(past_eof);
  EXPECT_EQ(as_->page_prot(kFile + 2 * 4096, &past_eof), PROT_READ | PROT_WRITE);
  EXPECT_TRUE(past_eof);
  ASSERT_EQ(::ftruncate(fd_, 3 * 4096), 0);
  EXPECT_EQ(as_->page_prot(kFile + 2 * 4096, &past_eof), PROT_READ | PROT_WRITE);
  EXPECT_FALSE(past_eof);
  EXPECT_EQ(as_->page_prot(kFile + 3 * 4096, &past_eof), PROT_READ | PROT_WRITE);
  EXPECT_TRUE(past_eof);
  ASSERT_EQ(::ftruncate(fd_, 0), 0);
  EXPECT_EQ(as_->page_prot(kFile, &past_eof), PROT_READ | PROT_WRITE);
  EXPECT_TRUE(past_eof);
  // A page the guest may not touch is no question for the file: its fault is SIGSEGV.
  ASSERT_EQ(as_->mprotect(kFile, 4096, PROT_NONE), 0);
  EXPECT_EQ(as_->page_prot(kFile, &past_eof), PROT_NONE);
  EXPECT_FALSE(past_eof);
}

TEST(HostFaultDeathTest, AFaultInA64runItselfEndsItLoudly) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        install_host_fault_handler();
        void* p = ::mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        *static_cast<volatile int*>(p) = 1;
      },
      // The handler's own message, or the one of the sanitizer whose handler was there before.
      "internal error: host SIGSEGV at pc 0x[0-9a-f]+, address 0x[0-9a-f]+|Sanitizer");
}

}  // namespace
}  // namespace emu
