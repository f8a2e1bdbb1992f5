// Guest arm64 signal frame structs: sigcontext and its records, ucontext, rt_sigframe, frame_record.
#pragma once

#include <cstddef>
#include <cstdint>

#include "syscalls/abi/siginfo.h"
#include "syscalls/abi/signal.h"

namespace guest {

// asm/sigcontext.h: the header of every record in sigcontext.__reserved; a zero magic and size terminate.
struct aarch64_ctx {
  uint32_t magic;
  uint32_t size;
};
static_assert(sizeof(aarch64_ctx) == 8 && offsetof(aarch64_ctx, size) == 4);

inline constexpr uint32_t kFPSIMD_MAGIC = 0x46508001;
inline constexpr uint32_t kESR_MAGIC = 0x45535201;
inline constexpr uint32_t kEXTRA_MAGIC = 0x45585401;
inline constexpr uint32_t kSVE_MAGIC = 0x53564501;
inline constexpr uint32_t kZA_MAGIC = 0x54366345;

// One 128-bit V register as the kernel stores it (__uint128_t: little-endian, 16-byte aligned).
struct alignas(16) vreg128 {
  uint64_t lo;
  uint64_t hi;
};
static_assert(sizeof(vreg128) == 16);

// asm/sigcontext.h: 0x210 bytes, always the first record.
struct fpsimd_context {
  aarch64_ctx head;
  uint32_t fpsr;
  uint32_t fpcr;
  vreg128 vregs[32];
};
static_assert(sizeof(fpsimd_context) == 0x210 && offsetof(fpsimd_context, fpsr) == 8 &&
              offsetof(fpsimd_context, fpcr) == 12 && offsetof(fpsimd_context, vregs) == 16);

// asm/sigcontext.h: ESR_EL1 for a fault signal.
struct esr_context {
  aarch64_ctx head;
  uint64_t esr;
};
static_assert(sizeof(esr_context) == 16 && offsetof(esr_context, esr) == 8);

// asm/sigcontext.h: points at records that did not fit in __reserved.
struct extra_context {
  aarch64_ctx head;
  uint64_t datap;  // guest address, 16-byte aligned
  uint32_t size;
  uint32_t reserved[3];
};
static_assert(sizeof(extra_context) == 32 && offsetof(extra_context, datap) == 8 &&
              offsetof(extra_context, size) == 16);

// asm/sigcontext.h: present only when SVE is advertised (a64run does not advertise it).
struct sve_context {
  aarch64_ctx head;
  uint16_t vl;
  uint16_t flags;
  uint16_t reserved[2];
};
static_assert(sizeof(sve_context) == 16 && offsetof(sve_context, vl) == 8);

// asm/sigcontext.h: the register state. __reserved (4096 bytes, 16-byte aligned) holds the records above.
inline constexpr size_t kSigcontextReservedSize = 4096;
struct sigcontext {
  uint64_t fault_address;
  uint64_t regs[31];
  uint64_t sp;
  uint64_t pc;
  uint64_t pstate;
  alignas(16) uint8_t reserved[kSigcontextReservedSize];
};
static_assert(sizeof(sigcontext) == 4384 && alignof(sigcontext) == 16);
static_assert(offsetof(sigcontext, regs) == 8 && offsetof(sigcontext, sp) == 256 &&
              offsetof(sigcontext, pc) == 264 && offsetof(sigcontext, pstate) == 272 &&
              offsetof(sigcontext, reserved) == 288);

// asm/ucontext.h: glibc's 1024-bit sigset_t is why uc_sigmask is followed by 120 unused bytes.
struct ucontext {
  uint64_t uc_flags;
  uint64_t uc_link;  // guest address
  stack_t uc_stack;
  sigset_t uc_sigmask;
  uint8_t unused[1024 / 8 - sizeof(sigset_t)];
  sigcontext uc_mcontext;
};
static_assert(sizeof(ucontext) == 4560 && offsetof(ucontext, uc_link) == 8 &&
              offsetof(ucontext, uc_stack) == 16 && offsetof(ucontext, uc_sigmask) == 40 &&
              offsetof(ucontext, unused) == 48 && offsetof(ucontext, uc_mcontext) == 176);

// arch/arm64/kernel/signal.c (not uapi): what sp points at when the handler starts; x1 = &info, x2 = &uc.
struct rt_sigframe {
  siginfo info;
  ucontext uc;
};
static_assert(sizeof(rt_sigframe) == 4688 && offsetof(rt_sigframe, uc) == 128);

// arch/arm64/kernel/signal.c: the frame record {x29, x30} pushed above rt_sigframe; x29 points at it.
struct frame_record {
  uint64_t fp;
  uint64_t lr;
};
static_assert(sizeof(frame_record) == 16);

}  // namespace guest
