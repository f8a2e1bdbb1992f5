// This file implements SysV shared memory attaches (and other shared mappings the host makes: AIO rings) in
// the guest window: the host's mapping is made or moved at the host address of the guest pages (over the
// PROT_NONE reservation, so the window never has a hole), and the VMA says which segment it is. The host
// kernel then does what Linux does for the guest: attach counts, inheritance by fork, detaching at execve
// and exit, and IPC_RMID while attached.
#include <fmt/format.h>
#include <sys/mman.h>

#include <cerrno>
#include <optional>
#include <vector>

#include "emu/address_space.h"

namespace emu {
namespace {

constexpr uint64_t kMmapMinAddr = 0x10000;  // vm.mmap_min_addr, as address_space.cpp

}  // namespace

int64_t AddressSpace::attach_segment(uint64_t addr, uint64_t len, bool replace, int prot,
                                     const MapSource& info, const std::function<int64_t(void*)>& attach,
                                     uint32_t vflags) {
  len = page_up(len);
  if (len == 0 || len > size_) return -ENOMEM;
  std::optional<CodeGate::Closed> closed;
  if (replace && addr != 0 && range_ok(addr, len) && any_access(addr, addr + len)) closed.emplace(gate_);
  std::unique_lock lk(mu_);
  if (addr == 0) {
    const int64_t where = find_free_locked(len, 0);
    if (where < 0) return where;
    addr = static_cast<uint64_t>(where);
  } else {
    // do_shmat: an overlap without SHM_REMAP is EINVAL; then do_mmap's MAP_FIXED checks.
    if (!replace && range_ok(addr, len) && overlaps_locked(addr, addr + len)) return -EINVAL;
    if (!range_ok(addr, len)) return -ENOMEM;
    if (addr < kMmapMinAddr) return -EPERM;
    if (sealed_in_locked(addr, addr + len)) return -EPERM;  // SHM_REMAP over a sealed VMA: do_mmap's munmap
  }
  if (const int64_t r = attach(host(addr)); r < 0) return r;
  if (overlaps_locked(addr, addr + len)) {
    remove_range_locked(addr, addr + len);
    bump_generation();
  }
  Vma v;
  v.start = addr;
  v.end = addr + len;
  v.prot = prot;
  v.flags = kVmaShared | vflags;
  v.dev = info.dev;
  v.inode = info.inode;
  v.name = info.name;
  vmas_.emplace(addr, std::move(v));
  return static_cast<int64_t>(addr);
}

void AddressSpace::forget_unmapped(uint64_t addr, uint64_t len) {
  CodeGate::Closed closed(gate_);
  std::unique_lock lk(mu_);
  release_host_locked(addr, addr + len);
  remove_range_locked(addr, addr + len);
  bump_generation();
}

int64_t AddressSpace::detach_segment(uint64_t addr,
                                     const std::function<uint64_t(uint64_t id)>& segment_size) {
  if (addr & kPageMask) return -EINVAL;
  // The pieces to unmap: from the VMA holding addr on, the first attach piece that begins where its own
  // segment offset says the attach began (addr), then every later piece of the same segment that lies within
  // the segment's size of addr.
  std::vector<std::pair<uint64_t, uint64_t>> pieces;
  {
    std::shared_lock lk(mu_);
    auto it = vmas_.upper_bound(addr);
    if (it == vmas_.begin() || std::prev(it)->second.end <= addr) return -EINVAL;
    --it;
    auto is_piece = [addr](const Vma& v) {
      return (v.flags & kVmaSysvShm) && v.start >= addr && v.start - addr == v.offset;
    };
    for (; it != vmas_.end() && !is_piece(it->second); ++it) {
    }
    if (it == vmas_.end()) return -EINVAL;
    const uint64_t id = it->second.inode;
    pieces.emplace_back(it->second.start, it->second.end);
    const uint64_t size = page_up(segment_size(id));
    for (++it; it != vmas_.end() && it->second.end - addr <= size; ++it) {
      if (is_piece(it->second) && it->second.inode == id)
        pieces.emplace_back(it->second.start, it->second.end);
    }
  }
  for (const auto& [start, end] : pieces) munmap(start, end - start);
  return 0;
}

}  // namespace emu
