// This file implements the guest address space: the host window, the VMA list, and mmap-family semantics.
#include "emu/address_space.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <optional>
#include <string>

#include "emu/fault_access.h"

namespace emu {
namespace {

constexpr uint64_t kMmapMinAddr = 0x10000;            // vm.mmap_min_addr
constexpr uint64_t kStackGuardGap = 256 * kPageSize;  // stack_guard_gap
constexpr uint64_t kMaxStackGrowth = 8ull << 20;      // RLIMIT_STACK default
constexpr int kProtMask = PROT_READ | PROT_WRITE | PROT_EXEC;
constexpr int kGuestProtSem = 0x8;   // PROT_SEM: accepted and ignored, as by every Linux port
constexpr int kGuestProtBti = 0x10;  // arm64 PROT_BTI: accepted, not enforced
constexpr int kReserveFlags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED;
constexpr uintptr_t kWindowAlign = uintptr_t{1} << 30;

// A transparent huge page (x86-64's PMD size): the smallest mapping that can hold one.
constexpr uint64_t kThpSize = uint64_t{2} << 20;

// `continuation`: b is a's growth by mremap (one object, even when it is shared anonymous memory).
// MAP_DROPPABLE memory at `host`: the host's own where it has it (Linux 6.11), else private memory a fork
// child gets zeroed and a core dump leaves out (pages that are never dropped are droppable pages too).
int64_t map_droppable(void* host, uint64_t len, int hprot) {
  constexpr int kMapDroppable = 0x08;
  if (::mmap(host, len, hprot, kMapDroppable | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) return 0;
  if (::mmap(host, len, hprot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) == MAP_FAILED)
    return -errno;
  (void)::madvise(host, len, MADV_WIPEONFORK);
  (void)::madvise(host, len, MADV_DONTDUMP);
  return 0;
}

bool same_kind(const Vma& a, const Vma& b, bool continuation = false) {
  if (a.end != b.start || a.prot != b.prot || a.flags != b.flags || a.name != b.name) return false;
  if (a.huge_shift != b.huge_shift) return false;
  // Each shared anonymous mapping is an object of its own (shmem_zero_setup's file): it joins none.
  if (a.flags & kVmaAnon) return continuation || !(a.flags & kVmaShared);
  return a.inode == b.inode && a.dev == b.dev && a.offset + (a.end - a.start) == b.offset;
}

// vm.max_map_count, the most VMAs a process may have. The guest's VMAs are counted against it here, as
// Linux counts a process's: the host's own count of a64run's mappings says nothing about them (guest pages
// with the same host protection share one host mapping). Read again when the last reading is over 10 ms
// old, so that a value the guest writes (as root) applies within 10 ms while mmap costs no read.
size_t max_map_count() {
  static std::atomic<int64_t> read_at{-1};  // never read
  static std::atomic<size_t> value{65530};  // DEFAULT_MAX_MAP_COUNT
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  const int64_t now = ts.tv_sec * 1000000000LL + ts.tv_nsec;
  const int64_t last = read_at.load(std::memory_order_relaxed);
  if (last < 0 || now - last > 10000000) {
    if (FILE* f = ::fopen("/proc/sys/vm/max_map_count", "re")) {
      long long v = 0;
      if (std::fscanf(f, "%lld", &v) == 1 && v >= 0)
        value.store(static_cast<size_t>(v), std::memory_order_relaxed);
      ::fclose(f);
    }
    read_at.store(now, std::memory_order_relaxed);
  }
  return value.load(std::memory_order_relaxed);
}

}  // namespace

bool guest_huge_pages() {
  static const bool on = [] {
    const char* v = std::getenv("A64RUN_HUGE_PAGES");
    return v != nullptr && std::strcmp(v, "0") != 0;
  }();
  return on;
}

std::unique_ptr<AddressSpace> AddressSpace::create(uint64_t size, std::string* error) {
  size = page_up(size);
  // Low, if the host leaves the range free: translated code then reaches base + address through the 32-bit
  // displacement of the load or store itself (emu/direct_memory.cpp). a64run's own heap usually lies below it
  // (the kernel puts the break anywhere in the GiB after the image: sometimes past 1 GiB), and glibc's
  // allocator maps elsewhere once its break meets the window. Elsewhere, the base is aligned to
  // 1 GiB (kLowBase is too), so a guest address aligned for huge pages (2 MiB, 1 GiB) is aligned on the host
  // too: the slack around the aligned window goes back at once. The guard follows the window in both cases.
  constexpr int kReserve = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
  static_assert(kLowBase % kWindowAlign == 0, "the low window is aligned for huge pages");
  void* const low = reinterpret_cast<void*>(kLowBase);
  void* p = ::mmap(low, size + kGuardSize, PROT_NONE, kReserve | MAP_FIXED_NOREPLACE, -1, 0);
  if (p != MAP_FAILED && p != low) ::munmap(p, size + kGuardSize);  // a kernel that took it as a hint
  if (p != low) {
    p = ::mmap(nullptr, size + kGuardSize + kWindowAlign, PROT_NONE, kReserve, -1, 0);
    if (p == MAP_FAILED) {
      *error =
          fmt::format("cannot reserve {} GiB for the guest address space: {}", size >> 30, strerror(errno));
      return nullptr;
    }
    const auto raw = reinterpret_cast<uintptr_t>(p);
    const uintptr_t base = (raw + kWindowAlign - 1) & ~(kWindowAlign - 1);
    if (base > raw) ::munmap(p, base - raw);
    if (raw + kWindowAlign > base)
      ::munmap(reinterpret_cast<void*>(base + size + kGuardSize), raw + kWindowAlign - base);
    p = reinterpret_cast<void*>(base);
  }
  auto as = std::unique_ptr<AddressSpace>(new AddressSpace(static_cast<uint8_t*>(p), size));
  as->mmap_top_ = size;
  return as;
}

AddressSpace::~AddressSpace() {
  ::munmap(base_, size_ + kGuardSize);
}

bool AddressSpace::overlaps_locked(uint64_t start, uint64_t end) const {
  auto it = vmas_.lower_bound(end);
  if (it == vmas_.begin()) return false;
  --it;
  return it->second.end > start;
}

int64_t AddressSpace::find_free_locked(uint64_t len, uint64_t hint) const {
  if (hint != 0) {
    hint = page_down(hint);
    if (hint >= kMmapMinAddr && range_ok(hint, len) && !overlaps_locked(hint, hint + len)) return hint;
  }
  // Top-down first fit below mmap_top_, as Linux's default layout does.
  uint64_t top = mmap_top_;
  auto it = vmas_.lower_bound(top);
  while (true) {
    uint64_t gap_floor = kMmapMinAddr;
    if (it != vmas_.begin()) {
      auto prev = std::prev(it);
      gap_floor = std::max(prev->second.end, kMmapMinAddr);
      if (prev->second.end > top) {  // a VMA straddles top
        top = prev->second.start;
        it = prev;
        continue;
      }
    }
    if (top >= gap_floor && top - gap_floor >= len) return top - len;
    if (it == vmas_.begin()) return -ENOMEM;
    --it;
    top = it->second.start;
  }
}

void AddressSpace::split_at_locked(uint64_t addr) {
  auto it = vmas_.upper_bound(addr);
  if (it == vmas_.begin()) return;
  --it;
  Vma& v = it->second;
  if (v.start >= addr || v.end <= addr) return;
  Vma tail = v;
  tail.start = addr;
  if (!(v.flags & kVmaAnon)) tail.offset = v.offset + (addr - v.start);
  v.end = addr;
  vmas_.emplace(addr, std::move(tail));
}

bool AddressSpace::punches_hole_locked(uint64_t start, uint64_t end) const {
  const Vma* v = vma_at_locked(start);
  return v != nullptr && v->start < start && end < v->end;
}

void AddressSpace::merge_range_locked(uint64_t start, uint64_t end) {
  auto it = vmas_.lower_bound(start);
  while (it != vmas_.end() && it->first <= end) {
    const uint64_t at = it->first;
    ++it;  // merging erases the VMA at `at`, never the next one
    merge_around_locked(at);
  }
}

void AddressSpace::remove_range_locked(uint64_t start, uint64_t end) {
  split_at_locked(start);
  split_at_locked(end);
  auto it = vmas_.lower_bound(start);
  while (it != vmas_.end() && it->first < end) {
    if ((it->second.prot & PROT_EXEC) && it->second.fetched) bump_code_generation();
    it = vmas_.erase(it);
  }
}

int64_t AddressSpace::try_release_host_locked(uint64_t start, uint64_t end) {
  // Return the pages to the PROT_NONE reservation; never host-munmap inside the window (a uc instance maps
  // it).
  return ::mmap(host(start), end - start, PROT_NONE, kReserveFlags, -1, 0) == MAP_FAILED ? -errno : 0;
}

void AddressSpace::release_host_locked(uint64_t start, uint64_t end) {
  if (const int64_t r = try_release_host_locked(start, end); r < 0) {
    fmt::print(stderr, "a64run: fatal: cannot return guest pages to the reservation: {}\n", strerror(-r));
    abort();
  }
}

int64_t AddressSpace::map_fixed_locked(uint64_t addr, uint64_t len, int prot, uint32_t vflags,
                                       const MapSource& src) {
  const uint64_t end = addr + len;
  const int hprot = host_prot(prot);
  const int share = (vflags & kVmaShared) ? MAP_SHARED : MAP_PRIVATE;
  if (src.host_fd < 0) {
    // Huge pages are reserved at mmap time (no MAP_NORESERVE), so a later fault never finds none: that
    // SIGBUS would hit the emulator. The host refuses with ENOMEM first when it has too few.
    const int kind = src.huge_shift != 0 ? MAP_HUGETLB | (src.huge_shift << MAP_HUGE_SHIFT) : MAP_NORESERVE;
    if (vflags & kVmaDroppable) {
      if (const int64_t r = map_droppable(host(addr), len, hprot); r < 0) return r;
    } else if (::mmap(host(addr), len, hprot, share | MAP_ANONYMOUS | kind | MAP_FIXED, -1, 0) ==
               MAP_FAILED) {
      return -errno;
    }
    // Under A64RUN_HUGE_PAGES, large private memory on huge pages (docs/memory.md): a guest's big arrays
    // and heaps miss the host's TLB less, and a first touch costs one fault per 2 MiB. The guest's own
    // MADV_NOHUGEPAGE still reaches the host (advise_huge_pages); the host refusing is no error.
    if (share == MAP_PRIVATE && src.huge_shift == 0 && len >= kThpSize && guest_huge_pages() &&
        !(vflags & (kVmaNoHugePage | kVmaStack | kVmaGrowsDown)))
      (void)::madvise(host(addr), len, MADV_HUGEPAGE);
  } else {
    // The invariant for file pages past the end of the file: a file mapping is the host's mapping of the
    // same file over the whole VMA, whatever the file's length now; a64run keeps no length of its own.
    // Linux decides at each fault whether a page lies past the end of the file (SIGBUS) or holds its data,
    // and the host makes the same decision for the guest's access when the access happens: once the file
    // has grown (ftruncate, write, fallocate, by any process) the page reads the file and MAP_SHARED stores
    // reach it; after a shrink it faults again. A host SIGBUS there is the guest's: in translated code its
    // SIGBUS (emu/host_fault.cpp, case (b)), in a checked copy EFAULT (emu/fault_access.h), in a host system
    // call the host's EFAULT. The TLB fill hook, which also serves Unicorn's helpers (exclusives, atomics),
    // asks the host at each fill (page_prot). The host mapping lies inside the window like any other, so
    // the bounds argument of docs/memory.md covers it.
    if (::mmap(host(addr), len, hprot, share | src.host_flags | MAP_FIXED, src.host_fd,
               static_cast<off_t>(src.offset)) == MAP_FAILED)
      return -errno;
    struct stat st {};
    if (::fstat(src.host_fd, &st) == 0 && S_ISREG(st.st_mode)) vflags |= kVmaRegularFile;
  }
  if (overlaps_locked(addr, end)) {
    remove_range_locked(addr, end);
    bump_generation();
  }
  if (lock_future_ >= 0 && lock_new_mapping(host(addr), len, lock_future_, src.host_fd >= 0) != 0) {
    // mlock_future_ok refused: Linux checks before it maps; here the range is given back (a MAP_FIXED
    // mapping it replaced is gone, where Linux keeps it).
    release_host_locked(addr, end);
    return -EAGAIN;
  }
  Vma v;
  v.start = addr;
  v.end = end;
  v.prot = prot;
  v.flags = vflags;
  v.offset = src.host_fd < 0 ? 0 : src.offset;
  v.dev = src.dev;
  v.inode = src.inode;
  v.name = src.name;
  v.huge_shift = src.huge_shift;
  if (lock_future_ >= 0) v.flags |= kVmaLocked;
  vmas_.emplace(addr, std::move(v));
  return static_cast<int64_t>(addr);
}

int64_t AddressSpace::mmap(uint64_t addr, uint64_t len, int prot, int flags, const MapSource& src) {
  if (len == 0 || (src.offset & kPageMask)) return -EINVAL;
  if (prot & ~(kProtMask | kGuestProtBti)) return -EINVAL;
  prot &= kProtMask;
  const int type = flags & MAP_SHARED_VALIDATE;
  if (type != MAP_SHARED && type != MAP_PRIVATE && type != MAP_SHARED_VALIDATE) return -EINVAL;
  if (len > size_) return -ENOMEM;
  // Huge pages: the length rounds up to whole huge pages, and the address is one's start.
  const uint64_t align = src.huge_shift != 0 ? uint64_t{1} << src.huge_shift : kPageSize;
  len = (len + align - 1) & ~(align - 1);
  uint32_t vflags = 0;
  if (type != MAP_PRIVATE) vflags |= kVmaShared;
  if (src.host_fd < 0) vflags |= kVmaAnon;
  if (flags & MAP_GROWSDOWN) vflags |= kVmaGrowsDown;
  if (flags & MAP_STACK) vflags |= kVmaNoHugePage;
  if (src.droppable) vflags |= kVmaDroppable;
  if (src.main_stack) vflags |= kVmaStack;

  std::optional<CodeGate::Closed> closed;
  if ((flags & MAP_FIXED) && range_ok(addr, len) && any_access(addr, addr + len)) closed.emplace(gate_);
  std::unique_lock lk(mu_);
  // do_mmap: one VMA past vm.max_map_count is allowed, not two.
  if (vmas_.size() > max_map_count()) return -ENOMEM;
  int64_t where;
  if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) {
    if (addr & (align - 1)) return -EINVAL;
    if (!range_ok(addr, len) || addr < kMmapMinAddr) return (flags & MAP_FIXED) ? -ENOMEM : -EPERM;
    if (!(flags & MAP_FIXED) && overlaps_locked(addr, addr + len)) return -EEXIST;
    // vms_gather_munmap_vmas: a MAP_FIXED hole in the middle of a VMA needs one more VMA.
    if (punches_hole_locked(addr, addr + len) && vmas_.size() >= max_map_count()) return -ENOMEM;
    if (sealed_in_locked(addr, addr + len)) return -EPERM;
    where = static_cast<int64_t>(addr);
  } else if (align == kPageSize) {
    where = find_free_locked(len, addr);
    if (where < 0) return where;
  } else {
    // A free range with room for the alignment, then its first aligned address.
    where = find_free_locked(len + align - kPageSize, addr & ~(align - 1));
    if (where < 0) return where;
    where = static_cast<int64_t>((static_cast<uint64_t>(where) + align - 1) & ~(align - 1));
  }
  if (over_as_limit_locked(len, static_cast<uint64_t>(where), static_cast<uint64_t>(where) + len))
    return -ENOMEM;
  const int64_t r = map_fixed_locked(static_cast<uint64_t>(where), len, prot, vflags, src);
  // vma_merge_new_range: a new mapping joins its neighbours of the same kind, so the count and
  // /proc/PID/maps are Linux's.
  if (r >= 0) merge_range_locked(where, where + len);
  return r;
}

int64_t AddressSpace::munmap(uint64_t addr, uint64_t len) {
  // do_vmi_munmap's checks: the length is checked before it is rounded, so none wraps.
  if ((addr & kPageMask) || len == 0 || !user_range_ok(addr, len)) return -EINVAL;
  const uint64_t end = std::min(addr + page_up(len), size_);  // nothing is mapped above the window
  if (addr >= end) return 0;
  std::optional<CodeGate::Closed> closed;
  if (any_access(addr, end)) closed.emplace(gate_);
  std::unique_lock lk(mu_);
  // vms_gather_munmap_vmas: a hole in the middle of a VMA needs one more VMA.
  if (punches_hole_locked(addr, end) && vmas_.size() >= max_map_count()) return -ENOMEM;
  return unmap_locked(addr, end);
}

int64_t AddressSpace::unmap_locked(uint64_t start, uint64_t end) {
  if (!overlaps_locked(start, end)) return 0;
  if (sealed_in_locked(start, end)) return -EPERM;  // vms_gather_munmap_vmas: nothing is unmapped
  // First the host: unmapping the middle of a mapping splits it, and past the host's map count limit
  // (vm.max_map_count) the host refuses with ENOMEM, which is what Linux answers the guest then.
  if (const int64_t r = try_release_host_locked(start, end); r < 0) return r;
  remove_range_locked(start, end);
  bump_generation();
  return 0;
}

bool AddressSpace::sealed_in_locked(uint64_t start, uint64_t end) const {
  return any_vma_locked(start, end, [](const Vma& v) { return (v.flags & kVmaSealed) != 0; });
}

int64_t AddressSpace::mseal(uint64_t addr, uint64_t len) {
  const uint64_t end = addr + len;
  std::unique_lock lk(mu_);
  // check_mm_seal: every page of the range is mapped, or nothing is sealed.
  if (!range_ok(addr, len) || !accessible_locked(addr, len, 0)) return -ENOMEM;
  // vma_modify_flags: a VMA that is not sealed yet splits at the range's ends, within vm.max_map_count.
  const Vma& first = *vma_at_locked(addr);
  const Vma& last = *vma_at_locked(end - 1);
  const size_t splits = size_t{first.start < addr && !(first.flags & kVmaSealed)} +
                        size_t{end < last.end && !(last.flags & kVmaSealed)};
  if (splits > 0 && vmas_.size() + splits - 1 >= max_map_count()) return -ENOMEM;
  split_at_locked(addr);
  split_at_locked(end);
  for (auto it = vmas_.lower_bound(addr); it != vmas_.end() && it->first < end; ++it)
    it->second.flags |= kVmaSealed;
  merge_range_locked(addr, end);
  bump_generation();
  return 0;
}

int64_t AddressSpace::mprotect(uint64_t addr, uint64_t len, int prot) {
  // do_mprotect_pkey's order: both growth directions, alignment, an empty range (whatever prot says), a
  // range that wraps, then arch_validate_prot (PROT_SEM and PROT_BTI are accepted, PROT_BTI unenforced).
  if ((prot & PROT_GROWSDOWN) && (prot & PROT_GROWSUP)) return -EINVAL;
  if (addr & kPageMask) return -EINVAL;
  if (len == 0) return 0;
  len = page_up(len);
  if (addr + len <= addr) return -ENOMEM;
  if (prot & ~(kProtMask | kGuestProtSem | kGuestProtBti | PROT_GROWSDOWN | PROT_GROWSUP)) return -EINVAL;
  prot &= kProtMask;
  if (!range_ok(addr, len)) return -ENOMEM;
  const uint64_t end = addr + len;
  std::optional<CodeGate::Closed> closed;
  if (any_access(addr, end)) closed.emplace(gate_);
  std::unique_lock lk(mu_);
  // do_mprotect_pkey changes the VMAs of the range in order and stops at the first one it cannot change, the
  // VMAs before it keeping their new protection: nothing mapped at `addr` or a hole is ENOMEM, a sealed VMA
  // EPERM (mprotect_fixup, Linux 6.12+), and the host's refusal (a shared mapping of a file opened read-only:
  // EACCES, as Linux's VM_MAYWRITE test) its errno. [addr, stop) is what can change.
  uint64_t stop = addr;
  int64_t error = 0;
  auto from = vmas_.upper_bound(addr);
  if (from != vmas_.begin() && std::prev(from)->second.end > addr) --from;
  for (auto it = from; stop < end; ++it) {
    if (it == vmas_.end() || it->second.start > stop) {
      error = -ENOMEM;
      break;
    }
    if (it->second.flags & kVmaSealed) {
      error = -EPERM;
      break;
    }
    stop = std::min(it->second.end, end);
  }
  if (stop == addr) return error;
  // split_vma refuses a split at vm.max_map_count; a VMA that keeps its protection is not split (a64run
  // refuses before it changes anything, where Linux may have changed the VMAs before the last one).
  const Vma& first = *vma_at_locked(addr);
  const Vma& last = *vma_at_locked(stop - 1);
  const size_t splits =
      size_t{first.start < addr && first.prot != prot} + size_t{stop < last.end && last.prot != prot};
  if (splits > 0 && vmas_.size() + splits - 1 >= max_map_count()) return -ENOMEM;
  split_at_locked(addr);
  split_at_locked(stop);
  for (auto it = vmas_.lower_bound(addr); it != vmas_.end() && it->first < stop; ++it) {
    Vma& v = it->second;
    const int hprot = host_prot(prot);
    if (hprot != host_prot(v.prot) && ::mprotect(host(v.start), v.end - v.start, hprot) != 0) {
      error = -errno;
      break;
    }
    if ((v.prot & PROT_EXEC) && v.fetched && prot != v.prot) {
      bump_code_generation();
      v.fetched = false;
    }
    v.prot = prot;
  }
  merge_range_locked(addr, stop);  // vma_modify_flags: the changed range joins neighbours of the same kind
  bump_generation();
  return error;
}

int64_t AddressSpace::mremap(uint64_t old_addr, uint64_t old_len, uint64_t new_len, int flags,
                             uint64_t new_addr) {
  // check_mremap_params, in mm/mremap.c's order (DONTUNMAP compares the rounded lengths, as Linux 6.x does).
  if (flags & ~(MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP)) return -EINVAL;
  if (old_addr & kPageMask) return -EINVAL;
  old_len = page_up(old_len);  // may round to 0 ("duplicate a shared mapping"), refused below
  new_len = page_up(new_len);
  if (new_len == 0) return -EINVAL;  // 0, or within a page of 2^64
  const bool to = flags & (MREMAP_FIXED | MREMAP_DONTUNMAP);
  if (to && ((new_addr & kPageMask) || !(flags & MREMAP_MAYMOVE))) return -EINVAL;
  if ((flags & MREMAP_DONTUNMAP) && old_len != new_len) return -EINVAL;
  CodeGate::Closed closed(gate_);  // the pages move (and MREMAP_FIXED may replace others)
  std::unique_lock lk(mu_);
  const Vma* v = vma_at_locked(old_addr);
  if (v == nullptr) return -EFAULT;
  if (v->flags & kVmaSealed) return -EPERM;  // check_prep_vma
  // Huge pages move and change size by whole huge pages only, to a huge page's start (the host's release of
  // part of one fails).
  const uint64_t huge_mask = v->huge_shift != 0 ? (uint64_t{1} << v->huge_shift) - 1 : 0;
  if (((old_addr | old_len | new_len | (to ? new_addr : 0)) & huge_mask) != 0) return -EINVAL;
  // vma_to_resize: a growth (or DONTUNMAP's copy) must stay within RLIMIT_AS.
  const uint64_t more = (flags & MREMAP_DONTUNMAP) ? new_len : (new_len > old_len ? new_len - old_len : 0);
  if (more != 0 && over_as_limit_locked(more)) return -ENOMEM;
  const Remap rm{old_addr, old_len, new_len, flags, new_addr};
  return to ? mremap_to_locked(rm) : mremap_at_locked(rm);
}

namespace {

// The file behind the host mapping that holds `p`, opened through /proc/self/map_files (the kernel's own door
// to a mapping's file, whatever became of its name), or -1.
int open_mapped_file(const void* p) {
  FILE* f = ::fopen("/proc/self/maps", "re");
  if (f == nullptr) return -1;
  const auto at = reinterpret_cast<uintptr_t>(p);
  char line[512];
  int fd = -1;
  while (::fgets(line, sizeof line, f) != nullptr) {
    unsigned long start = 0, end = 0;
    if (std::sscanf(line, "%lx-%lx", &start, &end) != 2 || at < start || at >= end) continue;
    const std::string path = fmt::format("/proc/self/map_files/{:x}-{:x}", start, end);
    fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    break;
  }
  ::fclose(f);
  return fd;
}

}  // namespace

const Vma* AddressSpace::vma_at_locked(uint64_t addr) const {
  auto it = vmas_.upper_bound(addr);
  if (it == vmas_.begin() || std::prev(it)->second.end <= addr) return nullptr;
  return &std::prev(it)->second;
}

int64_t AddressSpace::unmap_user_locked(uint64_t addr, uint64_t len) {
  if (len == 0 || !user_range_ok(addr, len)) return -EINVAL;
  if (addr >= size_) return 0;
  return unmap_locked(addr, std::min(addr + len, size_));
}

// vma_to_resize: what may be moved or grown. `len` bytes from `addr`, inside the VMA at `addr`.
int64_t AddressSpace::resizable_locked(uint64_t addr, uint64_t len) const {
  const Vma* v = vma_at_locked(addr);
  if (v == nullptr) return -EFAULT;
  // old_len 0 asks for a second mapping of a shared object: refused for private memory, as Linux does, and
  // for shared memory too (a64run keeps no handle on the object behind a mapping).
  if (len == 0) return -EINVAL;
  if (len > v->end - addr) return -EFAULT;
  return 0;
}

// mremap without a new address (mremap_at): the same size is a no-op, a shrink unmaps the tail (whatever
// lies there), a growth extends in place when the pages after the VMA are free, or else moves.
int64_t AddressSpace::mremap_at_locked(const Remap& rm) {
  if (rm.old_len == rm.new_len) return static_cast<int64_t>(rm.old_addr);
  if (rm.old_len > rm.new_len) {
    const int64_t r = unmap_user_locked(rm.old_addr + rm.new_len, rm.old_len - rm.new_len);
    return r < 0 ? r : static_cast<int64_t>(rm.old_addr);
  }
  if (const int64_t r = resizable_locked(rm.old_addr, rm.old_len); r < 0) return r;
  if (const int64_t r = grow_in_place_locked(rm); r != -ENOMEM) return r;
  if (!(rm.flags & MREMAP_MAYMOVE)) return -ENOMEM;
  const int64_t dest = find_free_locked(rm.new_len, 0);
  if (dest < 0) return dest;
  return move_pages_locked(rm, static_cast<uint64_t>(dest));
}

// vrm_can_expand_in_place: the range ends where its VMA ends and the pages after it are free.
int64_t AddressSpace::grow_in_place_locked(const Remap& rm) {
  const Vma v = *vma_at_locked(rm.old_addr);
  const uint64_t grow_at = rm.old_addr + rm.old_len;
  if (grow_at != v.end || !range_ok(rm.old_addr, rm.new_len) ||
      overlaps_locked(grow_at, rm.old_addr + rm.new_len))
    return -ENOMEM;
  MapSource src;
  src.dev = v.dev;
  src.inode = v.inode;
  src.name = v.name;
  src.huge_shift = v.huge_shift;
  int fd = -1;
  if (!(v.flags & kVmaAnon)) {
    // A file mapping grows with the next part of the same file, mapped from the file behind the host's
    // mapping (the VMA keeps no descriptor).
    fd = open_mapped_file(host(rm.old_addr));
    if (fd < 0) return -ENOMEM;
    src.host_fd = fd;
    src.offset = v.offset + (v.end - v.start);
  }
  const int64_t r = map_fixed_locked(grow_at, rm.new_len - rm.old_len, v.prot, v.flags, src);
  if (fd >= 0) ::close(fd);
  if (r < 0) return r;
  merge_around_locked(grow_at, /*continuation=*/true);
  return static_cast<int64_t>(rm.old_addr);
}

// mremap_to (MREMAP_FIXED, or MREMAP_DONTUNMAP): the destination is checked, cleared under MREMAP_FIXED,
// and a shrink first unmaps the tail of the old range, so that exactly new_len bytes move and nothing is
// written outside [new_addr, new_addr + new_len).
int64_t AddressSpace::mremap_to_locked(Remap rm) {
  if (rm.new_len > kTaskSize || rm.new_addr > kTaskSize - rm.new_len) return -EINVAL;
  if (rm.old_addr + rm.old_len > rm.new_addr && rm.new_addr + rm.new_len > rm.old_addr) return -EINVAL;
  if (rm.flags & MREMAP_FIXED) {
    if (const int64_t r = unmap_user_locked(rm.new_addr, rm.new_len); r < 0) return r;
    if (vma_at_locked(rm.old_addr) == nullptr) return -EFAULT;
  }
  if (rm.old_len > rm.new_len) {
    if (const int64_t r = unmap_user_locked(rm.old_addr + rm.new_len, rm.old_len - rm.new_len); r < 0)
      return r;
    rm.old_len = rm.new_len;
  }
  if (const int64_t r = resizable_locked(rm.old_addr, rm.old_len); r < 0) return r;
  uint64_t dest = rm.new_addr;
  if (rm.flags & MREMAP_FIXED) {
    // get_unmapped_area(MAP_FIXED): below vm.mmap_min_addr is refused; above the window a64run has no room
    // (a user address on Linux: there a64run answers ENOMEM, as mmap does).
    if (dest < kMmapMinAddr) return -EPERM;
    if (!range_ok(dest, rm.new_len)) return -ENOMEM;
  } else {
    const int64_t f = find_free_locked(rm.new_len, dest);  // DONTUNMAP alone: new_addr is a hint
    if (f < 0) return f;
    dest = static_cast<uint64_t>(f);
  }
  return move_pages_locked(rm, dest);
}

// move_vma: the old_len bytes at old_addr (old_len <= new_len here) go to dest, with the rest of new_len
// mapped after them as the VMA continues (zero pages, or the next part of the file); [dest, dest + new_len)
// is free and disjoint from the old range.
int64_t AddressSpace::move_pages_locked(const Remap& rm, uint64_t dest) {
  // move_vma: a move may split the old VMA and the new range's neighbours, up to three more VMAs.
  if (vmas_.size() + 3 >= max_map_count()) return -ENOMEM;
  const Vma v = *vma_at_locked(rm.old_addr);
  const bool anon = v.flags & kVmaAnon;
  const uint64_t old_addr = rm.old_addr;
  const uint64_t old_len = rm.old_len;
  MapSource src;
  src.offset = anon ? 0 : v.offset + (old_addr - v.start);
  src.dev = v.dev;
  src.inode = v.inode;
  src.name = v.name;
  src.huge_shift = v.huge_shift;
  int ext_fd = -1;  // a file mapping that grows as it moves continues the file
  if (!anon && rm.new_len > old_len) {
    ext_fd = open_mapped_file(host(old_addr));
    if (ext_fd < 0) return -ENOMEM;
  }
  // Move the pages themselves (contents, sharing, file backing) with the host's mremap; DONTUNMAP keeps the
  // old host range mapped so the reservation never has a hole another host thread could take.
  void* moved = ::mremap(host(old_addr), old_len, old_len, MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP,
                         host(dest));
  const bool copied = moved == MAP_FAILED;
  if (copied && (!anon || (v.flags & kVmaShared))) {
    const int64_t err = -errno;
    if (ext_fd >= 0) ::close(ext_fd);
    return err;
  }
  if (copied) {
    // Fallback: copy private anonymous contents (the two ranges are disjoint; the source is made readable
    // for the copy: it is going away or becomes zero-fill).
    if (::mmap(host(dest), old_len, PROT_READ | PROT_WRITE, kReserveFlags & ~MAP_NORESERVE, -1, 0) ==
            MAP_FAILED ||
        ::mprotect(host(old_addr), old_len, PROT_READ) != 0)
      return -errno;
    memcpy(host(dest), host(old_addr), old_len);
    ::mprotect(host(dest), old_len, host_prot(v.prot));
  }
  Vma nv = v;
  nv.start = dest;
  nv.end = dest + old_len;
  nv.offset = src.offset;
  vmas_.emplace(dest, std::move(nv));
  if (!(rm.flags & MREMAP_DONTUNMAP)) {
    remove_range_locked(old_addr, old_addr + old_len);
    release_host_locked(old_addr, old_addr + old_len);
  } else if (copied) {
    // The old range stays mapped and reads as zero-fill from now on, as Linux (and the host's DONTUNMAP)
    // does.
    if (::mmap(host(old_addr), old_len, host_prot(v.prot), kReserveFlags, -1, 0) == MAP_FAILED) return -errno;
  }
  if (rm.new_len > old_len) {
    src.host_fd = ext_fd;
    if (!anon) src.offset += old_len;
    const int64_t r = map_fixed_locked(dest + old_len, rm.new_len - old_len, v.prot, v.flags, src);
    if (ext_fd >= 0) ::close(ext_fd);
    if (r < 0) return r;
    merge_around_locked(dest + old_len, /*continuation=*/true);
  }
  bump_generation();
  return static_cast<int64_t>(dest);
}

// remap_file_pages(2), deprecated, which Linux emulates as an mmap of the VMA's file at another offset over
// the range (MAP_SHARED | MAP_FIXED | MAP_POPULATE, the VMA's protection): its checks in the kernel's order
// (prot must be 0; the rounded range may not wrap, nor the file offset; the range lies in one shared file
// mapping, or in VMAs of the same file and flags without a hole). The host's own call on the window, whose
// mapping is the same file, moves the pages; the VMAs of the range take the new offset (code translated
// from the old contents is dropped) and join their neighbours as the new mapping would.
int64_t AddressSpace::remap_file_pages(uint64_t start, uint64_t size, uint64_t prot, uint64_t pgoff,
                                       uint64_t flags) {
  if (prot != 0) return -EINVAL;
  start &= ~kPageMask;
  size &= ~kPageMask;
  if (start + size <= start) return -EINVAL;
  if (pgoff + (size >> 12) < pgoff || pgoff > (UINT64_MAX >> 12)) return -EINVAL;
  if (!range_ok(start, size)) return -EINVAL;
  const uint64_t end = start + size;
  std::optional<CodeGate::Closed> closed;
  if (any_access(start, end)) closed.emplace(gate_);
  std::unique_lock lk(mu_);
  const Vma* first = vma_at_locked(start);
  // (Shared anonymous memory and SysV segments are shmem files in Linux: they qualify.)
  if (first == nullptr || !(first->flags & kVmaShared)) return -EINVAL;
  for (uint64_t at = first->end; at < end;) {
    const Vma* next = vma_at_locked(at);
    if (next == nullptr || next->start != at || next->dev != first->dev || next->inode != first->inode ||
        next->flags != first->flags || next->prot != first->prot)
      return -EINVAL;
    at = next->end;
  }
  if (::syscall(SYS_remap_file_pages, host(start), size, 0, pgoff, flags & MAP_NONBLOCK) != 0) return -errno;
  split_at_locked(start);
  split_at_locked(end);
  for (auto it = vmas_.lower_bound(start); it != vmas_.end() && it->first < end; ++it) {
    Vma& v = it->second;
    v.offset = (pgoff << 12) + (v.start - start);
    if ((v.prot & PROT_EXEC) && v.fetched) {
      bump_code_generation();
      v.fetched = false;
    }
  }
  merge_range_locked(start, end);
  bump_generation();
  return 0;
}

int64_t AddressSpace::msync(uint64_t addr, uint64_t len, int flags) {
  if ((addr & kPageMask) || (flags & ~(MS_ASYNC | MS_SYNC | MS_INVALIDATE))) return -EINVAL;
  if ((flags & MS_ASYNC) && (flags & MS_SYNC)) return -EINVAL;
  len = page_up(len);
  if (!range_ok(addr, len)) return -ENOMEM;
  std::shared_lock lk(mu_);
  if (!accessible_locked(addr, len, 0)) return -ENOMEM;
  if (len != 0 && ::msync(host(addr), len, flags) != 0) return -errno;
  return 0;
}

void AddressSpace::set_brk_base(uint64_t addr) {
  std::unique_lock lk(mu_);
  brk_base_ = brk_ = addr;
}

uint64_t AddressSpace::brk(uint64_t addr) {
  // A break within a page of 2^64 rounds up to 0: Linux then fails to grow the heap by "-old top" bytes and
  // returns the old break (it never shrinks to 0).
  if (page_up(addr) < addr) return brk_value();
  bool shrinks;
  {
    std::shared_lock lk(mu_);
    shrinks = addr >= brk_base_ && page_up(addr) < page_up(brk_);
  }
  std::optional<CodeGate::Closed> closed;
  if (shrinks) closed.emplace(gate_);
  std::unique_lock lk(mu_);
  if (addr < brk_base_) return brk_;
  const uint64_t old_top = page_up(brk_);
  const uint64_t new_top = page_up(addr);
  if (new_top > old_top) {
    if (!range_ok(old_top, new_top - old_top) || overlaps_locked(old_top, new_top)) return brk_;
    if (over_as_limit_locked(new_top - old_top)) return brk_;  // brk's may_expand_vm
    MapSource src;
    src.name = "[heap]";
    if (map_fixed_locked(old_top, new_top - old_top, PROT_READ | PROT_WRITE, kVmaAnon | kVmaHeap, src) < 0)
      return brk_;
    merge_around_locked(old_top);  // one [heap] in /proc/self/maps
  }
  if (addr > brk_ && (brk_ & kPageMask)) {
    // The rest of the break's last page may hold data from before a shrink: it comes back zeroed.
    memset(host(brk_), 0, std::min(addr, page_up(brk_)) - brk_);
  }
  if (new_top < old_top && sealed_in_locked(new_top, old_top)) return brk_;  // do_vmi_align_munmap: EPERM
  if (new_top < old_top) {
    remove_range_locked(new_top, old_top);
    release_host_locked(new_top, old_top);
    bump_generation();
  }
  brk_ = addr;
  return brk_;
}

uint64_t AddressSpace::brk_value() const {
  std::shared_lock lk(mu_);
  return brk_;
}

AddressSpace::Reach AddressSpace::reach_locked(uint64_t addr, uint64_t len, int prot) const {
  Reach r{0, 0};
  if (addr >= size_) return r;
  const uint64_t end = addr + std::min(len, size_ - addr);
  uint64_t cursor = addr;
  bool contiguous = true;  // no gap yet: the usable prefix still grows
  auto it = vmas_.upper_bound(addr);
  if (it != vmas_.begin()) --it;
  for (; it != vmas_.end() && it->second.start < end; ++it) {
    const Vma& v = it->second;
    if (v.end <= cursor) continue;
    if (v.start > cursor) contiguous = false;
    if ((v.prot & prot) != prot) {
      r.reach = std::max(cursor, v.start) - addr;
      return r;
    }
    const uint64_t vend = std::min(v.end, end);
    if (contiguous) r.usable = vend - addr;
    cursor = vend;
  }
  r.reach = end - addr;
  return r;
}

bool AddressSpace::any_access(uint64_t start, uint64_t end) const {
  std::shared_lock lk(mu_);
  return any_vma_locked(start, end, [](const Vma& v) { return v.prot != PROT_NONE; });
}

bool AddressSpace::accessible_locked(uint64_t addr, uint64_t len, int prot) const {
  if (!range_ok(addr, len)) return false;
  if (len == 0) return true;
  const uint64_t end = addr + len;
  auto it = vmas_.upper_bound(addr);
  if (it == vmas_.begin()) return false;
  --it;
  uint64_t cursor = addr;
  for (; it != vmas_.end() && cursor < end; ++it) {
    const Vma& v = it->second;
    if (v.start > cursor || v.end <= cursor || (v.prot & prot) != prot) return false;
    cursor = v.end;
  }
  return cursor >= end;
}

// Joins the VMA starting at addr with the one ending there when they describe the same kind of memory.
void AddressSpace::merge_around_locked(uint64_t addr, bool continuation) {
  auto it = vmas_.find(addr);
  if (it == vmas_.end() || it == vmas_.begin()) return;
  auto prev = std::prev(it);
  if (!same_kind(prev->second, it->second, continuation)) return;
  prev->second.end = it->second.end;
  prev->second.fetched |= it->second.fetched;
  vmas_.erase(it);
}

bool AddressSpace::is_shared(uint64_t addr) const {
  std::shared_lock lk(mu_);
  auto it = vmas_.upper_bound(addr);
  return it != vmas_.begin() && std::prev(it)->second.end > addr &&
         (std::prev(it)->second.flags & kVmaShared);
}

bool AddressSpace::grow_down_locked(uint64_t addr) {
  auto it = vmas_.upper_bound(addr);
  if (it == vmas_.end() || !(it->second.flags & kVmaGrowsDown)) return false;
  Vma& v = it->second;
  const uint64_t new_start = page_down(addr);
  if (v.end - new_start > kMaxStackGrowth) return false;
  if (it != vmas_.begin() && std::prev(it)->second.end + kStackGuardGap > new_start) return false;
  if (::mmap(host(new_start), v.start - new_start, host_prot(v.prot),
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) == MAP_FAILED)
    return false;
  Vma grown = v;
  grown.start = new_start;
  vmas_.erase(it);
  vmas_.emplace(new_start, std::move(grown));
  return true;
}

int AddressSpace::page_prot(uint64_t addr, bool* past_eof, bool fetch) {
  {
    std::shared_lock lk(mu_);
    auto it = vmas_.upper_bound(addr);
    if (it != vmas_.begin() && std::prev(it)->second.end > addr) {
      Vma& v = std::prev(it)->second;
      // A page of a regular file the guest may touch: the host's mapping says whether it lies past the end
      // of the file now (map_fixed_locked's invariant). Under the shared lock the host mapping is the VMA's,
      // so a SIGBUS of this load is the file's. Once the guest has installed guard pages (MADV_GUARD_INSTALL,
      // which the host's pages carry), every page is asked: a SIGSEGV there is a guard page, which Linux
      // faults as it faults no mapping at all (VM_FAULT_SIGSEGV: SEGV_MAPERR).
      uint32_t word;
      *past_eof = false;
      const bool ask = v.prot != PROT_NONE &&
                       ((v.flags & kVmaRegularFile) || guards_installed_.load(std::memory_order_relaxed));
      if (ask && !fault_load32(reinterpret_cast<const uint32_t*>(host(page_down(addr))), &word)) {
        if (last_fault_signal() != SIGBUS) return -1;
        *past_eof = true;
      }
      if (fetch && (v.prot & PROT_EXEC)) {
        std::atomic_ref<bool> fetched(v.fetched);
        if (!fetched.load(std::memory_order_relaxed)) fetched.store(true, std::memory_order_relaxed);
      }
      return v.prot;
    }
    if (it == vmas_.end() || !(it->second.flags & kVmaGrowsDown)) return -1;
  }
  std::unique_lock lk(mu_);
  *past_eof = false;
  if (!grow_down_locked(addr)) return -1;
  if (vmas_.upper_bound(addr) == vmas_.begin()) return -1;
  Vma& v = std::prev(vmas_.upper_bound(addr))->second;
  if (fetch && (v.prot & PROT_EXEC)) v.fetched = true;
  return v.prot;
}

std::vector<Vma> AddressSpace::snapshot() const {
  std::shared_lock lk(mu_);
  std::vector<Vma> out;
  out.reserve(vmas_.size());
  for (const auto& [start, v] : vmas_) out.push_back(v);
  return out;
}

std::string AddressSpace::render_maps_line(const Vma& v) {
  const char perms[5] = {(v.prot & PROT_READ) ? 'r' : '-', (v.prot & PROT_WRITE) ? 'w' : '-',
                         (v.prot & PROT_EXEC) ? 'x' : '-', (v.flags & kVmaShared) ? 's' : 'p', 0};
  std::string line = fmt::format("{:08x}-{:08x} {} {:08x} {:02x}:{:02x} {}", v.start, v.end, perms, v.offset,
                                 major(v.dev), minor(v.dev), v.inode);
  if (!v.name.empty()) {
    line.resize(std::max<size_t>(line.size() + 1, 73), ' ');
    line += v.name;
  }
  return line;
}

std::string AddressSpace::render_maps() const {
  std::string out;
  for (const Vma& v : snapshot()) {
    out += render_maps_line(v);
    out += '\n';
  }
  return out;
}

}  // namespace emu
