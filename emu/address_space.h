// AddressSpace owns a guest process's virtual memory: the reserved host window and the list of VMAs.
#pragma once

#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

#include "emu/code_gate.h"
#include "emu/code_pages.h"
#include "emu/tb_share.h"

namespace emu {

inline constexpr uint64_t kPageSize = 4096;
inline constexpr uint64_t kPageMask = kPageSize - 1;

constexpr uint64_t page_down(uint64_t v) {
  return v & ~kPageMask;
}
constexpr uint64_t page_up(uint64_t v) {
  return (v + kPageMask) & ~kPageMask;  // 0 for v within a page of 2^64: callers that take lengths check
}
// arm64's untagged_addr (TBI): bits 63-56 become copies of bit 55.
constexpr uint64_t untagged_addr(uint64_t addr) {
  return static_cast<uint64_t>(static_cast<int64_t>(addr << 8) >> 8);
}

// The user address space of an arm64 Linux process (48-bit virtual addresses): TASK_SIZE, the limit of the
// kernel's access_ok. The guest window is the bottom part of it; addresses above the window are user
// addresses that are never mapped, so a call that only checks access_ok (a zero-length read, a private
// futex wake, munmap) succeeds there as on Linux, and one that touches them faults.
inline constexpr uint64_t kTaskSize = uint64_t{1} << 48;

// Linux's access_ok: [addr, addr+len) is a user range, mapped or not (no wrap, nothing of the kernel half).
constexpr bool user_range_ok(uint64_t addr, uint64_t len) {
  return len <= kTaskSize && addr <= kTaskSize - len;
}

// Guest protection bits use the Linux values (PROT_READ 1, PROT_WRITE 2, PROT_EXEC 4) on both sides.
enum VmaFlags : uint32_t {
  kVmaShared = 1u << 0,     // MAP_SHARED: writes reach the file or other processes
  kVmaAnon = 1u << 1,       // no backing file
  kVmaGrowsDown = 1u << 2,  // MAP_GROWSDOWN: extends downwards on a fault just below it
  kVmaStack = 1u << 3,      // the main thread's stack, "[stack]" in /proc/self/maps
  kVmaHeap = 1u << 4,       // the brk area, "[heap]"
  kVmaSysvShm = 1u << 5,    // a SysV shared memory attach (shmat): inode is the segment's id
  kVmaLocked = 1u << 6,     // mlocked (VM_LOCKED): the host locks the pages, this says so in /proc
  // A regular file's mapping: its pages past the end of the file, which the file's length decides at each
  // access, fault on the host with SIGBUS (AddressSpace::map_fixed_locked).
  kVmaRegularFile = 1u << 7,
  kVmaDroppable = 1u << 8,  // MAP_DROPPABLE (VM_DROPPABLE): wiped on fork, never dumped, may be dropped
  // mseal(2) (VM_SEALED): the VMA can no longer be unmapped, moved, resized, re-protected, mapped over, or
  // discarded while it is private anonymous read-only memory; fork keeps the seal, execve ends it.
  kVmaSealed = 1u << 9,
  // VM_NOHUGEPAGE and VM_HUGEPAGE (smaps "nh", "hg"): MAP_STACK sets the first (Linux 6.7+, so a thread's
  // stack costs no 2 MiB page), madvise(MADV_NOHUGEPAGE) and madvise(MADV_HUGEPAGE) set one and clear the
  // other. Neither the host's transparent huge pages nor a64run's own (guest_huge_pages) come to a VMA with
  // the first, nor to a stack (kVmaStack, kVmaGrowsDown: Linux gives none to a VMA that grows).
  kVmaNoHugePage = 1u << 10,
  kVmaHugePage = 1u << 11,
};

struct Vma {
  uint64_t start = 0;  // inclusive, page aligned
  uint64_t end = 0;    // exclusive, page aligned
  int prot = 0;
  uint32_t flags = 0;
  uint64_t offset = 0;  // file offset of `start`
  uint64_t dev = 0;
  uint64_t inode = 0;
  std::string name;  // path for file mappings, "[stack]", "[heap]" or empty
  // Some vCPU fetched (and so may have translated) code from this VMA since its translations were last
  // made stale. Set by the TLB fill hook under the shared lock (through std::atomic_ref), read and cleared
  // under the exclusive lock. Unmapping or re-protecting executable pages nobody ran costs no code flush.
  bool fetched = false;
  // Huge pages (MAP_HUGETLB, hugetlbfs): log2 of their size, else 0. The host's own hugetlb rules (aligned
  // unmap, mprotect and mremap) then apply to the guest's calls as Linux applies them.
  uint8_t huge_shift = 0;
};

// Describes the backing of a new mapping.
struct MapSource {
  int host_fd = -1;  // -1 for anonymous memory
  uint64_t offset = 0;
  uint64_t dev = 0;
  uint64_t inode = 0;
  std::string name;
  uint8_t huge_shift = 0;   // huge pages of 1 << huge_shift bytes (MAP_HUGETLB, or a hugetlbfs file)
  int host_flags = 0;       // more flags for the host's mmap of the file (MAP_SYNC)
  bool droppable = false;   // MAP_DROPPABLE anonymous memory
  bool main_stack = false;  // the main thread's stack (kVmaStack)
};

// Locks the host pages of a new guest mapping (mlock2 with `mlock2_flags`), as Linux's mmap locks and
// populates one under MAP_LOCKED or MCL_FUTURE: 0, or -errno when the host refuses to lock it (the
// RLIMIT_MEMLOCK check). `file`: a file mapping, whose pages past the end of the file cannot be populated.
int64_t lock_new_mapping(void* host, uint64_t len, int mlock2_flags, bool file);

// True under A64RUN_HUGE_PAGES=1: private anonymous guest mappings of at least 2 MiB ask the host for
// transparent huge pages (MADV_HUGEPAGE), as on a Linux whose transparent_hugepage is "always". By default
// guest memory follows the host's policy, as a native program's does (docs/memory.md).
bool guest_huge_pages();

// The guest's RLIMIT_AS soft limit in bytes (UINT64_MAX: none). a64run keeps it instead of the host: the
// host process holds the whole guest window reserved, so a host limit would stop a64run itself. mmap,
// mremap and brk refuse (ENOMEM) what would take the guest's mappings past it, as Linux's may_expand_vm.
// Process-wide in the host process (fork copies it; a guest execve passes it on, syscalls/sys_exec.cpp).
uint64_t guest_as_limit();
// Both limits (RLIM_INFINITY is UINT64_MAX); setting them checks nothing (sys_prlimit64 does).
void guest_as_rlimit(uint64_t* cur, uint64_t* max);
void set_guest_as_rlimit(uint64_t cur, uint64_t max);

// The host protection of a guest page with protection `prot`: the guest's own, so that translated code
// that loads and stores straight to the window (emu/direct_memory.cpp) faults where the guest's access would.
// The host cannot give less than x86 pages have: executable pages are readable, writable ones too (so are
// arm64 Linux's).
constexpr int host_prot(int prot) {
  return (prot & (PROT_READ | PROT_WRITE)) | ((prot & (PROT_EXEC | PROT_WRITE)) ? PROT_READ : 0);
}

// The guest address space. Guest address g lives at host address base()+g inside one reserved host window,
// so no guest address can reach the emulator's own memory. Pages outside any VMA are PROT_NONE reservation
// on the host; pages inside a VMA have the guest's permissions on the host too (host_prot), checked again
// by the vCPU's TLB fill hook for accesses through the softmmu TLB and by the checked copies in guest_mem.h.
// A file mapping is the host's mapping of the file over the whole VMA, so whether a page lies past the end
// of the file is the host's answer at each access, as it is Linux's (AddressSpace::map_fixed_locked).
// A PROT_NONE guard of kGuardSize bytes follows the window: translated code clamps every address past the
// window to its end, and the guard makes that access fault.
//
// Locking: mu_ guards the VMA list. Mutations take it exclusively; lookups (TLB fill, copy_in/copy_out) take
// it shared and must not block while holding it. A copy holds it shared for its duration so that another
// thread cannot unmap the pages under it.
class AddressSpace {
 public:
  static constexpr uint64_t kGuardSize = uint64_t{64} * 1024;
  // Where the window goes when the host allows: below 2 GiB, so that a host address base + g is a 32-bit
  // displacement from g.
  static constexpr uintptr_t kLowBase = 0x40000000;

