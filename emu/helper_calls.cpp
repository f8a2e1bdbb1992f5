// This file owns which of the translator's helpers are floating-point helpers that touch no TCG global.
//
// Why. Unicorn's arm helper.h (QEMU 5.0's) declares FADD, FMUL, FCMP, the conversions and their kin with no
// call flags, so TCG assumes each call may read and write every global (the guest's X registers, PC, the
// flags): before the call it stores the dirty ones and forgets them all, after it loads them again. In a
// loop of FMUL and FADD that is most of the code around the two calls.
//
// What. These helpers compute a value from their operands and a float_status (passed as a pointer into the
// CPU state, or for FSQRT and FCVT found there from the CPU state pointer), raise cumulative flags in that
// float_status, and do nothing else: no TCG global (the float_status is plain memory, not a global), no
// exception (QEMU does not trap floating-point exceptions), no guest memory. That is what
// TCG_CALL_NO_RWG promises, and QEMU gives it to their siblings (FRINT, FRECPE, the half-precision FCVT).
// The fast paths of emu/fp_fast.cpp, which wrap several of them, keep to the same: they read and write only
// the float_status.
//
// How. The set of those helpers' functions is found once in the first engine's helper table, each entry
// checked against the helper's name.
// The link wraps tcg_gen_callN, which counts the calls of a translation that go to one of them; when a
// block has any, the walk of emu/vreg_forwarding.cpp adds TCG_CALL_NO_RWG to each such call op's flags
// before TCG compiles the block (and a block without any is not walked at all).
#include "emu/helper_calls.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iterator>
#include <mutex>
#include <vector>

#include "emu/unicorn_layout.h"

#if A64RUN_WRAP_TRANSLATOR

// The helpers (helper.h and helper-a64.h names) that touch only their operands and a float_status.
// clang-format off
#define A64RUN_PURE_HELPERS(X) \
  X(vfp_adds) X(vfp_addd) X(vfp_subs) X(vfp_subd) X(vfp_muls) X(vfp_muld) X(vfp_divs) X(vfp_divd) \
  X(vfp_maxs) X(vfp_maxd) X(vfp_mins) X(vfp_mind) X(vfp_maxnums) X(vfp_maxnumd) X(vfp_minnums) \
  X(vfp_minnumd) X(vfp_muladds) X(vfp_muladdd) X(vfp_sqrts) X(vfp_sqrtd) X(vfp_fcvtds) \
  X(vfp_fcvtsd) X(vfp_uitoh) X(vfp_uitos) X(vfp_uitod) X(vfp_sitoh) X(vfp_sitos) X(vfp_sitod) \
  X(vfp_touih) X(vfp_touis) X(vfp_touid) X(vfp_touizh) X(vfp_touizs) X(vfp_touizd) X(vfp_tosih) \
  X(vfp_tosis) X(vfp_tosid) X(vfp_tosizh) X(vfp_tosizs) X(vfp_tosizd) X(vfp_touhh) X(vfp_toshh) \
  X(vfp_toulh) X(vfp_toslh) X(vfp_touqh) X(vfp_tosqh) X(vfp_toshs) X(vfp_tosls) X(vfp_tosqs) \
  X(vfp_touhs) X(vfp_touls) X(vfp_touqs) X(vfp_toshd) X(vfp_tosld) X(vfp_tosqd) X(vfp_touhd) \
  X(vfp_tould) X(vfp_touqd) X(vfp_shtos) X(vfp_sltos) X(vfp_sqtos) X(vfp_uhtos) X(vfp_ultos) \
  X(vfp_uqtos) X(vfp_shtod) X(vfp_sltod) X(vfp_sqtod) X(vfp_uhtod) X(vfp_ultod) X(vfp_uqtod) \
  X(vfp_sltoh) X(vfp_ultoh) X(vfp_sqtoh) X(vfp_uqtoh) X(vfp_cmph_a64) X(vfp_cmpeh_a64) \
  X(vfp_cmps_a64) X(vfp_cmpes_a64) X(vfp_cmpd_a64) X(vfp_cmped_a64) X(advsimd_addh) \
  X(advsimd_subh) X(advsimd_mulh) X(advsimd_divh) X(advsimd_ceq_f16) X(advsimd_cge_f16) \
  X(advsimd_cgt_f16) X(advsimd_acge_f16) X(advsimd_acgt_f16) X(advsimd_mulxh) X(advsimd_muladdh) \
  X(advsimd_add2h) X(advsimd_sub2h) X(advsimd_mul2h) X(advsimd_div2h) X(advsimd_max2h) \
  X(advsimd_min2h) X(advsimd_maxnum2h) X(advsimd_minnum2h) X(advsimd_mulx2h) X(advsimd_muladd2h) \
  X(advsimd_rinth_exact) X(advsimd_rinth) X(advsimd_f16tosinth) X(advsimd_f16touinth) X(sqrt_f16)
// clang-format on

