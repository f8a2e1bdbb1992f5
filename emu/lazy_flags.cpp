// This file owns lazy condition flags: the rewrite of a block's TCG ops that leaves NZCV uncomputed, the
// record that makes it exact again, and the places that settle it.
//
// Why. Unicorn's translator (as qemu's) computes all four flags of every CMP, ADDS or TST into the CPU state:
// about 17 host instructions for a 64-bit CMP, a third of a small loop's code. Most of it is dead: the loop's
// B.cond reads one flag, and the code it goes to sets NZCV again before reading it.
//
// What. After the translator has generated a block's ops (lazy_flags_after_translation), the block's last
// instruction L that writes NZCV is looked at. When L is a SUBS, ADDS, ANDS or BICS (CMP, CMN, TST), or a
// CCMP or CCMN:
//   - from L on, the block's ops read and write four temps instead of the CPU state's NF, ZF, CF and VF
//     (each once written there), so TCG's liveness drops what nothing in the block reads (a B.NE reads
//     only Z); from an earlier flag writer already when nothing observable lies between it and L (CMP;
//     CCMP), since nothing sees the CPU state's flags before L's record, nor after it;
//   - just before L's arithmetic, the block stores the record: L's kind and its operands, in three fields
//     of the CPU state that EL0 code never uses (ELR_EL2, ELR_EL3 and SP_EL2). A conditional compare picks
//     its kind at run time: its compare's, or the fixed kind of its immediate NZCV when its condition failed;
//   - a B.cond that ends the block compares copies of L's operands instead of testing flags (fuse_branch).
// Every block then keeps the invariant below at its start:
//   - a block that reads a flag before an instruction has written all four (a B.cond or CSEL first, a CCMP,
//     ADC or SETF8) settles the record at its start: a load, a compare and a branch around a call;
//   - any other block that writes NZCV clears the record's kind just before its first flag write (a store).
//
// The invariant: whenever the record's kind is set, the architectural NZCV is lazy_nzcv(kind, a, b) and the
// CPU state's NF, ZF, CF and VF are stale; when it is clear, they are NZCV. Within L's block the reads after
// L use the temps, and no helper called after L may write the globals (the rewrite is not made then); no
// helper reads the flags from the CPU state on its own (at EL0 only exception entry and return would, and
// Unicorn hands exceptions to a64run's hooks instead). Outside translated code, NZCV is read and written
// only through uc_reg_read, uc_reg_write and their batch forms; the link wraps those four: a read of NZCV
// or PSTATE gets the record's NZCV (and changes nothing, so another thread may read a stopped vCPU as
// before), and a write of either forgets the record. A signal frame, a debugger or a new thread thus sees
// the NZCV Linux would show at any stop: a system call, a fault, a kick at a block's start, a breakpoint.
#include "emu/lazy_flags.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "emu/lazy_flags_arm64.h"
#include "emu/unicorn_layout.h"
#include "emu/vcpu.h"

#if A64RUN_WRAP_TRANSLATOR

extern "C" {
void* tcg_temp_new_internal_aarch64(void* s, int type, bool local);
void* tcg_op_insert_before_aarch64(void* s, void* old_op, int opc);
void* gen_new_label_aarch64(void* s);
void a64run_settle_lazy_flags(void* env);
uc_err __real_uc_reg_read(uc_engine* uc, int regid, void* value);
uc_err __real_uc_reg_write(uc_engine* uc, int regid, const void* value);
}

