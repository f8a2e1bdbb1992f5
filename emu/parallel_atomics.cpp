// Parallel atomics: Unicorn 2.1.1 translates guest atomics as if one vCPU ran at a time (its
// curr_cflags() is the constant 0, so no translation block ever gets CF_PARALLEL, and LDXR/STXR, LDADD and
// CAS become a plain load, compare and store). The translator decides per block from two copies of the
// block's flags: the block's own (tb->cflags) and the TCG context's (tcg_ctx->tb_cflags). a64run's link
// wraps the translator's entry (gen_intermediate_code_aarch64, which tb_gen_code calls from another object
// file, so -Wl,--wrap reaches it): the wrapper sets CF_PARALLEL in both copies for the translation and
// clears it from the block afterwards, so the block is hashed and found under the flags every lookup uses.
// The translator then emits host atomics (cmpxchg, lock xadd) and real barriers.
#include "emu/parallel_atomics.h"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "emu/block_exit.h"
#include "emu/direct_memory.h"
#include "emu/helper_calls.h"
#include "emu/lazy_flags.h"
#include "emu/memory_order.h"
#include "emu/vcpu.h"
#include "emu/vreg_forwarding.h"

#if A64RUN_WRAP_TRANSLATOR

namespace emu {
namespace {

constexpr uint32_t kCfParallel = 0x00080000;  // CF_PARALLEL, include/exec/exec-all.h
// Offsets in Debian's build of Unicorn 2.1.1 (objdump of tb_gen_code_aarch64: the stores of cflags into the
// new block and into the TCG context just before it calls gen_intermediate_code_aarch64).
constexpr size_t kCpuUc = 0x81a8;      // CPUState -> struct uc_struct*
constexpr size_t kUcTcgCtx = 0x2e8;    // uc_struct -> TCGContext*
constexpr size_t kTcgTbCflags = 0x64;  // TCGContext.tb_cflags
constexpr size_t kTbCflags = 0x18;     // TranslationBlock.cflags

enum State : int { kUnknown, kParallel, kSerial };
std::atomic<int> g_state{kUnknown};

}  // namespace

bool parallel_guest_code() {
  return g_state.load(std::memory_order_acquire) == kParallel;
}

}  // namespace emu

extern "C" void __real_gen_intermediate_code_aarch64(void* cpu, void* tb, int max_insns);

extern "C" void __wrap_gen_intermediate_code_aarch64(void* cpu, void* tb, int max_insns) {
  using emu::kCfParallel;
  auto* tb_cflags = reinterpret_cast<uint32_t*>(static_cast<char*>(tb) + emu::kTbCflags);
  uint32_t* ctx_cflags = nullptr;
  void* uc = *reinterpret_cast<void**>(static_cast<char*>(cpu) + emu::kCpuUc);
  if (uc == emu::Vcpu::running_engine() && uc != nullptr) {
    void* ctx = *reinterpret_cast<void**>(static_cast<char*>(uc) + emu::kUcTcgCtx);
    ctx_cflags = reinterpret_cast<uint32_t*>(static_cast<char*>(ctx) + emu::kTcgTbCflags);
  }
  // tb_gen_code set both copies from the same value just before this call, and curr_cflags() never has
  // CF_PARALLEL: a layout other than the one above fails this.
  const bool layout_ok = ctx_cflags != nullptr && *ctx_cflags == *tb_cflags && !(*tb_cflags & kCfParallel);
  emu::memory_order_translation_start();
  emu::direct_translation_start();
  emu::helper_calls_translation_start();
  // Before the translator reads the block's instructions (emu/code_pages.cpp): TranslationBlock.pc is
  // its first field, set by tb_gen_code.
  emu::Vcpu::note_translation(uc, *static_cast<const uint64_t*>(tb));
  // A vCPU stopped by kicks needs the exit_request test at the start of every block (emu/block_exit.cpp).
  if (emu::Vcpu::running_stops_by_kick(uc) && emu::block_exit_test_available()) emu::arm_block_exit_test();
  int state = emu::g_state.load(std::memory_order_acquire);
  if (state == emu::kUnknown) {
    // A64RUN_SERIAL=1: one vCPU at a time anyway (diagnostics: compare the two modes).
    const char* serial = std::getenv("A64RUN_SERIAL");
    state = layout_ok && (serial == nullptr || *serial == '0') ? emu::kParallel : emu::kSerial;
    emu::g_state.store(state, std::memory_order_release);
  }
  if (state == emu::kSerial) {
    __real_gen_intermediate_code_aarch64(cpu, tb, max_insns);
    emu::check_block_exit_test_done();
    emu::vreg_forwarding_after_translation(cpu);  // first: it marks the FP helper calls lazy flags look at
    emu::lazy_flags_after_translation(cpu, tb);
    return;
  }
  if (!layout_ok) {
    // Threads run in parallel on the strength of the first check; a block translated without parallel
    // atomics now would make the guest's atomics silently non-atomic.
    std::fputs("a64run: internal error: a translation block could not be made parallel\n", stderr);
    std::abort();
  }
  *tb_cflags |= kCfParallel;
  *ctx_cflags |= kCfParallel;
  __real_gen_intermediate_code_aarch64(cpu, tb, max_insns);
  emu::check_block_exit_test_done();
  emu::vreg_forwarding_after_translation(cpu);  // first: it marks the FP helper calls lazy flags look at
  emu::lazy_flags_after_translation(cpu, tb);
  *tb_cflags &= ~kCfParallel;
}

