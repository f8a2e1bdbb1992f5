// Guest signal numbers, sigset, sigaction, stack_t and sigevent as the arm64 kernel takes them.
#pragma once

#include <csignal>

#include <cstddef>
#include <cstdint>

namespace guest {

// asm-generic/signal.h: arm64 and x86-64 number signals identically (x86's asm/signal.h lists the same
// values).
inline constexpr int32_t kSIGHUP = 1;
inline constexpr int32_t kSIGINT = 2;
inline constexpr int32_t kSIGQUIT = 3;
inline constexpr int32_t kSIGILL = 4;
inline constexpr int32_t kSIGTRAP = 5;
inline constexpr int32_t kSIGABRT = 6;
inline constexpr int32_t kSIGBUS = 7;
inline constexpr int32_t kSIGFPE = 8;
inline constexpr int32_t kSIGKILL = 9;
inline constexpr int32_t kSIGUSR1 = 10;
inline constexpr int32_t kSIGSEGV = 11;
inline constexpr int32_t kSIGUSR2 = 12;
inline constexpr int32_t kSIGPIPE = 13;
inline constexpr int32_t kSIGALRM = 14;
inline constexpr int32_t kSIGTERM = 15;
inline constexpr int32_t kSIGSTKFLT = 16;
inline constexpr int32_t kSIGCHLD = 17;
inline constexpr int32_t kSIGCONT = 18;
inline constexpr int32_t kSIGSTOP = 19;
inline constexpr int32_t kSIGTSTP = 20;
inline constexpr int32_t kSIGTTIN = 21;
inline constexpr int32_t kSIGTTOU = 22;
inline constexpr int32_t kSIGURG = 23;
inline constexpr int32_t kSIGXCPU = 24;
inline constexpr int32_t kSIGXFSZ = 25;
inline constexpr int32_t kSIGVTALRM = 26;
inline constexpr int32_t kSIGPROF = 27;
inline constexpr int32_t kSIGWINCH = 28;
inline constexpr int32_t kSIGIO = 29;
inline constexpr int32_t kSIGPOLL = kSIGIO;
inline constexpr int32_t kSIGPWR = 30;
inline constexpr int32_t kSIGSYS = 31;
inline constexpr int32_t kSIGRTMIN = 32;  // the kernel's; glibc reserves 32 and 33 for itself
inline constexpr int32_t kSIGRTMAX = 64;
inline constexpr int32_t kNSIG = 64;
static_assert(kSIGHUP == SIGHUP && kSIGINT == SIGINT && kSIGQUIT == SIGQUIT && kSIGILL == SIGILL &&
              kSIGTRAP == SIGTRAP && kSIGABRT == SIGABRT && kSIGBUS == SIGBUS && kSIGFPE == SIGFPE &&
              kSIGKILL == SIGKILL && kSIGUSR1 == SIGUSR1 && kSIGSEGV == SIGSEGV && kSIGUSR2 == SIGUSR2 &&
              kSIGPIPE == SIGPIPE && kSIGALRM == SIGALRM && kSIGTERM == SIGTERM && kSIGSTKFLT == SIGSTKFLT &&
              kSIGCHLD == SIGCHLD && kSIGCONT == SIGCONT && kSIGSTOP == SIGSTOP && kSIGTSTP == SIGTSTP &&
              kSIGTTIN == SIGTTIN && kSIGTTOU == SIGTTOU && kSIGURG == SIGURG && kSIGXCPU == SIGXCPU &&
              kSIGXFSZ == SIGXFSZ && kSIGVTALRM == SIGVTALRM && kSIGPROF == SIGPROF &&
              kSIGWINCH == SIGWINCH && kSIGIO == SIGIO && kSIGPOLL == SIGPOLL && kSIGPWR == SIGPWR &&
              kSIGSYS == SIGSYS);
static_assert(kSIGRTMIN == __SIGRTMIN && kSIGRTMAX == __SIGRTMAX && kNSIG + 1 == NSIG);

// asm-generic/signal.h: _NSIG / _NSIG_BPW = 1 word, so the kernel's sigset_t is 8 bytes and rt_sig* calls
// fail with EINVAL unless sigsetsize == 8. Bit (sig - 1) stands for signal sig.
using sigset_t = uint64_t;
inline constexpr size_t kSigsetSize = sizeof(sigset_t);
static_assert(kSigsetSize == 8);

// (glibc defines sigmask as a macro, hence sig_bit.)
constexpr sigset_t sig_bit(int sig) {
  return sigset_t{1} << (sig - 1);
}
constexpr bool sig_in(sigset_t set, int sig) {
  return (set & sig_bit(sig)) != 0;
}
// Signals no mask can block and no handler can catch.
inline constexpr sigset_t kUnblockableSignals = sig_bit(kSIGKILL) | sig_bit(kSIGSTOP);

// asm-generic/signal-defs.h
inline constexpr int32_t kSIG_BLOCK = 0;
inline constexpr int32_t kSIG_UNBLOCK = 1;
inline constexpr int32_t kSIG_SETMASK = 2;
inline constexpr uint64_t kSIG_DFL = 0;
inline constexpr uint64_t kSIG_IGN = 1;
inline constexpr uint64_t kSIG_ERR = ~uint64_t{0};
static_assert(kSIG_BLOCK == SIG_BLOCK && kSIG_UNBLOCK == SIG_UNBLOCK && kSIG_SETMASK == SIG_SETMASK);

// asm-generic/signal-defs.h plus arm64's asm/signal.h (SA_RESTORER, which x86-64 shares).
inline constexpr uint64_t kSA_NOCLDSTOP = 0x00000001;
inline constexpr uint64_t kSA_NOCLDWAIT = 0x00000002;
inline constexpr uint64_t kSA_SIGINFO = 0x00000004;
inline constexpr uint64_t kSA_UNSUPPORTED = 0x00000400;
inline constexpr uint64_t kSA_EXPOSE_TAGBITS = 0x00000800;
inline constexpr uint64_t kSA_RESTORER = 0x04000000;
inline constexpr uint64_t kSA_ONSTACK = 0x08000000;
inline constexpr uint64_t kSA_RESTART = 0x10000000;
inline constexpr uint64_t kSA_NODEFER = 0x40000000;
inline constexpr uint64_t kSA_RESETHAND = 0x80000000;
// include/linux/signal_types.h: rt_sigaction stores only these bits and reports only these back, which is
// how a guest probes for SA_UNSUPPORTED / SA_EXPOSE_TAGBITS support.
inline constexpr uint64_t kUAPI_SA_FLAGS = kSA_NOCLDSTOP | kSA_NOCLDWAIT | kSA_SIGINFO | kSA_ONSTACK |
                                           kSA_RESTART | kSA_NODEFER | kSA_RESETHAND | kSA_EXPOSE_TAGBITS |
                                           kSA_RESTORER;
static_assert(kSA_NOCLDSTOP == SA_NOCLDSTOP && kSA_NOCLDWAIT == SA_NOCLDWAIT && kSA_SIGINFO == SA_SIGINFO &&
              kSA_ONSTACK == SA_ONSTACK && kSA_RESTART == SA_RESTART && kSA_NODEFER == SA_NODEFER &&
              kSA_RESETHAND == SA_RESETHAND);

// asm-generic/signal.h: the kernel's struct sigaction for rt_sigaction (not glibc's, whose mask is 128
// bytes and comes first). arm64 defines SA_RESTORER, so sa_restorer is present; arm64 glibc does not use it
// (the kernel returns through the vDSO's __kernel_rt_sigreturn), but the field is stored and reported back.
struct sigaction {
  uint64_t handler;  // sa_handler / sa_sigaction (glibc macros): guest address, kSIG_DFL or kSIG_IGN
  uint64_t sa_flags;
  uint64_t sa_restorer;  // guest address
  sigset_t sa_mask;
};
static_assert(sizeof(sigaction) == 32 && offsetof(sigaction, handler) == 0 &&
              offsetof(sigaction, sa_flags) == 8 && offsetof(sigaction, sa_restorer) == 16 &&
              offsetof(sigaction, sa_mask) == 24);

// asm-generic/signal.h: sigaltstack's stack_t.
struct stack_t {
  uint64_t ss_sp;  // guest address
  int32_t ss_flags;
  int32_t pad;  // implicit alignment padding
  uint64_t ss_size;
};
static_assert(sizeof(stack_t) == 24 && offsetof(stack_t, ss_flags) == 8 && offsetof(stack_t, ss_size) == 16);
inline constexpr int32_t kSS_ONSTACK = 1;
inline constexpr int32_t kSS_DISABLE = 2;
inline constexpr int32_t kSS_AUTODISARM = static_cast<int32_t>(1u << 31);
inline constexpr int32_t kSS_FLAG_BITS = kSS_AUTODISARM;
static_assert(kSS_ONSTACK == SS_ONSTACK && kSS_DISABLE == SS_DISABLE);

// arm64's asm/signal.h (x86-64's are 2048 / 8192): sigaltstack fails with ENOMEM below kMINSIGSTKSZ, and
// AT_MINSIGSTKSZ in the auxv tells glibc the real minimum frame size.
inline constexpr uint64_t kMINSIGSTKSZ = 5120;
inline constexpr uint64_t kSIGSTKSZ = 16384;

// asm-generic/siginfo.h: sigval_t, a guest pointer or an int in the low 32 bits.
using sigval_t = uint64_t;

// asm-generic/siginfo.h
inline constexpr int32_t kSIGEV_SIGNAL = 0;
inline constexpr int32_t kSIGEV_NONE = 1;
inline constexpr int32_t kSIGEV_THREAD = 2;
inline constexpr int32_t kSIGEV_THREAD_ID = 4;
static_assert(kSIGEV_SIGNAL == SIGEV_SIGNAL && kSIGEV_NONE == SIGEV_NONE && kSIGEV_THREAD == SIGEV_THREAD &&
              kSIGEV_THREAD_ID == SIGEV_THREAD_ID);

// asm-generic/siginfo.h: timer_create's and mq_notify's sigevent, 64 bytes.
struct sigevent {
  sigval_t sigev_value;
  int32_t sigev_signo;
  int32_t sigev_notify;
  union Un {
    int32_t pad[12];
    int32_t tid;  // sigev_notify_thread_id, for SIGEV_THREAD_ID
    struct Thread {
      uint64_t function;   // guest address (glibc handles SIGEV_THREAD itself)
      uint64_t attribute;  // guest address
    } sigev_thread;
  } sigev_un;
};
static_assert(sizeof(sigevent) == 64 && offsetof(sigevent, sigev_signo) == 8 &&
              offsetof(sigevent, sigev_notify) == 12 && offsetof(sigevent, sigev_un) == 16);

// For host timers that signal the emulator: the value passes through, and the caller decides the signal and
// target thread (guest and host tids are the same numbers, one host thread per guest thread).
inline ::sigevent to_host(const sigevent& g) {
  ::sigevent h{};
  h.sigev_value.sival_ptr = reinterpret_cast<void*>(g.sigev_value);
  h.sigev_signo = g.sigev_signo;
  h.sigev_notify = g.sigev_notify;
  if (g.sigev_notify == kSIGEV_THREAD_ID) h._sigev_un._tid = g.sigev_un.tid;
  return h;
}

}  // namespace guest
