// This file owns the sharing of translated blocks between the engines of one address space.
//
// Why. Each guest thread runs its own Unicorn engine, and each engine translated every block it ran for
// itself. A Go program's scheduler, signal and channel code runs on whichever of its threads is free, so
// the same few thousand blocks were translated once per thread: in a signal.Notify round trip, 4 of 5
// translations made in the measured loop were blocks another thread had already made, and they were the
// slow tail of the latency (qemu-user keeps one cache for all threads).
//
// What. A member that is about to translate a block (the link wraps tb_gen_code, which cpu-exec.c calls
// in translate-all.c) first asks TbShare for another member's block with the same key (pc, cs_base, flags,
// cflags) made at the same code generation; it runs that block. Unicorn then keeps it in the member's jump
// cache and chains blocks to it and from it (tb_add_jump patches a rel32 jump: every member's buffer lies
// in the slots of emu/code_placement.cpp, so any two are within reach). The wrapper also puts it in the
// member's own table of blocks (its qht, where tb_link_page puts the member's own blocks), so that the
// next lookup that misses the jump cache finds it there, as it finds the member's own blocks. Without it,
// every such miss left the block for tb_gen_code and find: the jump cache has 1,024 slots for aligned
// PCs, and a Go signal.Notify round trip missed it about ten times for blocks of other members.
//
// Invariants.
// 1. A block handed out is valid memory with unchanged code for as long as any vCPU may reach it (through a
//    jump cache, a chained jump or a running block). Every member flushes its engine only when the address
//    space's code generation moved (Vcpu::sync_memory, on its way into guest code), and every move happens
//    under the closed code gate, with no vCPU in guest code; a member that made the move from a hook inside
//    a block (`ic ivau`) runs the rest of that block after the gate reopens, and no member flushes until
//    it has left it (Vcpu::invalidate_code_from_code, enter_code). The one flush Unicorn makes on its own, of
//    a full buffer (tb_gen_code: tcg_tb_alloc fails, tb_flush), is turned into such a move first
//    (Vcpu::share_buffer_full). A block recorded at generation g is handed only to a member at g, so no
//    member reaches another's block across a flush of either.
// 2. An engine that shared blocks either way is never closed while the process lives (leave): a member
//    that ran another's block chains that block to its own next one, so code in either buffer may jump
//    into the other. Engines go back to the process's pool when their thread ends, so closing is the rare
//    case (a CLONE_VM relative's end).
// 3. Guest state at a fault: cpu_restore_state finds a block by host PC only in the faulting engine's own
//    buffer. The link wraps it: for a PC in another member's buffer the block comes from that member's
//    index (read under its slot lock, which the owner holds while it adds to it), and the state is decoded
//    from the block's instruction-start data as Unicorn's cpu_restore_state_from_tb does.
// 4. Blocks carry one engine constant: the SYS hook of `ic ivau` and `dc zva` (translate-a64.c
//    gen_hook_sys) names the translating engine's hook, so Vcpu::on_sys acts on the vCPU the thread runs,
//    not on the hook's user data. Members are only vCPUs stopped by kicks (no block hook is compiled in),
//    without a debugger (breakpoints invalidate single blocks, which walks chain lists that members link
//    into concurrently), whose engine's layout checked out (direct memory, host faults).
// 5. The chain lists Unicorn keeps per block (jmp_list_head) lose entries when two members chain to one
//    block at the same time (Unicorn 2.1.1 dropped QEMU's jmp_lock). Only the invalidation of a single
//    block reads them, which members never do (4); a flush forgets them.
// 6. Only vCPUs of one host process share. The code gate waits for a relative's vCPU in code (a CLONE_VM
//    child, a vfork child: other host processes in this memory) only 20 ms, since that process may be
//    stopped or killed; a relative that then runs on would run a block another member has flushed. So
//    the first relative turns sharing off for the address space (emu/process_fork.cpp), before it runs.
// 7. A taken block enters the taker's qht, never its page lists (tb_page_add links a block through the
//    block's own page_next fields, which its owner's page lists use). The taker's thread alone reads its
//    qht, from inside guest code, and it flushes its engine on the way in whenever the code generation
//    moved (1): so no lookup returns a block of an older generation. The flush empties the qht without
//    reading the blocks (qht_reset), and the taker's single-block invalidation walks only its own page
//    lists and host-PC index, where a taken block never is.
#include "emu/tb_share.h"

