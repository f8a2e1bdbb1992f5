// Shared by the signal frame fuzzer, its seed writer and the unit tests: frame offsets and a builder of
// frames that Linux accepts (fpsimd_context, esr_context, extra_context records in any order).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "syscalls/abi/sigframe.h"

namespace signals::sigframe_testing {

inline constexpr uint64_t kFrameAddr = 0x40000;  // where the fuzzer's frame lies: 16-byte aligned
inline constexpr uint64_t kMcontext =
    offsetof(guest::rt_sigframe, uc) + offsetof(guest::ucontext, uc_mcontext);
inline constexpr uint64_t kRegsAt = kMcontext + offsetof(guest::sigcontext, regs);
inline constexpr uint64_t kSpAt = kMcontext + offsetof(guest::sigcontext, sp);
inline constexpr uint64_t kPcAt = kMcontext + offsetof(guest::sigcontext, pc);
inline constexpr uint64_t kPstateAt = kMcontext + offsetof(guest::sigcontext, pstate);
inline constexpr uint64_t kReservedAt = kMcontext + offsetof(guest::sigcontext, reserved);
inline constexpr uint64_t kMaskAt = offsetof(guest::rt_sigframe, uc) + offsetof(guest::ucontext, uc_sigmask);
inline constexpr uint64_t kStackAt = offsetof(guest::rt_sigframe, uc) + offsetof(guest::ucontext, uc_stack);

// A frame's bytes, starting at its address; records are appended from __reserved on.
class FrameImage {
 public:
  FrameImage() : bytes_(sizeof(guest::rt_sigframe), 0), at_(kReservedAt) {
    for (uint64_t i = 0; i < 31; ++i) put_u64(kRegsAt + 8 * i, 0xa64f000000000000ull | i);
    put_u64(kSpAt, 0x7ff000);
    put_u64(kPcAt, 0x400100);
    put_u64(kPstateAt, 0x60000000);  // Z and C, EL0t
    put_u64(kMaskAt, 0x1234);
  }
  void put_u64(uint64_t off, uint64_t v) { put(off, &v, sizeof v); }
  void put(uint64_t off, const void* p, size_t len) {
    if (off + len > bytes_.size()) bytes_.resize(off + len, 0);
    memcpy(bytes_.data() + off, p, len);
  }
  // Appends a record of `size` bytes (at least its header) whose header says `magic` and `size`.
  uint64_t record(uint32_t magic, uint32_t size) {
    const uint64_t off = at_;
    const guest::aarch64_ctx head{magic, size};
    std::vector<uint8_t> body(size < sizeof head ? sizeof head : size, 0);
    memcpy(body.data(), &head, sizeof head);
    put(off, body.data(), body.size());
    at_ += body.size();
    return off;
  }
  uint64_t fpsimd() {
    const uint64_t off = record(guest::kFPSIMD_MAGIC, sizeof(guest::fpsimd_context));
    for (uint64_t i = 0; i < 64; ++i) put_u64(off + 16 + 8 * i, 0xf00d000000000000ull | i);
    return off;
  }
  uint64_t esr(uint32_t size = sizeof(guest::esr_context)) {
    const uint64_t off = record(guest::kESR_MAGIC, size);
    if (size >= 16) put_u64(off + 8, 0x92000047);
    return off;
  }
  // An extra_context record and the terminator after it; the records appended next are its data, up to
  // end_extra (which ends them with a terminator and sets the data's size).
  uint64_t begin_extra() {
    const uint64_t off = record(guest::kEXTRA_MAGIC, sizeof(guest::extra_context));
    terminator();
    put_u64(off + 8, kFrameAddr + at_);
    return off;
  }
  void end_extra(uint64_t extra_off) {
    terminator();
    uint64_t datap = 0;
    memcpy(&datap, bytes_.data() + extra_off + 8, sizeof datap);
    const auto size = static_cast<uint32_t>(kFrameAddr + at_ - datap);
    put(extra_off + 16, &size, sizeof size);
  }
  void terminator() {
    const uint8_t zero[16] = {};
    put(at_, zero, sizeof zero);
    at_ += sizeof zero;
  }
  // Ends the records and makes sure the fixed-size frame is all there.
  std::vector<uint8_t> bytes() {
    terminator();
    if (bytes_.size() < sizeof(guest::rt_sigframe)) bytes_.resize(sizeof(guest::rt_sigframe), 0);
    return bytes_;
  }
  uint64_t next() const { return at_; }

 private:
  std::vector<uint8_t> bytes_;
  uint64_t at_;
};

}  // namespace signals::sigframe_testing
