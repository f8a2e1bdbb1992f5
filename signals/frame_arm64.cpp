// This file builds and restores the arm64 rt_sigframe byte for byte as arch/arm64/kernel/signal.c does:
// siginfo, ucontext with sigcontext, fpsimd_context (and esr_context for faults) in __reserved, the end
// marker, then the {fp, lr} frame record above it.
#include <cstring>
#include <memory>

#include "emu/cpu_state.h"
#include "emu/guest_mem.h"
#include "emu/task.h"
#include "signals/frame_arm64.h"
#include "syscalls/abi/sigframe.h"

namespace signals {
namespace {

constexpr uint64_t kNzcvMask = 0xf0000000ull;
constexpr uint64_t kPsrMode32 = 0x10;
constexpr uint64_t kPsrModeMask = 0x0f;
constexpr uint64_t kPsrDaif = 0x3c0;

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
  if (fault != nullptr) {
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

  auto frame = std::make_unique<guest::rt_sigframe>();
  memset(frame.get(), 0, sizeof *frame);
  if (act.sa_flags & guest::kSA_SIGINFO) frame->info = info;
  guest::ucontext& uc = frame->uc;
  uc.uc_stack = recorded;
  uc.uc_sigmask = old_mask;
  guest::sigcontext& mc = uc.uc_mcontext;
  mc.fault_address = fault ? fault->address : 0;
  memcpy(mc.regs, st.x, sizeof mc.regs);
  mc.sp = st.sp;
  mc.pc = st.pc;
  mc.pstate = st.nzcv & kNzcvMask;  // EL0t, interrupts unmasked: what a user thread's PSTATE reads as
  fill_reserved(mc.reserved, st, fault);
  const guest::frame_record rec{st.x[29], st.x[30]};
  if (emu::copy_out(t.as(), frame_addr, frame.get(), sizeof *frame) != 0 ||
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

// Walks __reserved as parse_user_sigframe does: fpsimd_context exactly once, esr_context allowed, anything
// else (SVE, ZA, extra_context: never advertised here) makes the frame invalid.
bool restore_reserved(const uint8_t* reserved, emu::CpuState* st) {
  size_t off = 0;
  bool have_fpsimd = false;
  while (off + sizeof(guest::aarch64_ctx) <= guest::kSigcontextReservedSize) {
    guest::aarch64_ctx head;
    memcpy(&head, reserved + off, sizeof head);
    if (head.magic == 0) return head.size == 0 && have_fpsimd;
    if (head.size < sizeof head || head.size > guest::kSigcontextReservedSize - off) return false;
    if (head.magic == guest::kFPSIMD_MAGIC) {
      if (have_fpsimd || head.size != sizeof(guest::fpsimd_context)) return false;
      guest::fpsimd_context fp;
      memcpy(&fp, reserved + off, sizeof fp);
      st->fpsr = fp.fpsr;
      st->fpcr = fp.fpcr;
      for (int i = 0; i < 32; ++i) st->v[i] = {fp.vregs[i].lo, fp.vregs[i].hi};
      have_fpsimd = true;
    } else if (head.magic != guest::kESR_MAGIC || head.size != sizeof(guest::esr_context)) {
      return false;
    }
    off += head.size;
  }
  return false;
}

bool restore_rt_frame(emu::Task& t, sigset_t* mask, guest::stack_t* uc_stack) {
  emu::CpuState st;
  emu::save_cpu_state(t.cpu(), &st);
  const uint64_t frame_addr = st.sp;
  if (frame_addr & 15) return false;
  auto frame = std::make_unique<guest::rt_sigframe>();
  if (emu::copy_in(t.as(), frame.get(), frame_addr, sizeof *frame) != 0) return false;
  const guest::sigcontext& mc = frame->uc.uc_mcontext;
  // valid_native_regs: a 64-bit EL0t state with D, A, I and F clear.
  if ((mc.pstate & kPsrMode32) || (mc.pstate & kPsrModeMask) != 0 || (mc.pstate & kPsrDaif)) return false;
  if (!restore_reserved(mc.reserved, &st)) return false;
  memcpy(st.x, mc.regs, sizeof st.x);
  st.sp = mc.sp;
  st.pc = mc.pc;
  st.nzcv = mc.pstate & kNzcvMask;
  emu::restore_cpu_state(t.cpu(), st);
  *mask = frame->uc.uc_sigmask;
  *uc_stack = frame->uc.uc_stack;
  return true;
}

}  // namespace signals