namespace emu {
namespace {

using namespace unicorn;  // NOLINT(google-build-using-namespace): the layout this file reads

// Debian's build of Unicorn 2.1.1 (with emu/unicorn_layout.h; checked in prepare_lazy_flags).
constexpr size_t kTempMemOffset = 0x18;
constexpr size_t kTbPc = 0x0;     // TranslationBlock.pc
constexpr size_t kTbSize = 0x14;  // TranslationBlock.size
constexpr uint8_t kTempGlobal = 0x20;
constexpr uintptr_t kCondEq = 8;          // TCG_COND_EQ
constexpr uintptr_t kCondNe = 9;          // TCG_COND_NE
constexpr uint32_t kLabelPresent = 1;     // TCGLabel.present
constexpr uint32_t kLabelRef = 1u << 16;  // TCGLabel.refs

// CPUARMState (target/arm/cpu.h): the flags as TCG keeps them, and the three fields of the record.
constexpr size_t kEnvCF = 0x208;          // 0 or 1
constexpr size_t kEnvVF = 0x20c;          // V in bit 31
constexpr size_t kEnvNF = 0x210;          // N in bit 31
constexpr size_t kEnvZF = 0x214;          // Z when 0
constexpr size_t kEnvRecordA = 0x248;     // elr_el[2]
constexpr size_t kEnvRecordB = 0x250;     // elr_el[3]
constexpr size_t kEnvRecordKind = 0x268;  // sp_el[2]

// The TCG opcodes used here (tcg-opc.h order), checked against their definitions' names.
enum Opc : uint8_t {
  kSetLabel = 1,
  kCall = 2,
  kMovI32 = 5,
  kMoviI32 = 6,
  kSetcondI32 = 7,
  kMovcondI32 = 8,
  kLdI32 = 13,
  kStI32 = 16,
  kSubI32 = 18,
  kBrcondI32 = 38,
  kAdd2I32 = 39,
  kMovI64 = 63,
  kMoviI64 = 64,
  kSetcondI64 = 65,
  kStI64 = 77,
  kSubI64 = 79,
  kExtI32I64 = 99,
  kExtuI32I64 = 100,
  kBrcondI64 = 103,
  kAdd2I64 = 123,
  kMulshI64 = 128,
  kInsnStart = 129,
};

enum State : int { kUnknown, kOn, kOff };
std::atomic<int> g_state{kUnknown};

bool defs_ok(void* ctx) {
  const auto* defs = field<const OpDef*>(ctx, kCtxOpDefs);
  if (defs == nullptr) return false;
  static const struct {
    Opc opc;
    const char* name;
  } kNames[] = {{kCall, "call"},
                {kSetLabel, "set_label"},
                {kLdI32, "ld_i32"},
                {kBrcondI32, "brcond_i32"},
                {kMovI32, "mov_i32"},
                {kMoviI32, "movi_i32"},
                {kSetcondI32, "setcond_i32"},
                {kMovcondI32, "movcond_i32"},
                {kStI32, "st_i32"},
                {kSubI32, "sub_i32"},
                {kAdd2I32, "add2_i32"},
                {kSetcondI64, "setcond_i64"},
                {kStI64, "st_i64"},
                {kSubI64, "sub_i64"},
                {kAdd2I64, "add2_i64"},
                {kInsnStart, "insn_start"},
                {kMovI64, "mov_i64"},
                {kMoviI64, "movi_i64"},
                {kBrcondI64, "brcond_i64"},
                {kExtI32I64, "ext_i32_i64"},
                {kExtuI32I64, "extu_i32_i64"},
                {kMulshI64, "mulsh_i64"}};
  for (const auto& n : kNames) {
    if (defs[n.opc].name == nullptr || std::strcmp(defs[n.opc].name, n.name) != 0) return false;
  }
  return true;
}

// tcg_temp_new_internal finds a free temp in free_temps (lea 0x108(%rdi,%rax,1),%r8: the set of its type
// and kind, 64 bytes each) and a new one at temps[nb_temps] (movslq 0x30(%rdi),%rax; lea
// 0x388(%rdi,%rdx,8),%rcx with rdx = 7 * nb_temps: 56 bytes each).
bool code_layout_ok() {
  static const unsigned char kFree[] = {0x4c, 0x8d, 0x84, 0x07, 0x08, 0x01, 0x00, 0x00};
  static const unsigned char kNbTemps[] = {0x48, 0x63, 0x47, 0x30};
  static const unsigned char kTemps[] = {0x48, 0x8d, 0x8c, 0xd7, 0x88, 0x03, 0x00, 0x00};
  const void* fn = reinterpret_cast<const void*>(&tcg_temp_new_internal_aarch64);
  return code_has(fn, 0x100, kFree, sizeof kFree) && code_has(fn, 0x100, kNbTemps, sizeof kNbTemps) &&
         code_has(fn, 0x100, kTemps, sizeof kTemps);
}

// Writes `v` into register `regid` through Unicorn and checks that the CPU state holds it at `off`.
bool field_is(uc_engine* uc, char* env, int regid, size_t off) {
  uint64_t saved = 0;
  if (__real_uc_reg_read(uc, regid, &saved) != UC_ERR_OK) return false;
  const uint64_t probe = 0x5a17e3c9d2b4f681ull;
  if (__real_uc_reg_write(uc, regid, &probe) != UC_ERR_OK) return false;
  const bool ok = field<uint64_t>(env, off) == probe;
  const uint64_t zero = 0;
  (void)__real_uc_reg_write(uc, regid, &zero);
  return ok && saved == 0;
}

// NZCV 0xa0000000 (N and C) lands in the four fields as TCG keeps them.
bool flags_at(uc_engine* uc, char* env) {
  uint64_t saved = 0;
  if (__real_uc_reg_read(uc, UC_ARM64_REG_NZCV, &saved) != UC_ERR_OK) return false;
  const uint64_t probe = 0xa0000000;
  if (__real_uc_reg_write(uc, UC_ARM64_REG_NZCV, &probe) != UC_ERR_OK) return false;
  const bool ok = field<uint32_t>(env, kEnvNF) >> 31 == 1 && field<uint32_t>(env, kEnvZF) != 0 &&
                  field<uint32_t>(env, kEnvCF) == 1 && field<uint32_t>(env, kEnvVF) >> 31 == 0;
  (void)__real_uc_reg_write(uc, UC_ARM64_REG_NZCV, &saved);
  return ok;
}

char* env_of(void* cpu) {
  return field<char*>(cpu, kCpuEnvPtr);
}

}  // namespace

bool prepare_lazy_flags(uc_engine* uc) {
  if (g_state.load(std::memory_order_acquire) == kOff) return false;
  void* cpu = field<void*>(uc, kUcCpu);
  void* ctx = field<void*>(uc, kUcTcgCtx);
  if (cpu == nullptr || ctx == nullptr || field<void*>(cpu, kCpuUc) != static_cast<void*>(uc)) return false;
  // ARMCPU holds CPUState and then the CPU state itself (its TLB follows it: more than 0x3000 bytes).
  char* env = env_of(cpu);
  const auto gap = reinterpret_cast<uintptr_t>(env) - reinterpret_cast<uintptr_t>(cpu);
  const char* eager = std::getenv("A64RUN_EAGER_FLAGS");  // diagnostics: every flag computed, as before
  const bool ok = (eager == nullptr || std::strcmp(eager, "0") == 0) && gap > kCpuUc && gap < 0x10000 &&
                  code_layout_ok() && defs_ok(ctx) && field_is(uc, env, UC_ARM64_REG_ELR_EL2, kEnvRecordA) &&
                  field_is(uc, env, UC_ARM64_REG_ELR_EL3, kEnvRecordB) &&
                  field_is(uc, env, UC_ARM64_REG_SP_EL2, kEnvRecordKind) && flags_at(uc, env);
  int expected = kUnknown;
  g_state.compare_exchange_strong(expected, ok ? kOn : kOff, std::memory_order_acq_rel);
  if (!ok) g_state.store(kOff, std::memory_order_release);
  return ok && g_state.load(std::memory_order_acquire) == kOn;
}

namespace {

// NZCV (bits 31..28) of the record in `env`, whose kind is set.
uint32_t record_nzcv(char* env) {
  const uint64_t kind = field<uint64_t>(env, kEnvRecordKind);
  if (kind >= kLazyKinds) {
    std::fputs("a64run: internal error: a lazy flag record of no known kind\n", stderr);
    std::abort();
  }
  return lazy_nzcv(static_cast<LazyKind>(kind), field<uint64_t>(env, kEnvRecordA),
                   field<uint64_t>(env, kEnvRecordB));
}

void settle_env(char* env) {
  if (field<uint64_t>(env, kEnvRecordKind) == kLazyNone) return;
  const uint32_t nzcv = record_nzcv(env);
  field<uint32_t>(env, kEnvNF) = nzcv & 0x80000000u;
  field<uint32_t>(env, kEnvZF) = (nzcv & 0x40000000u) ? 0 : 1;
  field<uint32_t>(env, kEnvCF) = (nzcv >> 29) & 1;
  field<uint32_t>(env, kEnvVF) = (nzcv << 3) & 0x80000000u;
  field<uint64_t>(env, kEnvRecordKind) = kLazyNone;
}

// The CPU state of `uc` when a block left NZCV lazy in it, else null.
char* lazy_env(uc_engine* uc) {
  if (g_state.load(std::memory_order_relaxed) != kOn) return nullptr;
  void* cpu = field<void*>(uc, kUcCpu);
  if (cpu == nullptr) return nullptr;
  char* env = env_of(cpu);
  return field<uint64_t>(env, kEnvRecordKind) != kLazyNone ? env : nullptr;
}

bool holds_nzcv(int regid) {
  return regid == UC_ARM64_REG_NZCV || regid == UC_ARM64_REG_PSTATE;
}

// A read of NZCV or PSTATE (32 bits, NZCV in bits 31..28) gets the NZCV of the record. Reads change nothing,
// so another thread may read a stopped vCPU's registers as before.
void patch_read(uc_engine* uc, int regid, void* value) {
  if (!holds_nzcv(regid)) return;
  char* env = lazy_env(uc);
  if (env == nullptr) return;
  auto* v = static_cast<uint32_t*>(value);
  *v = (*v & 0x0fffffffu) | record_nzcv(env);
}

// A write of NZCV or PSTATE sets the flags themselves: the record no longer says anything.
void after_write(uc_engine* uc, int regid) {
  if (!holds_nzcv(regid)) return;
  if (char* env = lazy_env(uc)) field<uint64_t>(env, kEnvRecordKind) = kLazyNone;
}

constexpr size_t kFlags = 4;  // NF, ZF, CF, VF: the order of kFlagFields
constexpr size_t kFlagFields[kFlags] = {kEnvNF, kEnvZF, kEnvCF, kEnvVF};

// One translation's context: the TCG context, its op definitions, and the temps of the flags and the env.
struct Rewrite {
  void* s = nullptr;
  const OpDef* defs = nullptr;
  uintptr_t flag[kFlags] = {};
  uintptr_t lo = 0, hi = 0;  // the lowest and highest of flag[]: most args are neither
  uintptr_t env = 0;
};

// The op's outputs and inputs: args[0, outs) and args[outs, outs + ins).
void arg_counts(const Rewrite& r, const char* op, int* outs, int* ins) {
  const auto opc = static_cast<uint8_t>(op[0]);
  if (opc == kCall) {  // TCGOP_CALLI is param1 (bits 8-11), TCGOP_CALLO param2 (bits 12-15)
    *ins = static_cast<uint8_t>(op[1]) & 0xf;
    *outs = static_cast<uint8_t>(op[1]) >> 4;
    return;
  }
  *outs = r.defs[opc].nb_oargs;
  *ins = r.defs[opc].nb_iargs;
}

int flag_index(const Rewrite& r, uintptr_t arg) {
  if (arg < r.lo || arg > r.hi) return -1;
  for (size_t j = 0; j < kFlags; ++j) {
    if (r.flag[j] == arg) return static_cast<int>(j);
  }
  return -1;
}

bool writes_flag(const Rewrite& r, char* op) {
  int outs = 0, ins = 0;
  arg_counts(r, op, &outs, &ins);
  for (int i = 0; i < outs; ++i) {
    if (flag_index(r, args(op)[i]) >= 0) return true;
  }
  return false;
}

// A call that may write the CPU state's globals (and so perhaps the flags there: exception return does).
// One that only reads them is fine: no helper reads NZCV there, and a hook reads it through uc_reg_read.
bool call_writes_globals(const Rewrite& r, char* op) {
  if (static_cast<uint8_t>(op[0]) != kCall) return false;
  int outs = 0, ins = 0;
  arg_counts(r, op, &outs, &ins);
  constexpr uintptr_t kNoWg = 0x2;  // TCG_CALL_NO_WRITE_GLOBALS (TCG_CALL_NO_READ_GLOBALS implies it)
  return (args(op)[outs + ins + 1] & (kNoWg | kCallNoReadGlobals)) == 0;
}

// The flag globals of this context: I32 globals at the flag fields, all on the same base (the env temp).
bool search_flags(Rewrite* r) {
  char* temps = static_cast<char*>(r->s) + kCtxTemps;
  const int n = field<int>(r->s, kCtxNbTemps);
  if (n <= 0 || n > kMaxTemps) return false;
  unsigned found = 0;
  for (int i = 0; i < n; ++i) {
    char* t = temps + static_cast<size_t>(i) * kTempSize;
    if (!(static_cast<uint8_t>(t[kTempFlags]) & kTempGlobal)) break;  // the globals come first
    const auto off = static_cast<size_t>(field<intptr_t>(t, kTempMemOffset));
    for (size_t j = 0; j < kFlags; ++j) {
      if (off != kFlagFields[j] || t[3] != kTcgTypeI32) continue;
      const auto base = reinterpret_cast<uintptr_t>(field<void*>(t, kTempMemBase));
      if (found != 0 && base != r->env) return false;
      r->env = base;
      r->flag[j] = reinterpret_cast<uintptr_t>(t);
      found |= 1u << j;
    }
  }
  const auto lo = reinterpret_cast<uintptr_t>(temps);
  return found == 0xf && r->env >= lo && r->env < lo + static_cast<size_t>(n) * kTempSize;
}

// search_flags, once per TCG context on this thread (a context's globals never change; one allocated
// again at the same address is checked again).
bool find_flags(Rewrite* r) {
  struct Cache {
    void* s = nullptr;
    uintptr_t flag[kFlags] = {};
    uintptr_t env = 0;
  };
  thread_local Cache cache;
  bool hit = cache.s == r->s;
  for (size_t j = 0; hit && j < kFlags; ++j) {
    auto* t = reinterpret_cast<char*>(cache.flag[j]);
    hit = static_cast<size_t>(field<intptr_t>(t, kTempMemOffset)) == kFlagFields[j] &&
          reinterpret_cast<uintptr_t>(field<void*>(t, kTempMemBase)) == cache.env;
  }
  if (!hit) {
    if (!search_flags(r)) return false;
    cache.s = r->s;
    std::memcpy(cache.flag, r->flag, sizeof cache.flag);
    cache.env = r->env;
  }
  std::memcpy(r->flag, cache.flag, sizeof r->flag);
  r->env = cache.env;
  r->lo = r->hi = r->flag[0];
  for (uintptr_t f : r->flag) r->lo = std::min(r->lo, f), r->hi = std::max(r->hi, f);
  return true;
}

char* insert_before(const Rewrite& r, char* op, Opc opc, uintptr_t a0, uintptr_t a1, uintptr_t a2 = 0) {
  auto* added = static_cast<char*>(tcg_op_insert_before_aarch64(r.s, op, opc));
  args(added)[0] = a0;
  args(added)[1] = a1;
  args(added)[2] = a2;
  return added;
}

// Before `op`: the record's kind set to `kind` (kLazyNone clears it).
void store_kind(const Rewrite& r, char* op, uint32_t kind) {
  const auto k = reinterpret_cast<uintptr_t>(tcg_temp_new_internal_aarch64(r.s, kTcgTypeI32, false));
  insert_before(r, op, kMoviI32, k, kind);
  insert_before(r, op, kStI32, k, r.env, kEnvRecordKind);
}

// The op of L's flag computation whose inputs are L's operands (the record's a and b), or null.
char* anchor(const Rewrite& r, char* from, LazyKind kind) {
  for (char* op = from; op != nullptr; op = next_op(op)) {
    const auto opc = static_cast<uint8_t>(op[0]);
    const uintptr_t* a = args(op);
    switch (kind) {
      case kLazySub64:
        if (opc == kSubI64) {
          char* cond = next_op(op);  // gen_sub_CC: sub; the two halves of NZ; or; setcond GEU of a, b
          for (int i = 0; i < 6 && cond != nullptr; ++i, cond = next_op(cond)) {
            if (static_cast<uint8_t>(cond[0]) == kSetcondI64 && args(cond)[1] == a[1] &&
                args(cond)[2] == a[2])
              return op;
          }
          return nullptr;
        }
        break;
      case kLazySub32:
        if (opc == kSubI32) return a[0] == r.flag[0] ? op : nullptr;
        break;
      case kLazyAdd64:
        if (opc == kAdd2I64) return a[3] == a[5] ? op : nullptr;
        break;
      case kLazyAdd32:
        if (opc == kAdd2I32) return a[0] == r.flag[0] && a[1] == r.flag[2] && a[3] == a[5] ? op : nullptr;
        break;
      case kLazyLogic64:
      case kLazyLogic32:
        if (writes_flag(r, op)) return opc == kMovI32 && a[0] == r.flag[1] ? op : nullptr;
        break;
      default:
        return nullptr;
    }
    if (writes_flag(r, op)) return nullptr;  // a flag written before the arithmetic: not the pattern
  }
  return nullptr;
}

// L's operands as its anchor reads them: a and b (b is 0 for ANDS and BICS, whose a is the result, an I64
// temp the mov to ZF reads as I32), and whether they are I64 temps.
struct Operands {
  uintptr_t a = 0, b = 0;
  bool wide = true;
};

Operands operands(char* at, LazyKind kind) {
  const uintptr_t* a = args(at);
  switch (kind) {
    case kLazySub64:
      return {a[1], a[2], true};
    case kLazySub32:
      return {a[1], a[2], false};
    case kLazyAdd64:  // add2: the low halves of the two operands
      return {a[2], a[4], true};
    case kLazyAdd32:
      return {a[2], a[4], false};
    default:
      return {a[1], 0, true};
  }
}

// A conditional compare's T0 (disas_cc: setcond_i32 T0 = !cond, before the compare's arithmetic): the only
// setcond_i32 of L's ops before its anchor (arm_test_cc makes none), else 0.
uintptr_t condition_failed_temp(char* l_insn, char* at) {
  uintptr_t t0 = 0;
  for (char* op = next_op(l_insn); op != nullptr && op != at; op = next_op(op)) {
    if (static_cast<uint8_t>(op[0]) != kSetcondI32) continue;
    if (t0 != 0) return 0;
    t0 = args(op)[0];
  }
  return t0;
}

// The record's stores for L, before its anchor. For a conditional compare (`t0` set: 1 when its condition
// failed) the kind is chosen at run time: the fixed kind of its immediate `nzcv`, or the compare's.
void store_record(const Rewrite& r, char* at, LazyKind kind, uintptr_t t0, uint32_t nzcv) {
  const Operands o = operands(at, kind);
  const Opc store = o.wide ? kStI64 : kStI32;
  if (t0 == 0) {
    store_kind(r, at, kind);
  } else {
    const auto temp = [&] {
      return reinterpret_cast<uintptr_t>(tcg_temp_new_internal_aarch64(r.s, kTcgTypeI32, false));
    };
    const uintptr_t zero = temp(), fixed = temp(), compare = temp(), k = temp();
    insert_before(r, at, kMoviI32, zero, 0);
    insert_before(r, at, kMoviI32, fixed, kLazyFixed + nzcv);
    insert_before(r, at, kMoviI32, compare, kind);
    char* select = insert_before(r, at, kMovcondI32, k, t0, zero);  // k = t0 != 0 ? fixed : compare
    args(select)[3] = fixed;
    args(select)[4] = compare;
    args(select)[5] = kCondNe;
    insert_before(r, at, kStI32, k, r.env, kEnvRecordKind);
  }
  insert_before(r, at, store, o.a, r.env, kEnvRecordA);
  if (o.b != 0) insert_before(r, at, store, o.b, r.env, kEnvRecordB);
}

// At the block's start (before `op`, its first instruction's first op): if the record is set, settle it.
//   ld_i32 t, env, kind; brcond_i32 t == 0, skip; call a64run_settle_lazy_flags(env); skip:
// The call reads no TCG global and writes the four flags: TCG loads them from the CPU state after it.
void settle_at_start(const Rewrite& r, char* op) {
  const auto t = reinterpret_cast<uintptr_t>(tcg_temp_new_internal_aarch64(r.s, kTcgTypeI32, false));
  const auto zero = reinterpret_cast<uintptr_t>(tcg_temp_new_internal_aarch64(r.s, kTcgTypeI32, false));
  void* label = gen_new_label_aarch64(r.s);
  auto& word = *static_cast<uint32_t*>(label);  // TCGLabel: present in bit 0, refs in bits 16-31
  word = (word | kLabelPresent) + kLabelRef;
  const auto l = reinterpret_cast<uintptr_t>(label);
  insert_before(r, op, kLdI32, t, r.env, kEnvRecordKind);
  insert_before(r, op, kMoviI32, zero, 0);
  char* branch = insert_before(r, op, kBrcondI32, t, zero, kCondEq);
  args(branch)[3] = l;
  char* call = insert_before(r, op, kCall, r.env, reinterpret_cast<uintptr_t>(&a64run_settle_lazy_flags),
                             kCallNoReadGlobals);
  call[1] = 1;  // TCGOP_CALLI 1 (env), TCGOP_CALLO 0
  insert_before(r, op, kSetLabel, l, 0);
}

// Whether an op of opcode `opc` may have a flag (an I32 global) among its operands: the I64 ops from mov_i64
// to mulsh_i64 take I64 temps only, except the two that widen an I32 (ADC reads CF through extu_i32_i64).
bool may_name_flags(uint8_t opc) {
  return opc < kMovI64 || opc > kMulshI64 || opc == kExtI32I64 || opc == kExtuI32I64;
}

// The guest words of a block, as the translator has just read them from the window (code pages are
// readable there), decide which instructions may name a flag (may_touch_nzcv): the walks below skip the
// operands of the ops of every other (quiet) instruction. Each word is decoded once, here. A word another
// thread rewrites meanwhile without the synchronization Arm asks for is a CONSTRAINED UNPREDICTABLE
// instruction, and every pair Arm allows to be swapped under a running thread (B, BL, NOP, BRK, SVC, ISB)
// is quiet on both sides. Without a window (or for a block longer than TCG makes one) no instruction is.
class QuietInsns {
 public:
  QuietInsns(const DirectWindow* w, uint64_t pc, uint64_t size) : pc_(pc) {
    if (w == nullptr || pc > w->size || size > w->size - pc || size / 4 > kMaxInsns) return;
    n_ = size / 4;
    loud_ = false;
    for (size_t i = 0; i < n_; ++i) {
      uint32_t word = 0;
      std::memcpy(&word, w->base + pc + 4 * i, sizeof word);
      if (may_touch_nzcv(word)) {
        loud_ = true;
      } else {
        quiet_[i / 64] |= uint64_t{1} << (i % 64);
      }
    }
  }
  // Whether some instruction of the block may name a flag.
  bool loud() const { return loud_; }
  // Whether the instruction at `insn_pc` (an insn_start op's) names none.
  bool operator()(uint64_t insn_pc) const {
    const uint64_t i = (insn_pc - pc_) / 4;
    return insn_pc >= pc_ && (insn_pc - pc_) % 4 == 0 && i < n_ && ((quiet_[i / 64] >> (i % 64)) & 1);
  }

