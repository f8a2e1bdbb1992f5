// This file owns the call flags of the translator's floating-point helpers in each engine's TCG context.
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
// How. tcg_gen_callN takes a call's flags from the TCGHelperInfo that the context's helper table maps the
// function to. For each helper named below, prepare_helper_calls puts a copy with TCG_CALL_NO_RWG added in
// the table of each new engine (Unicorn inserts its own entries in the same table for inline hooks). The
// copies are made once and shared: every engine's table holds the same static entries.
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
int g_hash_table_insert(void* table, void* key, void* value);
void* g_hash_table_lookup(void* table, const void* key);
void tcg_gen_callN_aarch64(void* s, void* func, void* ret, int nargs, void** args);
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

constexpr size_t kCtxHelperTable = 0xa8e0;    // TCGContext.helper_table
constexpr unsigned kCallNoReadGlobals = 0x1;  // TCG_CALL_NO_READ_GLOBALS (TCG_CALL_NO_RWG)

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
  return std::binary_search(names.begin(), names.end(), std::string_view(name));
}

// tcg_gen_callN looks the function up in the context's table and takes the flags from what it finds:
// mov 0xa8e0(%rdi),%rdi; call g_hash_table_lookup; ...; mov 0x10(%rax),%r13d.
bool code_layout_ok() {
  static const unsigned char kTable[] = {0x48, 0x8b, 0xbf, 0xe0, 0xa8, 0x00, 0x00, 0xe8};
  static const unsigned char kFlags[] = {0x44, 0x8b, 0x68, 0x10};
  const void* fn = reinterpret_cast<const void*>(&tcg_gen_callN_aarch64);
  return code_has(fn, 0x40, kTable, sizeof kTable) && code_has(fn, 0x50, kFlags, sizeof kFlags);
}

// The copies, made from the first engine's table and shared by all (the originals are the same static
// entries in every engine); empty when that table was not as expected.
std::once_flag g_once;
std::vector<HelperInfo>* g_copies = nullptr;  // never freed: every engine's table points into it
std::atomic<int> g_marked{0};

void collect(void* key, void* value, void* user) {
  const auto* info = static_cast<const HelperInfo*>(value);
  auto* found = static_cast<std::vector<HelperInfo>*>(user);
  if (info == nullptr || info->func != key || info->name == nullptr || !pure(info->name)) return;
  HelperInfo copy = *info;
  copy.flags |= kCallNoReadGlobals;
  found->push_back(copy);
}

void make_copies(void* table) {
  auto* copies = new std::vector<HelperInfo>();
  copies->reserve(kPureCount);
  g_hash_table_foreach(table, &collect, copies);
  // Every name once, and nothing else: a table of another shape marks nothing.
  if (copies->size() != kPureCount) copies->clear();
  std::sort(copies->begin(), copies->end(),
            [](const HelperInfo& a, const HelperInfo& b) { return std::less<>()(a.func, b.func); });
  g_copies = copies;
}

}  // namespace

bool prepare_helper_calls(uc_engine* uc) {
  static const bool code_ok = code_layout_ok();
  if (!code_ok) return false;
  void* ctx = field<void*>(uc, kUcTcgCtx);
  if (ctx == nullptr) return false;
  void* table = field<void*>(ctx, kCtxHelperTable);
  if (table == nullptr) return false;
  std::call_once(g_once, make_copies, table);
  if (g_copies->empty()) return false;
  for (const HelperInfo& copy : *g_copies) {
    const auto* now = static_cast<const HelperInfo*>(g_hash_table_lookup(table, copy.func));
    if (now == nullptr || std::strcmp(now->name, copy.name) != 0 || now->sizemask != copy.sizemask)
      return false;
  }
  for (HelperInfo& copy : *g_copies) g_hash_table_insert(table, copy.func, &copy);  // again: the same
  g_marked.store(static_cast<int>(g_copies->size()), std::memory_order_release);
  return true;
}

bool helper_touches_only_fp_status(const void* func) {
  if (g_marked.load(std::memory_order_acquire) == 0) return false;
  const auto it =
      std::lower_bound(g_copies->begin(), g_copies->end(), func,
                       [](const HelperInfo& a, const void* f) { return std::less<>()(a.func, f); });
  return it != g_copies->end() && it->func == func;
}

int helper_calls_marked() {
  return g_marked.load(std::memory_order_relaxed);
}

}  // namespace emu

#else

namespace emu {
bool prepare_helper_calls(uc_engine*) {
  return false;  // Unicorn linked as a shared library: its TCG context is not ours to read
}
bool helper_touches_only_fp_status(const void* func) {
  if (g_marked.load(std::memory_order_acquire) == 0) return false;
  const auto it =
      std::lower_bound(g_copies->begin(), g_copies->end(), func,
                       [](const HelperInfo& a, const void* f) { return std::less<>()(a.func, f); });
  return it != g_copies->end() && it->func == func;
}

bool helper_touches_only_fp_status(const void*) {
  return false;
}
int helper_calls_marked() {
  return 0;
}
}  // namespace emu

#endif  // A64RUN_WRAP_TRANSLATOR
