// This file builds and restores the arm64 rt_sigframe byte for byte as arch/arm64/kernel/signal.c does:
// siginfo, ucontext with sigcontext, fpsimd_context (and esr_context for faults) in __reserved, the end
// marker, then the {fp, lr} frame record above it; at rt_sigreturn it loads what parse_rt_frame read.
#include <cstring>

#include "emu/address_space.h"
#include "emu/cpu_state.h"
#include "emu/guest_mem.h"
#include "emu/task.h"
#include "signals/frame_arm64.h"
#include "syscalls/abi/sigframe.h"

namespace signals {
namespace {

// The uc_stack a frame records: the altstack settings and whether sp is on it (__save_altstack).
guest::stack_t saved_altstack(const guest::stack_t& ss, uint64_t sp) {
  guest::stack_t out = ss;
  if (ss.ss_flags & guest::kSS_DISABLE || ss.ss_size == 0) {
    out = {0, guest::kSS_DISABLE, 0, 0};
  } else {
    out.ss_flags = (ss.ss_flags & guest::kSS_AUTODISARM) | (on_altstack(ss, sp) ? guest::kSS_ONSTACK : 0);
  }
  return out;
}

void fill_reserved(uint8_t* reserved, const emu::CpuState& st, const FaultDetail* fault) {
  guest::fpsimd_context fp{};
  fp.head = {guest::kFPSIMD_MAGIC, sizeof fp};
  fp.fpsr = static_cast<uint32_t>(st.fpsr);
  fp.fpcr = static_cast<uint32_t>(st.fpcr);
  for (int i = 0; i < 32; ++i) fp.vregs[i] = {st.v[i].lo, st.v[i].hi};
  memcpy(reserved, &fp, sizeof fp);
  size_t off = sizeof fp;
  if (fault != nullptr && fault->esr != 0) {  // setup_sigframe_layout: only with a fault code
    guest::esr_context esr{{guest::kESR_MAGIC, sizeof(guest::esr_context)}, fault->esr};
    memcpy(reserved + off, &esr, sizeof esr);
  }
  // The terminator ({0, 0}) is already there: the frame starts zeroed.
}

}  // namespace

bool setup_rt_frame(emu::Task& t, const guest::siginfo& info, const guest::sigaction& act, sigset_t old_mask,
                    const FaultDetail* fault, uint64_t trampoline) {
  emu::CpuState st;
  emu::save_cpu_state(t.cpu(), &st);
  guest::stack_t& ss = t.sig().altstack;
  uint64_t sp = st.sp;
  const guest::stack_t recorded = saved_altstack(ss, st.sp);
  if ((act.sa_flags & guest::kSA_ONSTACK) && !(ss.ss_flags & guest::kSS_DISABLE) && ss.ss_size != 0 &&
      !on_altstack(ss, sp)) {
    sp = ss.ss_sp + ss.ss_size;
    if (ss.ss_flags & guest::kSS_AUTODISARM) ss = {0, guest::kSS_DISABLE, 0, 0};
  }
  const uint64_t record_addr = (sp - sizeof(guest::frame_record)) & ~uint64_t{15};
  const uint64_t frame_addr = record_addr - sizeof(guest::rt_sigframe);

  guest::rt_sigframe frame;  // 4,688 bytes: on the stack, not the heap (a malloc per signal was 5% of one)
  memset(&frame, 0, sizeof frame);
  if (act.sa_flags & guest::kSA_SIGINFO) frame.info = info;
  guest::ucontext& uc = frame.uc;
  uc.uc_stack = recorded;
  uc.uc_sigmask = old_mask;
  guest::sigcontext& mc = uc.uc_mcontext;
  mc.fault_address = fault ? fault->address : 0;
  memcpy(mc.regs, st.x, sizeof mc.regs);
  mc.sp = st.sp;
  mc.pc = st.pc;
  mc.pstate = st.nzcv & kPstateNzcv;  // EL0t, interrupts unmasked: what a user thread's PSTATE reads as
  fill_reserved(mc.reserved, st, fault);
  const guest::frame_record rec{st.x[29], st.x[30]};
  if (emu::copy_out(t.as(), frame_addr, &frame, sizeof frame) != 0 ||
      emu::copy_out(t.as(), record_addr, &rec, sizeof rec) != 0)
    return false;

  emu::Vcpu& cpu = t.cpu();
  cpu.set_x(0, static_cast<uint64_t>(info.si_signo));
  if (act.sa_flags & guest::kSA_SIGINFO) {
    cpu.set_x(1, frame_addr + offsetof(guest::rt_sigframe, info));
    cpu.set_x(2, frame_addr + offsetof(guest::rt_sigframe, uc));
  }
  cpu.set_sp(frame_addr);
  cpu.set_x(29, record_addr);
  cpu.set_x(30, (act.sa_flags & guest::kSA_RESTORER) ? act.sa_restorer : trampoline);
  cpu.set_pc(act.handler);
  return true;
}

ParsedFrame restore_rt_frame(emu::Task& t) {
  emu::CpuState st;
  emu::save_cpu_state(t.cpu(), &st);
  emu::AddressSpace& as = t.as();
  const ParsedFrame f = parse_rt_frame(
      st.sp, [&as](uint64_t addr, void* dst, size_t len) { return emu::copy_in(as, dst, addr, len) == 0; });
  if (!f.regs_loaded) return f;
  memcpy(st.x, f.regs, sizeof st.x);
  st.sp = f.sp;
  st.pc = f.pc;
  st.nzcv = f.pstate & kPstateNzcv;
  if (f.valid) {
    st.fpsr = f.fpsr;
    st.fpcr = f.fpcr;
    for (int i = 0; i < 32; ++i) st.v[i] = {f.v[i].lo, f.v[i].hi};
  }
  emu::restore_cpu_state(t.cpu(), st);
  return f;
}

}  // namespace signals
