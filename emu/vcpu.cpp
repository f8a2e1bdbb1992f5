// This file implements the vCPU: Unicorn setup, the TLB fill hook that enforces guest permissions, the block
// hook safe point, and exception dispatch (svc, undefined instruction, brk).
#include "emu/vcpu.h"

#include <fmt/format.h>
#include <sys/mman.h>

#include <cstdlib>

#include "emu/task.h"
#include "signals/signals.h"
#include "syscalls/dispatch.h"

namespace emu {
namespace {

// QEMU's arm exception numbers as Unicorn reports them to UC_HOOK_INTR.
constexpr uint32_t kExcpUdef = 1;
constexpr uint32_t kExcpSwi = 2;
constexpr uint32_t kExcpBkpt = 7;

constexpr uint32_t kBlocksPerTlbCheck = 1u << 14;
constexpr uint64_t kTlbInitialEntries = 256;   // QEMU's CPU_TLB_DYN_DEFAULT_BITS
constexpr uint64_t kTlbMaxEntries = 1u << 22;  // CPU_TLB_DYN_MAX_BITS
constexpr uint64_t kCodeCacheBytes = 128ull << 20;

int xreg_id(int n) {
  if (n == 29) return UC_ARM64_REG_X29;
  if (n == 30) return UC_ARM64_REG_X30;
  return UC_ARM64_REG_X0 + n;
}

}  // namespace

void Vcpu::check(uc_err err, const char* what) const {
  if (err == UC_ERR_OK) return;
  fmt::print(stderr, "a64run: internal error: {} failed: {}\n", what, uc_strerror(err));
  abort();
}

Vcpu::Vcpu(AddressSpace& as, Task* task) : as_(as), task_(task) {
  check(uc_open(UC_ARCH_ARM64, UC_MODE_ARM, &uc_), "uc_open");
  check(uc_ctl_set_tcg_buffer_size(uc_, kCodeCacheBytes), "uc_ctl_set_tcg_buffer_size");
  check(uc_ctl_set_cpu_model(uc_, UC_CPU_ARM64_MAX), "uc_ctl_set_cpu_model");
  check(uc_ctl_tlb_mode(uc_, UC_TLB_VIRTUAL), "uc_ctl_tlb_mode");
  // The whole window is one region: the fill hook decides, page by page, what the guest may touch.
  check(uc_mem_map_ptr(uc_, 0, as_.size(), UC_PROT_ALL, as_.base()), "uc_mem_map_ptr");
  uc_hook h;
  check(uc_hook_add(uc_, &h, UC_HOOK_TLB_FILL, reinterpret_cast<void*>(&Vcpu::on_tlb_fill), this, 1, 0),
        "uc_hook_add(TLB_FILL)");
  check(uc_hook_add(uc_, &h, UC_HOOK_BLOCK, reinterpret_cast<void*>(&Vcpu::on_block), this, 1, 0),
        "uc_hook_add(BLOCK)");
  check(uc_hook_add(uc_, &h, UC_HOOK_INTR, reinterpret_cast<void*>(&Vcpu::on_interrupt), this, 1, 0),
        "uc_hook_add(INTR)");
  check(uc_hook_add(uc_, &h, UC_HOOK_INSN, reinterpret_cast<void*>(&Vcpu::on_sys), this, 1, 0,
                    UC_ARM64_INS_SYS),
        "uc_hook_add(INSN SYS)");
  set_reg(UC_ARM64_REG_CPACR_EL1, 3ull << 20);
  // With the exits list enabled and empty, uc_emu_start ignores `until` and runs until a hook stops it.
  // Plain `until` makes Unicorn probe the until page at every stop, which overwrote the real fault address.
  check(uc_ctl_exits_enable(uc_), "uc_ctl_exits_enable");  // FPEN: FP/SIMD without traps
  synced_generation_ = as_.generation();
  synced_code_generation_ = as_.code_generation();
  tlb_size_estimate_ = kTlbInitialEntries;
  block_countdown_ = kBlocksPerTlbCheck;
}

Vcpu::~Vcpu() {
  if (uc_) uc_close(uc_);
}

uint64_t Vcpu::reg(int uc_reg) const {
  uint64_t v = 0;
  check(uc_reg_read(uc_, uc_reg, &v), "uc_reg_read");
  return v;
}

void Vcpu::set_reg(int uc_reg, uint64_t v) {
  check(uc_reg_write(uc_, uc_reg, &v), "uc_reg_write");
}
uint64_t Vcpu::x(int n) const {
  return reg(xreg_id(n));
}
void Vcpu::set_x(int n, uint64_t v) {
  set_reg(xreg_id(n), v);
}

bool Vcpu::on_tlb_fill(uc_engine*, uint64_t addr, uc_mem_type type, uc_tlb_entry* e, void* opaque) {
  auto* self = static_cast<Vcpu*>(opaque);
  const int need = type == UC_MEM_WRITE ? PROT_WRITE : type == UC_MEM_FETCH ? PROT_EXEC : PROT_READ;
  bool past_eof = false;
  const int prot = self->as_.page_prot(addr, &past_eof);
  if (prot < 0 || !(prot & need) || past_eof) {
    // Unicorn also probes pages it will not access (the `until` address when a stop is requested), so a
    // refusal is only recorded here; run() decides from uc_emu_start's result whether it was a fault.
    self->fault_.kind = StopKind::kFault;
    self->fault_.fault_addr = addr;
    self->fault_.access = need;
    self->fault_.mapped = prot >= 0 && !past_eof;
    self->fault_.past_eof = prot >= 0 && (prot & need) && past_eof;
    return false;
  }
  e->paddr = addr;
  e->perms = static_cast<uc_prot>(prot & UC_PROT_ALL);
  ++self->fills_;
  return true;
}

void Vcpu::on_block(uc_engine* uc, uint64_t, uint32_t, void* opaque) {
  auto* self = static_cast<Vcpu*>(opaque);
  if (self->requests_.load(std::memory_order_relaxed) != 0) {
    self->stop_.kind = StopKind::kRequest;
    uc_emu_stop(uc);
    return;
  }
  if (--self->block_countdown_ == 0) self->maybe_grow_tlb();
}

void Vcpu::maybe_grow_tlb() {
  block_countdown_ = kBlocksPerTlbCheck;
  // QEMU resizes its softmmu TLB only on a flush (doubling it when more than 70% of it was used since the
  // last one), and Unicorn never flushes by itself. So flush when the fills since the last flush show the
  // TLB is too small for the working set, and stop once they stay below that: a program striding over
  // megabytes grows the TLB in a few flushes, one that fits never pays for a flush. (DESIGN.md section 1
  // flushed on a 20 ms clock instead; each of those flushes emptied a grown TLB and cost a full refill.)
  if (fills_ * 4 < tlb_size_estimate_ * 3 || tlb_size_estimate_ >= kTlbMaxEntries) return;
  tlb_size_estimate_ *= 2;
  request(kRequestFlush);
}

void Vcpu::on_interrupt(uc_engine* uc, uint32_t intno, void* opaque) {
  auto* self = static_cast<Vcpu*>(opaque);
  switch (intno) {
    case kExcpSwi: {
      Task& t = *self->task_;
      const uint64_t pc = self->pc();
      syscalls::dispatch(t);
      // Syscall exit is a safe point: signals that became deliverable (or ended a wait) are handled here.
      if (t.interrupted() || t.restart.code != 0) signals::handle_signals(t, true);
      if (self->as_.generation() != self->synced_generation_) self->sync_memory();
      // A new PC (sigreturn, a handler, a restart) or a request: leave uc_emu_start and resume from run().
      if (self->stop_.kind == StopKind::kNone &&
          (self->pc() != pc || self->requests_.load(std::memory_order_relaxed)))
        self->stop_.kind = StopKind::kRequest;
      if (self->stop_.kind != StopKind::kNone) uc_emu_stop(uc);
      return;
    }
    case kExcpUdef:
      self->stop_.kind = StopKind::kUndefined;
      break;
    case kExcpBkpt:
      self->stop_.kind = StopKind::kBreakpoint;
      break;
    default:
      self->stop_.kind = StopKind::kOtherException;
      break;
  }
  self->stop_.intno = intno;
  uc_emu_stop(uc);
}

// SYS instructions: `ic ivau` / `ic iallu(is)` announce new code. Stores into code by another vCPU or
// through another mapping are invisible to this vCPU's JIT, so every vCPU drops its translations.
uint32_t Vcpu::on_sys(uc_engine* uc, uc_arm64_reg, const uc_arm64_cp_reg* cp, void* opaque) {
  auto* self = static_cast<Vcpu*>(opaque);
  const bool ic = cp->crn == 7 && (cp->crm == 5 || cp->crm == 1) &&
                  ((cp->op1 == 3 && cp->op2 == 1) || (cp->op1 == 0 && cp->op2 == 0));
  if (ic) {
    self->as_.invalidate_code();
    if (self->stop_.kind == StopKind::kNone) self->stop_.kind = StopKind::kRequest;
    uc_emu_stop(uc);
  }
  return 0;
}

void Vcpu::stop(StopKind kind) {
  stop_.kind = kind;
  uc_emu_stop(uc_);
}

void Vcpu::sync_memory() {
  synced_generation_ = as_.generation();
  check(uc_ctl_flush_tlb(uc_), "uc_ctl_flush_tlb");
  fills_ = 0;
  // Unmapped or replaced code must not run from stale translations; host writes are never seen by the JIT.
  const uint64_t code_gen = as_.code_generation();
  if (code_gen != synced_code_generation_) {
    synced_code_generation_ = code_gen;
    check(uc_ctl_flush_tb(uc_), "uc_ctl_flush_tb");
  }
}

StopInfo Vcpu::run() {
  stop_ = StopInfo{};
  fault_ = StopInfo{};
  if (as_.generation() != synced_generation_) sync_memory();
  const uc_err err = uc_emu_start(uc_, pc(), kUntil, 0, 0);
  if (err != UC_ERR_OK && (stop_.kind == StopKind::kNone || stop_.kind == StopKind::kRequest)) {
    if (fault_.kind == StopKind::kFault) {
      stop_ = fault_;
    } else {
      stop_.kind = StopKind::kFault;
      stop_.fault_addr = pc();
      stop_.access = PROT_EXEC;
    }
  }
  if (stop_.kind == StopKind::kRequest && has_request(kRequestFlush)) {
    requests_.fetch_and(~kRequestFlush);
    check(uc_ctl_flush_tlb(uc_), "uc_ctl_flush_tlb");
    fills_ = 0;
  }
  return stop_;
}

}  // namespace emu