// Unicorn's exchange helpers (accel/tcg/atomic_template.h) are a plain load and store even for parallel
// blocks (`ret = *haddr; *haddr = val;`), so SWP lost or duplicated values between vCPUs. These wrappers
// exchange with Unicorn's compare-and-swap helper, which is a host cmpxchg, retried until it takes. The
// _mmu form takes the return address into the translated code explicitly: a fault inside it unwinds to the
// guest instruction as it would from the helper the code called, and a host fault inside it (a file page
// past the end of its file) is the guest's (the mark of emu/helper_faults.cpp).
#define A64RUN_XCHG(SUFFIX, TYPE)                                                                         \
  extern "C" TYPE helper_atomic_cmpxchg##SUFFIX##_mmu_aarch64(void* env, uint64_t addr, TYPE cmpv,        \
                                                              TYPE newv, uint32_t oi, uintptr_t retaddr); \
  extern "C" TYPE __wrap_helper_atomic_xchg##SUFFIX##_aarch64(void* env, uint64_t addr, TYPE val,         \
                                                              uint32_t oi) {                              \
    const auto ra = reinterpret_cast<uintptr_t>(__builtin_return_address(0));                             \
    emu::set_atomic_helper_return(ra);                                                                    \
    TYPE seen = 0;                                                                                        \
    while (true) {                                                                                        \
      const TYPE old = helper_atomic_cmpxchg##SUFFIX##_mmu_aarch64(env, addr, seen, val, oi, ra);         \
      if (old == seen) {                                                                                  \
        emu::set_helper_return(0);                                                                        \
        return old;                                                                                       \
      }                                                                                                   \
      seen = old;                                                                                         \
    }                                                                                                     \
  }
A64RUN_XCHG(b, uint32_t)
A64RUN_XCHG(w_le, uint32_t)
A64RUN_XCHG(l_le, uint32_t)
A64RUN_XCHG(q_le, uint64_t)
#undef A64RUN_XCHG

// The engine's page size. Unicorn 2.1.1 gives aarch64 1 KiB target pages: finalize_target_page_bits takes
// uc->target_bits when set and TARGET_PAGE_BITS_MIN (10) otherwise, and UC_CTL_UC_PAGE_SIZE refuses to set
// it for UC_ARCH_ARM64. With 1 KiB pages a TLB entry covers a quarter of a guest page, and a jump chains to
// its target block only inside the same 1 KiB: most calls, and loops that straddle a 1 KiB line (a 20 ns
// iteration of sigcost's xorshift loop against 1.8 ns), went through helper_lookup_tb_ptr. The wrapper
// (cpu_exec_init_all calls it from another object file) asks for 4 KiB, Linux's arm64 page, after checking
// that the function reads the two fields where Debian's build keeps them (its first instructions).
namespace {

constexpr size_t kUcInitTargetPage = 0x290;  // uc_struct.init_target_page
constexpr size_t kUcTargetBits = 0x298;      // uc_struct.target_bits
constexpr int kPageBits = 12;

}  // namespace

extern "C" void __real_finalize_target_page_bits_aarch64(void* uc);