#include <sched.h>

#include <cstdlib>
#include <cstring>
#include <utility>

#include "emu/block_chain.h"
#include "emu/direct_memory.h"
#include "emu/unicorn_layout.h"
#include "emu/vcpu.h"

namespace emu {

namespace {

constexpr uint32_t kCfNoCache = 0x00010000;  // CF_NOCACHE: a one-off block, freed after it ran
// TranslationBlock (include/exec/exec-all.h), as cpu_restore_state_from_tb reads it.
constexpr size_t kTbPc = 0x0;
constexpr size_t kTbIcount = 0x16;
constexpr size_t kTbCflags = 0x18;
constexpr size_t kTbCode = 0x20;         // tc.ptr
constexpr size_t kTbCodeSize = 0x28;     // tc.size
constexpr size_t kTbHash = 0x98;         // hash: Unicorn keeps the block's qht hash in it
constexpr int kInsnStartWords = 3;       // TARGET_INSN_START_WORDS: pc, condexec bits, syndrome
constexpr size_t kCtxTbHtable = 0xa8b8;  // TCGContext.tb_ctx.htable
constexpr uintptr_t kGetpcAdj = 2;       // GETPC_ADJ

void spin_lock(std::atomic<uint32_t>& l) {
  while (l.exchange(1, std::memory_order_acquire) != 0) {
    while (l.load(std::memory_order_relaxed) != 0) sched_yield();
  }
}

}  // namespace

bool TbShare::enabled() {
#if A64RUN_WRAP_TRANSLATOR
  static const bool on = [] {
    const char* off = std::getenv("A64RUN_NO_SHARED_TB");
    return off == nullptr || std::strcmp(off, "0") == 0;
  }();
  return on;
#else
  return false;
#endif
}

void TbShare::turn_off() {
  std::lock_guard lk(mu_);
  on_.store(false, std::memory_order_release);
  blocks_ = {};
  pending_ = {};
  blocks_used_ = 0;
}

int TbShare::join(uc_engine* uc, uintptr_t buf, size_t size) {
  std::lock_guard lk(mu_);
  if (!on_.load(std::memory_order_relaxed)) return -1;
  for (int i = 0; i < kMaxMembers; ++i) {
    Member& m = members_[i];
    if (m.used) continue;
    m.used = true;
    used_.fetch_add(1, std::memory_order_relaxed);
    m.active = true;
    m.given = false;
    ++m.serial;
    m.ctx.store(unicorn::field<void*>(uc, unicorn::kUcTcgCtx), std::memory_order_relaxed);
    m.size.store(size, std::memory_order_relaxed);
    m.buf.store(buf, std::memory_order_release);
    return i;
  }
  return -1;
}

bool TbShare::leave(int slot) {
  std::lock_guard lk(mu_);
  Member& m = members_[slot];
  if (m.given) return false;  // invariant 2: stays a member, its blocks still handed out
  m.active = false;
  m.used = false;
  used_.fetch_sub(1, std::memory_order_relaxed);
  ++m.serial;  // its recorded blocks are stale
  m.buf.store(0, std::memory_order_release);
  m.size.store(0, std::memory_order_release);
  return true;
}

void* TbShare::find(int slot, uint64_t code_gen, const Key& key) {
  if (used_.load(std::memory_order_relaxed) <= 1) return nullptr;  // a thread alone: every start
  std::lock_guard lk(mu_);
  if (code_gen != blocks_gen_ || !on_.load(std::memory_order_relaxed)) return nullptr;
  place_pending();
  if (blocks_used_ == 0) return nullptr;
  const Entry& e = place(key);
  if (e.tb == nullptr || e.slot == slot) return nullptr;
  Member& owner = members_[e.slot];
  if (!owner.active || owner.serial != e.serial) return nullptr;
  // Both now chain into each other: the taker's next block gets chained from the owner's (invariant 2).
  owner.given = true;
  members_[slot].given = true;
  return e.tb;
}

void TbShare::record(int slot, uint64_t code_gen, const Key& key, void* tb) {
  if (unicorn::field<uint32_t>(tb, kTbCflags) & kCfNoCache) return;
  std::lock_guard lk(mu_);
  if (code_gen < blocks_gen_ || !on_.load(std::memory_order_relaxed))
    return;  // a member not yet resynced: its blocks are stale already
  if (code_gen > blocks_gen_) {
    clear_blocks();
    blocks_gen_ = code_gen;
  }
  if (pending_.capacity() == 0) pending_.reserve(1024);
  pending_.push_back(Entry{key, tb, slot, members_[slot].serial});
}

void TbShare::add(const Entry& entry) {
  if ((blocks_used_ + 1) * 2 > blocks_.size()) grow();
  Entry& e = place(entry.key);
  if (e.tb == nullptr) ++blocks_used_;
  e = entry;
}

void TbShare::place_pending() {
  for (const Entry& e : pending_) add(e);
  pending_.clear();
}

TbShare::Entry& TbShare::place(const Key& key) {
  const size_t mask = blocks_.size() - 1;
  const uint64_t h =
      (key.pc ^ (uint64_t{key.flags} << 32) ^ key.cflags ^ (key.cs_base << 16)) * 0x9e3779b97f4a7c15ull;
  for (auto i = static_cast<size_t>(h >> 32);; ++i) {
    Entry& e = blocks_[i & mask];
    if (e.tb == nullptr || e.key == key) return e;
  }
}

void TbShare::grow() {
  const std::vector<Entry> old =
      std::exchange(blocks_, std::vector<Entry>(blocks_.empty() ? size_t{1024} : blocks_.size() * 2));
  for (const Entry& e : old) {
    if (e.tb != nullptr) place(e.key) = e;
  }
}

void TbShare::clear_blocks() {
  pending_.clear();
  if (blocks_used_ == 0) return;
  for (Entry& e : blocks_) e.tb = nullptr;
  blocks_used_ = 0;
}

int TbShare::slot_of(uintptr_t pc) const {
  for (int i = 0; i < kMaxMembers; ++i) {
    const uintptr_t buf = members_[i].buf.load(std::memory_order_acquire);
    if (buf != 0 && pc - buf < members_[i].size.load(std::memory_order_relaxed)) return i;
  }
  return -1;
}

void TbShare::lock_index(int slot) {
  spin_lock(members_[slot].index_lock);
}

void TbShare::unlock_index(int slot) {
  members_[slot].index_lock.store(0, std::memory_order_release);
}

void TbShare::prepare_fork() {
  mu_.lock();
}

void TbShare::after_fork_parent() {
  mu_.unlock();
}

bool TbShare::after_fork_child(const std::vector<int>& survivors) {
  bool must_flush = false;
  for (int i = 0; i < kMaxMembers; ++i) {
    Member& m = members_[i];
    if (!m.used) continue;
    bool survives = false;
    for (const int s : survivors) survives = survives || s == i;
    if (survives) continue;
    // A thread that did not come through the fork: its engine stays mapped (the blocks it made may be
    // chained from a survivor's) but hands out nothing more.
    m.active = false;
    if (m.index_lock.load(std::memory_order_relaxed) != 0) {
      m.index_lock.store(0, std::memory_order_relaxed);
      must_flush = true;
    }
  }
  mu_.unlock();
  return must_flush;
}

}  // namespace emu

