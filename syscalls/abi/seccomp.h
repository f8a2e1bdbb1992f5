// Guest structures and constants of seccomp(2) (linux/seccomp.h, linux/bpf_common.h, linux/audit.h); the
// program's own structures are sockopt.h's. The same on arm64 and x86-64 but for the audit architecture.
#pragma once

#include <cstddef>
#include <cstdint>

#include "syscalls/abi/sockopt.h"  // sock_filter, sock_fprog

namespace guest {

// struct seccomp_data: what a filter reads.
struct seccomp_data {
  int32_t nr;
  uint32_t arch;
  uint64_t instruction_pointer;
  uint64_t args[6];
};
static_assert(sizeof(seccomp_data) == 64 && offsetof(seccomp_data, args) == 16);

inline constexpr uint32_t kAUDIT_ARCH_AARCH64 = 0xc00000b7;

inline constexpr uint32_t kSECCOMP_MODE_DISABLED = 0;
inline constexpr uint32_t kSECCOMP_MODE_STRICT = 1;
inline constexpr uint32_t kSECCOMP_MODE_FILTER = 2;

inline constexpr uint32_t kSECCOMP_SET_MODE_STRICT = 0;
inline constexpr uint32_t kSECCOMP_SET_MODE_FILTER = 1;
inline constexpr uint32_t kSECCOMP_GET_ACTION_AVAIL = 2;
inline constexpr uint32_t kSECCOMP_GET_NOTIF_SIZES = 3;

inline constexpr uint32_t kSECCOMP_FILTER_FLAG_TSYNC = 1u << 0;
inline constexpr uint32_t kSECCOMP_FILTER_FLAG_LOG = 1u << 1;
inline constexpr uint32_t kSECCOMP_FILTER_FLAG_SPEC_ALLOW = 1u << 2;
inline constexpr uint32_t kSECCOMP_FILTER_FLAG_NEW_LISTENER = 1u << 3;
inline constexpr uint32_t kSECCOMP_FILTER_FLAG_TSYNC_ESRCH = 1u << 4;
inline constexpr uint32_t kSECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV = 1u << 5;
inline constexpr uint32_t kSECCOMP_FILTER_FLAG_MASK = 0x3f;

inline constexpr uint32_t kSECCOMP_RET_KILL_PROCESS = 0x80000000u;
inline constexpr uint32_t kSECCOMP_RET_KILL_THREAD = 0x00000000u;
inline constexpr uint32_t kSECCOMP_RET_TRAP = 0x00030000u;
inline constexpr uint32_t kSECCOMP_RET_ERRNO = 0x00050000u;
inline constexpr uint32_t kSECCOMP_RET_USER_NOTIF = 0x7fc00000u;
inline constexpr uint32_t kSECCOMP_RET_TRACE = 0x7ff00000u;
inline constexpr uint32_t kSECCOMP_RET_LOG = 0x7ffc0000u;
inline constexpr uint32_t kSECCOMP_RET_ALLOW = 0x7fff0000u;
inline constexpr uint32_t kSECCOMP_RET_ACTION_FULL = 0xffff0000u;
inline constexpr uint32_t kSECCOMP_RET_DATA = 0x0000ffffu;

// struct seccomp_notif_sizes as Linux 6.x reports it.
struct seccomp_notif_sizes {
  uint16_t seccomp_notif;
  uint16_t seccomp_notif_resp;
  uint16_t seccomp_data;
};
inline constexpr seccomp_notif_sizes kNotifSizes = {80, 24, 64};

// Classic BPF (linux/bpf_common.h, linux/filter.h).
namespace bpf {
inline constexpr uint16_t kLD = 0x00, kLDX = 0x01, kST = 0x02, kSTX = 0x03, kALU = 0x04, kJMP = 0x05,
                          kRET = 0x06, kMISC = 0x07;
inline constexpr uint16_t kW = 0x00, kH = 0x08, kB = 0x10;
inline constexpr uint16_t kIMM = 0x00, kABS = 0x20, kIND = 0x40, kMEM = 0x60, kLEN = 0x80, kMSH = 0xa0;
inline constexpr uint16_t kADD = 0x00, kSUB = 0x10, kMUL = 0x20, kDIV = 0x30, kOR = 0x40, kAND = 0x50,
                          kLSH = 0x60, kRSH = 0x70, kNEG = 0x80, kMOD = 0x90, kXOR = 0xa0;
inline constexpr uint16_t kJA = 0x00, kJEQ = 0x10, kJGT = 0x20, kJGE = 0x30, kJSET = 0x40;
inline constexpr uint16_t kK = 0x00, kX = 0x08, kA = 0x10;
inline constexpr uint16_t kTAX = 0x00, kTXA = 0x80;
inline constexpr uint32_t kMEMWORDS = 16;
inline constexpr uint32_t kMAXINSNS = 4096;
inline constexpr uint32_t kSKF_AD_OFF = 0xfffff000u;
}  // namespace bpf

}  // namespace guest
