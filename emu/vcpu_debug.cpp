// This file implements the vCPU's debugger controls (gdb/): breakpoints as Unicorn exits, the architecture's
// software step, and the watched pages the TLB fill hook refuses (direct memory access off meanwhile). None
// of it costs anything until a debugger asks for it: a vCPU without breakpoints has an empty exits list, as
// every vCPU has.
#include <algorithm>
#include <iterator>

#include "emu/vcpu.h"

namespace emu {
namespace {

// System registers, as uc_arm64_cp_reg names them: {CRn, CRm, op0, op1, op2}.
constexpr uc_arm64_cp_reg kMdscrEl1 = {0, 2, 2, 0, 2, 0};
constexpr uc_arm64_cp_reg kScrEl3 = {1, 1, 3, 6, 0, 0};
constexpr uint64_t kMdscrSs = 1u << 0;    // software step enabled
constexpr uint64_t kMdscrKde = 1u << 13;  // debug exceptions at the EL they target (guest code runs at EL1)
constexpr uint64_t kScrRw = 1u << 10;     // EL1 is AArch64: QEMU's arm_singlestep_active needs it
constexpr uint32_t kPstateSs = 1u << 21;
constexpr uint32_t kPstateD = 1u << 9;

}  // namespace

// Unicorn stops before an exit address. It checks exits when it translates, so every translation that
// contains a changed address goes: [addr - 1, addr + 4) covers a block holding the instruction, the block
// that ends at the exit (its size stops short of it) and the empty block Unicorn makes for a block that
// starts at an exit, which an invalidation of [addr, ...) alone keeps (its end equals its start). On a page
// boundary addr - 1 is another page: the whole cache goes.
void Vcpu::set_breakpoints(std::vector<uint64_t> addrs) {
  std::sort(addrs.begin(), addrs.end());
  addrs.erase(std::unique(addrs.begin(), addrs.end()), addrs.end());
  std::vector<uint64_t> changed;
  std::set_symmetric_difference(addrs.begin(), addrs.end(), breakpoints_.begin(), breakpoints_.end(),
                                std::back_inserter(changed));
  if (changed.empty()) return;
  breakpoints_ = std::move(addrs);
  check(uc_ctl_set_exits(uc_, breakpoints_.data(), breakpoints_.size()), "uc_ctl_set_exits");
  if (std::any_of(changed.begin(), changed.end(), [](uint64_t a) { return (a & kPageMask) == 0; })) {
    check(uc_ctl_flush_tb(uc_), "uc_ctl_flush_tb");
    return;
  }
  for (const uint64_t a : changed) (void)uc_ctl_remove_cache(uc_, a - 1, a + 4);  // unmapped: nothing cached
}

bool Vcpu::breakpoint_at(uint64_t addr) const {
  return std::binary_search(breakpoints_.begin(), breakpoints_.end(), addr);
}

// The step state machine of the Arm ARM (D2.12): with MDSCR_EL1.SS set, PSTATE.SS set means "active, not
// pending": one instruction runs and the step exception follows (QEMU raises it as EXCP_UDEF, which the
// interrupt hook reports as kUndefined). The instruction clears PSTATE.SS, so each step arms it again. A
// system call (svc) clears it too; the step then completes at the instruction after the svc, before it runs.
// QEMU takes debug exceptions at the current EL only with MDSCR_EL1.KDE set and PSTATE.D clear, and counts
// the step as active only when EL1 is AArch64 by SCR_EL3.RW. The PSTATE write goes first: only system
// register writes recompute the translation flags.
void Vcpu::set_single_step(bool on) {
  if (!on && !single_step_) return;
  uint32_t pstate = 0;
  check(uc_reg_read(uc_, UC_ARM64_REG_PSTATE, &pstate), "uc_reg_read(PSTATE)");
  if (on && !single_step_) saved_pstate_ = pstate & kPstateD;
  pstate = on ? ((pstate | kPstateSs) & ~kPstateD) : ((pstate & ~(kPstateSs | kPstateD)) | saved_pstate_);
  check(uc_reg_write(uc_, UC_ARM64_REG_PSTATE, &pstate), "uc_reg_write(PSTATE)");
  uc_arm64_cp_reg scr = kScrEl3;
  check(uc_reg_read(uc_, UC_ARM64_REG_CP_REG, &scr), "uc_reg_read(SCR_EL3)");
  scr.val = on ? (scr.val | kScrRw) : (scr.val & ~kScrRw);
  check(uc_reg_write(uc_, UC_ARM64_REG_CP_REG, &scr), "uc_reg_write(SCR_EL3)");
  uc_arm64_cp_reg mdscr = kMdscrEl1;
  mdscr.val = on ? (kMdscrSs | kMdscrKde) : 0;
  check(uc_reg_write(uc_, UC_ARM64_REG_CP_REG, &mdscr), "uc_reg_write(MDSCR_EL1)");
  single_step_ = on;
}

// Watched pages work through the TLB fill hook, which direct accesses (emu/direct_memory.cpp) never reach:
// while any page is watched, the vCPU's translations take the softmmu path (set_direct_memory drops the
// ones made with direct access).
void Vcpu::set_watched_pages(std::vector<std::pair<uint64_t, int>> pages) {
  watch_pages_ = std::move(pages);
  set_direct_memory(watch_pages_.empty());
  flush_tlb();
}

void Vcpu::set_watch_bypass(bool on) {
  if (watch_bypass_ == on) return;
  watch_bypass_ = on;
  flush_tlb();  // entries filled while bypassing must not outlive it
}

int Vcpu::watch_deny(uint64_t page) const {
  int deny = 0;
  for (const auto& [p, d] : watch_pages_) {
    if (p == (page & ~kPageMask)) deny |= d;
  }
  return deny;
}

}  // namespace emu
