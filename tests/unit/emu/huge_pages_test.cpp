// Tests which guest mappings ask the host for transparent huge pages under A64RUN_HUGE_PAGES=1
// (emu/address_space.h, guest_huge_pages), which this file sets before main: private anonymous ones of 2 MiB
// and more do, smaller, shared and file mappings do not, and a guest's MADV_NOHUGEPAGE takes it back; stacks
// (MAP_STACK, MAP_GROWSDOWN, the main thread's) do not, as Linux gives none to them, until the guest's own
// MADV_HUGEPAGE. Read from the host's own view: the VmFlags of the host mapping in /proc/self/smaps ("hg" for
// MADV_HUGEPAGE, "nh" for MADV_NOHUGEPAGE).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "emu/address_space.h"

namespace emu {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;

// guest_huge_pages reads the variable once, at its first call, after main has started: the unit tests'
// other large mappings get huge pages too, which changes nothing they check.
const bool g_huge_pages_asked = ::setenv("A64RUN_HUGE_PAGES", "1", 1) == 0;

// The VmFlags line of the host mapping that holds `p`, or "" when there is none.
std::string vm_flags(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto want = reinterpret_cast<uintptr_t>(p);
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    unsigned long start = 0, end = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &start, &end) == 2 && line.find(':') > line.find('-')) {
      inside = start <= want && want < end;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

bool asks_for_huge_pages(const void* p) {
  return (" " + vm_flags(p) + " ").find(" hg ") != std::string::npos;
}

TEST(HugePagesTest, LargePrivateAnonymousMappingsAskForThem) {
  ASSERT_TRUE(g_huge_pages_asked && guest_huge_pages());
  std::string error;
  auto as = AddressSpace::create(uint64_t{1} << 32, &error);
  ASSERT_NE(as, nullptr) << error;
  const int64_t big = as->mmap(0, 8 * kMiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, {});
  const int64_t small = as->mmap(0, kMiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, {});
  const int64_t shared = as->mmap(0, 8 * kMiB, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, {});
  ASSERT_GT(big, 0);
  ASSERT_GT(small, 0);
  ASSERT_GT(shared, 0);
  EXPECT_TRUE(asks_for_huge_pages(as->host(static_cast<uint64_t>(big)))) << vm_flags(as->host(big));
  EXPECT_FALSE(asks_for_huge_pages(as->host(static_cast<uint64_t>(small)))) << vm_flags(as->host(small));
  EXPECT_FALSE(asks_for_huge_pages(as->host(static_cast<uint64_t>(shared)))) << vm_flags(as->host(shared));

  // A file mapping keeps the host's page size.
  char path[] = "/tmp/a64run-huge-pages-XXXXXX";
  const int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  ::unlink(path);
  ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(8 * kMiB)), 0);
  MapSource src;
  src.host_fd = fd;
  const int64_t file = as->mmap(0, 8 * kMiB, PROT_READ, MAP_PRIVATE, src);
  ::close(fd);
  ASSERT_GT(file, 0);
  EXPECT_FALSE(asks_for_huge_pages(as->host(static_cast<uint64_t>(file)))) << vm_flags(as->host(file));

  // The guest's own advice wins.
  ASSERT_EQ(as->madvise(static_cast<uint64_t>(big), 8 * kMiB, MADV_NOHUGEPAGE), 0);
  EXPECT_FALSE(asks_for_huge_pages(as->host(static_cast<uint64_t>(big)))) << vm_flags(as->host(big));
}

TEST(HugePagesTest, StacksDoNotAskForThem) {
  ASSERT_TRUE(g_huge_pages_asked && guest_huge_pages());
  std::string error;
  auto as = AddressSpace::create(uint64_t{1} << 32, &error);
  ASSERT_NE(as, nullptr) << error;
  constexpr int kAnon = MAP_PRIVATE | MAP_ANONYMOUS;
  const int64_t thread_stack = as->mmap(0, 8 * kMiB, PROT_READ | PROT_WRITE, kAnon | MAP_STACK, {});
  const int64_t grows = as->mmap(0, 8 * kMiB, PROT_READ | PROT_WRITE, kAnon | MAP_GROWSDOWN, {});
  MapSource main_stack;
  main_stack.name = "[stack]";
  main_stack.main_stack = true;
  const int64_t stack = as->mmap(0, 8 * kMiB, PROT_READ | PROT_WRITE, kAnon, main_stack);
  ASSERT_GT(thread_stack, 0);
  ASSERT_GT(grows, 0);
  ASSERT_GT(stack, 0);
  for (const int64_t at : {thread_stack, grows, stack})
    EXPECT_FALSE(asks_for_huge_pages(as->host(static_cast<uint64_t>(at)))) << vm_flags(as->host(at));
  // The guest's MADV_HUGEPAGE reaches the host.
  ASSERT_EQ(as->madvise(static_cast<uint64_t>(thread_stack), 8 * kMiB, MADV_HUGEPAGE), 0);
  EXPECT_TRUE(asks_for_huge_pages(as->host(static_cast<uint64_t>(thread_stack))))
      << vm_flags(as->host(thread_stack));
}

}  // namespace
}  // namespace emu