#if A64RUN_WRAP_TRANSLATOR

extern "C" {
void* __real_tb_gen_code_aarch64(void* cpu, uint64_t pc, uint64_t cs_base, uint32_t flags, int cflags);
void* __real_tcg_tb_alloc_aarch64(void* ctx);
void __real_tcg_tb_insert_aarch64(void* ctx, void* tb);
bool __real_cpu_restore_state_aarch64(void* cpu, uintptr_t host_pc, bool will_exit);
void* tcg_tb_lookup_aarch64(void* ctx, uintptr_t tc_ptr);
void restore_state_to_opc_aarch64(void* env, void* tb, uint64_t* data);
bool qht_insert(void* uc, void* ht, void* p, uint32_t hash, void** existing);
void* tb_htable_lookup_aarch64(void* cpu, uint64_t pc, uint64_t cs_base, uint32_t flags, uint32_t cf_mask);
}

namespace emu {

void* TbShare::block_at(int slot, uintptr_t pc) {
  Member& m = members_[slot];
  spin_lock(m.index_lock);
  void* tb = tcg_tb_lookup_aarch64(m.ctx.load(std::memory_order_relaxed), pc);
  m.index_lock.store(0, std::memory_order_release);
  return tb;
}

namespace {

uint64_t read_sleb128(const uint8_t** p) {
  uint64_t val = 0;
  int shift = 0;
  uint8_t byte;
  do {
    byte = *(*p)++;
    val |= static_cast<uint64_t>(byte & 0x7f) << shift;
    shift += 7;
  } while (byte & 0x80);
  if (shift < 64 && (byte & 0x40)) val |= ~uint64_t{0} << shift;
  return val;
}

// cpu_restore_state_from_tb (translate-all.c) for a block of another engine: the instruction-start data
// after the block's code, one record per guest instruction (three words and the host code's length, each
// a signed LEB128 delta), up to the instruction whose host code holds `host_pc`.
bool restore_from_block(void* cpu, void* tb, uintptr_t host_pc) {
  uint64_t data[kInsnStartWords] = {unicorn::field<uint64_t>(tb, kTbPc), 0, 0};
  auto code = reinterpret_cast<uintptr_t>(unicorn::field<void*>(tb, kTbCode));
  const auto* p = reinterpret_cast<const uint8_t*>(code + unicorn::field<size_t>(tb, kTbCodeSize));
  const int insns = unicorn::field<uint16_t>(tb, kTbIcount);
  const uintptr_t searched = host_pc - kGetpcAdj;
  if (searched < code) return false;
  for (int i = 0; i < insns; ++i) {
    for (uint64_t& w : data) w += read_sleb128(&p);
    code += read_sleb128(&p);
    if (code > searched) {
      restore_state_to_opc_aarch64(unicorn::field<void*>(cpu, unicorn::kCpuEnvPtr), tb, data);
      return true;
    }
  }
  return false;
}

// tb_link_page (inlined in tb_gen_code) stores a new block's hash at kTbHash and inserts the block into
// &tcg_ctx->tb_ctx.htable; tb_htable_lookup looks blocks up in that table.
bool adopt_layout_ok() {
  static const bool ok = [] {
    // mov %ecx,0x98(%rbx); lea 0xa8b8(%rax),%rsi (tb_gen_code); add $0xa8b8,%rsi (tb_htable_lookup).
    static const unsigned char kStoreHash[] = {0x89, 0x8b, 0x98, 0x00, 0x00, 0x00};
    static const unsigned char kLeaTable[] = {0x48, 0x8d, 0xb0, 0xb8, 0xa8, 0x00, 0x00};
    static const unsigned char kAddTable[] = {0x48, 0x81, 0xc6, 0xb8, 0xa8, 0x00, 0x00};
    const void* gen = reinterpret_cast<const void*>(&__real_tb_gen_code_aarch64);
    const void* lookup = reinterpret_cast<const void*>(&tb_htable_lookup_aarch64);
    return unicorn::code_has(gen, 0x1000, kStoreHash, sizeof kStoreHash) &&
           unicorn::code_has(gen, 0x1000, kLeaTable, sizeof kLeaTable) &&
           unicorn::code_has(lookup, 0x200, kAddTable, sizeof kAddTable);
  }();
  return ok;
}

// Invariant 7: the block goes into the running engine's qht, under the hash its owner computed (the same
// key and guest page, so the same hash).
void adopt(void* uc, void* tb) {
  if (!adopt_layout_ok()) return;
  char* ctx = unicorn::field<char*>(uc, unicorn::kUcTcgCtx);
  void* existing = nullptr;
  qht_insert(uc, ctx + kCtxTbHtable, tb, unicorn::field<uint32_t>(tb, kTbHash), &existing);
}

}  // namespace
}  // namespace emu

