// This file owns the lookup of the next translation block at an indirect branch (RET, BR, BLR): the link
// wraps Unicorn's helper_lookup_tb_ptr with a shorter path to the same answer.
//
// Translated code ends an indirect branch with a call of helper_lookup_tb_ptr (tcg-op.c references it; it is
// defined in tcg-runtime.c, another object file of libunicorn.a). The helper computes the CPU's TB flags
// (cpu_get_tb_cpu_state, a call), hashes the PC into the CPU's jump cache with the page size read through
// uc->init_target_page (three dependent loads: Unicorn's page size is a variable), and validates the cached
// block. It was a quarter of the time of a call-heavy program (bench kernel fib). The wrapper does the same
// checks inline with this build's constants: the page size is the 4 KiB a64run sets
// (emu/parallel_atomics.cpp), and the flags of an AArch64 CPU not single-stepping are its cached hflags with
// PSTATE.BTYPE put in. A miss, and every case it does not cover (single-step, AArch32, a build whose layout
// differs), takes the original helper, which also fills the jump cache.
//
// The validation is tb_lookup__cpu_state's, field for field: pc, cs_base, flags, trace_vcpu_dstate, and the
// cflags under CF_HASH_MASK | CF_INVALID against the CPU's cluster (curr_cflags() is 0 in Unicorn). QEMU
// keeps the jump cache coherent itself (an invalidated block leaves it, a flush clears it). The hash only
// picks the slot: with another page size (an engine whose page size a64run could not set) the slot holds
// some other block, the validation fails and the original helper answers.
#include "emu/tb_lookup.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#if A64RUN_WRAP_TRANSLATOR

extern "C" {
void* __real_helper_lookup_tb_ptr_aarch64(void* env);
void cpu_get_tb_cpu_state_aarch64(void* env, uint64_t* pc, uint64_t* cs_base, uint32_t* flags);
}

namespace emu {
namespace {

// Debian's build of Unicorn 2.1.1, read off helper_lookup_tb_ptr_aarch64 and cpu_get_tb_cpu_state_aarch64
// (objdump) and checked against their machine code below. Offsets from the CPUARMState pointer the helper
// is given.
constexpr intptr_t kEnvPc = 0x140;
constexpr intptr_t kEnvHflags = 0x150;
constexpr intptr_t kEnvBtype = 0x228;
constexpr intptr_t kEnvBtiFeature = 0x3298;    // a byte of ID_AA64PFR1 (its BT field): nonzero with BTI
constexpr intptr_t kEnvJmpCache = -0xa218;     // CPUState.tb_jmp_cache
constexpr intptr_t kEnvTraceDstate = -0x21c8;  // CPUState.trace_dstate (a one-word bitmap)
constexpr intptr_t kEnvClusterIndex = -0x21bc;
constexpr uint32_t kAarch64State = 1u << 31;  // TBFLAG_ANY.AARCH64_STATE
constexpr uint32_t kSsActive = 1u << 30;      // TBFLAG_ANY.SS_ACTIVE
constexpr uint32_t kBtypeMask = 3u << 10;     // TBFLAG_A64.BTYPE
constexpr uint32_t kCfMask = 0xff0effff;      // CF_HASH_MASK | CF_INVALID
constexpr int kClusterShift = 24;             // CF_CLUSTER_SHIFT
constexpr int kPageBits = 12;
constexpr int kJmpPageBits = 6;  // TB_JMP_PAGE_BITS (TB_JMP_CACHE_BITS 12 / 2)

// TranslationBlock (include/exec/exec-all.h).
struct Tb {
  uint64_t pc;
  uint64_t cs_base;
  uint32_t flags;
  uint32_t size_icount;
  uint32_t cflags;
  uint32_t trace_vcpu_dstate;
  void* code;  // tc.ptr
};
static_assert(offsetof(Tb, cflags) == 0x18 && offsetof(Tb, trace_vcpu_dstate) == 0x1c &&
                  offsetof(Tb, code) == 0x20,
              "TranslationBlock's fields as the helper reads them");

template <typename T>
T at(const void* env, intptr_t off) {
  T v;
  std::memcpy(&v, static_cast<const char*>(env) + off, sizeof v);
  return v;
}

// True if `want` occurs within the first `span` bytes of the function at `fn`.
bool code_has(const void* fn, size_t span, const unsigned char* want, size_t n) {
  const auto* code = static_cast<const unsigned char*>(fn);
  for (size_t i = 0; i + n <= span; ++i) {
    if (std::memcmp(code + i, want, n) == 0) return true;
  }
  return false;
}

bool layout_ok() {
  static const bool ok = [] {
    if (std::getenv("A64RUN_SLOW_LOOKUP") != nullptr &&
        std::strcmp(std::getenv("A64RUN_SLOW_LOOKUP"), "0") != 0)
      return false;  // diagnostics: the original helper
    // cpu_get_tb_cpu_state: mov 0x150(%rdi),%eax (hflags); mov 0x140(%rdi),%rdx (pc); testb $0xf,0x3298(%rdi)
    // (BTI); mov 0x148(%rdi),%edx (pstate); test $0x40000000,%eax (SS_ACTIVE); or $0x20000000,%esi
    // (PSTATE_SS); and $0x200000,%edx (PSTATE.SS); mov 0x228(%rdi),%edx; shl $0xa,%edx (btype << 10).
    static const unsigned char kHflags[] = {0x8b, 0x87, 0x50, 0x01, 0x00, 0x00};
    static const unsigned char kPc[] = {0x48, 0x8b, 0x97, 0x40, 0x01, 0x00, 0x00};
    static const unsigned char kBti[] = {0xf6, 0x87, 0x98, 0x32, 0x00, 0x00, 0x0f};
    static const unsigned char kPstate[] = {0x8b, 0x97, 0x48, 0x01, 0x00, 0x00, 0xa9, 0x00, 0x00, 0x00, 0x40};
    static const unsigned char kSs[] = {0x81, 0xce, 0x00, 0x00, 0x00, 0x20,
                                        0x81, 0xe2, 0x00, 0x00, 0x20, 0x00};
    static const unsigned char kBtype[] = {0x8b, 0x97, 0x28, 0x02, 0x00, 0x00, 0xc1, 0xe2, 0x0a};
    // helper_lookup_tb_ptr: mov 0x31b8(%rbp),%rax; mov 0x290(%rax),%rax (uc->init_target_page); mov
    // -0x21bc(%rbx),%r8d (cluster_index); mov -0xa218(%rbx,%rbp,8),%rax (jump cache); the checks: cmp
    // (%rax),%rsi; jne; cmp 0x8(%rax),%rdi; jne; cmp 0x10(%rax),%ecx; jne; mov 0x1c(%rax),%edx; cmp
    // -0x21c8(%rbx),%rdx; jne; mov 0x18(%rax),%edx; and $0xff0effff,%edx; cmp %edx,%r8d; jne; mov
    // 0x20(%rax),%rax.
    static const unsigned char kPage[] = {0x48, 0x8b, 0x85, 0xb8, 0x31, 0x00, 0x00,
                                          0x48, 0x8b, 0x80, 0x90, 0x02, 0x00, 0x00};
    static const unsigned char kCluster[] = {0x44, 0x8b, 0x83, 0x44, 0xde, 0xff, 0xff};
    static const unsigned char kCache[] = {0x48, 0x8b, 0x84, 0xeb, 0xe8, 0x5d, 0xff, 0xff};
    static const unsigned char kChecks[] = {
        0x48, 0x3b, 0x30, 0x75, 0x45, 0x48, 0x3b, 0x78, 0x08, 0x75, 0x3f, 0x3b, 0x48, 0x10, 0x75, 0x3a,
        0x8b, 0x50, 0x1c, 0x48, 0x3b, 0x93, 0x38, 0xde, 0xff, 0xff, 0x75, 0x2e, 0x8b, 0x50, 0x18, 0x81,
        0xe2, 0xff, 0xff, 0x0e, 0xff, 0x41, 0x39, 0xd0, 0x75, 0x20, 0x48, 0x8b, 0x40, 0x20};
    const void* state = reinterpret_cast<const void*>(&cpu_get_tb_cpu_state_aarch64);
    const void* helper = reinterpret_cast<const void*>(&__real_helper_lookup_tb_ptr_aarch64);
    return code_has(state, 0x20, kHflags, sizeof kHflags) && code_has(state, 0x20, kPc, sizeof kPc) &&
           code_has(state, 0x30, kBti, sizeof kBti) && code_has(state, 0x40, kPstate, sizeof kPstate) &&
           code_has(state, 0x50, kSs, sizeof kSs) && code_has(state, 0x180, kBtype, sizeof kBtype) &&
           code_has(helper, 0x80, kPage, sizeof kPage) && code_has(helper, 0x80, kCluster, sizeof kCluster) &&
           code_has(helper, 0xa0, kCache, sizeof kCache) && code_has(helper, 0xd0, kChecks, sizeof kChecks);
  }();
  return ok;
}

// Set by prepare_tb_lookup before the first translation (a plain flag: the wrapper runs once per indirect
// branch, and a function-local static would cost it a guard test and a stack frame).
std::atomic<bool> g_short{false};

}  // namespace

bool prepare_tb_lookup() {
  const bool ok = layout_ok();
  g_short.store(ok, std::memory_order_relaxed);
  return ok;
}

}  // namespace emu

