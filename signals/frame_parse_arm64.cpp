// This file parses a guest rt_sigframe for rt_sigreturn as arch/arm64/kernel/signal.c does, reading guest
// memory only through a GuestReader so that it runs (and is fuzzed) without a vCPU.
#include "signals/frame_parse_arm64.h"

#include <array>
#include <cstring>

#include "emu/address_space.h"
#include "signals/signal_state.h"

namespace signals {
namespace {

constexpr uint64_t kPsrMode32 = 0x10;
constexpr uint64_t kPsrModeMask = 0x0f;
constexpr uint64_t kPsrDaif = 0x3c0;
constexpr uint64_t kTerminatorSize = 16;  // round_up(sizeof(struct _aarch64_ctx), 16)

constexpr uint64_t kMcontext = offsetof(guest::rt_sigframe, uc) + offsetof(guest::ucontext, uc_mcontext);
constexpr uint64_t kRegsAt = kMcontext + offsetof(guest::sigcontext, regs);
constexpr uint64_t kSpAt = kMcontext + offsetof(guest::sigcontext, sp);
constexpr uint64_t kPcAt = kMcontext + offsetof(guest::sigcontext, pc);
constexpr uint64_t kPstateAt = kMcontext + offsetof(guest::sigcontext, pstate);
constexpr uint64_t kReservedAt = kMcontext + offsetof(guest::sigcontext, reserved);
constexpr uint64_t kMaskAt = offsetof(guest::rt_sigframe, uc) + offsetof(guest::ucontext, uc_sigmask);
constexpr uint64_t kStackAt = offsetof(guest::rt_sigframe, uc) + offsetof(guest::ucontext, uc_stack);
static_assert(kReservedAt % 16 == 0);

// The frame's bytes, read in one copy when the whole frame is readable (the common case) and field by field
// otherwise, where each field faults or not as the kernel's __get_user would.
class FrameBytes {
 public:
  FrameBytes(uint64_t addr, const GuestReader& read) : addr_(addr), read_(read) {
    whole_ = read_(addr_, bytes_.data(), bytes_.size());
  }
  bool get(uint64_t addr, void* dst, size_t len) const {
    if (whole_ && addr >= addr_ && addr - addr_ <= bytes_.size() && len <= bytes_.size() - (addr - addr_)) {
      memcpy(dst, bytes_.data() + (addr - addr_), len);
      return true;
    }
    return read_(addr, dst, len);
  }
  bool get_u64(uint64_t off, uint64_t* v) const {
    if (get(addr_ + off, v, sizeof *v)) return true;
    *v = 0;  // __get_user_error zeroes what it could not read
    return false;
  }

