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
// How. The set of those helpers' functions is found once, by name, in the first engine's helper table.
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
#include <string_view>
#include <vector>

#include "emu/unicorn_layout.h"

#if A64RUN_WRAP_TRANSLATOR

extern "C" {
using GHFunc = void (*)(void* key, void* value, void* user_data);
void g_hash_table_foreach(void* table, GHFunc func, void* user_data);
void __real_tcg_gen_callN_aarch64(void* s, void* func, void* ret, int nargs, void** args);
}

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

// The helpers (helper.h and helper-a64.h names) that touch only their operands and a float_status.
constexpr const char* kPure[] = {"vfp_adds",         "vfp_addd",           "vfp_subs",
                                 "vfp_subd",         "vfp_muls",           "vfp_muld",
                                 "vfp_divs",         "vfp_divd",           "vfp_maxs",
                                 "vfp_maxd",         "vfp_mins",           "vfp_mind",
                                 "vfp_maxnums",      "vfp_maxnumd",        "vfp_minnums",
                                 "vfp_minnumd",      "vfp_muladds",        "vfp_muladdd",
                                 "vfp_sqrts",        "vfp_sqrtd",          "vfp_fcvtds",
                                 "vfp_fcvtsd",       "vfp_uitoh",          "vfp_uitos",
                                 "vfp_uitod",        "vfp_sitoh",          "vfp_sitos",
                                 "vfp_sitod",        "vfp_touih",          "vfp_touis",
                                 "vfp_touid",        "vfp_touizh",         "vfp_touizs",
                                 "vfp_touizd",       "vfp_tosih",          "vfp_tosis",
                                 "vfp_tosid",        "vfp_tosizh",         "vfp_tosizs",
                                 "vfp_tosizd",       "vfp_touhh",          "vfp_toshh",
                                 "vfp_toulh",        "vfp_toslh",          "vfp_touqh",
                                 "vfp_tosqh",        "vfp_toshs",          "vfp_tosls",
                                 "vfp_tosqs",        "vfp_touhs",          "vfp_touls",
                                 "vfp_touqs",        "vfp_toshd",          "vfp_tosld",
                                 "vfp_tosqd",        "vfp_touhd",          "vfp_tould",
                                 "vfp_touqd",        "vfp_shtos",          "vfp_sltos",
                                 "vfp_sqtos",        "vfp_uhtos",          "vfp_ultos",
                                 "vfp_uqtos",        "vfp_shtod",          "vfp_sltod",
                                 "vfp_sqtod",        "vfp_uhtod",          "vfp_ultod",
                                 "vfp_uqtod",        "vfp_sltoh",          "vfp_ultoh",
                                 "vfp_sqtoh",        "vfp_uqtoh",          "vfp_cmph_a64",
                                 "vfp_cmpeh_a64",    "vfp_cmps_a64",       "vfp_cmpes_a64",
                                 "vfp_cmpd_a64",     "vfp_cmped_a64",      "advsimd_addh",
                                 "advsimd_subh",     "advsimd_mulh",       "advsimd_divh",
                                 "advsimd_ceq_f16",  "advsimd_cge_f16",    "advsimd_cgt_f16",
                                 "advsimd_acge_f16", "advsimd_acgt_f16",   "advsimd_mulxh",
                                 "advsimd_muladdh",  "advsimd_add2h",      "advsimd_sub2h",
                                 "advsimd_mul2h",    "advsimd_div2h",      "advsimd_max2h",
                                 "advsimd_min2h",    "advsimd_maxnum2h",   "advsimd_minnum2h",
                                 "advsimd_mulx2h",   "advsimd_muladd2h",   "advsimd_rinth_exact",
                                 "advsimd_rinth",    "advsimd_f16tosinth", "advsimd_f16touinth",
                                 "sqrt_f16"};
constexpr size_t kPureCount = sizeof kPure / sizeof kPure[0];

// The names above, sorted: each engine's table holds about 1,500 helpers to look up.
std::vector<std::string_view> sorted_pure() {
  std::vector<std::string_view> names(std::begin(kPure), std::end(kPure));
  std::sort(names.begin(), names.end());
  return names;
}

bool pure(const char* name) {
  static const std::vector<std::string_view> names = sorted_pure();
  if (std::strncmp(name, "vfp_", 4) != 0 && std::strncmp(name, "advsimd_", 8) != 0 && name[0] != 's')
    return false;  // most of the table (about 1,500 helpers) at one or two compares
  return std::binary_search(names.begin(), names.end(), std::string_view(name));
}

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

void collect(void* key, void* value, void* user) {
  const auto* info = static_cast<const HelperInfo*>(value);
  auto* found = static_cast<std::vector<const void*>*>(user);
  // The flags a call of it carries now: none of these is marked by Unicorn's helper.h.
  if (info == nullptr || info->func != key || info->name == nullptr || !pure(info->name)) return;
  found->push_back(info->flags == 0 ? info->func : nullptr);
}

void find_funcs(void* table) {
  std::vector<const void*> found;
  found.reserve(kPureCount);
  g_hash_table_foreach(table, &collect, &found);
  std::sort(found.begin(), found.end(), std::less<>());
  // Every name once, unmarked, and nothing else: a table of another shape marks nothing.
  if (found.size() != kPureCount || found.front() == nullptr) return;
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