extern "C" void* __wrap_helper_lookup_tb_ptr_aarch64(void* env) {
  using namespace emu;  // NOLINT(google-build-using-namespace): the constants above
  if (!g_short.load(std::memory_order_relaxed)) return __real_helper_lookup_tb_ptr_aarch64(env);
  const auto hflags = at<uint32_t>(env, kEnvHflags);
  if ((hflags & (kAarch64State | kSsActive)) != kAarch64State)
    return __real_helper_lookup_tb_ptr_aarch64(env);
  const auto pc = at<uint64_t>(env, kEnvPc);
  uint32_t flags = hflags;
  if (at<uint8_t>(env, kEnvBtiFeature) & 0xf)
    flags = (flags & ~kBtypeMask) | ((at<uint32_t>(env, kEnvBtype) << 10) & kBtypeMask);
  const uint64_t tmp = pc ^ (pc >> (kPageBits - kJmpPageBits));
  const uint64_t hash = ((tmp >> (kPageBits - kJmpPageBits)) & 0xfc0) | (tmp & 0x3f);
  const auto* tb = reinterpret_cast<const Tb*>(
      at<uintptr_t>(env, kEnvJmpCache + static_cast<intptr_t>(hash * sizeof(void*))));
  const uint32_t cf = static_cast<uint32_t>(at<int32_t>(env, kEnvClusterIndex)) << kClusterShift;
  if (tb != nullptr && tb->pc == pc && tb->cs_base == 0 && tb->flags == flags &&
      tb->trace_vcpu_dstate == at<uint64_t>(env, kEnvTraceDstate) && (tb->cflags & kCfMask) == cf)
    return tb->code;
  return __real_helper_lookup_tb_ptr_aarch64(env);
}

#else

namespace emu {
bool prepare_tb_lookup() {
  return false;  // Unicorn linked as a shared library: nothing to wrap
}
}  // namespace emu

#endif  // A64RUN_WRAP_TRANSLATOR
