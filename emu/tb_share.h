// Translated blocks shared between the engines of one address space (emu/tb_share.cpp).
#pragma once

#include <unicorn/unicorn.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace emu {

// One per address space: the vCPUs that run in it (the threads of a process, CLONE_VM relatives) are its
// members when their engines' code buffers lie near each other (emu/code_placement.cpp) and sharing is on.
// A member that needs a block looks here first and runs another member's translation instead of making its
// own. The invariants are in emu/tb_share.cpp.
class TbShare {
 public:
  static constexpr int kMaxMembers = 64;

  struct Key {
    uint64_t pc;
    uint64_t cs_base;
    uint32_t flags;
    uint32_t cflags;
    bool operator==(const Key& o) const {
      return pc == o.pc && cs_base == o.cs_base && flags == o.flags && cflags == o.cflags;
    }
  };

  // True when this build can share blocks (Unicorn linked in, so the translator is wrapped) and
  // A64RUN_NO_SHARED_TB is unset; each engine is checked when it joins (Vcpu's constructor).
  static bool enabled();

  // False once a process that shares this memory (a CLONE_VM relative, a vfork child) has existed.
  bool on() const { return on_.load(std::memory_order_acquire); }
  // For good: no block is handed out or recorded from now on, and no engine joins. The caller then moves
  // the code generation under the closed code gate, so that no vCPU keeps a chain into another's buffer.
  void turn_off();

  // Makes the engine `uc` a member, its buffer [buf, buf + size): returns its slot, or -1 (no free slot).
  int join(uc_engine* uc, uintptr_t buf, size_t size);
  // The member at `slot` is done with its engine. True if the caller may close it: it never ran another
  // member's block, nor another one of its. Otherwise the engine stays open (and a member) for good.
  bool leave(int slot);

  // Another member's block for `key` made at code generation `code_gen` (the caller's), or nullptr.
  void* find(int slot, uint64_t code_gen, const Key& key);
  // The member at `slot` made `tb` for `key` at code generation `code_gen`.
  void record(int slot, uint64_t code_gen, const Key& key, void* tb);

  // Signal-safe: the slot of the member whose code buffer holds `pc`, or -1.
  int slot_of(uintptr_t pc) const;
  // The block of member `slot` whose code holds `pc`, or nullptr (its owner may be adding one: the lookup
  // waits for it; signal-safe as long as the caller does not own `slot`).
  void* block_at(int slot, uintptr_t pc);
  // The owner of `slot` adds a block to its engine's host-PC index (Unicorn's tcg_tb_insert) under the
  // slot's lock, so that block_at from another thread never reads the index mid-change.
  void lock_index(int slot);
  void unlock_index(int slot);

  // fork: the parent holds the table across the host fork. In the child, `survivors` are the slots of the
  // vCPUs that exist there (the forking thread's and the pooled ones): the others' engines stay mapped
  // but take no part from now on. Returns true if the child must drop its translations (a dead thread was
  // adding to its index at the fork, which leaves that index unusable).
  void prepare_fork();
  void after_fork_parent();
  bool after_fork_child(const std::vector<int>& survivors);

 private:
  struct Entry {
    Key key;
    void* tb;  // nullptr: a free place
    int slot;
    uint64_t serial;  // the slot's serial when recorded: a slot reused by another engine has another
  };
  // The place of `key` in blocks_ (a power of two long): the entry that holds it, or the free place
  // where it goes.
  Entry& place(const Key& key);
  void add(const Entry& entry);
  void place_pending();
  void grow();
  void clear_blocks();
  struct Member {
    // Read without mu_ by slot_of (signal handlers); written under mu_.
    std::atomic<uintptr_t> buf{0};
    std::atomic<size_t> size{0};
    std::atomic<void*> ctx{nullptr};  // the engine's TCGContext
    std::atomic<uint32_t> index_lock{0};
    bool used = false;    // GUARDED_BY(mu_): the slot holds an engine
    bool active = false;  // GUARDED_BY(mu_): its blocks may be handed out
    bool given = false;   // GUARDED_BY(mu_): it ran another member's block, or another ran one of its
    uint64_t serial = 0;  // GUARDED_BY(mu_)
  };

  std::atomic<bool> on_{true};
  // The slots in use: written under mu_, read without it by find, which has nothing to find when its
  // caller is the only one (a member that joins meanwhile has recorded nothing yet).
  std::atomic<int> used_{0};
  std::mutex mu_;
  // GUARDED_BY(mu_): open addressing, linear probing, at most half full; no entry is ever removed alone
  // (a generation move clears them all), so a probe ends at the first free place.
  std::vector<Entry> blocks_;
  // GUARDED_BY(mu_): entries recorded and not yet placed in blocks_, in order. A thread alone only records
  // (find has nothing to look for), and an append costs less than a probe of the table: the first find
  // that needs the table places them.
  std::vector<Entry> pending_;
  size_t blocks_used_ = 0;   // GUARDED_BY(mu_)
  uint64_t blocks_gen_ = 0;  // GUARDED_BY(mu_): the code generation of blocks_
  Member members_[kMaxMembers];
};

}  // namespace emu
