// This file owns direct guest memory access on the translator's side: which guest loads and stores reach the
// window straight, the host code they become, and the engine layout that makes it safe.
//
// Unicorn is a system emulator: every guest load and store is a softmmu TLB lookup (shift, mask, two loads
// from the CPU state, a compare with the TLB entry, a branch, an add of the entry's addend) and an op that
// clobbers the host's call-clobbered registers. Guest address g lives at host address base + g in one
// reserved window (emu/address_space.cpp), so qemu-user's form suffices: the link wraps the translator's
// tcg_gen_qemu_ld_i64 and, through emu/memory_order.cpp, tcg_gen_qemu_st_i64 (translate-a64.c calls both in
// tcg-op.c, another object file of libunicorn.a), and an ordinary access becomes
//     h = addr >=u size ? size : addr;  load or store at base + h
// (movabs, mov, cmp, cmov, and the access with base as its 32-bit displacement when the window lies below
// 2 GiB, where AddressSpace places it if the host allows; else a movabs and an add first). The clamp is what
// keeps a guest address from ever reaching host memory outside the window: every address the guest can form
// lands in [base, base + size], and the reservation has a PROT_NONE guard page after the window, so the
// access (8 bytes at most: a 16-byte access is two) faults there. Branching to the softmmu path instead is
// not possible in the middle of an instruction's ops: set_label ends a basic block and TCG's liveness kills
// every temp there, so a temp of the translator used after the access would be garbage.
//
// Faults. The host pages carry the guest's permissions (AddressSpace), so a load or store the guest may not
// make faults in the host; emu/host_fault.cpp turns a fault at a PC in the code buffer into the guest's
// fault. For that the guest registers must be in the CPU state at the access, as they are at a softmmu
// access: TCG stores the registers it holds in host registers only before an op marked
// TCG_OPF_SIDE_EFFECTS (liveness: la_global_sync), and only the qemu_ld/st ops are. So every engine's TCG
// context (which has its own copy of the op definitions) gets that flag on the host load and store ops the
// direct path emits (ld8u..ld_i64, st8..st_i64). The flag also keeps a load whose result is never read (LDR
// XZR) from being dropped: it still faults. The same ops also read and write the CPU state (FP and vector
// registers); there the flag only stores a guest register modified since the last access a little earlier.
//
// Pairs. LDP and STP of general registers (every function's prologue and epilogue) are two accesses through
// one address temp that the translator advances in between (`access [t]; addi t, t, size; access [t]`). The
// second access then needs no clamp of its own: it uses the first one's clamped address with `size` more in
// its displacement. h1 = a >=u size ? size : a, and the second access is at h1 + size: if a lies in the
// window that is exactly a + size (faulting at a + size, in the guard when it passes the window's end, as
// the clamp of a + size would); if not, h1 is the guard and the first access faulted already. The pattern is
// taken only when nothing but the addi was emitted between the two accesses (TCGContext.nb_ops counts every
// op emitted), so the temp holds a + size at the second access and the clamped temp is still live.
//
// What keeps the softmmu path: exclusives and atomics (MO_ALIGN, or their own tcg-op functions), any access
// with an alignment requirement, big-endian data (MO_BSWAP), a vCPU whose direct access is off (a debugger's
// watchpoints, A64RUN_SOFTMMU=1) and every engine on a Unicorn build whose layout is not the one below.
#include "emu/direct_memory.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <cstring>

#include "emu/unicorn_layout.h"
#include "emu/vcpu.h"

