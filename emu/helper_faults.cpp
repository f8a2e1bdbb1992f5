// This file makes a host fault inside Unicorn's load, store and atomic helpers findable as the guest's: each
// helper that translated code calls records for its thread where in that code it was called from.
//
// Why. The slow path of a translated load or store (a TLB miss, an entry found in the victim TLB, an access
// that crosses a page; on the softmmu path every access may take it) and every atomic (LSE atomics, CAS,
// SWP, STXR's compare-and-swap, on both paths) make the host access inside a helper, outside the code
// buffer. The TLB fill hook refuses every page the guest may not touch, and asks the host whether a file
// page lies past the end of its file (AddressSpace::page_prot), but a file can shrink after its page
// entered the TLB (ftruncate by any process): the helper's access then faults with the host's SIGBUS. The
// return address into translated code (a load or store helper's `retaddr` argument, the return point of the
// fast path, which TCG passes for the same purpose to a refused fill; an atomic helper's own return
// address) restores the guest state of the faulting instruction, so with it the fault is the guest's
// SIGBUS there (Vcpu::take_host_fault, case (b) of emu/host_fault.cpp).
//
// The invariant: t_helper_return is nonzero exactly while this thread runs inside a wrapped helper. The
// wrapper sets it on entry and clears it on return; a helper that leaves through the CPU loop's exits
// instead (cpu_loop_exit and its variants: a refused fill, an alignment fault) passes a wrapped exit, which
// clears it; Vcpu::run clears it before it starts the engine, and the TLB fill hook suspends it while
// a64run's own code runs inside a helper (HelperReturnSuspended). A fault in a64run's code is so never
// taken for the guest's.
#include <cstring>

#include "emu/direct_memory.h"
#include "emu/vcpu.h"

namespace emu {
namespace {

thread_local uintptr_t t_helper_return = 0;
thread_local uint64_t t_zva_bytes = 0;      // DC ZVA's block size, once this thread's first DC ZVA read it
thread_local bool t_helper_atomic = false;  // only while t_helper_return is nonzero: clearing that clears it

}  // namespace

__attribute__((no_sanitize("thread", "address"))) uintptr_t helper_return() {
  return t_helper_return;
}

__attribute__((no_sanitize("thread", "address"))) void set_helper_return(uintptr_t ra) {
  t_helper_return = ra;
  if (ra == 0) t_helper_atomic = false;
}

__attribute__((no_sanitize("thread", "address"))) void set_atomic_helper_return(uintptr_t ra) {
  t_helper_return = ra;
  t_helper_atomic = true;
}

__attribute__((no_sanitize("thread", "address"))) bool helper_atomic() {
  return t_helper_atomic;
}

uint64_t dc_zva_block_bytes() {
  return t_zva_bytes;
}

}  // namespace emu

#if A64RUN_WRAP_TRANSLATOR

extern "C" {

// Each wrapper marks the thread, calls the helper and clears the mark: no object with a destructor, since the
// helper may leave by a jump (a refused fill), whose exit clears the mark instead. For the same reason none
// is instrumented by ThreadSanitizer (A64RUN_JUMPED_OVER): a function it saw entered and never left (a jump
// out of the helper, the CPU loop's exits, which never return) would stay on its shadow stack, one frame per
// exit, until the 65536th ends a64run (a guest that makes many system calls or takes many signals).
#define A64RUN_JUMPED_OVER __attribute__((no_sanitize("thread")))
//
// The loads and stores of translated code's slow path (tcg/i386's qemu_ld_helpers and qemu_st_helpers; the
// signed loads are extended by the backend, so only the unsigned ones are called). tcg_target_ulong is
// uint64_t on this host; TCGMemOpIdx is unsigned.
#define A64RUN_LOAD_HELPER(NAME, RET)                                                              \
  RET __real_helper_##NAME##_mmu_aarch64(void* env, uint64_t addr, uint32_t oi, uintptr_t ra);     \
  A64RUN_JUMPED_OVER RET __wrap_helper_##NAME##_mmu_aarch64(void* env, uint64_t addr, uint32_t oi, \
                                                            uintptr_t ra) {                        \
    emu::set_helper_return(ra);                                                                    \
    const RET value = __real_helper_##NAME##_mmu_aarch64(env, addr, oi, ra);                       \
    emu::set_helper_return(0);                                                                     \
    return value;                                                                                  \
  }
