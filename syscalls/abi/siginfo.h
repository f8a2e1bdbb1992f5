// Guest siginfo (128 bytes, asm-generic layout), its si_code values, and conversions to and from the host's.
#pragma once

#include <csignal>

#include <cstddef>
#include <cstdint>

#include "syscalls/abi/signal.h"

namespace guest {

// asm-generic/siginfo.h: si_signo, si_errno, si_code (arm64 does not swap errno and code), 4 bytes of
// padding, then the union at offset 16 (aligned to 8), padded to 128 bytes. Which union member is live
// follows from (si_signo, si_code): see siginfo_layout().
struct siginfo {
  int32_t si_signo;
  int32_t si_errno;
  int32_t si_code;
  int32_t pad0;
  union Fields {
    struct Kill {  // kill, tkill, SI_USER, SI_KERNEL
      int32_t pid;
      uint32_t uid;
    } kill;
    struct Timer {  // SI_TIMER (POSIX timers)
      int32_t tid;
      int32_t overrun;
      sigval_t sigval;
      int32_t sys_private;  // not passed to user space
    } timer;
    struct Rt {  // sigqueue and other negative si_code
      int32_t pid;
      uint32_t uid;
      sigval_t sigval;
    } rt;
    struct Sigchld {
      int32_t pid;
      uint32_t uid;
      int32_t status;
      int64_t utime;  // clock ticks
      int64_t stime;
    } sigchld;
    struct Sigfault {  // SIGILL, SIGFPE, SIGSEGV, SIGBUS, SIGTRAP
      uint64_t addr;   // guest address
      union {
        int32_t trapno;    // alpha and sparc only
        int16_t addr_lsb;  // BUS_MCEERR_AR / BUS_MCEERR_AO
        struct {
          uint8_t dummy[8];  // __ADDR_BND_PKEY_PAD = alignof(void*)
          uint64_t lower;
          uint64_t upper;
        } addr_bnd;  // SEGV_BNDERR
        struct {
          uint8_t dummy[8];
          uint32_t pkey;
        } addr_pkey;  // SEGV_PKUERR
        struct {
          uint64_t data;
          uint32_t type;
          uint32_t flags;
        } perf;  // TRAP_PERF
      } u;
    } sigfault;
    struct Sigpoll {  // SIGPOLL / SIGIO
      int64_t band;
      int32_t fd;
    } sigpoll;
    struct Sigsys {        // SIGSYS (seccomp)
      uint64_t call_addr;  // guest address
      int32_t syscall;
      uint32_t arch;
    } sigsys;
    uint8_t pad[112];
  } fields;
};
static_assert(sizeof(siginfo) == 128 && alignof(siginfo) == 8);
static_assert(offsetof(siginfo, si_signo) == 0 && offsetof(siginfo, si_errno) == 4 &&
              offsetof(siginfo, si_code) == 8 && offsetof(siginfo, fields) == 16);
static_assert(offsetof(siginfo, fields.kill.pid) == 16 && offsetof(siginfo, fields.kill.uid) == 20);
static_assert(offsetof(siginfo, fields.timer.tid) == 16 && offsetof(siginfo, fields.timer.overrun) == 20 &&
              offsetof(siginfo, fields.timer.sigval) == 24 &&
              offsetof(siginfo, fields.timer.sys_private) == 32);
static_assert(offsetof(siginfo, fields.rt.pid) == 16 && offsetof(siginfo, fields.rt.uid) == 20 &&
              offsetof(siginfo, fields.rt.sigval) == 24);
static_assert(offsetof(siginfo, fields.sigchld.status) == 24 &&
              offsetof(siginfo, fields.sigchld.utime) == 32 && offsetof(siginfo, fields.sigchld.stime) == 40);
static_assert(offsetof(siginfo, fields.sigfault.addr) == 16 &&
              offsetof(siginfo, fields.sigfault.u.addr_lsb) == 24 &&
              offsetof(siginfo, fields.sigfault.u.addr_bnd.lower) == 32 &&
              offsetof(siginfo, fields.sigfault.u.addr_bnd.upper) == 40 &&
              offsetof(siginfo, fields.sigfault.u.addr_pkey.pkey) == 32 &&
              offsetof(siginfo, fields.sigfault.u.perf.data) == 24 &&
              offsetof(siginfo, fields.sigfault.u.perf.type) == 32 &&
              offsetof(siginfo, fields.sigfault.u.perf.flags) == 36);
static_assert(offsetof(siginfo, fields.sigpoll.band) == 16 && offsetof(siginfo, fields.sigpoll.fd) == 24);
static_assert(offsetof(siginfo, fields.sigsys.call_addr) == 16 &&
              offsetof(siginfo, fields.sigsys.syscall) == 24 && offsetof(siginfo, fields.sigsys.arch) == 28);

// asm-generic/siginfo.h: si_code values (arch-independent except where noted; x86-64 shares them all).
inline constexpr int32_t kSI_USER = 0;
inline constexpr int32_t kSI_KERNEL = 0x80;
inline constexpr int32_t kSI_QUEUE = -1;
inline constexpr int32_t kSI_TIMER = -2;
inline constexpr int32_t kSI_MESGQ = -3;
inline constexpr int32_t kSI_ASYNCIO = -4;
inline constexpr int32_t kSI_SIGIO = -5;
inline constexpr int32_t kSI_TKILL = -6;
inline constexpr int32_t kSI_DETHREAD = -7;
inline constexpr int32_t kSI_ASYNCNL = -60;
static_assert(kSI_USER == SI_USER && kSI_KERNEL == SI_KERNEL && kSI_QUEUE == SI_QUEUE &&
              kSI_TIMER == SI_TIMER && kSI_MESGQ == SI_MESGQ && kSI_ASYNCIO == SI_ASYNCIO &&
              kSI_SIGIO == SI_SIGIO && kSI_TKILL == SI_TKILL && kSI_DETHREAD == SI_DETHREAD &&
              kSI_ASYNCNL == SI_ASYNCNL);

inline constexpr int32_t kILL_ILLOPC = 1;
inline constexpr int32_t kILL_ILLOPN = 2;
inline constexpr int32_t kILL_ILLADR = 3;
inline constexpr int32_t kILL_ILLTRP = 4;
inline constexpr int32_t kILL_PRVOPC = 5;
inline constexpr int32_t kILL_PRVREG = 6;
inline constexpr int32_t kILL_COPROC = 7;
inline constexpr int32_t kILL_BADSTK = 8;
inline constexpr int32_t kILL_BADIADDR = 9;
inline constexpr int32_t kNSIGILL = 11;
inline constexpr int32_t kFPE_INTDIV = 1;
inline constexpr int32_t kFPE_INTOVF = 2;
inline constexpr int32_t kFPE_FLTDIV = 3;
inline constexpr int32_t kFPE_FLTOVF = 4;
inline constexpr int32_t kFPE_FLTUND = 5;
inline constexpr int32_t kFPE_FLTRES = 6;
inline constexpr int32_t kFPE_FLTINV = 7;
inline constexpr int32_t kFPE_FLTSUB = 8;
inline constexpr int32_t kFPE_FLTUNK = 14;
inline constexpr int32_t kFPE_CONDTRAP = 15;
inline constexpr int32_t kNSIGFPE = 15;
inline constexpr int32_t kSEGV_MAPERR = 1;
inline constexpr int32_t kSEGV_ACCERR = 2;
inline constexpr int32_t kSEGV_BNDERR = 3;
inline constexpr int32_t kSEGV_PKUERR = 4;
inline constexpr int32_t kSEGV_MTEAERR = 8;  // arm64 MTE
inline constexpr int32_t kSEGV_MTESERR = 9;  // arm64 MTE
inline constexpr int32_t kNSIGSEGV = 9;
inline constexpr int32_t kBUS_ADRALN = 1;
inline constexpr int32_t kBUS_ADRERR = 2;
inline constexpr int32_t kBUS_OBJERR = 3;
inline constexpr int32_t kBUS_MCEERR_AR = 4;
inline constexpr int32_t kBUS_MCEERR_AO = 5;
inline constexpr int32_t kNSIGBUS = 5;
inline constexpr int32_t kTRAP_BRKPT = 1;
inline constexpr int32_t kTRAP_TRACE = 2;
inline constexpr int32_t kTRAP_BRANCH = 3;
inline constexpr int32_t kTRAP_HWBKPT = 4;
inline constexpr int32_t kTRAP_UNK = 5;
inline constexpr int32_t kTRAP_PERF = 6;
inline constexpr int32_t kNSIGTRAP = 6;
inline constexpr int32_t kCLD_EXITED = 1;
inline constexpr int32_t kCLD_KILLED = 2;
inline constexpr int32_t kCLD_DUMPED = 3;
inline constexpr int32_t kCLD_TRAPPED = 4;
inline constexpr int32_t kCLD_STOPPED = 5;
inline constexpr int32_t kCLD_CONTINUED = 6;
inline constexpr int32_t kNSIGCHLD = 6;
inline constexpr int32_t kPOLL_IN = 1;
inline constexpr int32_t kPOLL_OUT = 2;
inline constexpr int32_t kPOLL_MSG = 3;
inline constexpr int32_t kPOLL_ERR = 4;
inline constexpr int32_t kPOLL_PRI = 5;
inline constexpr int32_t kPOLL_HUP = 6;
inline constexpr int32_t kNSIGPOLL = 6;
inline constexpr int32_t kSYS_SECCOMP = 1;
inline constexpr int32_t kSYS_USER_DISPATCH = 2;
inline constexpr int32_t kNSIGSYS = 2;
static_assert(kILL_ILLOPC == ILL_ILLOPC && kILL_BADIADDR == ILL_BADIADDR && kFPE_INTDIV == FPE_INTDIV &&
              kFPE_FLTUNK == FPE_FLTUNK && kFPE_CONDTRAP == FPE_CONDTRAP && kSEGV_MAPERR == SEGV_MAPERR &&
              kSEGV_ACCERR == SEGV_ACCERR && kSEGV_BNDERR == SEGV_BNDERR && kSEGV_PKUERR == SEGV_PKUERR &&
              kSEGV_MTEAERR == SEGV_MTEAERR && kSEGV_MTESERR == SEGV_MTESERR && kBUS_ADRALN == BUS_ADRALN &&
              kBUS_MCEERR_AO == BUS_MCEERR_AO && kTRAP_BRKPT == TRAP_BRKPT && kTRAP_UNK == TRAP_UNK &&
              kCLD_EXITED == CLD_EXITED && kCLD_CONTINUED == CLD_CONTINUED && kPOLL_IN == POLL_IN &&
              kPOLL_HUP == POLL_HUP);

// Which union member a siginfo carries (kernel/signal.c enum siginfo_layout).
enum class SiginfoLayout {
  kKill,
  kTimer,
  kPoll,
  kFault,
  kFaultMceErr,
  kFaultBndErr,
  kFaultPkuErr,
  kFaultPerfEvent,
  kChld,
  kRt,
  kSys,
};

// kernel/signal.c siginfo_layout() for arm64 (no SIGEMT, no __ARCH_SI_TRAPNO).
SiginfoLayout siginfo_layout(int sig, int code);

// Field-by-field copies of the live union member; everything else is zero, as the kernel's clear_siginfo
// leaves it. Host (x86-64 glibc) siginfo_t exposes no perf fields, so a TRAP_PERF siginfo keeps only si_addr.
siginfo to_guest(const ::siginfo_t& h);
::siginfo_t to_host(const siginfo& g);

}  // namespace guest
