// This file owns the walk over a translated block's TCG ops that call FP helpers: it marks those calls
// TCG_CALL_NO_RWG (emu/helper_calls.cpp says why that holds) and forwards V register values within the
// block. A block with no such call is not walked: most are not, and forwarding gains little in them.
//
// Why. The translator keeps the V registers in the CPU state, not in TCG globals: every scalar FP
// instruction loads its operands from there (ld_i64), and stores its result back, with a store of zero to
// the upper half of the register (st_i64). In `fmul d1, d2, d1; fadd d0, d0, d1` the FADD loads d1 just
// after the FMUL stored it, and each of the two writes of a register clears its upper half again. In a
// loop of FP arithmetic these loads and stores are a third of the memory operations.
//
// What. The walk, before TCG compiles the block (and before lazy flags look at its calls), remembers for
// each 8-byte slot of the V register file what value the CPU state holds there (a temp, and a constant
// when a movi_i64 of the same basic block set the temp and nothing wrote it since), learnt from a store or
// a load at that slot:
//   - a load of a remembered slot becomes a move from the temp (ld_i64 t, env, off -> mov_i64 t, v);
//   - a store to a remembered slot of the same temp, or of the same constant, is dropped: the CPU state
//     already holds that value.
// No store of a new value is ever dropped and none is moved, so the CPU state holds the same values at
// every op as without the rewrite (a fault, a kick or a helper finds the registers as before).
//
// The invariant: a slot is remembered only while the CPU state surely holds the temp's (or the
// constant's) value there and the temp still holds it. So everything that may break either forgets:
//   - an op that writes a temp forgets the slots that temp (or that constant's temp) stands for;
//   - a store to the CPU state forgets the slots it overlaps; a store of a vector, or through any base
//     other than env (a guest store, or a pointer the translator computed into the CPU state), or a
//     softmmu guest store forgets every slot;
//   - a call forgets every slot, unless it calls one of the helpers that write only their float_status
//     (emu/helper_calls.cpp), which lies outside the V registers;
//   - the end of a basic block (a label, a branch, an exit) forgets every slot: TCG's temps die there,
//     and a label may be reached from elsewhere.
// Only the V registers' slots are remembered (checked at prepare through Unicorn's register accessors):
// no helper and no other thread writes them while the block runs (a stop waits for the block's end).
#include "emu/vreg_forwarding.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "emu/fp_pairs.h"
#include "emu/helper_calls.h"
#include "emu/tcg_temp_values.h"
#include "emu/unicorn_layout.h"

#if A64RUN_WRAP_TRANSLATOR

extern "C" {
void tcg_op_remove_aarch64(void* s, void* op);
void* tcg_op_insert_before_aarch64(void* s, void* old_op, int opc);
void* tcg_temp_new_internal_aarch64(void* s, int type, bool local);
}

