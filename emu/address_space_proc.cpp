// This file answers what the guest's /proc/PID/mem and /proc/PID/pagemap reach in its address space: the
// kernel's FOLL_FORCE rules for mem, the mapped ranges for pagemap.
#include <sys/mman.h>

#include <algorithm>
#include <atomic>

#include "emu/address_space.h"

namespace emu {

uint64_t AddressSpace::forced_reach(uint64_t addr, uint64_t len, bool write, bool* code) const {
  if (len == 0 || addr >= size_) return 0;
  const uint64_t end = addr + std::min(len, size_ - addr);
  std::shared_lock lk(mu_);
  uint64_t cursor = addr;
  auto it = vmas_.upper_bound(addr);
  if (it != vmas_.begin()) --it;
  for (; it != vmas_.end() && cursor < end; ++it) {
    const Vma& v = it->second;
    if (v.end <= cursor) continue;
    if (v.start > cursor) break;  // a hole: access_remote_vm finds no VMA there
    if (write && !(v.prot & PROT_WRITE) && ((v.flags & kVmaShared) || v.huge_shift != 0)) break;
    const uint64_t stop = std::min(v.end, end);
    // Set by the TLB fill hook under the shared lock (the Vma's comment).
    const bool fetched = std::atomic_ref<bool>(const_cast<bool&>(v.fetched)).load(std::memory_order_relaxed);
    if (code != nullptr && (v.prot & PROT_EXEC) && fetched) *code = true;
    cursor = stop;
  }
  return cursor - addr;
}

std::vector<std::pair<uint64_t, uint64_t>> AddressSpace::mapped_ranges(uint64_t start, uint64_t end) const {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  std::shared_lock lk(mu_);
  auto it = vmas_.upper_bound(start);
  if (it != vmas_.begin()) --it;
  for (; it != vmas_.end() && it->second.start < end; ++it) {
    const uint64_t s = std::max(it->second.start, start), e = std::min(it->second.end, end);
    if (s >= e) continue;
    if (!out.empty() && out.back().second == s) {
      out.back().second = e;
    } else {
      out.emplace_back(s, e);
    }
  }
  return out;
}

}  // namespace emu
