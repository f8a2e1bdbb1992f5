// This file keeps the guest's RLIMIT_AS (docs/memory.md) and answers whether a change of the address space
// stays within it.
#include <algorithm>
#include <atomic>
#include <cstdint>

#include "emu/address_space.h"

namespace emu {

namespace {
std::atomic<uint64_t> g_guest_as_limit{UINT64_MAX};
std::atomic<uint64_t> g_guest_as_max{UINT64_MAX};
}  // namespace

uint64_t guest_as_limit() {
  return g_guest_as_limit.load(std::memory_order_relaxed);
}

void guest_as_rlimit(uint64_t* cur, uint64_t* max) {
  *cur = g_guest_as_limit.load(std::memory_order_relaxed);
  *max = g_guest_as_max.load(std::memory_order_relaxed);
}

void set_guest_as_rlimit(uint64_t cur, uint64_t max) {
  g_guest_as_max.store(max, std::memory_order_relaxed);
  g_guest_as_limit.store(cur, std::memory_order_relaxed);
}

// may_expand_vm: the mappings' total (every VMA counts, PROT_NONE ones too) after the change, in pages,
// against the limit in pages. The walk happens only while a limit is set.
bool AddressSpace::over_as_limit_locked(uint64_t more, uint64_t start, uint64_t end) const {
  const uint64_t limit = guest_as_limit();
  if (limit == UINT64_MAX) return false;
  uint64_t total = 0, replaced = 0;
  for (const auto& [vstart, v] : vmas_) {
    total += v.end - v.start;
    if (start < end && v.start < end && v.end > start)
      replaced += std::min(v.end, end) - std::max(v.start, start);
  }
  return (total - replaced + more) / kPageSize > limit / kPageSize;
}

}  // namespace emu