namespace emu {
namespace {

using namespace unicorn;  // NOLINT(google-build-using-namespace): the layout this file reads

constexpr size_t kTempName = 0x20;      // TCGTemp.name
constexpr uint8_t kFixedGlobal = 0x21;  // fixed_reg and temp_global: the env temp

// CPUARMState.vfp.zregs: 32 registers of 256 bytes (SVE's largest), D0 at 0xc10.
constexpr size_t kVregFirst = 0xc10;
constexpr size_t kVregStride = 0x100;
constexpr size_t kVregEnd = kVregFirst + 32 * kVregStride;

// What an opcode does, as far as this pass cares.
enum Role : uint8_t {
  kPlain,     // writes its outputs (temps) only
  kLoad64,    // ld_i64 t, base, off
  kStore,     // st8/st16/st32/st_i32/st_i64 v, base, off: writes `size` bytes
  kStoreAll,  // st_vec, qemu_st_*: writes memory this pass does not track
  kMov64,     // mov_i64
  kMovi64,    // movi_i64
  kCall,
  kBbEnd,  // set_label, brcond, br, exit_tb, goto_tb, goto_ptr
};

struct OpRole {
  Role role = kPlain;
  uint8_t size = 0;  // of a kStore
};

// Built from the first engine's op definitions; every engine's are copies of the same table (the names
// are the same string constants, checked at each engine's start).
struct Table {
  int count = 0;  // last_generic's opcode: the target's own ops after it are vector ops
  OpRole role[256];
  const char* name[256] = {};
  uint8_t mov64 = 0;
};

Table g_table;
std::atomic<int> g_state{0};  // the walk: 0 unknown, 1 on, -1 off
bool g_forward = false;       // and it forwards (not A64RUN_NO_FORWARD=1); set with g_state

bool build_table(const OpDef* defs, Table* t) {
  static const struct {
    const char* name;
    Role role;
    uint8_t size;
  } kNames[] = {{"ld_i64", kLoad64, 0},        {"st8_i32", kStore, 1},
                {"st16_i32", kStore, 2},       {"st_i32", kStore, 4},
                {"st8_i64", kStore, 1},        {"st16_i64", kStore, 2},
                {"st32_i64", kStore, 4},       {"st_i64", kStore, 8},
                {"st_vec", kStoreAll, 0},      {"qemu_st_i32", kStoreAll, 0},
                {"qemu_st_i64", kStoreAll, 0}, {"mov_i64", kMov64, 0},
                {"movi_i64", kMovi64, 0},      {"call", kCall, 0}};
  unsigned found = 0;
  for (int opc = 0; opc < 256; ++opc) {
    const char* name = defs[opc].name;
    if (name == nullptr) return false;
    t->name[opc] = name;
    if (std::strcmp(name, "last_generic") == 0) {
      t->count = opc;
      return found == (1u << (sizeof kNames / sizeof kNames[0])) - 1;
    }
    t->role[opc] = OpRole{(defs[opc].flags & kOpfBbEnd) ? kBbEnd : kPlain, 0};
    for (size_t i = 0; i < sizeof kNames / sizeof kNames[0]; ++i) {
      if (std::strcmp(name, kNames[i].name) != 0) continue;
      t->role[opc] = OpRole{kNames[i].role, kNames[i].size};
      if (kNames[i].role == kMov64) t->mov64 = static_cast<uint8_t>(opc);
      found |= 1u << i;
    }
  }
  return false;
}

// What the CPU state holds at one 8-byte slot of the V registers.
struct Slot {
  uintptr_t off = 0;
  uintptr_t temp = 0;  // a temp that holds the value, or 0
  bool is_const = false;
  uint64_t value = 0;
};

// The remembered slots: few live at once.
constexpr int kSlots = 16;
constexpr int kCopies = 32;  // new temps per block, for values whose temp the translator reuses

struct Walk {
  void* s = nullptr;
  const OpDef* defs = nullptr;  // this context's
  uintptr_t env = 0;
  Slot slot[kSlots];
  int slots = 0;
  int copies = 0;

  void forget_all() { slots = 0; }

  // A copy of `t` into a new temp, inserted before `op`; 0 when the block has had its share.
  uintptr_t copy_before(char* op, uintptr_t t) {
    if (copies == kCopies) return 0;
    if (copies++ == 0) {
      if (field<int>(s, kCtxNbTemps) + kCopies + 16 > kMaxTemps) return copies = kCopies, 0;
      // The translator has freed its temps, but its ops still name them: the copies must be new temps
      // (tcg_func_start empties the free lists again for the next translation).
      std::memset(static_cast<char*>(s) + kCtxFreeTemps, 0, kFreeTempsSize);
    }
    const auto fresh = reinterpret_cast<uintptr_t>(tcg_temp_new_internal_aarch64(s, kTcgTypeI64, false));
    char* mov = static_cast<char*>(tcg_op_insert_before_aarch64(s, op, g_table.mov64));
    args(mov)[0] = fresh;
    args(mov)[1] = t;
    return fresh;
  }

  // `op` writes `t`: a slot `t` stood for keeps only its constant if it knows one, else moves to a copy
  // made just before `op` (TCG's liveness drops the copy if nothing reads it), else is forgotten.
  void forget_temp(uintptr_t t, char* op = nullptr) {
    uintptr_t copy = 0;
    for (int i = 0; i < slots;) {
      if (slot[i].temp != t) {
        ++i;
      } else if (slot[i].is_const) {
        slot[i++].temp = 0;
      } else if (op != nullptr && (copy != 0 || (copy = copy_before(op, t)) != 0)) {
        slot[i++].temp = copy;
      } else {
        slot[i] = slot[--slots];
      }
    }
  }

  void forget_range(uintptr_t off, uintptr_t size) {
    for (int i = 0; i < slots;) {
      if (slot[i].off < off + size && off < slot[i].off + 8) {
        slot[i] = slot[--slots];
      } else {
        ++i;
      }
    }
  }

  Slot* find(uintptr_t off) {
    for (int i = 0; i < slots; ++i) {
      if (slot[i].off == off) return &slot[i];
    }
    return nullptr;
  }