  // Reserves a window of `size` bytes (rounded to pages). Returns nullptr and sets *error on failure.
  static std::unique_ptr<AddressSpace> create(uint64_t size, std::string* error);
  ~AddressSpace();
  AddressSpace(const AddressSpace&) = delete;
  AddressSpace& operator=(const AddressSpace&) = delete;

  uint8_t* base() const { return base_; }
  uint64_t size() const { return size_; }
  uint8_t* host(uint64_t guest_addr) const { return base_ + guest_addr; }

  // mmap(2) semantics on the guest window. Returns the guest address or a negative errno. `flags` are the
  // guest MAP_* flags (same values as the host's for the bits used here).
  int64_t mmap(uint64_t addr, uint64_t len, int prot, int flags, const MapSource& src);
  int64_t munmap(uint64_t addr, uint64_t len);
  int64_t mprotect(uint64_t addr, uint64_t len, int prot);
  int64_t mremap(uint64_t old_addr, uint64_t old_len, uint64_t new_len, int flags, uint64_t new_addr);
  int64_t madvise(uint64_t addr, uint64_t len, int advice);
  // mseal(2) of a page-aligned, non-empty range: -ENOMEM when a page of it is unmapped (nothing sealed).
  int64_t mseal(uint64_t addr, uint64_t len);
  int64_t msync(uint64_t addr, uint64_t len, int flags);
  // remap_file_pages(2): the pages of a shared file mapping show the file from page `pgoff` on.
  int64_t remap_file_pages(uint64_t start, uint64_t size, uint64_t prot, uint64_t pgoff, uint64_t flags);

