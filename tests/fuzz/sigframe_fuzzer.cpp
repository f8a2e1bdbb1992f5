// This file is the libFuzzer entry point for rt_sigreturn of arbitrary bytes: the input is the guest memory
// at the frame's address (everything else faults), and parse_rt_frame must read nothing outside the window
// Linux would read, and either refuse the frame or return a state that Linux's checks allow.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>

#include "signals/frame_parse_arm64.h"
#include "signals/signal_state.h"
#include "tests/fuzz/sigframe_testing.h"

namespace {

using signals::ParsedFrame;
using namespace signals::sigframe_testing;

[[noreturn]] void fail(const char* what) {
  fprintf(stderr, "sigframe_fuzzer: %s\n", what);
  abort();
}

// Guest memory: the input at kFrameAddr, nothing anywhere else.
struct Memory {
  std::span<const uint8_t> bytes;
  bool read(uint64_t addr, void* dst, size_t len) const {
    // The kernel reads the frame and at most SIGFRAME_MAXSZ past it.
    if (addr < kFrameAddr || addr - kFrameAddr > signals::kSigframeMaxSize || len > signals::kSigframeMaxSize)
      fail("a read outside the frame's reach");
    const uint64_t off = addr - kFrameAddr;
    if (off > bytes.size() || len > bytes.size() - off) return false;
    memcpy(dst, bytes.data() + off, len);
    return true;
  }
  // The 8 bytes at `off` of the frame, 0 when not all of them are there (as __get_user leaves them).
  uint64_t u64_at(uint64_t off) const {
    uint64_t v = 0;
    if (off <= bytes.size() && sizeof v <= bytes.size() - off) memcpy(&v, bytes.data() + off, sizeof v);
    return v;
  }
  bool has(uint64_t off, uint64_t len) const { return off <= bytes.size() && len <= bytes.size() - off; }
};

bool pstate_allowed(uint64_t pstate) {
  return (pstate & 0x1f) == 0 && (pstate & 0x3c0) == 0;  // EL0t, AArch64, D A I F clear
}

// A valid frame's FP/SIMD state is an fpsimd_context record of the input, 16-byte aligned, past the
// frame's fixed part.
bool fpsimd_from_a_record(const Memory& m, const ParsedFrame& f) {
  for (uint64_t off = kReservedAt; m.has(off, sizeof(guest::fpsimd_context)); off += 16) {
    guest::fpsimd_context fp;
    memcpy(&fp, m.bytes.data() + off, sizeof fp);
    if (fp.head.magic == guest::kFPSIMD_MAGIC && fp.head.size == sizeof fp && fp.fpsr == f.fpsr &&
        fp.fpcr == f.fpcr && memcmp(fp.vregs, f.v, sizeof f.v) == 0)
      return true;
  }
  return false;
}

void check_registers(const Memory& m, const ParsedFrame& f) {
  for (int i = 0; i < 31; ++i) {
    if (f.regs[i] != m.u64_at(kRegsAt + 8 * static_cast<uint64_t>(i))) fail("x registers not as given");
  }
  if (f.sp != m.u64_at(kSpAt) || f.pc != m.u64_at(kPcAt)) fail("sp or pc not as given");
  const uint64_t pstate = m.u64_at(kPstateAt);
  if (pstate_allowed(pstate) ? f.pstate != pstate : f.pstate != (pstate & signals::kPstateNzcv))
    fail("pstate not as valid_user_regs leaves it");
  if (f.mask_loaded != m.has(kMaskAt, 8)) fail("mask loaded from missing bytes, or not from present ones");
  if (f.mask_loaded && f.mask != (m.u64_at(kMaskAt) & ~guest::kUnblockableSignals)) fail("mask not as given");
  if (f.mask & guest::kUnblockableSignals) fail("the mask blocks SIGKILL or SIGSTOP");
}

void check_valid(const Memory& m, const ParsedFrame& f) {
  if (!m.has(0, kReservedAt + 16)) fail("accepted a frame whose fixed part is missing");
  if (!pstate_allowed(f.pstate)) fail("accepted a pstate Linux refuses");
  if (!fpsimd_from_a_record(m, f)) fail("accepted FP/SIMD state that no fpsimd_context holds");
  guest::stack_t uc;
  memcpy(&uc, m.bytes.data() + kStackAt, sizeof uc);
  if (memcmp(&uc, &f.uc_stack, sizeof uc) != 0) fail("uc_stack not as given");
}

// restore_altstack against two current altstacks: sp on the enabled one keeps it; otherwise the result is
// the current one, a disabled one (with the frame's flag bits), or the frame's with at least MINSIGSTKSZ
// bytes.
void check_altstack(const ParsedFrame& f) {
  const guest::stack_t current[] = {{0, guest::kSS_DISABLE, 0, 0}, {f.sp - 0x1000, 0, 0, 0x8000}};
  for (const guest::stack_t& cur : current) {
    const guest::stack_t next = signals::altstack_after_sigreturn(cur, f.sp, f.uc_stack);
    const bool same = memcmp(&next, &cur, sizeof cur) == 0;
    if (signals::on_altstack(cur, f.sp) && !same) fail("altstack changed while on it");
    // Disabled keeps the frame's flag bits (SS_AUTODISARM), as do_sigaltstack stores them.
    const bool disabled =
        next.ss_flags == (guest::kSS_DISABLE | (f.uc_stack.ss_flags & guest::kSS_FLAG_BITS)) &&
        next.ss_sp == 0 && next.ss_size == 0;
    const bool taken = next.ss_sp == f.uc_stack.ss_sp && next.ss_size == f.uc_stack.ss_size &&
                       next.ss_size >= guest::kMINSIGSTKSZ && (next.ss_flags & ~guest::kSS_FLAG_BITS) == 0;
    if (!same && !disabled && !taken) fail("altstack set to a value do_sigaltstack refuses");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const Memory m{std::span<const uint8_t>(data, size)};
  const signals::GuestReader read = [&m](uint64_t addr, void* dst, size_t len) {
    return m.read(addr, dst, len);
  };
  const ParsedFrame f = signals::parse_rt_frame(kFrameAddr, read);
  if (!f.regs_loaded) fail("an aligned frame in range had no registers loaded");
  check_registers(m, f);
  if (f.valid) {
    check_valid(m, f);
    check_altstack(f);
  }
  // The same bytes at a misaligned address are refused before anything is read.
  const ParsedFrame odd = signals::parse_rt_frame(
      kFrameAddr + 8, [](uint64_t, void*, size_t) -> bool { fail("a misaligned frame was read"); });
  if (odd.valid || odd.regs_loaded || odd.mask_loaded) fail("a misaligned frame was not refused");
  return 0;
}
