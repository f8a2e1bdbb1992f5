// Tests a program that runs more new code than an emulator's translation cache holds, in one go, before
// any code was ever unmapped or invalidated: a file of straight-line code (blocks of loads and adds, each
// ending in a branch to the next, so every block is chained to the one before it) is mapped executable and
// called twice. Under a64run, a fresh Unicorn engine whose code buffer filled for the first time wiped the
// buffer without a flush, and the chaining of the block that ran last wrote through a translation that was
// gone (host SIGSEGV). Each call must return the sum the code computes.
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define kPage 4096L
enum {
  kInsnsPerChunk = 64,  // 31 x (ldr x9, [x1]; add x0, x0, x9), add x2, x2, #1, b .+4
  kPairsPerChunk = 31,
  kChunksPerPage = kPage / 4 / kInsnsPerChunk,
  // Unicorn makes 52-70 KiB of x86-64 code of each 4 KiB page of this code through the softmmu TLB
  // (measured), so the first call alone translates 40-53 MiB, past a64run's 32 MiB translation buffer;
  // with loads straight to the guest window it makes about 21 KiB, so 2048 pages fill it.
  kPages = 2048,
};

static const uint32_t kLdrX9X1 = 0xf9400029u;     // ldr x9, [x1]
static const uint32_t kAddX0X0X9 = 0x8b090000u;   // add x0, x0, x9
static const uint32_t kAddX2X2One = 0x91000442u;  // add x2, x2, #1
static const uint32_t kBranchNext = 0x14000001u;  // b .+4
static const uint32_t kMovX0X2 = 0xaa0203e0u;     // mov x0, x2
static const uint32_t kRet = 0xd65f03c0u;

typedef uint64_t (*SumFn)(uint64_t acc, const uint64_t* word, uint64_t chunks);

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

// Writes the code to a memfd and maps it: a file mapping needs no cache maintenance (the kernel makes the
// new pages coherent), so nothing makes an emulator drop its translations before the code runs.
static SumFn map_code(int pages, int count_only) {
  const size_t words = (size_t)pages * kPage / 4 + 2;
  uint32_t* buf = malloc(words * 4);
  REQUIRE(buf != NULL);
  size_t n = 0;
  for (int c = 0; c < pages * kChunksPerPage; c++) {
    for (int i = 0; i < kPairsPerChunk; i++) {
      buf[n++] = kLdrX9X1;
      buf[n++] = kAddX0X0X9;
    }
    buf[n++] = kAddX2X2One;
    buf[n++] = kBranchNext;
  }
  buf[n++] = count_only ? kMovX0X2 : 0xd503201fu;  // nop
  buf[n++] = kRet;
  const int fd = memfd_create("code_fill", MFD_CLOEXEC);
  REQUIRE(fd >= 0);
  REQUIRE(write(fd, buf, n * 4) == (ssize_t)(n * 4));
  free(buf);
  void* code = mmap(NULL, n * 4, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
  REQUIRE(code != MAP_FAILED);
  close(fd);
  return (SumFn)code;
}

int main(void) {
  static const uint64_t kWord = 3;
  const uint64_t chunks = (uint64_t)kPages * kChunksPerPage;
  const SumFn sum = map_code(kPages, 0);
  const double start = now_s();
  for (int round = 0; round < 2; round++) {
    const uint64_t got = sum(7, &kWord, 0);
    if (!CHECK_EQ(got, 7 + chunks * kPairsPerChunk * kWord)) NOTE("round %d", round);
  }
  // The chunk counter too: the same code mapped a second time, at another address.
  const SumFn count = map_code(kPages / 4, 1);
  CHECK_EQ(count(0, &kWord, 0), (uint64_t)kPages / 4 * kChunksPerPage);
  NOTE("%d pages of code run twice in %.2f s", kPages, now_s() - start);
  return check_done();
}