A64RUN_LOAD_HELPER(ret_ldub, uint64_t)
A64RUN_LOAD_HELPER(le_lduw, uint64_t)
A64RUN_LOAD_HELPER(le_ldul, uint64_t)
A64RUN_LOAD_HELPER(le_ldq, uint64_t)
A64RUN_LOAD_HELPER(be_lduw, uint64_t)
A64RUN_LOAD_HELPER(be_ldul, uint64_t)
A64RUN_LOAD_HELPER(be_ldq, uint64_t)
#undef A64RUN_LOAD_HELPER

#define A64RUN_STORE_HELPER(NAME, VAL)                                                                       \
  void __real_helper_##NAME##_mmu_aarch64(void* env, uint64_t addr, VAL val, uint32_t oi, uintptr_t ra);     \
  A64RUN_JUMPED_OVER void __wrap_helper_##NAME##_mmu_aarch64(void* env, uint64_t addr, VAL val, uint32_t oi, \
                                                             uintptr_t ra) {                                 \
    emu::set_helper_return(ra);                                                                              \
    __real_helper_##NAME##_mmu_aarch64(env, addr, val, oi, ra);                                              \
    emu::set_helper_return(0);                                                                               \
  }
A64RUN_STORE_HELPER(ret_stb, uint8_t)
A64RUN_STORE_HELPER(le_stw, uint16_t)
A64RUN_STORE_HELPER(le_stl, uint32_t)
A64RUN_STORE_HELPER(le_stq, uint64_t)
A64RUN_STORE_HELPER(be_stw, uint16_t)
A64RUN_STORE_HELPER(be_stl, uint32_t)
A64RUN_STORE_HELPER(be_stq, uint64_t)
#undef A64RUN_STORE_HELPER

// The atomic read-modify-writes of translated code (LSE atomics, CAS, STXR's compare-and-swap), called from
// it directly. Each calls the same operation's _mmu form, which takes the return address into translated
// code explicitly (the plain form takes its own, GETPC()): the wrapper's return address is that address.
// (The exchanges are emu/parallel_atomics.cpp's.)
//
// The direct path. On a vCPU whose loads and stores go straight to the window (Vcpu::running_direct_atomics:
// not under A64RUN_SOFTMMU=1, nor while a debugger watches a page), an add, and, or, xor or compare-and-swap
// at a naturally aligned guest address below the window's size is the host's own atomic instruction at
// window base + address, as translated code's plain accesses are (docs/memory.md): the host pages carry the
// guest's permissions, so where the guest may not write the host instruction faults, inside this wrapper,
// with the thread marked, and the fault is the guest's at that address (Vcpu::take_host_fault). Bounded:
// the address is below the window's size and aligned to the access's size, which divides the page size,
// so the access lies inside the window. Everything else (a misaligned address, which the helper makes an
// alignment fault; an address at or above the size, tagged or not; the signed and unsigned min and max,
// whose helpers return a sign-extended old value) takes the helper. The helpers hand back the old value
// zero-extended for these operations, and so does the direct path. Sequentially consistent host atomics
// are at least as strong as any of the guest's orderings.
}  // extern "C"

namespace {

template <typename Data>
A64RUN_JUMPED_OVER inline Data* direct_atomic_address(uint64_t addr, bool direct = true) {
  emu::DirectWindow w;
  if (!direct || (addr & (sizeof(Data) - 1)) != 0 || !emu::Vcpu::running_direct_atomics(&w) || addr >= w.size)
    return nullptr;
  return reinterpret_cast<Data*>(w.base + addr);
}

}  // namespace

extern "C" {

#define A64RUN_RMW_HELPER(OP, SUFFIX, TYPE, DATA, DIRECT)                                                 \
  TYPE helper_atomic_##OP##SUFFIX##_mmu_aarch64(void* env, uint64_t addr, TYPE val, uint32_t oi,          \
                                                uintptr_t ra);                                            \
  A64RUN_JUMPED_OVER TYPE __wrap_helper_atomic_##OP##SUFFIX##_aarch64(void* env, uint64_t addr, TYPE val, \
                                                                      uint32_t oi) {                      \
    const auto ra = reinterpret_cast<uintptr_t>(__builtin_return_address(0));                             \
    emu::set_atomic_helper_return(ra);                                                                    \
    TYPE old;                                                                                             \
    auto* const host = direct_atomic_address<DATA>(addr, DIRECT);                                         \
    if (host != nullptr) {                                                                                \
      old = A64RUN_RMW_##OP(host, static_cast<DATA>(val));                                                \
    } else {                                                                                              \
      old = helper_atomic_##OP##SUFFIX##_mmu_aarch64(env, addr, val, oi, ra);                             \
    }                                                                                                     \
    emu::set_helper_return(0);                                                                            \
    return old;                                                                                           \
  }