  // SysV shared memory (emu/address_space_shm.cpp). attach_segment places `len` bytes at guest `addr`, or
  // where top-down placement finds room when addr is 0; `replace` (SHM_REMAP) lets it replace mappings there,
  // else an overlap is -EINVAL. `attach` makes the host mapping at the host address it is given (over the
  // reservation, in one host call) and returns 0 or -errno. Returns the guest address or -errno.
  // The VMA gets `vflags` (kVmaShared always); a64run also moves Linux AIO rings in this way (sys_aio.cpp).
  int64_t attach_segment(uint64_t addr, uint64_t len, bool replace, int prot, const MapSource& info,
                         const std::function<int64_t(void*)>& attach, uint32_t vflags = kVmaSysvShm);
  // Takes [addr, addr + len) out of the VMA list after the host has unmapped it by itself (io_destroy unmaps
  // its ring), and puts the reservation back at once.
  void forget_unmapped(uint64_t addr, uint64_t len);
  // mlock state (emu/address_space_lock.cpp): the host locks the pages (mlock, mlockall, MAP_LOCKED are
  // the host's calls on them); the VMAs record it as Linux's VM_LOCKED does, split at the range's ends, for
  // /proc/self/maps and smaps. A fork child has none.
  // mlockall: MCL_CURRENT marks every VMA; `future_mlock2_flags` (-1 for none, MLOCK_ONFAULT for
  // MCL_ONFAULT) is the guest's MCL_FUTURE: every later guest mapping is locked in the host with mlock2 and
  // marked, and a mapping the host cannot lock fails with EAGAIN, as on Linux. The host's own
  // mlockall(MCL_FUTURE) would lock a64run's allocations too, which then fail at RLIMIT_MEMLOCK.
  void mark_locked(uint64_t start, uint64_t end, bool locked);
  void lock_all(bool current, int future_mlock2_flags);
  void unlock_all();  // munlockall: no VMA is locked and MCL_FUTURE ends
  void forget_locks_after_fork();

  // shmdt: detaches the attach whose first page is at addr (every piece of it within `segment_size(id)`
  // bytes of addr), as ipc/shm.c does. Returns 0 or -EINVAL.
  int64_t detach_segment(uint64_t addr, const std::function<uint64_t(uint64_t id)>& segment_size);

  // The program break. set_brk_base is called once by the loader; brk(2) returns the new (or old) break.
  void set_brk_base(uint64_t addr);
  uint64_t brk(uint64_t addr);
  uint64_t brk_value() const;

  // Where top-down mmap placement starts (below the stack).
  void set_mmap_top(uint64_t addr) { mmap_top_ = addr; }
  uint64_t mmap_top() const { return mmap_top_; }