namespace emu {
namespace {

using namespace unicorn;  // NOLINT(google-build-using-namespace): the layout this file reads

// Debian's build of Unicorn 2.1.1, read off its machine code (objdump) and checked against it below (the
// offsets it shares with emu/lazy_flags.cpp are in emu/unicorn_layout.h).
constexpr size_t kUcInvalidAddr = 0x570;   // uc_struct.invalid_addr
constexpr size_t kUcInvalidError = 0x578;  // uc_struct.invalid_error
constexpr size_t kCtxCodeBuffer = 0xa0;    // TCGContext.code_gen_buffer
constexpr size_t kCtxCodeSize = 0xb8;      // TCGContext.code_gen_buffer_size
constexpr size_t kCtxNbOps = 0x38;         // TCGContext.nb_ops (tcg_op_alloc counts every op emitted)
constexpr size_t kCtxOpsTail = 0x7390;     // TCGContext.ops.tqh_circ.tql_prev: the last op's link
constexpr int kNbOps = 185;                // tcg-opc.h with the x86 backend's vector ops
constexpr uintptr_t kGetpcAdj = 2;         // GETPC_ADJ: cpu_restore_state takes a return address

constexpr uint8_t kOpf64Bit = 0x10;       // TCG_OPF_64BIT
constexpr uint8_t kOpfNotPresent = 0x20;  // TCG_OPF_NOT_PRESENT (the register allocator's own ops)
constexpr int kCondGeu = 5;               // TCG_COND_GEU

// The TCG opcodes (tcg-opc.h order), each checked against its definition's name and operand counts.
enum Opc : int {
  kMoviI64 = 64,
  kMovcondI64 = 66,
  kLd8uI64 = 67,
  kLd8sI64 = 68,
  kLd16uI64 = 69,
  kLd16sI64 = 70,
  kLd32uI64 = 71,
  kLd32sI64 = 72,
  kLdI64 = 73,
  kSt8I64 = 74,
  kSt16I64 = 75,
  kSt32I64 = 76,
  kStI64 = 77,
  kAddI64 = 78,
};

struct ExpectedOp {
  int opc;
  const char* name;
  uint8_t oargs, iargs, cargs;
  bool may_fault;  // gets TCG_OPF_SIDE_EFFECTS
  uint8_t flags = kOpf64Bit;
};
constexpr ExpectedOp kOps[] = {
    {kMoviI64, "movi_i64", 1, 0, 1, false, kOpf64Bit | kOpfNotPresent},
    {kMovcondI64, "movcond_i64", 1, 4, 1, false},
    {kLd8uI64, "ld8u_i64", 1, 1, 1, true},
    {kLd8sI64, "ld8s_i64", 1, 1, 1, true},
    {kLd16uI64, "ld16u_i64", 1, 1, 1, true},
    {kLd16sI64, "ld16s_i64", 1, 1, 1, true},
    {kLd32uI64, "ld32u_i64", 1, 1, 1, true},
    {kLd32sI64, "ld32s_i64", 1, 1, 1, true},
    {kLdI64, "ld_i64", 1, 1, 1, true},
    {kSt8I64, "st8_i64", 0, 2, 1, true},
    {kSt16I64, "st16_i64", 0, 2, 1, true},
    {kSt32I64, "st32_i64", 0, 2, 1, true},
    {kStI64, "st_i64", 0, 2, 1, true},
    {kAddI64, "add_i64", 1, 2, 0, false},
};

// MemOp (include/exec/memop.h).
constexpr int kMoSize = 0x03;
constexpr int kMoSign = 0x04;
constexpr int kMoBswap = 0x08;  // MO_BE on a little-endian host
constexpr int kMoAmask = 0x70;  // any alignment requirement (MO_ALIGN, MO_ALIGN_N)

}  // namespace
}  // namespace emu

#if A64RUN_WRAP_TRANSLATOR

extern "C" {
void tcg_context_init_aarch64(void* s);
void* tcg_emit_op_aarch64(void* s, int opc);
bool __real_cpu_restore_state_aarch64(void* cpu, uintptr_t host_pc, bool will_exit);
bool unicorn_fill_tlb_aarch64(void* cs, uint64_t address, int size, int rw, int mmu_idx, bool probe,
                              uintptr_t retaddr);
void cpu_exit(void* cpu);
[[noreturn]] void cpu_loop_exit_restore_aarch64(void* cpu, uintptr_t pc);
void* tcg_temp_new_internal_aarch64(void* s, int type, bool local);
void tcg_temp_free_internal_aarch64(void* s, void* temp);
void tcg_gen_op2_aarch64(void* s, int opc, uintptr_t a1, uintptr_t a2);
void tcg_gen_op3_aarch64(void* s, int opc, uintptr_t a1, uintptr_t a2, uintptr_t a3);
void tcg_gen_op6_aarch64(void* s, int opc, uintptr_t a1, uintptr_t a2, uintptr_t a3, uintptr_t a4,
                         uintptr_t a5, uintptr_t a6);
}