#define A64RUN_RMW_fetch_add(p, v) __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST)
#define A64RUN_RMW_fetch_and(p, v) __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST)
#define A64RUN_RMW_fetch_or(p, v) __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST)
#define A64RUN_RMW_fetch_xor(p, v) __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST)
#define A64RUN_RMW_fetch_smin(p, v) 0
#define A64RUN_RMW_fetch_smax(p, v) 0
#define A64RUN_RMW_fetch_umin(p, v) 0
#define A64RUN_RMW_fetch_umax(p, v) 0
#define A64RUN_RMW_HELPERS(OP, DIRECT)                    \
  A64RUN_RMW_HELPER(OP, b, uint32_t, uint8_t, DIRECT)     \
  A64RUN_RMW_HELPER(OP, w_le, uint32_t, uint16_t, DIRECT) \
  A64RUN_RMW_HELPER(OP, l_le, uint32_t, uint32_t, DIRECT) \
  A64RUN_RMW_HELPER(OP, q_le, uint64_t, uint64_t, DIRECT)
A64RUN_RMW_HELPERS(fetch_add, true)
A64RUN_RMW_HELPERS(fetch_and, true)
A64RUN_RMW_HELPERS(fetch_or, true)
A64RUN_RMW_HELPERS(fetch_xor, true)
A64RUN_RMW_HELPERS(fetch_smin, false)
A64RUN_RMW_HELPERS(fetch_smax, false)
A64RUN_RMW_HELPERS(fetch_umin, false)
A64RUN_RMW_HELPERS(fetch_umax, false)
#undef A64RUN_RMW_HELPERS
#undef A64RUN_RMW_HELPER

#define A64RUN_CMPXCHG_HELPER(SUFFIX, TYPE, DATA)                                                    \
  TYPE helper_atomic_cmpxchg##SUFFIX##_mmu_aarch64(void* env, uint64_t addr, TYPE cmpv, TYPE newv,   \
                                                   uint32_t oi, uintptr_t ra);                       \
  A64RUN_JUMPED_OVER TYPE __wrap_helper_atomic_cmpxchg##SUFFIX##_aarch64(                            \
      void* env, uint64_t addr, TYPE cmpv, TYPE newv, uint32_t oi) {                                 \
    const auto ra = reinterpret_cast<uintptr_t>(__builtin_return_address(0));                        \
    emu::set_atomic_helper_return(ra);                                                               \
    TYPE old;                                                                                        \
    auto* const host = direct_atomic_address<DATA>(addr);                                            \
    if (host != nullptr) {                                                                           \
      auto expected = static_cast<DATA>(cmpv);                                                       \
      __atomic_compare_exchange_n(host, &expected, static_cast<DATA>(newv), false, __ATOMIC_SEQ_CST, \
                                  __ATOMIC_SEQ_CST);                                                 \
      old = expected;                                                                                \
    } else {                                                                                         \
      old = helper_atomic_cmpxchg##SUFFIX##_mmu_aarch64(env, addr, cmpv, newv, oi, ra);              \
    }                                                                                                \
    emu::set_helper_return(0);                                                                       \
    return old;                                                                                      \
  }
A64RUN_CMPXCHG_HELPER(b, uint32_t, uint8_t)
A64RUN_CMPXCHG_HELPER(w_le, uint32_t, uint16_t)
A64RUN_CMPXCHG_HELPER(l_le, uint32_t, uint32_t)
A64RUN_CMPXCHG_HELPER(q_le, uint64_t, uint64_t)
#undef A64RUN_CMPXCHG_HELPER

// DC ZVA (zero a block of DCZID_EL0's size, naturally aligned, around the address), called from translated
// code directly. Unicorn's helper probes the block's pages through the TLB and then zeroes it with memset,
// or, when the probe fails, with one byte store at a time through the store helper, which faults as the
// guest's. Unwrapped, its memset would fault unmarked (a file page that lay inside its file when the TLB was
// filled and past its end at the zeroing: the file shrank), ending a64run with the guest's default action
// instead of reaching the guest's handler; and a sanitizer's memset interceptor would see the zeroing as
// the emulator's own access, so ThreadSanitizer would report two guest threads zeroing memory they order
// with their own atomics (Go's memclr) as a race. On a vCPU with direct access the wrapper zeroes a
// block below the window's size itself, as translated code stores: host pages carry the guest's
// permissions, so a block the guest may not write faults at its first store (one block lies in one page),
// marked, and the fault is the guest's SIGSEGV or SIGBUS at that address. Bounded: the block is aligned to
// its size, which divides the page size, and starts below the window's size. Everything else (the softmmu
// path, a watched page, an address at or above the size) takes the helper, marked. The block size is the
// helper's own: 4 << ARMCPU.dcz_blocksize bytes, read at the offset Debian's build uses (checked below
// against the helper's first instructions; another layout always takes the helper). The helper's own
// faults come through a refused TLB fill, which names only the page: the fault's address is then worked out
// from the instruction (exact_fault_address), which needs the block's size (dc_zva_block_bytes).
void __real_helper_dc_zva_aarch64(void* env, uint64_t vaddr);
}  // extern "C"