  // True when [addr, addr+len) is entirely mapped with at least `prot`. Caller holds lock (shared). A file
  // page past the end of its file passes: the host faults there (SIGBUS), and the copy that touches it fails.
  bool accessible_locked(uint64_t addr, uint64_t len, int prot) const;
  // How far into [addr, addr+len) a host call may go (caller holds lock, shared). `usable`: the length of
  // the prefix mapped with `prot`. `reach`: where the first page that is mapped but lacks `prot` starts, or
  // the window's end, or len. Before `reach`, the host pages that are not usable are PROT_NONE reservation,
  // and file pages past the end of their file fault on the host: a host call stops there as the guest's
  // kernel would. Beyond `reach` the host could touch what the guest may not.
  struct Reach {
    uint64_t usable;
    uint64_t reach;
  };
  Reach reach_locked(uint64_t addr, uint64_t len, int prot) const;
  // True when addr lies in a MAP_SHARED mapping (futexes there may be shared with other processes).
  bool is_shared(uint64_t addr) const;
  // What /proc/PID/mem reaches (access_remote_vm with FOLL_FORCE; emu/address_space_proc.cpp): the length of
  // the prefix of [addr, addr+len) it may read or write, whatever the pages' protection. It stops at a page
  // no VMA maps; a write also stops at a page of a shared or huge-page mapping without PROT_WRITE (gup's
  // check_vma_flags forces writes into copy-on-write mappings only). A file page past the end of its file
  // is in the prefix: the host's own /proc/self/mem stops there (its fault is SIGBUS), as Linux's does.
  // `code` is set when the prefix holds executable pages a vCPU has fetched code from.
  uint64_t forced_reach(uint64_t addr, uint64_t len, bool write, bool* code) const;
  // The parts of [start, end) that VMAs map, in order, adjacent ones joined (/proc/PID/pagemap).
  std::vector<std::pair<uint64_t, uint64_t>> mapped_ranges(uint64_t start, uint64_t end) const;
  // The permission of the page at addr, or -1 when unmapped. Grows a MAP_GROWSDOWN VMA when addr is in its
  // guard range. Used by the TLB fill hook. *past_eof: the page belongs to a file mapping, the guest may
  // touch it, and it lies past the end of the file now (the host's load of it faults: see map_fixed_locked).
  // `fetch`: the access is an instruction fetch, so the VMA may now hold translated code.
  int page_prot(uint64_t addr, bool* past_eof, bool fetch = false);

  std::shared_mutex& lock() const { return mu_; }
  // Stops the vCPUs around changes that take pages or code away (emu/code_gate.h).
  CodeGate& gate() { return gate_; }
  // The translated blocks its vCPUs share (emu/tb_share.h).
  TbShare& tb_share() { return tb_share_; }
  // In a fork child, where the lock was held exclusively by the forking thread: glibc's rwlock records the
  // writer's tid, which changed, so the lock is made anew instead of unlocked.
  void reset_lock_after_fork() { new (&mu_) std::shared_mutex(); }

  // Bumped on every change that can revoke a permission or replace code; vCPUs compare it with the value
  // they last synced to and flush their TLB and translated code when it moved.
  uint64_t generation() const { return generation_.load(std::memory_order_acquire); }
  // Bumped when executable pages are unmapped, replaced or change permission: translated code is stale.
  uint64_t code_generation() const { return code_generation_.load(std::memory_order_acquire); }
  // The guest announced new code (ic ivau, or code written through another mapping): every vCPU drops its
  // translations before it runs again.
  void invalidate_code() {
    bump_code_generation();
    bump_generation();
  }

  // vCPUs still running a translated block after they moved the code generation from a hook inside it
  // (`ic ivau`: Vcpu::invalidate_code_from_code). Another vCPU flushes its code buffer only when none is
  // left (Vcpu::enter_code): the block, or the one its chained jump leads to, may lie in that buffer.
  std::atomic<int>& code_tail_runners() { return code_tail_runners_; }
  // The guest pages translated code was made from (`ic ivau` of another page drops nothing).
  CodePages& code_pages() { return code_pages_; }

  std::vector<Vma> snapshot() const;
  // Renders /proc/self/maps for the guest, one render_maps_line per VMA.
  std::string render_maps() const;
  static std::string render_maps_line(const Vma& v);

 private:
  AddressSpace(uint8_t* base, uint64_t size) : base_(base), size_(size), code_pages_(size) {}

