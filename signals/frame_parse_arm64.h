// Parsing of an arm64 rt_sigframe at rt_sigreturn, from guest bytes alone (no Task, no vCPU): the kernel's
// sys_rt_sigreturn, restore_sigframe and parse_user_sigframe for a CPU with FP/SIMD and neither SVE nor SME.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "syscalls/abi/sigframe.h"

namespace signals {

// Copies `len` guest bytes at `addr` into `dst`; false where Linux's copy_from_user would fault.
using GuestReader = std::function<bool(uint64_t addr, void* dst, size_t len)>;

// arch/arm64/kernel/signal.c SIGFRAME_MAXSZ: how far past the frame an extra_context may reach.
inline constexpr uint64_t kSigframeMaxSize = uint64_t{256} * 1024;
inline constexpr uint64_t kPstateNzcv = 0xf0000000ull;

// What rt_sigreturn takes from the frame at `frame_addr`. The kernel loads the mask and the registers before
// it checks the frame, so a rejected frame still leaves them loaded (a register it could not read is 0).
struct ParsedFrame {
  bool valid = false;        // false: the frame is bad and the guest gets SIGSEGV
  bool regs_loaded = false;  // the frame's address passed the alignment and range checks
  bool mask_loaded = false;  // uc_sigmask was readable
  guest::sigset_t mask = 0;  // without SIGKILL and SIGSTOP (set_current_blocked)
  uint64_t regs[31] = {};
  uint64_t sp = 0;
  uint64_t pc = 0;
  uint64_t pstate = 0;  // as valid_user_regs leaves it: only NZCV when it refused the value
  // Set only for a valid frame:
  uint32_t fpsr = 0;
  uint32_t fpcr = 0;
  guest::vreg128 v[32] = {};
  guest::stack_t uc_stack{};
};

ParsedFrame parse_rt_frame(uint64_t frame_addr, const GuestReader& read);

// restore_altstack: the altstack after rt_sigreturn, given the current one, the restored sp and the frame's
// uc_stack. Applied only when sp is not on the current altstack; a refused uc_stack (bad mode, size below
// MINSIGSTKSZ) leaves it unchanged, as do_sigaltstack's errors other than EFAULT are ignored.
guest::stack_t altstack_after_sigreturn(const guest::stack_t& cur, uint64_t sp, const guest::stack_t& uc);

}  // namespace signals
