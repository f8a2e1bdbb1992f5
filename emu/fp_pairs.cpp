// This file owns the fusion of an FMUL and the FADD or FSUB that takes its product into one helper call.
//
// Why. Code built without floating-point contraction (Rust always, C in ISO mode or with
// -ffp-contract=off, most code written for x86-64) computes a*b+c as FMUL then FADD. Each is a helper call
// (emu/fp_fast.cpp's fast path inside), and the calls, with the moves of their operands into argument
// registers and of the V registers through the CPU state, are most of a loop of such pairs: a double matrix
// multiply's inner loop ran 45% faster built with FMADD (one call) than with FMUL and FADD.
//
// What. In a block whose ops have, in order,
//   M:  call mul(A, B, ST1) -> P             (helper_vfp_muld or _muls)
//   S:  st_i64 P, env, slot                  (the FMUL's write of its V register: of extu(P) for a single)
//   D:  call add(X, P, ST2) or add(P, X, ST2) (helper_vfp_addd/_subd, or the single ones: the same width)
// M and S are removed and D becomes one call of emu/fp_fast.cpp's pair helper (A', B', X, ST2, slot - ST2),
// which calls the two wrapped helpers in order and stores the product to the slot between them, as S did.
// A' and B' are copies of M's operands made where M was (the translator reuses temps); ST1 and ST2 must
// both be computed in the block as env plus the same offset (the translator's get_fpstatus_ptr: movi_i64 K,
// off; add_i64 ST, env, K), so one float_status serves both calls, and the slot is found from it.
//
// The invariant: everything that can observe the difference sees what it saw before. The helpers'
// float_status sees the same calls in the same order (nothing else touches it); the product reaches the slot
// later than S put it there, so the fusion is made only when nothing between S and D can look at the slot:
//   - between M and D, no call (a helper may read the CPU state), nothing with side effects (a guest
//     load or store may fault and show the registers to a signal handler), no basic block end, and no load
//     or store other than to the CPU state (env) at offsets not overlapping the slot, except a load of
//     exactly the stored value from the slot, which becomes a move from P;
//   - P, and the copies the block makes of it, are read only by S, D, moves and (for a single) the one
//     extension S stores; after D no op reads them (or the extension) before they are written again or the
//     basic block ends (they are ordinary temps, dead at its end).
// A64RUN_NO_FP_PAIRS=1 leaves every pair as two calls (diagnostics, and to compare).
#include "emu/fp_pairs.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "emu/fp_fast.h"
#include "emu/tcg_temp_values.h"
#include "emu/unicorn_layout.h"

#if A64RUN_WRAP_TRANSLATOR

extern "C" {
void tcg_op_remove_aarch64(void* s, void* op);
void* tcg_op_insert_before_aarch64(void* s, void* old_op, int opc);
void* tcg_temp_new_internal_aarch64(void* s, int type, bool local);
// HELPER(n): the type does not matter here, only the address (the wrapper's, as in the translator's calls).
void helper_vfp_muld_aarch64();
void helper_vfp_muls_aarch64();
void helper_vfp_addd_aarch64();
void helper_vfp_adds_aarch64();
void helper_vfp_subd_aarch64();
void helper_vfp_subs_aarch64();
}