  bool range_ok(uint64_t addr, uint64_t len) const { return addr <= size_ && len <= size_ - addr; }
  bool overlaps_locked(uint64_t start, uint64_t end) const;
  // Whether pred holds for a VMA that overlaps [start, end).
  template <typename F>
  bool any_vma_locked(uint64_t start, uint64_t end, F&& pred) const {
    auto it = vmas_.upper_bound(start);
    if (it != vmas_.begin()) --it;
    for (; it != vmas_.end() && it->first < end; ++it) {
      if (it->second.end > start && pred(it->second)) return true;
    }
    return false;
  }
  // A sealed VMA overlaps [start, end).
  bool sealed_in_locked(uint64_t start, uint64_t end) const;
  // `advice` would take the pages of a sealed VMA (can_madvise_modify: a discarding advice on private
  // anonymous memory the guest cannot write).
  static bool discard_refused(const Vma& v, int advice);
  // True when some page of [start, end) is mapped with a permission: changing it can take something away
  // from a running vCPU, so the change closes the code gate.
  bool any_access(uint64_t start, uint64_t end) const;
  int64_t find_free_locked(uint64_t len, uint64_t hint) const;
  void split_at_locked(uint64_t addr);
  // madvise's MADV_HUGEPAGE and MADV_NOHUGEPAGE of a checked, page-aligned, non-empty range.
  int64_t advise_huge_pages(uint64_t addr, uint64_t len, int advice);
  void remove_range_locked(uint64_t start, uint64_t end);
  // munmap of [start, end) inside the window: 0 or the host's ENOMEM (map count limit).
  int64_t unmap_locked(uint64_t start, uint64_t end);
  void release_host_locked(uint64_t start, uint64_t end);         // aborts when the host refuses
  int64_t try_release_host_locked(uint64_t start, uint64_t end);  // 0 or -errno
  int64_t map_fixed_locked(uint64_t addr, uint64_t len, int prot, uint32_t vflags, const MapSource& src);
  // One mremap call, its lengths rounded to pages.
  struct Remap {
    uint64_t old_addr;
    uint64_t old_len;
    uint64_t new_len;
    int flags;
    uint64_t new_addr;
  };
  const Vma* vma_at_locked(uint64_t addr) const;
  // munmap of a user range (the part inside the window): -EINVAL for one Linux refuses, else as munmap.
  int64_t unmap_user_locked(uint64_t addr, uint64_t len);
  int64_t resizable_locked(uint64_t addr, uint64_t len) const;
  int64_t mremap_at_locked(const Remap& rm);
  // True when `more` bytes of new mappings, less what they replace of the mappings in [start, end), would
  // take the guest past its RLIMIT_AS (guest_as_limit; emu/address_space_limit.cpp).
  bool over_as_limit_locked(uint64_t more, uint64_t start = 0, uint64_t end = 0) const;
  int64_t mremap_to_locked(Remap rm);
  int64_t grow_in_place_locked(const Remap& rm);
  int64_t move_pages_locked(const Remap& rm, uint64_t dest);
  bool grow_down_locked(uint64_t addr);
  // Joins the VMA at addr with the one before it when they are of the same kind. `continuation`: the VMA at
  // addr is the one before it grown by mremap, which joins it even as a shared anonymous mapping.
  void merge_around_locked(uint64_t addr, bool continuation = false);
  // Merges every VMA that starts in [start, end] with the one before it, when they are of the same kind.
  void merge_range_locked(uint64_t start, uint64_t end);
  // True when [start, end) lies inside one VMA and touches neither of its ends (unmapping it splits in
  // three).
  bool punches_hole_locked(uint64_t start, uint64_t end) const;
  void merge_all_locked();
  void bump_generation() { generation_.fetch_add(1, std::memory_order_acq_rel); }
  void bump_code_generation() { code_generation_.fetch_add(1, std::memory_order_acq_rel); }

  uint8_t* const base_;
  const uint64_t size_;
  CodeGate gate_;
  TbShare tb_share_;
  CodePages code_pages_;
  uint64_t mmap_top_ = 0;

  mutable std::shared_mutex mu_;
  std::map<uint64_t, Vma> vmas_;  // GUARDED_BY(mu_), keyed by start
  uint64_t brk_base_ = 0;         // GUARDED_BY(mu_)
  uint64_t brk_ = 0;              // GUARDED_BY(mu_)
  int lock_future_ = -1;          // GUARDED_BY(mu_): mlock2 flags for new mappings, or -1 for none
  std::atomic<uint64_t> generation_{0};
  std::atomic<uint64_t> code_generation_{0};
  std::atomic<int> code_tail_runners_{0};
  std::atomic<bool> guards_installed_{false};  // the guest has used MADV_GUARD_INSTALL (page_prot asks)
};

}  // namespace emu
