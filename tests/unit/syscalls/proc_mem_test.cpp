// This file tests what the guest's /proc/PID/mem and pagemap reach: AddressSpace::forced_reach (FOLL_FORCE:
// any protection, but no hole and no write into a shared mapping without PROT_WRITE; a file page past the
// end of its file is the host's to refuse), mapped_ranges, and HostMaps, which reads another process's host
// mappings from its maps file.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "emu/address_space.h"
#include "syscalls/proc_mem.h"

namespace syscalls {
namespace {

constexpr uint64_t kPage = emu::kPageSize;

class ForcedReachTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    as_ = emu::AddressSpace::create(1ull << 32, &error);
    ASSERT_NE(as_, nullptr) << error;
    // [kBase, +4 pages): read-write, read-only, none, a hole; then a shared read-only page.
    map(kBase, 3 * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE);
    ASSERT_EQ(as_->mprotect(kBase + kPage, kPage, PROT_READ), 0);
    ASSERT_EQ(as_->mprotect(kBase + 2 * kPage, kPage, PROT_NONE), 0);
    map(kShared, kPage, PROT_READ, MAP_SHARED);
  }
  void map(uint64_t at, uint64_t len, int prot, int share) {
    ASSERT_EQ(as_->mmap(at, len, prot, share | MAP_ANONYMOUS | MAP_FIXED, emu::MapSource{}),
              static_cast<int64_t>(at));
  }

  static constexpr uint64_t kBase = 0x100000;
  static constexpr uint64_t kShared = 0x200000;
  std::unique_ptr<emu::AddressSpace> as_;
};

TEST_F(ForcedReachTest, ReadsEveryMappedPageUpToTheHole) {
  EXPECT_EQ(as_->forced_reach(kBase, 8 * kPage, false, nullptr), 3 * kPage);
  EXPECT_EQ(as_->forced_reach(kBase + 2 * kPage + 5, 100, false, nullptr), 100u);
  EXPECT_EQ(as_->forced_reach(kBase + 3 * kPage, 8, false, nullptr), 0u);
  EXPECT_EQ(as_->forced_reach(kShared, 2 * kPage, false, nullptr), kPage);
}

TEST_F(ForcedReachTest, WritesPrivatePagesWhateverTheirProtection) {
  EXPECT_EQ(as_->forced_reach(kBase, 8 * kPage, true, nullptr), 3 * kPage);
}

TEST_F(ForcedReachTest, NoWriteIntoASharedPageWithoutProtWrite) {
  EXPECT_EQ(as_->forced_reach(kShared, 8, true, nullptr), 0u);
  EXPECT_EQ(as_->forced_reach(kShared, 8, false, nullptr), 8u);
}

TEST_F(ForcedReachTest, NothingOutsideTheWindowOrForZeroBytes) {
  EXPECT_EQ(as_->forced_reach(1ull << 32, 8, false, nullptr), 0u);
  EXPECT_EQ(as_->forced_reach(~0ull - 4, 8, false, nullptr), 0u);
  EXPECT_EQ(as_->forced_reach(kBase, 0, false, nullptr), 0u);
}

TEST_F(ForcedReachTest, CodeIsReportedOnlyForFetchedExecutablePages) {
  map(0x300000, kPage, PROT_READ | PROT_EXEC, MAP_PRIVATE);
  bool code = false;
  EXPECT_EQ(as_->forced_reach(0x300000, 8, true, &code), 8u);
  EXPECT_FALSE(code);  // nothing ran from it
  bool past_eof = false;
  ASSERT_EQ(as_->page_prot(0x300000, &past_eof, /*fetch=*/true), PROT_READ | PROT_EXEC);
  EXPECT_EQ(as_->forced_reach(0x300000, 8, true, &code), 8u);
  EXPECT_TRUE(code);
}

// A file page past the end of its file is mapped: the host's own /proc/self/mem, which mem_rw reads through,
// stops there (EIO at the first page, a short count at a later one), as Linux's access_remote_vm does, and
// reads it once the file has grown.
TEST_F(ForcedReachTest, FilePagesPastTheEndAreLeftToTheHost) {
  char path[] = "/tmp/a64run-proc-mem-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  unlink(path);
  ASSERT_EQ(ftruncate(fd, 100), 0);  // one page of file, the second mapped page past its end
  emu::MapSource src;
  src.host_fd = fd;
  ASSERT_EQ(as_->mmap(0x400000, 2 * kPage, PROT_READ, MAP_PRIVATE | MAP_FIXED, src), 0x400000);
  EXPECT_EQ(as_->forced_reach(0x400000, 2 * kPage, false, nullptr), 2 * kPage);
  const int mem = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(mem, 0);
  const auto at = [&](uint64_t g) { return static_cast<off_t>(reinterpret_cast<uintptr_t>(as_->host(g))); };
  std::vector<char> buf(2 * kPage);
  EXPECT_EQ(pread(mem, buf.data(), 2 * kPage, at(0x400000)), static_cast<ssize_t>(kPage));
  errno = 0;
  EXPECT_EQ(pread(mem, buf.data(), 8, at(0x400000 + kPage)), -1);
  EXPECT_EQ(errno, EIO);
  ASSERT_EQ(ftruncate(fd, 2 * kPage), 0);
  EXPECT_EQ(pread(mem, buf.data(), 2 * kPage, at(0x400000)), static_cast<ssize_t>(2 * kPage));
  close(mem);
  close(fd);
}

TEST_F(ForcedReachTest, MappedRangesAreClippedAndJoined) {
  const auto r = as_->mapped_ranges(kBase + 8, kShared + kPage / 2);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], std::make_pair(kBase + 8, kBase + 3 * kPage));  // three VMAs, joined
  EXPECT_EQ(r[1], std::make_pair(kShared, kShared + kPage / 2));
  EXPECT_TRUE(as_->mapped_ranges(kBase + 3 * kPage, kShared).empty());
}

TEST(HostMapsTest, PrefixStopsAtAGapOrAReservation) {
  char dir[] = "/tmp/a64run-maps-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string maps = std::string(dir) + "/maps";
  FILE* f = fopen(maps.c_str(), "w");
  ASSERT_NE(f, nullptr);
  fputs(
      "10000-12000 rw-p 00000000 00:00 0\n"
      "12000-13000 r--p 00000000 08:01 42      /lib/a library with a long name\n"
      "13000-14000 ---p 00000000 00:00 0\n"
      "14000-15000 rwxp 00000000 00:00 0\n"
      "16000-17000 rw-s 00000000 00:05 7       /dev/zero (deleted)\n",
      f);
  fclose(f);
  HostMaps m;
  ASSERT_TRUE(m.load(dir, 0x11000, 0x16800));
  ASSERT_EQ(m.ranges().size(), 3u);
  EXPECT_EQ(m.ranges()[0], std::make_pair(uint64_t{0x11000}, uint64_t{0x13000}));
  EXPECT_EQ(m.prefix(0x11000, 0x10000), 0x2000u);  // up to the PROT_NONE reservation
  EXPECT_EQ(m.prefix(0x12800, 0x100), 0x100u);
  EXPECT_EQ(m.prefix(0x13000, 8), 0u);
  EXPECT_EQ(m.prefix(0x14000, 0x10000), 0x1000u);  // up to the gap
  EXPECT_EQ(m.prefix(0x16000, 0x10000), 0x800u);   // up to hi
  EXPECT_FALSE(m.load(std::string(dir) + "/none", 0, 1));
  unlink(maps.c_str());
  rmdir(dir);
}

}  // namespace
}  // namespace syscalls