namespace emu {
namespace {

using namespace unicorn;  // NOLINT(google-build-using-namespace): the layout this file reads

constexpr uint8_t kTempNotOrdinary = 0x61;  // TCGTemp: fixed_reg 0x01, temp_global 0x20, temp_local 0x40

// What an opcode is, as far as this walk cares.
enum Kind : uint8_t { kOther, kCall, kMov32, kMov64, kMovi64, kAdd64, kExtu, kLoad, kStore };

struct OpInfo {
  Kind kind = kOther;
  uint8_t size = 0;        // bytes a kLoad or kStore reads or writes
  bool whole_i32 = false;  // ld_i32: a 4-byte load into an i32 temp
  bool whole_i64 = false;  // ld_i64: an 8-byte load into an i64 temp
};

struct Table {
  OpInfo info[256];
  uint8_t opc[kStore + 1] = {};  // the opcode of each kind that has one
};

Table g_table;
std::atomic<bool> g_on{false};

bool build(const OpDef* defs, Table* t) {
  static const struct {
    const char* name;
    Kind kind;
    uint8_t size;
  } kNames[] = {
      {"call", kCall, 0},      {"mov_i32", kMov32, 0},     {"mov_i64", kMov64, 0},  {"movi_i64", kMovi64, 0},
      {"add_i64", kAdd64, 0},  {"extu_i32_i64", kExtu, 0}, {"ld8u_i32", kLoad, 1},  {"ld8s_i32", kLoad, 1},
      {"ld16u_i32", kLoad, 2}, {"ld16s_i32", kLoad, 2},    {"ld_i32", kLoad, 4},    {"ld8u_i64", kLoad, 1},
      {"ld8s_i64", kLoad, 1},  {"ld16u_i64", kLoad, 2},    {"ld16s_i64", kLoad, 2}, {"ld32u_i64", kLoad, 4},
      {"ld32s_i64", kLoad, 4}, {"ld_i64", kLoad, 8},       {"ld_vec", kLoad, 32},   {"dupm_vec", kLoad, 32},
      {"st8_i32", kStore, 1},  {"st16_i32", kStore, 2},    {"st_i32", kStore, 4},   {"st8_i64", kStore, 1},
      {"st16_i64", kStore, 2}, {"st32_i64", kStore, 4},    {"st_i64", kStore, 8},   {"st_vec", kStore, 32}};
  constexpr size_t kCount = sizeof kNames / sizeof kNames[0];
  uint64_t found = 0;
  for (int opc = 0; opc < 256; ++opc) {
    const char* name = defs[opc].name;
    if (name == nullptr) return false;
    if (std::strcmp(name, "last_generic") == 0) return found == (uint64_t{1} << kCount) - 1;
    for (size_t i = 0; i < kCount; ++i) {
      if (std::strcmp(name, kNames[i].name) != 0) continue;
      OpInfo& in = t->info[opc];
      in.kind = kNames[i].kind;
      in.size = kNames[i].size;
      in.whole_i32 = std::strcmp(name, "ld_i32") == 0;
      in.whole_i64 = std::strcmp(name, "ld_i64") == 0;
      if (in.kind != kLoad && in.kind != kStore) t->opc[in.kind] = static_cast<uint8_t>(opc);
      found |= uint64_t{1} << i;
    }
  }
  return false;
}

const void* fn(void (*f)()) {
  return reinterpret_cast<const void*>(f);
}

// The temps that hold the product: P and the moves of it. Few at once; more fails the pair.
struct Copies {
  uintptr_t t[8] = {};
  int n = 0;
  bool has(uintptr_t x) const {
    for (int i = 0; i < n; ++i) {
      if (t[i] == x) return true;
    }
    return false;
  }
  bool add(uintptr_t x) {
    if ((reinterpret_cast<const uint8_t*>(x)[kTempFlags] & kTempNotOrdinary) != 0 || n == 8) return false;
    if (!has(x)) t[n++] = x;
    return true;
  }
  void remove(uintptr_t x) {
    for (int i = 0; i < n; ++i) {
      if (t[i] == x) t[i--] = t[--n];
    }
  }
};

// The temps the block has set to env plus a constant (movi_i64 K, c; add_i64 T, env, K), while they hold it.
struct EnvPointers {
  TempValues offsets;
  bool find(uintptr_t t, uintptr_t* o) const {
    const uint64_t* v = offsets.find(t);
    if (v != nullptr) *o = *v;
    return v != nullptr;
  }
  // `op` (after `prev`) is about to run: its outputs no longer hold what they held.
  void visit(const char* op, const char* prev, int n_out, uintptr_t env) {
    const uintptr_t* a = args(const_cast<char*>(op));
    for (int o = 0; o < n_out; ++o) offsets.forget(a[o]);
    if (g_table.info[static_cast<uint8_t>(op[0])].kind != kAdd64 || a[1] != env || prev == nullptr ||
        g_table.info[static_cast<uint8_t>(prev[0])].kind != kMovi64 ||
        args(const_cast<char*>(prev))[0] != a[2])
      return;
    offsets.set(a[0], args(const_cast<char*>(prev))[1]);
  }
};

struct Walk {
  void* s = nullptr;
  const OpDef* defs = nullptr;
  uintptr_t env = 0;
  bool fresh = false;  // the free temp lists are emptied (copies must be new temps)