namespace emu {
namespace {

// The machine code the offsets above were read from.
bool code_layout_ok() {
  static const bool ok = [] {
    // cpu_restore_state: mov 0x81a8(%rdi),%rax (cpu->uc); mov 0x2e8(%rax),%r13 (uc->tcg_ctx); mov %rsi,%rax;
    // sub 0xa0(%r13),%rax (code_gen_buffer); cmp 0xb8(%r13),%rax (code_gen_buffer_size).
    static const unsigned char kRestore[] = {0x48, 0x8b, 0x87, 0xa8, 0x81, 0x00, 0x00, 0x4c, 0x8b, 0xa8, 0xe8,
                                             0x02, 0x00, 0x00, 0x48, 0x89, 0xf0, 0x49, 0x2b, 0x85, 0xa0, 0x00,
                                             0x00, 0x00, 0x49, 0x3b, 0x85, 0xb8, 0x00, 0x00, 0x00};
    // unicorn_fill_tlb's refusal (raise_mmu_exception): mov %r14,0x570(%rax) (invalid_addr); mov
    // 0x1a0(%rax),%rdi (uc->cpu); movl $0x15,0x578(%rax) (invalid_error = UC_ERR_EXCEPTION).
    static const unsigned char kRefuse[] = {0x4c, 0x89, 0xb0, 0x70, 0x05, 0x00, 0x00, 0x48,
                                            0x8b, 0xb8, 0xa0, 0x01, 0x00, 0x00, 0xc7, 0x80,
                                            0x78, 0x05, 0x00, 0x00, 0x15, 0x00, 0x00, 0x00};
    // tcg_context_init: mov $0x1720,%edi (185 definitions of 32 bytes); the copy's pointer stored with mov
    // %rax,0xa968(%r13).
    static const unsigned char kDefsSize[] = {0xbf, 0x20, 0x17, 0x00, 0x00};
    static const unsigned char kDefsStore[] = {0x49, 0x89, 0x85, 0x68, 0xa9, 0x00, 0x00};
    // tcg_emit_op (tcg_op_alloc inlined), appending op %rax to the list: mov 0x7390(%rdi),%rdx (the list's
    // tail link); mov %bpl,(%rax) (opc in the first byte); addl $0x1,0x38(%rdi) (nb_ops); mov %rdx,0x10(%rax)
    // (link.tql_prev); movq $0x0,0x8(%rax) (link.tqe_next); mov %rax,(%rdx); lea 0x8(%rax),%rdx; mov
    // %rdx,0x7390(%rdi) (the op's link is the new tail).
    static const unsigned char kNbOpsAdd[] = {0x48, 0x8b, 0x97, 0x90, 0x73, 0x00, 0x00, 0x40, 0x88, 0x28,
                                              0x83, 0x47, 0x38, 0x01, 0x48, 0x89, 0x50, 0x10, 0x48, 0xc7,
                                              0x40, 0x08, 0x00, 0x00, 0x00, 0x00, 0x48, 0x89, 0x02, 0x48,
                                              0x8d, 0x50, 0x08, 0x48, 0x89, 0x97, 0x90, 0x73, 0x00, 0x00};
    const void* emit = reinterpret_cast<const void*>(&tcg_emit_op_aarch64);
    const void* restore = reinterpret_cast<const void*>(&__real_cpu_restore_state_aarch64);
    const void* fill = reinterpret_cast<const void*>(&unicorn_fill_tlb_aarch64);
    const void* init = reinterpret_cast<const void*>(&tcg_context_init_aarch64);
    return code_has(restore, 0x40, kRestore, sizeof kRestore) &&
           code_has(fill, 0x400, kRefuse, sizeof kRefuse) &&
           code_has(init, 0x40, kDefsSize, sizeof kDefsSize) &&
           code_has(init, 0x60, kDefsStore, sizeof kDefsStore) &&
           code_has(emit, 0x60, kNbOpsAdd, sizeof kNbOpsAdd);
  }();
  return ok;
}

int load_op(int memop) {
  switch (memop & (kMoSize | kMoSign)) {
    case 0:
      return kLd8uI64;
    case kMoSign:
      return kLd8sI64;
    case 1:
      return kLd16uI64;
    case 1 | kMoSign:
      return kLd16sI64;
    case 2:
      return kLd32uI64;
    case 2 | kMoSign:
      return kLd32sI64;
    default:
      return kLdI64;
  }
}

int store_op(int memop) {
  static constexpr int kBySize[] = {kSt8I64, kSt16I64, kSt32I64, kStI64};
  return kBySize[memop & kMoSize];
}

// The pair pattern of this thread's translation (see the top of the file): the last direct access's address
// temp and clamped temp (kept allocated for the second access), the op count after it, and, once the
// translator has advanced the address temp by the access size, that size.
struct PairState {
  void* ctx = nullptr;   // the TCG context of `h`; null: no pattern under way
  uintptr_t addr = 0;    // TCGv of the first access's address
  uintptr_t h = 0;       // the clamped temp (a TCGTemp pointer)
  intptr_t disp = 0;     // the first access's displacement (the window's base, or 0)
  int64_t size = 0;      // the first access's size
  int64_t advanced = 0;  // 0, or the addi's immediate after `addi addr, addr, size`
  int nb_ops = 0;        // TCGContext.nb_ops after the last op of the pattern
};
thread_local PairState t_pair;

int nb_ops(void* s) {
  return field<int>(s, kCtxNbOps);
}

// The window's size in one temp per translation, reused by the accesses of one basic block: TCG keeps it in
// a host register there (one movabs per block instead of one per access). `after` is the last op when the
// temp last held the size; an op that ends a basic block since then (a label, a branch, the block's end:
// TCG_OPF_BB_END) kills the temp's value, and the next access sets it again.
struct SizeTemp {
  void* ctx = nullptr;
  uintptr_t k = 0;  // a TCGTemp pointer
  const char* after = nullptr;
};
thread_local SizeTemp t_size;

const char* last_op(void* s) {
  return field<char*>(s, kCtxOpsTail) - kOpLinkNext;
}

// True when no op after `from` (to the end of the list) ends a basic block.
bool same_block_since(void* s, const char* from) {
  const auto* defs = field<const OpDef*>(s, kCtxOpDefs);
  for (const char* op = field<const char*>(const_cast<char*>(from), kOpLinkNext); op != nullptr;
       op = field<const char*>(const_cast<char*>(op), kOpLinkNext)) {
    if (defs[static_cast<uint8_t>(*op)].flags & kOpfBbEnd) return false;
  }
  return true;
}

// The temp holding the window's size at this point of the translation (emitting its movi if needed).
uintptr_t size_temp(void* s, uint64_t size) {
  SizeTemp& t = t_size;
  if (t.ctx == s && same_block_since(s, t.after)) return t.k;
  if (t.ctx != s)
    t = SizeTemp{s, reinterpret_cast<uintptr_t>(tcg_temp_new_internal_aarch64(s, kTcgTypeI64, false))};
  tcg_gen_op2_aarch64(s, kMoviI64, t.k, size);
  return t.k;
}

// Ends the pattern under way (frees its clamped temp, if it belongs to context `s`).
void drop_pair(void* s) {
  if (t_pair.ctx != nullptr && t_pair.ctx == s)
    tcg_temp_free_internal_aarch64(s, reinterpret_cast<void*>(t_pair.h));
  t_pair = PairState{};
}

// The second access of a pair, at the first one's clamped address: true if this access is one.
bool emit_pair_second(void* s, bool load, uintptr_t val, uintptr_t addr, int memop) {
  const PairState p = t_pair;
  if (p.ctx != s || p.advanced == 0 || addr != p.addr || nb_ops(s) != p.nb_ops) return false;
  const uintptr_t v = reinterpret_cast<uintptr_t>(s) + val;
  tcg_gen_op3_aarch64(s, load ? load_op(memop) : store_op(memop), v, p.h,
                      static_cast<uintptr_t>(p.disp + p.advanced));
  drop_pair(s);
  return true;
}

// The direct form of one access, if this one may take it: `opc` on the host address of guest address `addr`
// (TCGv offsets from the context, as the translator passes them).
bool emit_direct(void* s, bool load, uintptr_t val, uintptr_t addr, int memop) {
  if (memop & (kMoBswap | kMoAmask)) {
    drop_pair(s);
    return false;
  }
  DirectWindow w;
  if (!Vcpu::running_direct_window(s, &w)) {
    drop_pair(s);
    return false;
  }
  if (emit_pair_second(s, load, val, addr, memop)) return true;
  drop_pair(s);
  const auto ctx = reinterpret_cast<uintptr_t>(s);
  const uintptr_t v = ctx + val;
  const uintptr_t a = ctx + addr;
  const auto h = reinterpret_cast<uintptr_t>(tcg_temp_new_internal_aarch64(s, kTcgTypeI64, false));
  const uintptr_t k = size_temp(s, w.size);
  tcg_gen_op6_aarch64(s, kMovcondI64, h, a, k, k, a, kCondGeu);  // h = a >=u size ? size : a
  // A window below 2 GiB is the access's own displacement (`mov base(h), v`); elsewhere base is added.
  auto base = reinterpret_cast<uintptr_t>(w.base);
  if (base > static_cast<uintptr_t>(INT32_MAX)) {
    const auto b = reinterpret_cast<uintptr_t>(tcg_temp_new_internal_aarch64(s, kTcgTypeI64, false));
    tcg_gen_op2_aarch64(s, kMoviI64, b, base);
    tcg_gen_op3_aarch64(s, kAddI64, h, h, b);
    tcg_temp_free_internal_aarch64(s, reinterpret_cast<void*>(b));
    base = 0;
  }
  tcg_gen_op3_aarch64(s, load ? load_op(memop) : store_op(memop), v, h, base);
  t_size.after = last_op(s);
  // h stays allocated for a pair's second access (drop_pair frees it), unless this load overwrote the
  // address temp itself (then the temp no longer holds the address h was clamped from).
  t_pair = PairState{s, addr, h, static_cast<intptr_t>(base), int64_t{1} << (memop & kMoSize), 0, nb_ops(s)};
  if (load && val == addr) drop_pair(s);
  return true;
}

}  // namespace

void direct_translation_start() {
  t_pair = PairState{};  // a new translation: the TCG context's temps start afresh
  t_size = SizeTemp{};
}

}  // namespace emu