 private:
  static constexpr size_t kMaxInsns = 512;  // TCG_MAX_INSNS
  uint64_t pc_;
  size_t n_ = 0;
  bool loud_ = true;
  uint64_t quiet_[kMaxInsns / 64] = {};
};

#if A64RUN_CHECK_FLAG_FREE_BLOCKS
// The sanitizer builds check what the walks assume: no op of a quiet instruction names a flag.
void check_quiet_insns(const Rewrite& r, const QuietInsns& quiet_insn) {
  bool quiet = false;
  uint64_t pc = 0;
  for (char* op = field<char*>(r.s, kCtxOpsFirst); op != nullptr; op = next_op(op)) {
    if (static_cast<uint8_t>(op[0]) == kInsnStart) {
      pc = args(op)[0];
      quiet = quiet_insn(pc);
      continue;
    }
    int outs = 0, ins = 0;
    arg_counts(r, op, &outs, &ins);
    for (int i = 0; quiet && i < outs + ins; ++i) {
      if (flag_index(r, args(op)[i]) < 0) continue;
      std::fprintf(stderr,
                   "a64run: internal error: the instruction at %#llx names NZCV, its encoding does not\n",
                   static_cast<unsigned long long>(pc));
      std::abort();
    }
  }
}
#endif

// Whether anything may see the CPU state or leave the block at `op`: a call, a load or store (the guest's
// fault sees the registers there: emu/direct_memory.cpp marks the host accesses TCG_OPF_SIDE_EFFECTS, and
// the softmmu ones are so marked already), or a basic block's end or exit.
bool observable(const Rewrite& r, const char* op) {
  constexpr uint8_t kSeen = kOpfBbExit | kOpfBbEnd | kOpfCallClobber | kOpfSideEffects;
  const auto opc = static_cast<uint8_t>(op[0]);
  return opc == kCall || (r.defs[opc].flags & kSeen) != 0;
}

// What one pass over a block's ops finds. Until the end of the first instruction that writes a flag: whether
// a flag is read before it is written (then the block settles at its start). And L, the last instruction
// that writes one, with what follows it.
struct Scan {
  char* first_op = nullptr;  // the first op of the first instruction
  char* first_write = nullptr;
  char* first_write_insn = nullptr;
  bool live_in = false;
  char* l_insn = nullptr;
  uint64_t l_pc = 0;
  char* last_insn = nullptr;  // the block's last instruction (its insn_start op)
  uint64_t last_pc = 0;
  bool unsafe_after_l = false;  // since L's first flag write: a call that may write the globals, or a flag
                                // read after a basic block's end (TCG's normal temps die there)
  // The first flag write of the writers before L that run up to L's first flag write with nothing
  // observable between them (CMP; CCMP, or CMP; CSEL; CMP), else null: from there on the flags may live
  // in temps, since nothing sees the CPU state's flags before L's record is stored, and only the record
  // after it. (L writes no flag before its anchor, where the record goes: anchor() checks.)
  char* run_before_l = nullptr;
};

Scan scan_block(const Rewrite& r, const QuietInsns& quiet_insn) {
  Scan b;
  char* insn = nullptr;
  uint64_t insn_pc = 0;
  bool quiet = false;
  unsigned written = 0;  // the flags written so far, until the first writing instruction ends
  bool bb_end_after_l = false;
  char* run = nullptr;  // the first flag write since the last observable op
  for (char* op = field<char*>(r.s, kCtxOpsFirst); op != nullptr; op = next_op(op)) {
    if (static_cast<uint8_t>(op[0]) == kInsnStart) {
      if (b.first_write_insn != nullptr && insn == b.first_write_insn && written != 0xf) b.live_in = true;
      insn = op;
      insn_pc = args(op)[0];
      quiet = quiet_insn(insn_pc);
      b.last_insn = op;
      b.last_pc = insn_pc;
      continue;
    }
    if (b.first_op == nullptr && insn != nullptr) b.first_op = op;
    if (observable(r, op)) run = nullptr;
    int outs = 0, ins = 0;
    if (!quiet && may_name_flags(static_cast<uint8_t>(op[0]))) arg_counts(r, op, &outs, &ins);
    const bool in_prefix = b.first_write_insn == nullptr || insn == b.first_write_insn;
    for (int i = outs; i < outs + ins; ++i) {
      const int j = flag_index(r, args(op)[i]);
      if (j < 0) continue;
      if (in_prefix && !(written & (1u << j))) b.live_in = true;
      if (bb_end_after_l) b.unsafe_after_l = true;
    }
    for (int i = 0; i < outs; ++i) {
      const int j = flag_index(r, args(op)[i]);
      if (j < 0) continue;
      if (b.first_write == nullptr) b.first_write = op, b.first_write_insn = insn;
      if (in_prefix) written |= 1u << j;
      if (run == nullptr) run = op;
      if (insn != b.l_insn) {
        b.l_insn = insn, b.l_pc = insn_pc, b.unsafe_after_l = false, bb_end_after_l = false;
        b.run_before_l = run != op ? run : nullptr;
      }
    }
    if (b.l_insn != nullptr && call_writes_globals(r, op)) b.unsafe_after_l = true;
    if (b.l_insn != nullptr && (r.defs[static_cast<uint8_t>(op[0])].flags & kOpfBbEnd)) bb_end_after_l = true;
  }
  if (b.first_write_insn != nullptr && insn == b.first_write_insn && written != 0xf) b.live_in = true;
  return b;
}

// From `from` on (an op of a flag writer, or its insn_start), each flag is its temp's once an op has written
// it there: a read before that (a CCMP reads the flags it then replaces) reads the flag as it was.
void rename_flags(const Rewrite& r, char* from, const QuietInsns& quiet_insn) {
  uintptr_t temp[kFlags];
  for (uintptr_t& t : temp)
    t = reinterpret_cast<uintptr_t>(tcg_temp_new_internal_aarch64(r.s, kTcgTypeI32, false));
  unsigned renamed = 0;
  bool quiet = false;
  for (char* op = from; op != nullptr; op = next_op(op)) {
    if (static_cast<uint8_t>(op[0]) == kInsnStart) {
      quiet = quiet_insn(args(op)[0]);
      continue;
    }
    if (quiet) continue;
    int outs = 0, ins = 0;
    arg_counts(r, op, &outs, &ins);
    for (int i = outs; i < outs + ins; ++i) {
      const int j = flag_index(r, args(op)[i]);
      if (j >= 0 && (renamed & (1u << j))) args(op)[i] = temp[j];
    }
    for (int i = 0; i < outs; ++i) {
      const int j = flag_index(r, args(op)[i]);
      if (j >= 0) args(op)[i] = temp[j], renamed |= 1u << j;
    }
  }
}

// The TCG condition on L's operands (a - b, or the logical result against 0) that is the A64 condition
// `cond` on L's NZCV, or -1 (MI, PL, VS and VC of a subtraction; a logical result's constant ones; ADDS).
int fused_condition(LazyKind kind, uint32_t cond) {
  // TCG_COND_*: EQ 8, NE 9, LT 2, GE 3, LE 10, GT 11, LTU 4, GEU 5, LEU 12, GTU 13.
  static constexpr int kSub[14] = {8, 9, 5, 4, -1, -1, -1, -1, 13, 12, 3, 2, 11, 10};
  static constexpr int kLogic[14] = {8, 9, -1, -1, 2, 3, -1, -1, -1, -1, 3, 2, 11, 10};
  if (cond >= 14) return -1;
  if (kind == kLazySub64 || kind == kLazySub32) return kSub[cond];
  if (kind == kLazyLogic64) return kLogic[cond];
  return -1;
}

// A B.cond that ends the block after L branches on a compare of L's operands, copied where L reads them
// (a register L overwrites still holds its old value in the copy), instead of on the flags: TCG then drops
// the flag computation the branch needed. Only with no basic block end in between (the copies are normal
// temps). The record is still stored, for everything after the branch.
void fuse_branch(const Rewrite& r, const Scan& b, char* at, LazyKind kind, const DirectWindow& w) {
  if (b.last_insn == b.l_insn) return;
  uint32_t word = 0;
  std::memcpy(&word, w.base + b.last_pc, sizeof word);
  if ((word & 0xff000010) != 0x54000000) return;  // B.cond
  const int cond = fused_condition(kind, word & 0xf);
  if (cond < 0) return;
  char* branch = nullptr;
  for (char* op = b.last_insn; op != nullptr && branch == nullptr; op = next_op(op)) {
    if (static_cast<uint8_t>(op[0]) == kBrcondI32) branch = op;
  }
  if (branch == nullptr) return;
  for (char* op = at; op != branch; op = next_op(op)) {
    if (r.defs[static_cast<uint8_t>(op[0])].flags & kOpfBbEnd) return;
  }
  const Operands o = operands(at, kind);
  const auto temp = [&] {
    return reinterpret_cast<uintptr_t>(
        tcg_temp_new_internal_aarch64(r.s, o.wide ? kTcgTypeI64 : kTcgTypeI32, false));
  };
  const uintptr_t lhs = temp(), rhs = temp();
  insert_before(r, at, o.wide ? kMovI64 : kMovI32, lhs, o.a);
  if (o.b != 0) {
    insert_before(r, at, o.wide ? kMovI64 : kMovI32, rhs, o.b);
  } else {
    insert_before(r, at, kMoviI64, rhs, 0);  // a logical result against zero (fused only for X registers)
  }
  branch[0] = static_cast<char>(o.wide ? kBrcondI64 : kBrcondI32);
  args(branch)[0] = lhs;
  args(branch)[1] = rhs;
  args(branch)[2] = static_cast<uintptr_t>(cond);
}

}  // namespace

void lazy_flags_after_translation(void* cpu, void* tb) {
  if (g_state.load(std::memory_order_relaxed) != kOn) return;
  Rewrite r;
  r.s = field<void*>(field<void*>(cpu, kCpuUc), kUcTcgCtx);
  // The window lets the rewrite read L's encoding; without it (A64RUN_SOFTMMU=1, a debugger's watchpoint)
  // no flag is left lazy, but the block still keeps the invariant (a record may be set when it starts).
  DirectWindow w;
  const bool window = Vcpu::running_direct_window(r.s, &w);
  r.defs = field<const OpDef*>(r.s, kCtxOpDefs);
  const uint64_t pc = field<uint64_t>(tb, kTbPc);
  const uint64_t size = field<uint16_t>(tb, kTbSize);
  const QuietInsns quiet(window ? &w : nullptr, pc, size);
#if A64RUN_CHECK_FLAG_FREE_BLOCKS
  if (!find_flags(&r)) return;
  check_quiet_insns(r, quiet);
#else
  if (!quiet.loud()) return;  // most blocks: nothing to do
  if (!find_flags(&r)) return;
#endif
  const Scan b = scan_block(r, quiet);
  if (b.first_op == nullptr || (b.first_write == nullptr && !b.live_in)) return;
  if (field<int>(r.s, kCtxNbTemps) + 16 > kMaxTemps) {
    // The translator frees its temps after each instruction: a block never comes near TCG's limit.
    std::fputs("a64run: internal error: no TCG temps left for the lazy flags\n", stderr);
    std::abort();
  }
  // The translator has freed its temps, but its ops still name them: the temps added here must be new ones,
  // not taken from the free lists (tcg_func_start empties them again for the next translation).
  std::memset(static_cast<char*>(r.s) + kCtxFreeTemps, 0, kFreeTempsSize);
  LazyKind kind = kLazyNone;
  char* at = nullptr;
  uintptr_t failed = 0;  // a conditional compare's temp that is 1 when its condition failed
  uint32_t nzcv = 0;     // and its immediate NZCV
  if (window && b.l_insn != nullptr && !b.unsafe_after_l && b.l_pc >= pc && b.l_pc + 4 <= pc + size) {
    uint32_t l_word = 0;
    std::memcpy(&l_word, w.base + b.l_pc, sizeof l_word);
    kind = lazy_kind(l_word);
    if (kind != kLazyNone) {
      at = anchor(r, b.l_insn, kind);
    } else if ((kind = conditional_compare_kind(l_word, &nzcv)) != kLazyNone) {
      at = anchor(r, b.l_insn, kind);
      if (at != nullptr) failed = condition_failed_temp(b.l_insn, at);
      if (failed == 0) at = nullptr;
    }
  }
  // The flags live in temps from L's first write, or from the first write of the run before L.
  char* from = b.run_before_l != nullptr ? b.run_before_l : b.l_insn;
  const bool record_first =
      b.run_before_l != nullptr ? b.run_before_l == b.first_write : b.first_write_insn == b.l_insn;
  if (b.live_in) {
    settle_at_start(r, b.first_op);
  } else if (at == nullptr || !record_first) {
    store_kind(r, b.first_write, kLazyNone);
  }
  if (at == nullptr) return;
  if (failed == 0) fuse_branch(r, b, at, kind, w);
  rename_flags(r, from, quiet);
  store_record(r, at, kind, failed, nzcv);  // where L's arithmetic reads its operands
}

void settle_lazy_flags(uc_engine* uc) {
  if (char* env = lazy_env(uc)) settle_env(env);
}

}  // namespace emu