extern "C" void __wrap_finalize_target_page_bits_aarch64(void* uc) {
  // cmpq $0x0,0x290(%rdi) and, after the calloc, mov 0x298(%rbx),%ecx.
  static const unsigned char kCheckInit[] = {0x48, 0x83, 0xbf, 0x90, 0x02, 0x00, 0x00, 0x00};
  static const unsigned char kReadBits[] = {0x8b, 0x8b, 0x98, 0x02, 0x00, 0x00};
  const auto* code = reinterpret_cast<const unsigned char*>(&__real_finalize_target_page_bits_aarch64);
  const auto has = [code](const unsigned char* want, size_t n) {
    for (size_t i = 0; i + n <= 0x40; ++i) {
      if (std::memcmp(code + i, want, n) == 0) return true;
    }
    return false;
  };
  auto* field = static_cast<char*>(uc);
  if (has(kCheckInit, sizeof kCheckInit) && has(kReadBits, sizeof kReadBits) &&
      *reinterpret_cast<void**>(field + kUcInitTargetPage) == nullptr &&
      *reinterpret_cast<int*>(field + kUcTargetBits) == 0)
    *reinterpret_cast<int*>(field + kUcTargetBits) = kPageBits;
  __real_finalize_target_page_bits_aarch64(uc);
}

// The host clock behind the guest's counter. Every engine's init (machine_initialize) calls
// init_get_clock, which stores 0 and then 1 into the process-wide use_rt_clock; while it is 0, get_clock()
// is gettimeofday's wall clock. A vCPU that read CNTVCT_EL0 (the vDSO's CLOCK_MONOTONIC) while another
// thread's vCPU was being made got the time since 1970 instead of since boot: Go's nanotime jumped by 56
// years and a 30 s time.AfterFunc ran at once (go/atomics in CI; threads/clock_jump). The wrapper (called
// from vl.c, defined in qemu-timer-common.c) lets it run once.
extern "C" void __real_init_get_clock();

extern "C" void __wrap_init_get_clock() {
  static std::once_flag once;
  std::call_once(once, [] { __real_init_get_clock(); });
}

// The translation table's first size. tb_htable_init sizes every engine's table of translation blocks for
// 32,768 of them (CODE_GEN_HTABLE_SIZE): 8,192 buckets of 64 bytes, all written at once, which is 128 page
// faults for each new engine (a quarter of a static `return 0`'s; each costs 8-15 us on a virtual machine
// with shadow page tables). The table doubles by itself when its chains grow (QHT_MODE_AUTO_RESIZE), and a
// program's start translates about a thousand blocks, so the wrapper (called from translate-all.c, defined
// in qht.c) starts it at 1,024 entries; a tb_flush resets it to the full size.
extern "C" void __real_qht_init(void* ht, void* cmp, size_t n_elems, unsigned mode);

extern "C" void __wrap_qht_init(void* ht, void* cmp, size_t n_elems, unsigned mode) {
  constexpr size_t kCodeGenHtableSize = size_t{1} << 15;
  constexpr size_t kFirstSize = size_t{1} << 10;
  __real_qht_init(ht, cmp, n_elems == kCodeGenHtableSize ? kFirstSize : n_elems, mode);
}

// The engine's start. uc_emu_start clears the stop flags (uc->stop_request, cpu->exit_request) before it
// runs the first block, so a kick that lands while it starts up is lost; the cpu_exec wrapper (called from
// tcg_cpu_exec in another object file) runs after that clearing, and the vCPU looks at its requests there.
// Kicks then need not be repeated once the engine runs (Vcpu::kick).
extern "C" int __real_cpu_exec_aarch64(void* uc, void* cpu);

extern "C" int __wrap_cpu_exec_aarch64(void* uc, void* cpu) {
  emu::Vcpu::engine_starting(uc);
  return __real_cpu_exec_aarch64(uc, cpu);
}