extern "C" {

void* __wrap_tb_gen_code_aarch64(void* cpu, uint64_t pc, uint64_t cs_base, uint32_t flags, int cflags) {
  emu::Vcpu::Sharing s;
  void* uc = emu::unicorn::field<void*>(cpu, emu::unicorn::kCpuUc);
  if (!emu::Vcpu::running_sharing(uc, &s)) return __real_tb_gen_code_aarch64(cpu, pc, cs_base, flags, cflags);
  const emu::TbShare::Key key{pc, cs_base, flags, static_cast<uint32_t>(cflags)};
  if (void* tb = s.share->find(s.slot, s.code_gen, key)) {
    emu::adopt(uc, tb);
    return tb;
  }
  void* tb = __real_tb_gen_code_aarch64(cpu, pc, cs_base, flags, cflags);
  s.share->record(s.slot, s.code_gen, key, tb);
  return tb;
}

// A full buffer: the other members leave guest code and drop their translations (which may chain into
// this buffer) before tb_gen_code flushes it (invariant 1).
void* __wrap_tcg_tb_alloc_aarch64(void* ctx) {
  void* tb = __real_tcg_tb_alloc_aarch64(ctx);
  if (tb == nullptr) emu::Vcpu::share_buffer_full(ctx);
  return tb;
}

// tb_gen_code adds the block to the running engine's own index (only a block it made, before it returns
// it; emu/block_chain.cpp prepares the block's jump slots here).
void __wrap_tcg_tb_insert_aarch64(void* ctx, void* tb) {
  emu::prepare_chain_slots(tb);
  emu::Vcpu::Sharing s;
  if (!emu::Vcpu::running_sharing(emu::Vcpu::running_engine(), &s)) {
    __real_tcg_tb_insert_aarch64(ctx, tb);
    return;
  }
  s.share->lock_index(s.slot);
  __real_tcg_tb_insert_aarch64(ctx, tb);
  s.share->unlock_index(s.slot);
}

// Invariant 3. Runs in the host fault handler too (emu/direct_memory.cpp leave_at): no allocation, and the
// only lock is another member's index lock.
bool __wrap_cpu_restore_state_aarch64(void* cpu, uintptr_t host_pc, bool will_exit) {
  auto* uc = emu::unicorn::field<uc_engine*>(cpu, emu::unicorn::kCpuUc);
  if (emu::in_code_buffer(uc, host_pc)) return __real_cpu_restore_state_aarch64(cpu, host_pc, will_exit);
  emu::Vcpu::Sharing s;
  if (!emu::Vcpu::running_sharing(uc, &s)) return false;
  const int owner = s.share->slot_of(host_pc);
  if (owner < 0 || owner == s.slot) return false;
  void* tb = s.share->block_at(owner, host_pc);
  return tb != nullptr && emu::restore_from_block(cpu, tb, host_pc);
}

}  // extern "C"

#endif  // A64RUN_WRAP_TRANSLATOR
