// Direct guest memory access (emu/direct_memory.cpp): translated loads and stores reach the guest window at
// base + address in a few host instructions instead of through Unicorn's softmmu TLB, and a host fault on
// one of them becomes the guest's fault (emu/host_fault.cpp).
#pragma once

#include <unicorn/unicorn.h>

#include <cstdint>

namespace emu {

// Where one engine's translations may load and store directly: the window's host base and its size (guest
// addresses from `size` up are clamped to `size`, the first byte of the guard that follows the window).
struct DirectWindow {
  uint8_t* base = nullptr;
  uint64_t size = 0;
};

// Checks that `uc` is laid out as this Unicorn build was read (machine code and the names of the TCG ops
// the direct path emits). True when it is: a host fault in its translated code can then be made the guest's
// (in_code_buffer, leave_faulting_code), whichever path its accesses take. *direct says whether they go
// straight to the window (not under A64RUN_SOFTMMU=1); if so, the direct path's host load and store ops in
// its TCG context are marked as ops that may fault (TCG then stores every guest register to the CPU state
// before them, as it does before a softmmu access). False on any other build: the engine keeps the softmmu
// path, and a host fault in its code is not the guest's.
bool prepare_direct_memory(uc_engine* uc, bool* direct);

// The store half of the translator's side (the load wrapper is in emu/direct_memory.cpp): emits the direct
// form of `tcg_gen_qemu_st_i64(s, val, addr, idx, memop)` and returns true, or returns false when this
// access keeps the softmmu path. For the store wrapper of emu/memory_order.cpp, which adds the fence.
bool emit_direct_store(void* s, uintptr_t val, uintptr_t addr, int memop);

// A translation begins on this thread (the translator's wrapper, emu/parallel_atomics.cpp): forgets the
// pair pattern of the last one (its temps belong to a translation that has ended).
void direct_translation_start();

// The TCG context `uc` translates with (for the translator's wrappers, which are handed the context).
const void* engine_tcg_context(uc_engine* uc);

// A host fault in translated code at host PC `pc`, on the vCPU `uc`: records nothing itself, restores the
// guest state of the faulting instruction (its PC; TCG stored the registers before the access), makes
// uc_emu_start return an error as a refused TLB fill does, restores the thread's signal mask to `mask`
// (the mask at the fault; the handler's is not undone by the jump) and leaves the translated code for the
// CPU loop. Does not return. Only for an engine prepare_direct_memory accepted, and only for a PC in its
// code buffer (in_code_buffer).
[[noreturn]] void leave_faulting_code(uc_engine* uc, uintptr_t pc, const void* mask);
// True when `pc` lies in the translated code of `uc` (an engine prepare_direct_memory accepted).
bool in_code_buffer(uc_engine* uc, uintptr_t pc);

// The return address into translated code of the load, store or atomic helper this thread runs inside, or 0
// (emu/helper_faults.cpp has the invariant). A host fault inside the helper, at a guest address, is the
// guest's access that the helper was making for that code.
uintptr_t helper_return();
void set_helper_return(uintptr_t ra);  // 0 also ends the atomic mark below
// The same for an atomic read-modify-write helper: a host fault inside it is then a write, whatever the host
// reports (a fetch-or's first host access is a plain load), as the softmmu path probes every atomic for
// writing. helper_atomic() says whether the helper this thread runs inside is one.
void set_atomic_helper_return(uintptr_t ra);
bool helper_atomic();
// DC ZVA's block size in bytes (DCZID_EL0), as this thread's DC ZVA helper last read it, or 0 before.
uint64_t dc_zva_block_bytes();
// While a64run's own code runs inside a helper (the TLB fill hook), its faults are a64run's.
class HelperReturnSuspended {
 public:
  HelperReturnSuspended() : saved_(helper_return()), atomic_(helper_atomic()) { set_helper_return(0); }
  ~HelperReturnSuspended() {
    if (atomic_) {
      set_atomic_helper_return(saved_);
    } else {
      set_helper_return(saved_);
    }
  }
  HelperReturnSuspended(const HelperReturnSuspended&) = delete;
  HelperReturnSuspended& operator=(const HelperReturnSuspended&) = delete;

 private:
  uintptr_t saved_;
  bool atomic_;
};
// A host fault inside a helper called from translated code of `uc` at return address `ra`
// (helper_return()): as leave_faulting_code, with the guest state restored for that return address.
[[noreturn]] void leave_faulting_helper(uc_engine* uc, uintptr_t ra, const void* mask);

}  // namespace emu
