// This file implements madvise(2) on the guest address space: the advice Linux accepts, the host's call for
// each VMA of the range, and the advice that is part of a VMA's flags (transparent huge pages).
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <mutex>
#include <shared_mutex>

#include "emu/address_space.h"

namespace emu {
namespace {

// MADV_GUARD_INSTALL and MADV_GUARD_REMOVE (Linux 6.13).
constexpr int kMadvGuardInstall = 102;
constexpr int kMadvGuardRemove = 103;

}  // namespace

bool AddressSpace::discard_refused(const Vma& v, int advice) {
  switch (advice) {  // is_discard
    case MADV_FREE:
    case MADV_DONTNEED:
    case MADV_DONTNEED_LOCKED:
    case MADV_REMOVE:
    case MADV_DONTFORK:
    case MADV_WIPEONFORK:
    case kMadvGuardInstall:
      break;
    default:
      return false;
  }
  const bool ro_anon = (v.flags & kVmaAnon) && !(v.flags & kVmaShared) && !(v.prot & PROT_WRITE);
  return (v.flags & kVmaSealed) && ro_anon;
}

int64_t AddressSpace::madvise(uint64_t addr, uint64_t len, int advice) {
  // is_valid_madvise's order: the advice, alignment, a length rounded up to 0, a range that wraps.
  switch (advice) {
    case MADV_NORMAL:
    case MADV_RANDOM:
    case MADV_SEQUENTIAL:
    case MADV_WILLNEED:
    case MADV_DONTNEED:
    case MADV_FREE:
    case MADV_REMOVE:
    case MADV_DONTFORK:
    case MADV_DOFORK:
    case MADV_MERGEABLE:
    case MADV_UNMERGEABLE:
    case MADV_HUGEPAGE:
    case MADV_NOHUGEPAGE:
    case MADV_DONTDUMP:
    case MADV_DODUMP:
    case MADV_WIPEONFORK:
    case MADV_KEEPONFORK:
    case MADV_COLD:
    case MADV_PAGEOUT:
    case MADV_POPULATE_READ:   // the host faults the pages in with the guest's permissions (EFAULT, as
    case MADV_POPULATE_WRITE:  // Linux, for what an access would not be allowed)
    case 25:                   // MADV_COLLAPSE (Linux 6.1; newer than Debian 12's headers)
      break;
    case kMadvGuardInstall:  // the host's pages carry the guard (page_prot tells them from others)
      guards_installed_.store(true, std::memory_order_relaxed);
      break;
    case kMadvGuardRemove:
      break;
    default:
      return -EINVAL;
  }
  if (addr & kPageMask) return -EINVAL;
  const uint64_t rounded = page_up(len);
  if ((len != 0 && rounded == 0) || addr + rounded < addr) return -EINVAL;
  len = rounded;
  if (len == 0) return 0;
  if (!range_ok(addr, len)) return -ENOMEM;
  if (advice == MADV_HUGEPAGE || advice == MADV_NOHUGEPAGE) return advise_huge_pages(addr, len, advice);
  std::shared_lock lk(mu_);
  // madvise_walk_vmas advises the VMAs in order and goes on past a hole (ENOMEM at the end); an error stops
  // it there, the VMAs before keeping the advice, such as a sealed VMA it may not discard (EPERM,
  // Linux 6.12+).
  bool hole = false;
  uint64_t cursor = addr;
  for (auto it = vmas_.upper_bound(addr); cursor < addr + len;) {
    if (it != vmas_.begin() && std::prev(it)->second.end > cursor) {
      const Vma& v = std::prev(it)->second;
      if (discard_refused(v, advice)) return -EPERM;
      const uint64_t e = std::min(v.end, addr + len);
      if (::madvise(host(cursor), e - cursor, advice) != 0 && advice != MADV_MERGEABLE &&
          advice != MADV_UNMERGEABLE)
        return -errno;
      cursor = e;
    } else {
      hole = true;
      if (it == vmas_.end()) break;
      cursor = it->second.start;
    }
    while (it != vmas_.end() && it->second.start <= cursor) ++it;
  }
  return hole ? -ENOMEM : 0;
}

// hugepage_madvise changes the VMAs' flags: the range's VMAs split at its ends (a huge-page mapping only at
// its page size, else EINVAL as hugetlb's split refuses) and join their neighbours again where the flags
// now agree; the VMAs past a hole are advised too, and the answer is then ENOMEM (madvise_walk_vmas). The
// host takes the advice for its own pages; its refusal (transparent_hugepage "never") is no error, as on
// such a Linux.
int64_t AddressSpace::advise_huge_pages(uint64_t addr, uint64_t len, int advice) {
  const uint32_t set = advice == MADV_HUGEPAGE ? kVmaHugePage : kVmaNoHugePage;
  const uint32_t clear = set ^ (kVmaHugePage | kVmaNoHugePage);
  const uint64_t end = addr + len;
  std::unique_lock lk(mu_);
  for (const uint64_t edge : {addr, end}) {
    const Vma* v = vma_at_locked(edge);
    if (v != nullptr && v->huge_shift != 0 && (edge & ((uint64_t{1} << v->huge_shift) - 1)) != 0)
      return -EINVAL;
  }
  split_at_locked(addr);
  split_at_locked(end);
  bool hole = false;
  uint64_t cursor = addr;
  for (auto it = vmas_.lower_bound(addr); it != vmas_.end() && it->first < end; ++it) {
    Vma& v = it->second;
    hole |= v.start != cursor;
    v.flags = (v.flags & ~clear) | set;
    (void)::madvise(host(v.start), v.end - v.start, advice);
    cursor = v.end;
  }
  merge_range_locked(addr, end);
  return hole || cursor < end ? -ENOMEM : 0;
}

}  // namespace emu