extern "C" {
void __real_tcg_gen_addi_i64_aarch64(void* s, uintptr_t ret, uintptr_t arg1, int64_t imm);

// The translator's `addi t, t, size` between the two accesses of a pair (and every other addi: those end a
// pattern under way).
void __wrap_tcg_gen_addi_i64_aarch64(void* s, uintptr_t ret, uintptr_t arg1, int64_t imm) {
  emu::PairState& p = emu::t_pair;
  const bool advance = p.ctx == s && p.advanced == 0 && ret == p.addr && arg1 == p.addr && imm == p.size &&
                       emu::nb_ops(s) == p.nb_ops;
  __real_tcg_gen_addi_i64_aarch64(s, ret, arg1, imm);
  if (!advance) {
    emu::drop_pair(s);
    return;
  }
  p.advanced = imm;
  p.nb_ops = emu::nb_ops(s);
}
}  // extern "C"

namespace emu {
namespace {}  // namespace

bool prepare_direct_memory(uc_engine* uc, bool* direct) {
  static_assert(UC_ERR_EXCEPTION == 0x15, "the refusal stores UC_ERR_EXCEPTION");
  *direct = false;
  if (!code_layout_ok()) return false;
  void* cpu = field<void*>(uc, kUcCpu);
  void* ctx = field<void*>(uc, kUcTcgCtx);
  if (cpu == nullptr || ctx == nullptr || field<void*>(cpu, kCpuUc) != static_cast<void*>(uc)) return false;
  auto* defs = field<OpDef*>(ctx, kCtxOpDefs);
  if (defs == nullptr) return false;
  for (const ExpectedOp& e : kOps) {
    const OpDef& d = defs[e.opc];
    if (d.name == nullptr || std::strcmp(d.name, e.name) != 0 || d.nb_oargs != e.oargs ||
        d.nb_iargs != e.iargs || d.nb_cargs != e.cargs || (d.flags & ~kOpfSideEffects) != e.flags)
      return false;
  }
  if (defs[kNbOps - 1].name == nullptr || std::strcmp(defs[kNbOps - 1].name, "x86_punpckh_vec") != 0)
    return false;
  // The ops that end a basic block inside a translation (an instruction's own labels and branches, as
  // FCCMP's and STXR's) and at its end carry the flag same_block_since looks for.
  static const char* const kBbEnds[] = {"set_label", "br",      "brcond_i32", "brcond_i64",
                                        "exit_tb",   "goto_tb", "goto_ptr"};
  size_t ends = 0;
  for (int i = 0; i < kNbOps; ++i) {
    for (const char* name : kBbEnds) {
      if (defs[i].name != nullptr && std::strcmp(defs[i].name, name) == 0) {
        if (!(defs[i].flags & kOpfBbEnd)) return false;
        ++ends;
      }
    }
  }
  if (ends != sizeof kBbEnds / sizeof kBbEnds[0]) return false;
  const char* softmmu = std::getenv("A64RUN_SOFTMMU");  // diagnostics: every access through the TLB
  *direct = softmmu == nullptr || std::strcmp(softmmu, "0") == 0;
  for (const ExpectedOp& e : kOps) {
    if (e.may_fault && *direct) defs[e.opc].flags |= kOpfSideEffects;
  }
  return true;
}

const void* engine_tcg_context(uc_engine* uc) {
  return field<void*>(uc, kUcTcgCtx);
}

__attribute__((no_sanitize("thread", "address"))) bool in_code_buffer(uc_engine* uc, uintptr_t pc) {
  void* ctx = field<void*>(uc, kUcTcgCtx);
  const auto start = reinterpret_cast<uintptr_t>(field<void*>(ctx, kCtxCodeBuffer));
  return pc - start < field<size_t>(ctx, kCtxCodeSize);
}

namespace {

// Leaves translated code (or a helper it called) for the CPU loop with the guest state at `ra`, a return
// address into translated code, as a refused TLB fill does.
[[noreturn]] void leave_at(uc_engine* uc, uintptr_t ra, const void* mask) {
  void* cpu = field<void*>(uc, kUcCpu);
  // What unicorn_fill_tlb does when the TLB fill hook refuses a page (raise_mmu_exception): uc_emu_start
  // returns UC_ERR_EXCEPTION, and the CPU loop leaves at once.
  field<uint64_t>(uc, kUcInvalidAddr) = 0;
  field<int>(uc, kUcInvalidError) = UC_ERR_EXCEPTION;
  cpu_exit(cpu);
  // The signal mask at the fault (the handler's own mask blocks the fault signals): the jump below does not
  // restore it. The kernel's sigset is 8 bytes.
  ::syscall(SYS_rt_sigprocmask, SIG_SETMASK, mask, nullptr, 8);
  cpu_loop_exit_restore_aarch64(cpu, ra);
}

}  // namespace

void leave_faulting_code(uc_engine* uc, uintptr_t pc, const void* mask) {
  leave_at(uc, pc + kGetpcAdj, mask);  // the faulting instruction, as the return address of a call there
}

void leave_faulting_helper(uc_engine* uc, uintptr_t ra, const void* mask) {
  leave_at(uc, ra, mask);
}

}  // namespace emu

