// This file owns the fences of translated code: which of arm64's barriers and acquire/release accesses need
// a host fence on an x86-64 host, and where it goes.
//
// x86-64 is TSO: the host keeps loads in order with later loads and stores, and stores in order with earlier
// loads and stores; the only reordering it makes is a store with a later load (store buffering), and one
// locked instruction (or MFENCE) between the two forbids that. Arm64 orders:
//   LDAR, LDAXR, LDAPR (acquire): the load before every later access. TSO does that: no fence.
//   STLR, STLXR, STLUR (release): every earlier access before the store. TSO does that: no fence.
//   STLR then LDAR in program order (RCsc): the store before the load. TSO does not: a fence after every
//     release store. (LDAPR is RCpc and need not wait for an earlier STLR; it gets the order anyway.)
//   DMB/DSB with both loads and stores (ISH, SY, OSH, NSH): a fence. DMB ISHLD and ISHST order nothing TSO
//     does not: no fence.
//   Exclusives and LSE atomics of parallel blocks are host locked instructions (cmpxchg, lock xadd, the
//     exchange helpers' cmpxchg loop in emu/parallel_atomics.cpp), each a full fence on its own.
// Unicorn 2.1.1's translator (QEMU 5.0's translate-a64.c) gets the release store wrong: it emits the barrier
// before a release store (TCG_BAR_STRL) and after an acquire load (TCG_BAR_LDAQ), and the x86 backend makes
// each a `lock orl` because the barrier names every kind of order. STLR x; LDAR y then became fence, store
// x, load y, fence: the load could pass the store, and the store-buffering litmus test showed both loads
// reading 0, which arm64 forbids (tests/guest/threads/litmus; Go's TestStoreLoadSeqCst; any Dekker-style
// wakeup protocol that stores a flag and then reads a sleeper count loses a wakeup).
//
// The link wraps the translator's calls into tcg-op.c (translate-a64.c is another object file of
// libunicorn.a): tcg_gen_mb drops the acquire barrier and turns the release barrier into a note that the
// next plain store of the translation is a release store; the store wrappers emit that store and then a full
// barrier (`lock orl`). A release store that is an exclusive or an atomic (STLXR, CASL, SWPL...) is a locked
// instruction already, and the atomic wrappers drop the note. Barriers are emitted only in parallel blocks
// (tcg_gen_mb tests CF_PARALLEL), as before; one vCPU at a time needs none.
#include "emu/memory_order.h"

#include <cstdint>

#include "emu/direct_memory.h"

namespace emu {
namespace {

constexpr int kMoStLd = 0x02;      // TCG_MO_ST_LD
constexpr int kMoAll = 0x0f;       // TCG_MO_ALL
constexpr int kBarMask = 0x30;     // TCG_BAR_LDAQ | TCG_BAR_STRL
constexpr int kBarAcquire = 0x10;  // TCG_BAR_LDAQ: later accesses stay after (an acquire load was emitted)
constexpr int kBarRelease = 0x20;  // TCG_BAR_STRL: earlier accesses stay before (a release store follows)
constexpr int kBarSc = 0x30;       // TCG_BAR_SC

// The translation on this thread has seen a release barrier whose store is still to come.
thread_local bool t_release_pending = false;

}  // namespace

void memory_order_translation_start() {
  t_release_pending = false;
}

}  // namespace emu

#if A64RUN_WRAP_TRANSLATOR

extern "C" {
void __real_tcg_gen_mb_aarch64(void* s, int bar);
void __real_tcg_gen_qemu_st_i32_aarch64(void* s, uintptr_t val, uintptr_t addr, uintptr_t idx, int memop);
void __real_tcg_gen_qemu_st_i64_aarch64(void* s, uintptr_t val, uintptr_t addr, uintptr_t idx, int memop);
void __real_tcg_gen_atomic_cmpxchg_i32_aarch64(void* s, uintptr_t ret, uintptr_t addr, uintptr_t cmpv,
                                               uintptr_t newv, uintptr_t idx, int memop);
void __real_tcg_gen_atomic_cmpxchg_i64_aarch64(void* s, uintptr_t ret, uintptr_t addr, uintptr_t cmpv,
                                               uintptr_t newv, uintptr_t idx, int memop);

void __wrap_tcg_gen_mb_aarch64(void* s, int bar) {
  switch (bar & emu::kBarMask) {
    case emu::kBarAcquire:
      return;  // TSO keeps a load before later loads and stores
    case emu::kBarRelease:
      emu::t_release_pending = true;  // TSO keeps earlier accesses before the store; the fence goes after it
      return;
    default:
      emu::t_release_pending = false;
      // DMB/DSB (TCG_BAR_SC): the backend fences only what names store-then-load order.
      __real_tcg_gen_mb_aarch64(s, bar);
  }
}

void __wrap_tcg_gen_qemu_st_i32_aarch64(void* s, uintptr_t val, uintptr_t addr, uintptr_t idx, int memop) {
  __real_tcg_gen_qemu_st_i32_aarch64(s, val, addr, idx, memop);
  if (!emu::t_release_pending) return;
  emu::t_release_pending = false;
  __real_tcg_gen_mb_aarch64(s, emu::kBarSc | emu::kMoAll);
}

// The translator's stores (translate-a64.c stores only through the 64-bit form), direct or through the
// softmmu path (emu/direct_memory.cpp), then a release store's fence.
void __wrap_tcg_gen_qemu_st_i64_aarch64(void* s, uintptr_t val, uintptr_t addr, uintptr_t idx, int memop) {
  if (!emu::emit_direct_store(s, val, addr, memop))
    __real_tcg_gen_qemu_st_i64_aarch64(s, val, addr, idx, memop);
  if (!emu::t_release_pending) return;
  emu::t_release_pending = false;
  __real_tcg_gen_mb_aarch64(s, emu::kBarSc | emu::kMoAll);
}

// STLXR and friends: the compare-and-swap is a locked instruction, a fence of its own.
void __wrap_tcg_gen_atomic_cmpxchg_i32_aarch64(void* s, uintptr_t ret, uintptr_t addr, uintptr_t cmpv,
                                               uintptr_t newv, uintptr_t idx, int memop) {
  emu::t_release_pending = false;
  __real_tcg_gen_atomic_cmpxchg_i32_aarch64(s, ret, addr, cmpv, newv, idx, memop);
}

void __wrap_tcg_gen_atomic_cmpxchg_i64_aarch64(void* s, uintptr_t ret, uintptr_t addr, uintptr_t cmpv,
                                               uintptr_t newv, uintptr_t idx, int memop) {
  emu::t_release_pending = false;
  __real_tcg_gen_atomic_cmpxchg_i64_aarch64(s, ret, addr, cmpv, newv, idx, memop);
}

}  // extern "C"

static_assert(emu::kMoStLd & emu::kMoAll, "the release fence must name store-then-load order");

#endif  // A64RUN_WRAP_TRANSLATOR