 private:
  uint64_t addr_;
  const GuestReader& read_;
  bool whole_ = false;
  std::array<uint8_t, sizeof(guest::rt_sigframe)> bytes_{};
};

// valid_native_regs: a 64-bit EL0t state with D, A, I and F clear; anything else is refused and forced to
// NZCV alone.
bool valid_user_pstate(uint64_t* pstate) {
  if (!(*pstate & kPsrMode32) && (*pstate & kPsrModeMask) == 0 && !(*pstate & kPsrDaif)) return true;
  *pstate &= kPstateNzcv;
  return false;
}

// The extra_context record at `head_addr` (`size` bytes, `left` bytes left in __reserved from it): checks
// that a terminator follows it and that its data starts right after that terminator, then moves the walk
// there. False for a record Linux refuses.
bool enter_extra(const FrameBytes& f, uint64_t frame_addr, uint64_t head_addr, uint32_t size, uint64_t left,
                 uint64_t* base, uint64_t* limit) {
  if (size < sizeof(guest::extra_context)) return false;
  guest::extra_context extra;
  if (!f.get(head_addr, &extra, sizeof extra)) return false;
  if (left - size < kTerminatorSize) return false;
  uint64_t userp = head_addr + size;
  guest::aarch64_ctx end;
  if (!f.get(userp, &end, sizeof end) || end.magic != 0 || end.size != 0) return false;
  userp += kTerminatorSize;
  if ((extra.datap & 15) != 0 || (extra.size & 15) != 0 || extra.datap != userp) return false;
  if (extra.size > frame_addr + kSigframeMaxSize - userp) return false;  // "unreasonably large"
  if (!emu::user_range_ok(extra.datap, extra.size)) return false;        // access_ok
  *base = extra.datap;
  *limit = extra.size;
  return true;
}

// parse_user_sigframe: walks the records in __reserved (and in an extra_context's data) and returns the
// address and size of the one fpsimd_context, 0 when there is none. False for a frame Linux refuses.
// Records are 16-byte aligned; esr_context is skipped whatever its size; SVE, SME and unknown records are
// refused (a64run advertises neither SVE nor SME).
bool walk_records(const FrameBytes& f, uint64_t frame_addr, uint64_t* fpsimd, uint32_t* fpsimd_size) {
  uint64_t base = frame_addr + kReservedAt;
  uint64_t offset = 0;
  uint64_t limit = guest::kSigcontextReservedSize;
  bool have_extra = false;
  *fpsimd = 0;
  while (true) {
    if (limit - offset < sizeof(guest::aarch64_ctx) || (offset & 15) != 0) return false;
    guest::aarch64_ctx head;
    if (!f.get(base + offset, &head, sizeof head)) return false;
    if (limit - offset < head.size) return false;
    switch (head.magic) {
      case 0:
        return head.size == 0;
      case guest::kFPSIMD_MAGIC:
        if (*fpsimd != 0) return false;
        *fpsimd = base + offset;
        *fpsimd_size = head.size;
        break;
      case guest::kESR_MAGIC:
        break;
      case guest::kEXTRA_MAGIC:
        if (have_extra) return false;
        if (!enter_extra(f, frame_addr, base + offset, head.size, limit - offset, &base, &limit))
          return false;
        have_extra = true;
        offset = 0;
        continue;
      default:
        return false;
    }
    if (head.size < sizeof head) return false;
    offset += head.size;
  }
}

// restore_sigframe's part after the registers: the records, then restore_fpsimd_context.
bool restore_fpsimd(const FrameBytes& f, uint64_t frame_addr, ParsedFrame* out) {
  uint64_t at = 0;
  uint32_t size = 0;
  if (!walk_records(f, frame_addr, &at, &size)) return false;
  if (at == 0 || size != sizeof(guest::fpsimd_context)) return false;
  guest::fpsimd_context fp;
  if (!f.get(at, &fp, sizeof fp)) return false;
  out->fpsr = fp.fpsr;
  out->fpcr = fp.fpcr;
  memcpy(out->v, fp.vregs, sizeof out->v);
  return true;
}

}  // namespace

ParsedFrame parse_rt_frame(uint64_t frame_addr, const GuestReader& read) {
  ParsedFrame out;
  // sys_rt_sigreturn: the frame is 16-byte aligned and access_ok.
  if ((frame_addr & 15) != 0 || !emu::user_range_ok(frame_addr, sizeof(guest::rt_sigframe))) return out;
  const FrameBytes f(frame_addr, read);
  // restore_sigframe: the mask first (set even when the rest is refused), then every register.
  out.mask_loaded = f.get(frame_addr + kMaskAt, &out.mask, sizeof out.mask);
  out.mask &= ~guest::kUnblockableSignals;
  out.regs_loaded = true;
  bool ok = true;
  for (int i = 0; i < 31; ++i) ok &= f.get_u64(kRegsAt + 8 * static_cast<uint64_t>(i), &out.regs[i]);
  ok &= f.get_u64(kSpAt, &out.sp);
  ok &= f.get_u64(kPcAt, &out.pc);
  ok &= f.get_u64(kPstateAt, &out.pstate);
  ok &= valid_user_pstate(&out.pstate);
  if (!ok || !restore_fpsimd(f, frame_addr, &out)) return out;
  // restore_altstack reads uc_stack; a fault there is a bad frame too.
  out.valid = f.get(frame_addr + kStackAt, &out.uc_stack, sizeof out.uc_stack);
  return out;
}

guest::stack_t altstack_after_sigreturn(const guest::stack_t& cur, uint64_t sp, const guest::stack_t& uc) {
  if (on_altstack(cur, sp)) return cur;  // -EPERM
  const int32_t mode = uc.ss_flags & ~guest::kSS_FLAG_BITS;
  if (mode == guest::kSS_DISABLE) return {0, guest::kSS_DISABLE | (uc.ss_flags & guest::kSS_FLAG_BITS), 0, 0};
  if ((mode == 0 || mode == guest::kSS_ONSTACK) && uc.ss_size >= guest::kMINSIGSTKSZ)
    return {uc.ss_sp, uc.ss_flags & guest::kSS_FLAG_BITS, 0, uc.ss_size};
  return cur;  // -EINVAL or -ENOMEM, ignored
}

}  // namespace signals