  int outs(const char* op) const {
    const auto opc = static_cast<uint8_t>(op[0]);
    if (g_table.info[opc].kind == kCall) return static_cast<uint8_t>(op[1]) >> 4;  // TCGOP_CALLO
    return defs[opc].nb_oargs;
  }
  int ins(const char* op) const {
    const auto opc = static_cast<uint8_t>(op[0]);
    if (g_table.info[opc].kind == kCall) return static_cast<uint8_t>(op[1]) & 0xf;  // TCGOP_CALLI
    return defs[opc].nb_iargs;
  }
  bool ends_or_acts(const char* op) const {
    return (defs[static_cast<uint8_t>(op[0])].flags & (kOpfBbEnd | kOpfCallClobber | kOpfSideEffects)) != 0;
  }

  uintptr_t temp(int type) {
    if (!fresh) {
      // The translator has freed its temps, but its ops still name them (as emu/vreg_forwarding.cpp's
      // copies).
      std::memset(static_cast<char*>(s) + kCtxFreeTemps, 0, kFreeTempsSize);
      fresh = true;
    }
    return reinterpret_cast<uintptr_t>(tcg_temp_new_internal_aarch64(s, type, false));
  }
  char* insert(char* before, Kind kind, uintptr_t a0, uintptr_t a1, uintptr_t a2 = 0) {
    char* op = static_cast<char*>(tcg_op_insert_before_aarch64(s, before, g_table.opc[kind]));
    args(op)[0] = a0;
    args(op)[1] = a1;
    args(op)[2] = a2;
    return op;
  }

  char* try_pair(char* mul, bool single, EnvPointers* ptrs);
};

bool overlaps(uintptr_t off, unsigned size, uintptr_t slot) {
  return off < slot + 8 && slot < off + size;
}

// One candidate pair, found op by op from M.
struct Pair {
  Walk* w;
  bool single;
  uintptr_t status = 0;   // the float_status's offset in env
  Copies product;         // the temps that hold P
  uintptr_t ext = 0;      // a single's extension to 64 bits, which S stores
  char* store = nullptr;  // S
  uintptr_t slot = 0;     // and where it stores
  char* pair = nullptr;   // D
  bool product_first = false;
  bool sub = false;

  // D, when `op` is a call of it: the same width's FADD or FSUB with P as one value operand (not both)
  // and a float_status at `status`. False for any other call.
  bool is_d(char* op, const EnvPointers& known) {
    const uintptr_t* a = args(op);
    const int n_out = w->outs(op);
    const int n_in = w->ins(op);
    const void* f = reinterpret_cast<const void*>(a[n_out + n_in]);
    const void* add_fn = fn(single ? &helper_vfp_adds_aarch64 : &helper_vfp_addd_aarch64);
    const void* sub_fn = fn(single ? &helper_vfp_subs_aarch64 : &helper_vfp_subd_aarch64);
    uintptr_t status2 = 0;
    const bool first = product.has(a[1]);
    if (n_out != 1 || n_in != 3 || (f != add_fn && f != sub_fn) || store == nullptr ||
        first == product.has(a[2]) || !known.find(a[3], &status2) || status2 != status)
      return false;
    pair = op;
    product_first = first;
    sub = f == sub_fn;
    return true;
  }