#define A64RUN_DECLARE(n) void helper_##n##_aarch64();  // HELPER(n): the type does not matter here
extern "C" {
void* g_hash_table_lookup(void* table, const void* key);
void __real_tcg_gen_callN_aarch64(void* s, void* func, void* ret, int nargs, void** args);
A64RUN_PURE_HELPERS(A64RUN_DECLARE)
}
#undef A64RUN_DECLARE

namespace emu {
namespace {

using namespace unicorn;  // NOLINT(google-build-using-namespace): the layout this file reads

// TCGHelperInfo (tcg/tcg.c).
struct HelperInfo {
  void* func;
  const char* name;
  unsigned flags;
  unsigned sizemask;
};

constexpr size_t kCtxHelperTable = 0xa8e0;  // TCGContext.helper_table

struct Pure {
  const char* name;
  void (*func)();
};
#define A64RUN_ENTRY(n) {#n, &helper_##n##_aarch64},
constexpr Pure kPure[] = {A64RUN_PURE_HELPERS(A64RUN_ENTRY)};
#undef A64RUN_ENTRY
#undef A64RUN_PURE_HELPERS

// tcg_gen_callN looks the function up in the context's table and takes the flags from the entry it finds
// (mov 0xa8e0(%rdi),%rdi; call g_hash_table_lookup; ...; mov 0x10(%rax),%r13d): the table is where its
// entries are, and their flags are what a call op carries.
bool code_layout_ok() {
  static const unsigned char kTable[] = {0x48, 0x8b, 0xbf, 0xe0, 0xa8, 0x00, 0x00, 0xe8};
  static const unsigned char kFlags[] = {0x44, 0x8b, 0x68, 0x10};
  const void* fn = reinterpret_cast<const void*>(&__real_tcg_gen_callN_aarch64);
  return code_has(fn, 0x40, kTable, sizeof kTable) && code_has(fn, 0x50, kFlags, sizeof kFlags);
}

// The helpers' functions, sorted, found in the first engine's table (every engine's holds the same static
// entries); empty when that table was not as expected.
std::once_flag g_once;
std::vector<const void*> g_funcs;
std::atomic<int> g_count{0};  // g_funcs.size() once it is complete and right, else 0

// Each helper's entry, looked up by its function as tcg_gen_callN looks it up (a wrapped helper's entry
// and the address taken here both name the wrapper), must carry its name and no flags yet: none of these
// is marked by Unicorn's helper.h. A table of another shape marks nothing.
void find_funcs(void* table) {
  std::vector<const void*> found;
  found.reserve(std::size(kPure));
  for (const Pure& p : kPure) {
    const void* func = reinterpret_cast<const void*>(p.func);
    const auto* info = static_cast<const HelperInfo*>(g_hash_table_lookup(table, func));
    if (info == nullptr || info->func != func || info->name == nullptr ||
        std::strcmp(info->name, p.name) != 0 || info->flags != 0)
      return;
    found.push_back(func);
  }
  std::sort(found.begin(), found.end(), std::less<>());
  g_funcs = std::move(found);
  g_count.store(static_cast<int>(g_funcs.size()), std::memory_order_release);
}

thread_local int t_calls = 0;  // calls of those helpers in the translation on this thread

}  // namespace

bool prepare_helper_calls(uc_engine* uc) {
  static const bool code_ok = code_layout_ok();
  if (!code_ok) return false;
  void* ctx = field<void*>(uc, kUcTcgCtx);
  if (ctx == nullptr) return false;
  void* table = field<void*>(ctx, kCtxHelperTable);
  if (table == nullptr) return false;
  std::call_once(g_once, find_funcs, table);
  return g_count.load(std::memory_order_acquire) != 0;
}

bool helper_touches_only_fp_status(const void* func) {
  if (g_count.load(std::memory_order_acquire) == 0) return false;
  return std::binary_search(g_funcs.begin(), g_funcs.end(), func, std::less<>());
}

int helper_calls_marked() {
  return g_count.load(std::memory_order_relaxed);
}

void helper_calls_translation_start() {
  t_calls = 0;
}

int helper_calls_in_translation() {
  return t_calls;
}

}  // namespace emu

// Counts the calls of this translation that go to one of the helpers above.
extern "C" void __wrap_tcg_gen_callN_aarch64(void* s, void* func, void* ret, int nargs, void** args) {
  __real_tcg_gen_callN_aarch64(s, func, ret, nargs, args);
  if (emu::helper_touches_only_fp_status(func)) ++emu::t_calls;
}

#else

namespace emu {
bool prepare_helper_calls(uc_engine*) {
  return false;  // Unicorn linked as a shared library: its TCG context is not ours to read
}
bool helper_touches_only_fp_status(const void*) {
  return false;
}
int helper_calls_marked() {
  return 0;
}
void helper_calls_translation_start() {}
int helper_calls_in_translation() {
  return 0;
}
}  // namespace emu

#endif  // A64RUN_WRAP_TRANSLATOR