namespace {

constexpr size_t kEnvDczBlocksize = 0x33b0;  // ARMCPU.dcz_blocksize, from CPUARMState (log2 of words)

A64RUN_JUMPED_OVER bool dc_zva_layout_known() {
  static const bool known = [] {
    // mov $0x4,%r15d at +6 and mov 0x33b0(%rbx),%ecx at +29 (%rbx = env): blocklen = 4 << dcz_blocksize.
    static const unsigned char kFour[] = {0x41, 0xbf, 0x04, 0x00, 0x00, 0x00};
    static const unsigned char kLoad[] = {0x8b, 0x8b, 0xb0, 0x33, 0x00, 0x00};
    const auto* code = reinterpret_cast<const unsigned char*>(&__real_helper_dc_zva_aarch64);
    return std::memcmp(code + 6, kFour, sizeof kFour) == 0 &&
           std::memcmp(code + 29, kLoad, sizeof kLoad) == 0;
  }();
  return known;
}

}  // namespace

extern "C" {

A64RUN_JUMPED_OVER void __wrap_helper_dc_zva_aarch64(void* env, uint64_t vaddr) {
  const auto ra = reinterpret_cast<uintptr_t>(__builtin_return_address(0));
  emu::set_atomic_helper_return(ra);  // a write, whatever the host's error code says
  if (dc_zva_layout_known()) {
    uint32_t log2_words;
    std::memcpy(&log2_words, static_cast<const char*>(env) + kEnvDczBlocksize, sizeof log2_words);
    const uint64_t len = uint64_t{4} << (log2_words & 31);
    const uint64_t start = vaddr & ~(len - 1);
    emu::DirectWindow w;
    if (log2_words <= 9) {  // at most 2 KiB: inside one page
      emu::t_zva_bytes = len;
      if (emu::Vcpu::running_direct_atomics(&w) && start < w.size) {
        auto* const block = reinterpret_cast<volatile uint32_t*>(w.base + start);
        for (uint64_t i = 0; i < len / 4; i++) block[i] = 0;
        emu::set_helper_return(0);
        return;
      }
    }
  }
  __real_helper_dc_zva_aarch64(env, vaddr);
  emu::set_helper_return(0);
}

// The CPU loop's exits (accel/tcg/cpu-exec-common.c), which jump out of whatever helper called them.
[[noreturn]] void __real_cpu_loop_exit_aarch64(void* cpu);
[[noreturn]] void __real_cpu_loop_exit_noexc_aarch64(void* cpu);
[[noreturn]] void __real_cpu_loop_exit_restore_aarch64(void* cpu, uintptr_t pc);
[[noreturn]] void __real_cpu_loop_exit_atomic_aarch64(void* cpu, uintptr_t pc);

[[noreturn]] A64RUN_JUMPED_OVER void __wrap_cpu_loop_exit_aarch64(void* cpu) {
  emu::set_helper_return(0);
  __real_cpu_loop_exit_aarch64(cpu);
}
[[noreturn]] A64RUN_JUMPED_OVER void __wrap_cpu_loop_exit_noexc_aarch64(void* cpu) {
  emu::set_helper_return(0);
  __real_cpu_loop_exit_noexc_aarch64(cpu);
}
[[noreturn]] A64RUN_JUMPED_OVER void __wrap_cpu_loop_exit_restore_aarch64(void* cpu, uintptr_t pc) {
  emu::set_helper_return(0);
  __real_cpu_loop_exit_restore_aarch64(cpu, pc);
}
[[noreturn]] A64RUN_JUMPED_OVER void __wrap_cpu_loop_exit_atomic_aarch64(void* cpu, uintptr_t pc) {
  emu::set_helper_return(0);
  __real_cpu_loop_exit_atomic_aarch64(cpu, pc);
}

#undef A64RUN_JUMPED_OVER

}  // extern "C"

#endif  // A64RUN_WRAP_TRANSLATOR
