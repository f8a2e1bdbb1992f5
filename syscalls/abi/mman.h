// Guest mmap/mprotect/mremap/madvise/msync/mlock flag values and the translation of mmap flags and prot.
#pragma once

#include <sys/mman.h>

#include <cstdint>

namespace guest {

// asm-generic/mman-common.h plus arm64's asm/mman.h (PROT_BTI, PROT_MTE).
inline constexpr uint32_t kPROT_NONE = 0x0;
inline constexpr uint32_t kPROT_READ = 0x1;
inline constexpr uint32_t kPROT_WRITE = 0x2;
inline constexpr uint32_t kPROT_EXEC = 0x4;
inline constexpr uint32_t kPROT_SEM = 0x8;
inline constexpr uint32_t kPROT_BTI = 0x10;  // arm64 only: BTI-guarded pages
inline constexpr uint32_t kPROT_MTE = 0x20;  // arm64 only: MTE-tagged pages
inline constexpr uint32_t kPROT_GROWSDOWN = 0x01000000;
inline constexpr uint32_t kPROT_GROWSUP = 0x02000000;
static_assert(kPROT_NONE == PROT_NONE && kPROT_READ == PROT_READ && kPROT_WRITE == PROT_WRITE &&
              kPROT_EXEC == PROT_EXEC && kPROT_GROWSDOWN == PROT_GROWSDOWN && kPROT_GROWSUP == PROT_GROWSUP);

// arm64's arch_validate_prot accepts PROT_BTI only when the CPU has BTI and PROT_MTE only when it has MTE;
// anything else outside these bits is EINVAL (mm/mprotect.c, mm/mmap.c).
inline constexpr uint32_t kProtCommonBits =
    kPROT_READ | kPROT_WRITE | kPROT_EXEC | kPROT_SEM | kPROT_GROWSDOWN | kPROT_GROWSUP;

// True if an arm64 kernel with the given optional features accepts prot.
constexpr bool guest_prot_valid(uint32_t prot, bool have_bti, bool have_mte) {
  uint32_t allowed = kProtCommonBits;
  if (have_bti) allowed |= kPROT_BTI;
  if (have_mte) allowed |= kPROT_MTE;
  return (prot & ~allowed) == 0;
}

// The host (x86-64) has no BTI/MTE bits and would reject 0x10/0x20 with EINVAL: strip them. The caller
// records BTI/MTE on the guest mapping if it supports them, after guest_prot_valid() has said yes.
constexpr int host_prot(uint32_t guest_prot) {
  return static_cast<int>(guest_prot & ~(kPROT_BTI | kPROT_MTE));
}

// linux/mman.h, asm-generic/mman-common.h and asm-generic/mman.h: arm64 uses the generic values.
inline constexpr uint32_t kMAP_SHARED = 0x01;
inline constexpr uint32_t kMAP_PRIVATE = 0x02;
inline constexpr uint32_t kMAP_SHARED_VALIDATE = 0x03;
inline constexpr uint32_t kMAP_TYPE = 0x0f;
inline constexpr uint32_t kMAP_FIXED = 0x10;
inline constexpr uint32_t kMAP_ANONYMOUS = 0x20;
inline constexpr uint32_t kMAP_GROWSDOWN = 0x0100;
inline constexpr uint32_t kMAP_DENYWRITE = 0x0800;
inline constexpr uint32_t kMAP_EXECUTABLE = 0x1000;
inline constexpr uint32_t kMAP_LOCKED = 0x2000;
inline constexpr uint32_t kMAP_NORESERVE = 0x4000;
inline constexpr uint32_t kMAP_POPULATE = 0x008000;
inline constexpr uint32_t kMAP_NONBLOCK = 0x010000;
inline constexpr uint32_t kMAP_STACK = 0x020000;
inline constexpr uint32_t kMAP_HUGETLB = 0x040000;
inline constexpr uint32_t kMAP_SYNC = 0x080000;
inline constexpr uint32_t kMAP_FIXED_NOREPLACE = 0x100000;
inline constexpr uint32_t kMAP_UNINITIALIZED = 0x4000000;  // ignored unless CONFIG_MMAP_ALLOW_UNINITIALIZED
inline constexpr uint32_t kMAP_HUGE_SHIFT = 26;            // with MAP_HUGETLB: log2(page size) in bits 26-31
inline constexpr uint32_t kMAP_HUGE_MASK = 0x3f;
inline constexpr uint32_t kMAP_HUGE_2MB = 21u << kMAP_HUGE_SHIFT;
inline constexpr uint32_t kMAP_HUGE_1GB = 30u << kMAP_HUGE_SHIFT;
static_assert(kMAP_SHARED == MAP_SHARED && kMAP_PRIVATE == MAP_PRIVATE &&
              kMAP_SHARED_VALIDATE == MAP_SHARED_VALIDATE && kMAP_TYPE == MAP_TYPE &&
              kMAP_FIXED == MAP_FIXED && kMAP_ANONYMOUS == MAP_ANONYMOUS && kMAP_GROWSDOWN == MAP_GROWSDOWN &&
              kMAP_DENYWRITE == MAP_DENYWRITE && kMAP_EXECUTABLE == MAP_EXECUTABLE &&
              kMAP_LOCKED == MAP_LOCKED && kMAP_NORESERVE == MAP_NORESERVE && kMAP_POPULATE == MAP_POPULATE &&
              kMAP_NONBLOCK == MAP_NONBLOCK && kMAP_STACK == MAP_STACK && kMAP_HUGETLB == MAP_HUGETLB &&
              kMAP_SYNC == MAP_SYNC && kMAP_FIXED_NOREPLACE == MAP_FIXED_NOREPLACE &&
              kMAP_HUGE_SHIFT == MAP_HUGE_SHIFT && kMAP_HUGE_MASK == MAP_HUGE_MASK);

// include/linux/mman.h LEGACY_MAP_MASK for arm64 (MAP_32BIT is 0 there): with MAP_SHARED_VALIDATE any
// other bit, unless the file's mmap_supported_flags allow it (MAP_SYNC on DAX), fails with EOPNOTSUPP.
// With MAP_SHARED or MAP_PRIVATE unknown bits are ignored.
inline constexpr uint32_t kLEGACY_MAP_MASK =
    kMAP_SHARED | kMAP_PRIVATE | kMAP_FIXED | kMAP_ANONYMOUS | kMAP_DENYWRITE | kMAP_EXECUTABLE |
    kMAP_UNINITIALIZED | kMAP_GROWSDOWN | kMAP_LOCKED | kMAP_NORESERVE | kMAP_POPULATE | kMAP_NONBLOCK |
    kMAP_STACK | kMAP_HUGETLB | kMAP_HUGE_2MB | kMAP_HUGE_1GB;

// Bit 0x40 is MAP_32BIT on x86-64 and undefined (ignored) on arm64; the host must not see it.
namespace host {
inline constexpr uint32_t kMAP_32BIT = 0x40;
static_assert(kMAP_32BIT == MAP_32BIT);
}  // namespace host

// Guest mmap flags to the host's: every arm64 flag has the same value on x86-64, so this only drops the bit
// that would mean MAP_32BIT there. Validation (kLEGACY_MAP_MASK, MAP_TYPE) is the handler's job.
constexpr int host_mmap_flags(uint32_t guest_flags) {
  return static_cast<int>(guest_flags & ~host::kMAP_32BIT);
}

// linux/mman.h
inline constexpr uint32_t kMREMAP_MAYMOVE = 1;
inline constexpr uint32_t kMREMAP_FIXED = 2;
inline constexpr uint32_t kMREMAP_DONTUNMAP = 4;
static_assert(kMREMAP_MAYMOVE == MREMAP_MAYMOVE && kMREMAP_FIXED == MREMAP_FIXED &&
              kMREMAP_DONTUNMAP == MREMAP_DONTUNMAP);

// asm-generic/mman-common.h and asm-generic/mman.h
inline constexpr int32_t kMS_ASYNC = 1;
inline constexpr int32_t kMS_INVALIDATE = 2;
inline constexpr int32_t kMS_SYNC = 4;
inline constexpr int32_t kMCL_CURRENT = 1;
inline constexpr int32_t kMCL_FUTURE = 2;
inline constexpr int32_t kMCL_ONFAULT = 4;
inline constexpr int32_t kMLOCK_ONFAULT = 0x01;
static_assert(kMS_ASYNC == MS_ASYNC && kMS_INVALIDATE == MS_INVALIDATE && kMS_SYNC == MS_SYNC &&
              kMCL_CURRENT == MCL_CURRENT && kMCL_FUTURE == MCL_FUTURE && kMCL_ONFAULT == MCL_ONFAULT &&
              kMLOCK_ONFAULT == MLOCK_ONFAULT);

// asm-generic/mman-common.h: madvise advice (arch-independent except on alpha, mips, parisc).
inline constexpr int32_t kMADV_NORMAL = 0;
inline constexpr int32_t kMADV_RANDOM = 1;
inline constexpr int32_t kMADV_SEQUENTIAL = 2;
inline constexpr int32_t kMADV_WILLNEED = 3;
inline constexpr int32_t kMADV_DONTNEED = 4;
inline constexpr int32_t kMADV_FREE = 8;
inline constexpr int32_t kMADV_REMOVE = 9;
inline constexpr int32_t kMADV_DONTFORK = 10;
inline constexpr int32_t kMADV_DOFORK = 11;
inline constexpr int32_t kMADV_MERGEABLE = 12;
inline constexpr int32_t kMADV_UNMERGEABLE = 13;
inline constexpr int32_t kMADV_HUGEPAGE = 14;
inline constexpr int32_t kMADV_NOHUGEPAGE = 15;
inline constexpr int32_t kMADV_DONTDUMP = 16;
inline constexpr int32_t kMADV_DODUMP = 17;
inline constexpr int32_t kMADV_WIPEONFORK = 18;
inline constexpr int32_t kMADV_KEEPONFORK = 19;
inline constexpr int32_t kMADV_COLD = 20;
inline constexpr int32_t kMADV_PAGEOUT = 21;
inline constexpr int32_t kMADV_POPULATE_READ = 22;
inline constexpr int32_t kMADV_POPULATE_WRITE = 23;
inline constexpr int32_t kMADV_DONTNEED_LOCKED = 24;
inline constexpr int32_t kMADV_COLLAPSE = 25;
inline constexpr int32_t kMADV_HWPOISON = 100;
inline constexpr int32_t kMADV_SOFT_OFFLINE = 101;
static_assert(kMADV_NORMAL == MADV_NORMAL && kMADV_RANDOM == MADV_RANDOM &&
              kMADV_SEQUENTIAL == MADV_SEQUENTIAL && kMADV_WILLNEED == MADV_WILLNEED &&
              kMADV_DONTNEED == MADV_DONTNEED && kMADV_FREE == MADV_FREE && kMADV_REMOVE == MADV_REMOVE &&
              kMADV_DONTFORK == MADV_DONTFORK && kMADV_DOFORK == MADV_DOFORK &&
              kMADV_MERGEABLE == MADV_MERGEABLE && kMADV_UNMERGEABLE == MADV_UNMERGEABLE &&
              kMADV_HUGEPAGE == MADV_HUGEPAGE && kMADV_NOHUGEPAGE == MADV_NOHUGEPAGE &&
              kMADV_DONTDUMP == MADV_DONTDUMP && kMADV_DODUMP == MADV_DODUMP &&
              kMADV_WIPEONFORK == MADV_WIPEONFORK && kMADV_KEEPONFORK == MADV_KEEPONFORK &&
              kMADV_COLD == MADV_COLD && kMADV_PAGEOUT == MADV_PAGEOUT &&
              kMADV_POPULATE_READ == MADV_POPULATE_READ && kMADV_POPULATE_WRITE == MADV_POPULATE_WRITE &&
              kMADV_DONTNEED_LOCKED == MADV_DONTNEED_LOCKED && kMADV_HWPOISON == MADV_HWPOISON);

// asm-generic/mman-common.h: pkey_alloc access rights.
inline constexpr int32_t kPKEY_DISABLE_ACCESS = 0x1;
inline constexpr int32_t kPKEY_DISABLE_WRITE = 0x2;

}  // namespace guest