extern "C" {
void __real_tcg_gen_qemu_ld_i64_aarch64(void* s, uintptr_t val, uintptr_t addr, uintptr_t idx, int memop);

void __wrap_tcg_gen_qemu_ld_i64_aarch64(void* s, uintptr_t val, uintptr_t addr, uintptr_t idx, int memop) {
  if (!emu::emit_direct(s, true, val, addr, memop))
    __real_tcg_gen_qemu_ld_i64_aarch64(s, val, addr, idx, memop);
}
}  // extern "C"

namespace emu {

bool emit_direct_store(void* s, uintptr_t val, uintptr_t addr, int memop) {
  return emit_direct(s, false, val, addr, memop);
}

}  // namespace emu

#else

namespace emu {
void direct_translation_start() {}
bool prepare_direct_memory(uc_engine*, bool* direct) {
  *direct = false;
  return false;  // Unicorn linked as a shared library: the translator cannot be wrapped
}
const void* engine_tcg_context(uc_engine*) {
  return nullptr;
}
bool in_code_buffer(uc_engine*, uintptr_t) {
  return false;
}
void leave_faulting_code(uc_engine*, uintptr_t, const void*) {
  std::abort();
}
void leave_faulting_helper(uc_engine*, uintptr_t, const void*) {
  std::abort();
}
bool emit_direct_store(void*, uintptr_t, uintptr_t, int) {
  return false;
}
}  // namespace emu

#endif  // A64RUN_WRAP_TRANSLATOR
