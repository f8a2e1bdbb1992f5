// This file implements checked copies between guest and host memory.
#include "emu/guest_mem.h"

#include <mutex>
#include <shared_mutex>

namespace emu {

int64_t copy_in(AddressSpace& as, void* dst, uint64_t src, size_t n) {
  if (n == 0) return 0;
  std::shared_lock lk(as.lock());
  if (!as.accessible_locked(src, n, PROT_READ)) return -EFAULT;
  memcpy(dst, as.host(src), n);
  return 0;
}

int64_t copy_out(AddressSpace& as, uint64_t dst, const void* src, size_t n) {
  if (n == 0) return 0;
  std::shared_lock lk(as.lock());
  if (!as.accessible_locked(dst, n, PROT_WRITE)) return -EFAULT;
  memcpy(as.host(dst), src, n);
  return 0;
}

int64_t read_cstring(AddressSpace& as, uint64_t addr, size_t max, std::string* out) {
  out->clear();
  std::shared_lock lk(as.lock());
  // Walk page by page so a string that ends just before an unmapped page is fine.
  while (true) {
    const uint64_t page_end = page_down(addr) + kPageSize;
    if (!as.accessible_locked(addr, 1, PROT_READ)) return -EFAULT;
    const char* p = reinterpret_cast<const char*>(as.host(addr));
    const size_t avail = page_end - addr;
    const void* nul = memchr(p, 0, avail);
    const size_t take = nul ? static_cast<size_t>(static_cast<const char*>(nul) - p) : avail;
    if (out->size() + take > max) return -ENAMETOOLONG;
    out->append(p, take);
    if (nul) return 0;
    addr = page_end;
  }
}

uint8_t* host_range(AddressSpace& as, uint64_t addr, uint64_t len, int prot) {
  std::shared_lock lk(as.lock());
  if (!as.accessible_locked(addr, len, prot)) return nullptr;
  return as.host(addr);
}

HostSpan host_span(AddressSpace& as, uint64_t addr, uint64_t len, int prot) {
  std::shared_lock lk(as.lock());
  const AddressSpace::Reach r = as.reach_locked(addr, len, prot);
  return {r.reach == 0 ? nullptr : as.host(addr), r.reach};
}

}  // namespace emu
