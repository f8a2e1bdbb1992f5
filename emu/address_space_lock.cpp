// This file keeps the mlock state of the guest's VMAs (VM_LOCKED), which /proc/self/maps and smaps show.
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "emu/address_space.h"

namespace emu {

// Linux's mmap populates a locked mapping ignoring faults (mm_populate), so pages past the end of the file
// stay unpopulated and the mapping locked. The host's mlock2 applies the lock to the range first, then
// populates, and a page past the end of the file fails that with ENOMEM (EFAULT, turned into ENOMEM by
// __mlock_posix_error_return), leaving the range locked. So a file mapping that fails with ENOMEM is locked
// again with MLOCK_ONFAULT, which populates nothing: it succeeds unless the limit check refuses (its
// ENOMEM; the pages locked by the first call are not counted twice).
int64_t lock_new_mapping(void* host, uint64_t len, int mlock2_flags, bool file) {
  if (::syscall(SYS_mlock2, host, len, mlock2_flags) == 0) return 0;
  if (errno != ENOMEM || !file) return -errno;
  return ::syscall(SYS_mlock2, host, len, MLOCK_ONFAULT) == 0 ? 0 : -errno;
}

void AddressSpace::mark_locked(uint64_t start, uint64_t end, bool locked) {
  std::unique_lock lk(mu_);
  split_at_locked(start);
  split_at_locked(end);
  for (auto it = vmas_.lower_bound(start); it != vmas_.end() && it->first < end; ++it) {
    if (locked) {
      it->second.flags |= kVmaLocked;
    } else {
      it->second.flags &= ~kVmaLocked;
    }
  }
  merge_around_locked(start);
  merge_around_locked(end);
}

void AddressSpace::lock_all(bool current, int future_mlock2_flags) {
  std::unique_lock lk(mu_);
  if (current) {
    for (auto& [start, v] : vmas_) v.flags |= kVmaLocked;
    merge_all_locked();
  }
  lock_future_ = future_mlock2_flags;
}

void AddressSpace::unlock_all() {
  std::unique_lock lk(mu_);
  for (auto& [start, v] : vmas_) v.flags &= ~kVmaLocked;
  merge_all_locked();
  lock_future_ = -1;
}

void AddressSpace::merge_all_locked() {
  auto it = vmas_.begin();
  while (it != vmas_.end()) {
    const size_t before = vmas_.size();
    merge_around_locked(it->second.end);
    if (vmas_.size() == before) ++it;
  }
}

// fork(2): memory locks are not inherited (the host's are not either).
void AddressSpace::forget_locks_after_fork() {
  for (auto& [start, v] : vmas_) v.flags &= ~kVmaLocked;
  lock_future_ = -1;
}

}  // namespace emu
