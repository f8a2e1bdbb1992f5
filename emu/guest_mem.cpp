// This file implements checked copies between guest and host memory.
#include "emu/guest_mem.h"

#include <algorithm>
#include <mutex>
#include <shared_mutex>

#include "emu/fault_access.h"

// The sanitizer runtimes' range checks (exported by libasan and libtsan, not declared in their headers).
#if defined(__SANITIZE_ADDRESS__)
extern "C" void __asan_loadN(void* p, size_t n);
extern "C" void __asan_storeN(void* p, size_t n);
#elif defined(__SANITIZE_THREAD__)
extern "C" void __tsan_read_range(void* p, size_t n);
extern "C" void __tsan_write_range(void* p, size_t n);
#endif

namespace emu {

namespace {

// The sanitizers see no access of fault_copy (assembly): the host side is checked as a memcpy's would be.
void note_host_write(void* p, size_t n) {
#if defined(__SANITIZE_ADDRESS__)
  __asan_storeN(p, n);
#elif defined(__SANITIZE_THREAD__)
  __tsan_write_range(p, n);
#endif
  (void)p;
  (void)n;
}

void note_host_read(const void* p, size_t n) {
#if defined(__SANITIZE_ADDRESS__)
  __asan_loadN(const_cast<void*>(p), n);
#elif defined(__SANITIZE_THREAD__)
  __tsan_read_range(const_cast<void*>(p), n);
#endif
  (void)p;
  (void)n;
}

}  // namespace

// The VMA check passes pages that may fault all the same (a file page past the end of its file: SIGBUS),
// as Linux's copy_from_user would: fault_copy turns that into EFAULT.
int64_t copy_in(AddressSpace& as, void* dst, uint64_t src, size_t n) {
  if (n == 0) return 0;
  std::shared_lock lk(as.lock());
  if (!as.accessible_locked(src, n, PROT_READ)) return -EFAULT;
  note_host_write(dst, n);
  return fault_copy(dst, as.host(src), n) == 0 ? 0 : -EFAULT;
}

int64_t copy_out(AddressSpace& as, uint64_t dst, const void* src, size_t n) {
  if (n == 0) return 0;
  std::shared_lock lk(as.lock());
  if (!as.accessible_locked(dst, n, PROT_WRITE)) return -EFAULT;
  note_host_read(src, n);
  return fault_copy(as.host(dst), src, n) == 0 ? 0 : -EFAULT;
}

int64_t read_cstring(AddressSpace& as, uint64_t addr, size_t max, std::string* out) {
  out->clear();
  std::shared_lock lk(as.lock());
  // Walk page by page so a string that ends just before an unmapped page is fine; within a page, a short
  // chunk at a time is copied (fault_copy) and searched, since most strings end within the first.
  constexpr size_t kChunk = 256;
  while (true) {
    const uint64_t page_end = page_down(addr) + kPageSize;
    if (!as.accessible_locked(addr, 1, PROT_READ)) return -EFAULT;
    while (addr < page_end) {
      char chunk[kChunk];
      const size_t avail = std::min<uint64_t>(kChunk, page_end - addr);
      if (fault_copy(chunk, as.host(addr), avail) != 0) return -EFAULT;
      const void* nul = memchr(chunk, 0, avail);
      const size_t take = nul ? static_cast<size_t>(static_cast<const char*>(nul) - chunk) : avail;
      if (out->size() + take > max) return -ENAMETOOLONG;
      out->append(chunk, take);
      if (nul) return 0;
      addr += avail;
    }
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