// Guest stores without Unicorn's code-write traps. Unicorn 2.1.1 keeps no dirty bitmap: its
// cpu_physical_memory_is_clean() is the constant true, so every writable TLB entry it fills is marked
// TLB_NOTDIRTY, and the first store through each one leaves the translated code for store_helper and
// notdirty_write (a memory-region lookup, then tb_invalidate_phys_page_fast under a page lock, looking for
// translations on the page) before the entry is marked clean. Every new translation block then walks the
// whole TLB of every MMU mode (tlb_reset_dirty_by_vaddr) to mark the entries of its page NOTDIRTY again.
// Both together were about 10% of a Go program's time and 7% of a static `return 0`.
//
// a64run does not need the traps: an arm64 program that writes code must make it visible with `ic ivau`
// (or change the mapping), and both drop every translation (Vcpu::on_sys, AddressSpace's code generation).
// So the link wraps the two entry points (each called from another object file of libunicorn.a): a filled
// writable entry is marked clean at once, and translation no longer re-arms the trap.

namespace {

constexpr int kPageWrite = 0x2;  // PAGE_WRITE, include/exec/cpu-all.h

}  // namespace

extern "C" {

void __real_tlb_set_page_aarch64(void* cpu, uint64_t vaddr, uint64_t paddr, int prot, int mmu_idx,
                                 uint64_t size);
void tlb_set_dirty_aarch64(void* cpu, uint64_t vaddr);

// unicorn_fill_tlb's way of installing a page (UC_TLB_VIRTUAL).
void __wrap_tlb_set_page_aarch64(void* cpu, uint64_t vaddr, uint64_t paddr, int prot, int mmu_idx,
                                 uint64_t size) {
  __real_tlb_set_page_aarch64(cpu, vaddr, paddr, prot, mmu_idx, size);
  if (prot & kPageWrite) tlb_set_dirty_aarch64(cpu, vaddr);
}

// tb_gen_code's "undo tlb_set_dirty": nothing to undo.
void __wrap_tlb_reset_dirty_by_vaddr_aarch64(void*, uint64_t, uint64_t) {}

// LDSMAX and LDSMIN (A64; the only callers of these two in the arm translator) of 8, 16 and 32 bits. Arm
// writes the old value to the register zero-extended (ZeroExtend(data, regsize)); Unicorn 2.1.1's
// translator asks for a signed access (MO_SIGN, for the comparison) and TCG's atomic op hands the old value
// back sign-extended to 64 bits, so a halfword 0x8000 came back as 0xffff8000 in the W register. The
// wrappers zero-extend the result to the access's size after TCG's own code (qemu later fixed the same in
// its translator). tests/guest/threads/atomics checks every width.
void __real_tcg_gen_atomic_fetch_smax_i64_aarch64(void* s, uintptr_t ret, uintptr_t addr, uintptr_t val,
                                                  uintptr_t idx, int memop);
void __real_tcg_gen_atomic_fetch_smin_i64_aarch64(void* s, uintptr_t ret, uintptr_t addr, uintptr_t val,
                                                  uintptr_t idx, int memop);
void tcg_gen_andi_i64_aarch64(void* s, uintptr_t ret, uintptr_t arg, int64_t imm);

}  // extern "C"

namespace {

constexpr int kMoSize = 3;  // MO_SIZE: log2 of the access's size
constexpr int kMo64 = 3;

void zero_extend_old_value(void* s, uintptr_t ret, int memop) {
  const int size = memop & kMoSize;
  if (size < kMo64)
    tcg_gen_andi_i64_aarch64(s, ret, ret, static_cast<int64_t>((uint64_t{1} << (8 << size)) - 1));
}

}  // namespace

extern "C" {

void __wrap_tcg_gen_atomic_fetch_smax_i64_aarch64(void* s, uintptr_t ret, uintptr_t addr, uintptr_t val,
                                                  uintptr_t idx, int memop) {
  __real_tcg_gen_atomic_fetch_smax_i64_aarch64(s, ret, addr, val, idx, memop);
  zero_extend_old_value(s, ret, memop);
}

void __wrap_tcg_gen_atomic_fetch_smin_i64_aarch64(void* s, uintptr_t ret, uintptr_t addr, uintptr_t val,
                                                  uintptr_t idx, int memop) {
  __real_tcg_gen_atomic_fetch_smin_i64_aarch64(s, ret, addr, val, idx, memop);
  zero_extend_old_value(s, ret, memop);
}

}  // extern "C"

#else

namespace emu {
bool parallel_guest_code() {
  return false;  // Unicorn linked as a shared library: the translator cannot be wrapped
}
}  // namespace emu

#endif  // A64RUN_WRAP_TRANSLATOR