  // A slot now holds temp `t`, a constant `*value` if `value` is not null.
  void remember(uintptr_t off, uintptr_t t, const uint64_t* value) {
    forget_range(off, 8);
    if (slots == kSlots) slot[0] = slot[--slots];  // the oldest goes first, roughly: any choice is safe
    Slot& added = slot[slots++];
    added = Slot{};
    added.off = off;
    added.temp = t;
    added.is_const = value != nullptr;
    if (value != nullptr) added.value = *value;
  }
};

// The temps that hold a constant from a movi_i64 of this basic block, while they hold it: how the translator
// makes the zero it stores to a register's upper half (tcg_const_i64, then the store, or a load between).
using Constants = TempValues;

bool vreg_slot(uintptr_t off) {
  return off >= kVregFirst && off + 8 <= kVregEnd && (off - kVregFirst) % 8 == 0;
}

// The op's output temps: args[0, outs).
int outputs(const Walk& w, const char* op) {
  const auto opc = static_cast<uint8_t>(op[0]);
  if (g_table.role[opc].role == kCall) return static_cast<uint8_t>(op[1]) >> 4;  // TCGOP_CALLO
  return w.defs[opc].nb_oargs;
}

// A store: dropped when the slot already holds that value, else the slots it overlaps are forgotten (and
// an 8-byte store to a V register slot is remembered).
bool visit_store(Walk& w, char* op, const Constants& consts, const OpRole& r) {
  uintptr_t* a = args(op);
  if (r.role == kStoreAll || a[1] != w.env) {
    w.forget_all();
    return false;
  }
  const uintptr_t off = a[2];
  if (r.size == 8 && vreg_slot(off)) {
    const uint64_t* value = consts.find(a[0]);
    if (Slot* s = w.find(off)) {
      if ((s->temp != 0 && s->temp == a[0]) || (s->is_const && value != nullptr && *value == s->value))
        return true;
    }
    w.remember(off, a[0], value);
    return false;
  }
  w.forget_range(off, r.size);
  return false;
}

// A call op of an FP helper gets TCG_CALL_NO_RWG (emu/helper_calls.cpp says why); true when it is one.
// Its args: TCGOP_CALLO outputs, TCGOP_CALLI inputs, then the function and the flags.
bool mark_if_fp_call(char* op) {
  uintptr_t* a = args(op);
  const int n = (static_cast<uint8_t>(op[1]) >> 4) + (static_cast<uint8_t>(op[1]) & 0xf);
  if (!helper_touches_only_fp_status(reinterpret_cast<const void*>(a[n]))) return false;
  a[n + 1] |= kCallNoReadGlobals;
  return true;
}

// The FP helper calls are marked, and nothing else is done (A64RUN_NO_FORWARD=1).
void mark_calls(char* first) {
  for (char* op = first; op != nullptr; op = next_op(op)) {
    if (g_table.role[static_cast<uint8_t>(op[0])].role == kCall) (void)mark_if_fp_call(op);
  }
}

void forward(void* s, char* first) {
  Walk w;
  w.s = s;
  w.defs = field<const OpDef*>(s, kCtxOpDefs);
  w.env = reinterpret_cast<uintptr_t>(static_cast<char*>(s) + kCtxTemps);  // temps[0]
  Constants consts;
  for (char* op = first; op != nullptr;) {
    char* next = next_op(op);  // (copies go in before `op`)
    const auto opc = static_cast<uint8_t>(op[0]);
    const OpRole r = opc < g_table.count ? g_table.role[opc] : OpRole{};
    uintptr_t* a = args(op);
    bool removed = false;
    if (r.role == kBbEnd) {
      consts.clear();  // a label may be reached from elsewhere
    } else {
      for (int i = 0, n = outputs(w, op); i < n; ++i) consts.forget(a[i]);
      if (r.role == kMovi64) consts.set(a[0], a[1]);
    }
    switch (r.role) {
      case kBbEnd:
        w.forget_all();
        break;
      case kStore:
      case kStoreAll:
        removed = visit_store(w, op, consts, r);
        break;
      case kCall:
        if (!mark_if_fp_call(op)) {
          w.forget_all();
          break;
        }
        for (int i = 0, n = outputs(w, op); i < n && w.slots != 0; ++i) w.forget_temp(a[i], op);
        break;
      case kLoad64: {
        const uintptr_t dest = a[0];
        const bool env_slot = a[1] == w.env && vreg_slot(a[2]);
        Slot* slot = env_slot ? w.find(a[2]) : nullptr;
        if (slot != nullptr && slot->temp == dest) {
          removed = true;  // dest holds the value already
          break;
        }
        if (slot != nullptr && slot->temp != 0) {
          const uintptr_t from = slot->temp;
          w.forget_temp(dest, op);
          op[0] = static_cast<char>(g_table.mov64);  // ld_i64 dest, env, off -> mov_i64 dest, from
          a[1] = from;
          break;
        }
        if (w.slots != 0) w.forget_temp(dest, op);
        if (env_slot) w.remember(a[2], dest, nullptr);
        break;
      }
      case kMov64:
      case kMovi64:
      case kPlain:
        if (w.slots == 0) break;
        for (int i = 0, n = outputs(w, op); i < n; ++i) w.forget_temp(a[i], op);
        break;
    }
    if (removed) tcg_op_remove_aarch64(s, op);
    op = next;
  }
}

}  // namespace

bool prepare_vreg_forwarding(uc_engine* uc) {
  if (g_state.load(std::memory_order_acquire) < 0) return false;
  void* ctx = field<void*>(uc, kUcTcgCtx);
  void* cpu = field<void*>(uc, kUcCpu);
  if (ctx == nullptr || cpu == nullptr) return false;
  const auto* defs = field<const OpDef*>(ctx, kCtxOpDefs);
  char* env_temp = static_cast<char*>(ctx) + kCtxTemps;
  char* env = field<char*>(cpu, kCpuEnvPtr);
  bool ok = defs != nullptr && (static_cast<uint8_t>(env_temp[kTempFlags]) & kFixedGlobal) == kFixedGlobal &&
            field<const char*>(env_temp, kTempName) != nullptr &&
            std::strcmp(field<const char*>(env_temp, kTempName), "env") == 0 &&
            field<char*>(env_temp, kTempMemBase) == nullptr;  // a fixed register has no base
  // D0 and D31 where the slots are: each written through Unicorn and read back from the CPU state.
  for (const int regid : {UC_ARM64_REG_D0, UC_ARM64_REG_D31}) {
    if (!ok) break;
    const uint64_t probe = 0x6b1d3f5a9e207c41ull;
    uint64_t saved = 0;
    const size_t at = kVregFirst + (regid == UC_ARM64_REG_D0 ? 0 : 31 * kVregStride);
    ok = uc_reg_read(uc, regid, &saved) == UC_ERR_OK && uc_reg_write(uc, regid, &probe) == UC_ERR_OK &&
         field<uint64_t>(env, at) == probe && uc_reg_write(uc, regid, &saved) == UC_ERR_OK;
  }
  static std::once_flag once;
  static bool built = false;
  if (ok) std::call_once(once, [defs] { built = build_table(defs, &g_table); });
  ok = ok && built;
  // Every engine's definitions are copies of one table: the same names, at the same opcodes.
  for (int opc = 0; ok && opc <= g_table.count; ++opc) ok = defs[opc].name == g_table.name[opc];
  ok = ok && helper_calls_marked() > 0;
  if (ok) (void)prepare_fp_pairs(defs);  // FMUL and FADD in one call, when its ops are there too
  static const bool forward_wanted = [] {
    const char* off = std::getenv("A64RUN_NO_FORWARD");  // diagnostics: V registers loaded back
    return off == nullptr || std::strcmp(off, "0") == 0;
  }();
  if (ok && g_state.load(std::memory_order_acquire) == 0) g_forward = forward_wanted;  // (before g_state)
  int expected = 0;
  g_state.compare_exchange_strong(expected, ok ? 1 : -1, std::memory_order_acq_rel);
  if (!ok) g_state.store(-1, std::memory_order_release);
  return ok && g_state.load(std::memory_order_acquire) > 0;
}

bool vreg_forwarding_enabled() {
  return g_state.load(std::memory_order_acquire) > 0 && g_forward;
}

void vreg_forwarding_after_translation(void* cpu) {
  // A block with no call of an FP helper is left alone: most blocks, and all that this walk gains much in.
  if (g_state.load(std::memory_order_relaxed) <= 0 || helper_calls_in_translation() == 0) return;
  void* s = field<void*>(field<void*>(cpu, kCpuUc), kUcTcgCtx);
  if (g_forward) {
    forward(s, field<char*>(s, kCtxOpsFirst));
  } else {
    mark_calls(field<char*>(s, kCtxOpsFirst));
  }
  fuse_fp_pairs(s, field<char*>(s, kCtxOpsFirst));
}

}  // namespace emu

#else

namespace emu {
bool prepare_vreg_forwarding(uc_engine*) {
  return false;  // Unicorn linked as a shared library: the translator cannot be wrapped
}
bool vreg_forwarding_enabled() {
  return false;
}
void vreg_forwarding_after_translation(void*) {}
}  // namespace emu

#endif  // A64RUN_WRAP_TRANSLATOR