  // A load or store between M and D: S, a load of the product from the slot (made a move), or one that
  // leaves the slot alone. False when it may not lie between.
  bool memory_op(char* op, const OpInfo& in, bool* done) {
    uintptr_t* a = args(op);
    *done = false;
    if (a[1] != w->env) return false;  // a guest access (it may fault), or through a pointer computed earlier
    const uintptr_t off = a[2];
    if (in.kind == kStore && store == nullptr && in.size == 8 &&
        (single ? ext != 0 && a[0] == ext : product.has(a[0]))) {
      store = op;
      slot = off;
      return *done = true;
    }
    if (store == nullptr || !overlaps(off, in.size, slot)) return true;
    if (in.kind != kLoad || off != slot || !(single ? in.whole_i32 : in.whole_i64) || product.n == 0)
      return false;
    op[0] = static_cast<char>(g_table.opc[single ? kMov32 : kMov64]);  // the slot holds P: move it
    a[1] = product.t[0];
    if (a[0] == ext) ext = 0;
    *done = true;
    return product.add(a[0]);
  }

  // Any other op between M and D: it may read P only to move it (or, for a single, extend it once).
  bool other_op(char* op, const OpInfo& in) {
    uintptr_t* a = args(op);
    const int n_out = w->outs(op);
    const int n_in = w->ins(op);
    bool copies_product = false;
    uintptr_t extends_product = 0;
    for (int i = n_out; i < n_out + n_in; ++i) {
      if (ext != 0 && a[i] == ext) return false;  // read by something other than S
      if (!product.has(a[i])) continue;
      if (in.kind == (single ? kMov32 : kMov64)) {
        copies_product = true;
      } else if (single && in.kind == kExtu && ext == 0 && store == nullptr) {
        extends_product = a[0];
      } else {
        return false;
      }
    }
    for (int i = 0; i < n_out; ++i) {
      product.remove(a[i]);
      if (a[i] == ext) ext = 0;
    }
    if (extends_product != 0) ext = extends_product;
    return !copies_product || product.add(a[0]);
  }

  // From M to D; false when there is no D or something between forbids the pair.
  bool find(char* mul, EnvPointers* known) {
    int budget = 64;
    char* prev = mul;
    for (char* op = next_op(mul); op != nullptr && --budget != 0; prev = op, op = next_op(op)) {
      const OpInfo& in = g_table.info[static_cast<uint8_t>(op[0])];
      if (in.kind == kCall) return is_d(op, *known);
      known->visit(op, prev, w->outs(op), w->env);
      if (in.kind == kLoad || in.kind == kStore) {
        bool done = false;
        if (!memory_op(op, in, &done)) return false;
        if (done) continue;
      } else if (w->ends_or_acts(op)) {
        return false;  // (emu/direct_memory.cpp gives host loads and stores side effects: a guest access)
      }
      if (!other_op(op, in)) return false;
    }
    return false;
  }

  // After D: nothing reads the product (or its extension) again before it is written or the block ends.
  bool unread_after() const {
    Copies left = product;
    left.remove(args(pair)[0]);
    uintptr_t extension = ext;
    int budget = 512;
    for (char* op = next_op(pair); op != nullptr && (left.n != 0 || extension != 0); op = next_op(op)) {
      if (--budget == 0) return false;
      const uintptr_t* a = args(op);
      const int n_out = w->outs(op);
      for (int i = n_out; i < n_out + w->ins(op); ++i) {
        if (left.has(a[i]) || (extension != 0 && a[i] == extension)) return false;
      }
      if ((w->defs[static_cast<uint8_t>(op[0])].flags & kOpfBbEnd) != 0) break;
      for (int i = 0; i < n_out; ++i) {
        left.remove(a[i]);
        if (a[i] == extension) extension = 0;
      }
    }
    return true;
  }