// Register reads from outside translated code see the record's NZCV, and writes of NZCV forget the record
// (the invariant above); a block that reads NZCV before writing it calls the settling helper at its start.
extern "C" {
void a64run_settle_lazy_flags(void* env) {
  emu::settle_env(static_cast<char*>(env));
}

uc_err __real_uc_reg_read_batch(uc_engine* uc, int* regs, void** vals, int count);
uc_err __real_uc_reg_write_batch(uc_engine* uc, int* regs, void* const* vals, int count);

uc_err __wrap_uc_reg_read(uc_engine* uc, int regid, void* value) {
  const uc_err err = __real_uc_reg_read(uc, regid, value);
  if (err == UC_ERR_OK) emu::patch_read(uc, regid, value);
  return err;
}

uc_err __wrap_uc_reg_write(uc_engine* uc, int regid, const void* value) {
  const uc_err err = __real_uc_reg_write(uc, regid, value);
  if (err == UC_ERR_OK) emu::after_write(uc, regid);
  return err;
}

// The batch forms look at their registers only when a record is set (a frame's 70 registers each way).
uc_err __wrap_uc_reg_read_batch(uc_engine* uc, int* regs, void** vals, int count) {
  const uc_err err = __real_uc_reg_read_batch(uc, regs, vals, count);
  if (err != UC_ERR_OK || emu::lazy_env(uc) == nullptr) return err;
  for (int i = 0; i < count; ++i) emu::patch_read(uc, regs[i], vals[i]);
  return err;
}

uc_err __wrap_uc_reg_write_batch(uc_engine* uc, int* regs, void* const* vals, int count) {
  const uc_err err = __real_uc_reg_write_batch(uc, regs, vals, count);
  if (err != UC_ERR_OK || emu::lazy_env(uc) == nullptr) return err;
  for (int i = 0; i < count; ++i) emu::after_write(uc, regs[i]);
  return err;
}
}  // extern "C"

#else

namespace emu {
bool prepare_lazy_flags(uc_engine*) {
  return false;  // Unicorn linked as a shared library: the translator cannot be wrapped
}
void lazy_flags_after_translation(void*, void*) {}
void settle_lazy_flags(uc_engine*) {}
}  // namespace emu

#endif  // A64RUN_WRAP_TRANSLATOR