  // M and S go; D calls the pair helper with copies of M's operands made where M was and the slot's
  // distance from the float_status.
  void rewrite(char* mul, const void* helper) {
    const uintptr_t* m = args(mul);
    const int value_type = single ? kTcgTypeI32 : kTcgTypeI64;
    const Kind value_mov = single ? kMov32 : kMov64;
    const uintptr_t a_copy = w->temp(value_type);
    const uintptr_t b_copy = w->temp(value_type);
    w->insert(mul, value_mov, a_copy, m[1]);
    w->insert(mul, value_mov, b_copy, m[2]);
    const uintptr_t delta = w->temp(kTcgTypeI64);
    w->insert(pair, kMovi64, delta, slot - status);
    uintptr_t* d = args(pair);
    const uintptr_t x = product_first ? d[2] : d[1];
    const uintptr_t st = d[3];
    const uintptr_t flags = d[5] | kCallNoReadGlobals;
    // D: out, then A', B', X, ST2, the delta, the function, the flags (TCGOP_CALLO 1, TCGOP_CALLI 5).
    d[1] = a_copy;
    d[2] = b_copy;
    d[3] = x;
    d[4] = st;
    d[5] = delta;
    d[6] = reinterpret_cast<uintptr_t>(helper);
    d[7] = flags;
    pair[1] = static_cast<char>((1 << 4) | 5);
    tcg_op_remove_aarch64(w->s, store);
    tcg_op_remove_aarch64(w->s, mul);
  }
};

// Fuses the pair that starts at `mul` if there is one; returns the op to go on after (the pair's D, or
// `mul` when nothing was done). `ptrs` is what is known at `mul`, and at the returned op when it is D.
char* Walk::try_pair(char* mul, bool single, EnvPointers* ptrs) {
  const uintptr_t* m = args(mul);
  Pair p{this, single};
  if (outs(mul) != 1 || ins(mul) != 3 || !ptrs->find(m[3], &p.status) || !p.product.add(m[0])) return mul;
  EnvPointers known = *ptrs;
  known.visit(mul, nullptr, 1, env);
  if (!p.find(mul, &known) || !p.unread_after()) return mul;
  if (field<int>(s, kCtxNbTemps) + 3 + 16 > kMaxTemps) return mul;
  const void* helper = fp_mul_pair_helper(single, p.sub, p.product_first);
  if (helper == nullptr) return mul;
  p.rewrite(mul, helper);
  *ptrs = known;
  return p.pair;
}

}  // namespace

bool prepare_fp_pairs(const void* op_defs) {
  static std::once_flag once;
  std::call_once(once, [op_defs] {
    const char* off = std::getenv("A64RUN_NO_FP_PAIRS");
    if (off != nullptr && std::strcmp(off, "0") != 0) return;
    if (fp_mul_pair_helper(false, false, false) == nullptr) return;
    g_on.store(build(static_cast<const OpDef*>(op_defs), &g_table), std::memory_order_release);
  });
  return g_on.load(std::memory_order_acquire);
}

bool fp_pairs_enabled() {
  return g_on.load(std::memory_order_acquire);
}

void fuse_fp_pairs(void* s, char* first) {
  if (!g_on.load(std::memory_order_acquire)) return;
  Walk w;
  w.s = s;
  w.defs = field<const OpDef*>(s, kCtxOpDefs);
  w.env = reinterpret_cast<uintptr_t>(static_cast<char*>(s) + kCtxTemps);  // temps[0]
  const void* muld = fn(&helper_vfp_muld_aarch64);
  const void* muls = fn(&helper_vfp_muls_aarch64);
  EnvPointers ptrs;
  char* prev = nullptr;
  for (char* op = first; op != nullptr; prev = op, op = next_op(op)) {
    if (g_table.info[static_cast<uint8_t>(op[0])].kind == kCall) {
      const void* f = reinterpret_cast<const void*>(args(op)[w.outs(op) + w.ins(op)]);
      if (f == muld || f == muls) {
        char* at = w.try_pair(op, f == muls, &ptrs);
        if (at != op) {
          op = at;  // D, whose ops before are known to `ptrs`; D itself sets a value temp only
          ptrs.visit(op, nullptr, 1, w.env);
          continue;
        }
      }
    }
    ptrs.visit(op, prev, w.outs(op), w.env);
    if ((w.defs[static_cast<uint8_t>(op[0])].flags & kOpfBbEnd) != 0)
      ptrs.offsets.clear();  // a label may be reached from elsewhere
  }
}

}  // namespace emu

#else

namespace emu {
bool prepare_fp_pairs(const void*) {
  return false;  // Unicorn linked as a shared library: the translator cannot be wrapped
}
bool fp_pairs_enabled() {
  return false;
}
void fuse_fp_pairs(void*, char*) {}
}  // namespace emu

#endif  // A64RUN_WRAP_TRANSLATOR
