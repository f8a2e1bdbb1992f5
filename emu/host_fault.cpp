// This file owns the host's SIGSEGV and SIGBUS handler: the one place a host fault in a64run's process is
// sorted out.
//
// The invariant. A synchronous host SIGSEGV or SIGBUS (si_code > 0) is exactly one of:
//  (a) a fault at a fault_access routine's faulting instruction (emu/fault_access.h): a64run's own guarded
//      access to guest memory, which resumes at the routine's fixup and gives EFAULT;
//  (b) a fault of the guest's own access: the thread runs a vCPU with direct access (emu/direct_memory.h),
//      the address lies in the guest window or the guard after it, and the PC in that engine's code buffer
//      or in one of Unicorn's load, store and atomic helpers that translated code called (its slow path,
//      its atomics), which mark the thread with their return address into that code for their duration
//      (emu/helper_faults.cpp). The host pages carry the guest's permissions and guard pages, and file
//      pages the file's length, so this is the fault Linux would give the guest: the vCPU leaves the
//      translated code at the faulting instruction (Vcpu::take_host_fault) and delivers the guest's SIGSEGV
//      or SIGBUS with the exact address and code (Vcpu::classify_host_fault);
//  (c) anything else: an a64run bug. It goes to the handler installed before this one (a sanitizer's report),
//      or a64run says where it faulted and the faulting instruction runs again under the default action,
//      which ends the process with the signal. One guest-made case lands here too: a page the guest could
//      touch when the vCPU's TLB was filled for it (the fill hook asks the host) and could not when a helper
//      without the mark (the 128-bit pair compare-and-swap of LDXP/STXP/CASP) touched it through that
//      entry: its file shrank past it, or the guest made it a guard page, in between. Nothing records
//      where in translated code such a helper was called from, so it ends a64run with the guest's own
//      default action (SIGBUS, SIGSEGV for a guard page) instead of reaching a guest handler.
// (a) is checked first and is told apart by the PC alone (a64run's code); (b) needs the PC in Unicorn's code
// buffer or the helper mark, which is off whenever a64run's own code runs (the TLB fill hook suspends it),
// so no fault of one kind can be taken for the other; (b) also needs the address in the window, so
// translated code that faults anywhere else (a bug in the translator or its wrappers) is (c). A signal
// another process or thread sent (si_code <= 0) is not a fault: it goes to the intake thread like any
// asynchronous signal.
//
// The handler is installed with the raw rt_sigaction (signals/safe_syscall.h says why): it runs in the
// context the kernel interrupted, in every build. (a) and the dispatch touch only the signal frame; (b) runs
// only when the PC is in translated code or a marked helper, where no sanitizer runtime and no lock of
// a64run's is active.
#include "emu/host_fault.h"

#include <signal.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>

#include "emu/fault_access.h"
#include "emu/vcpu.h"
#include "signals/host_signals.h"
#include "signals/safe_syscall.h"

namespace emu {
namespace {

struct KernelSigaction {
  uint64_t handler;
  uint64_t flags;
  uint64_t restorer;
  uint64_t mask;
};
constexpr uint64_t kSaRestorer = 0x04000000;

// The actions that were there before (a sanitizer's, or SIG_DFL), by signal: SIGSEGV 0, SIGBUS 1.
KernelSigaction g_previous[2];
std::atomic<bool> g_installed{false};

// write(2) of the report, with its numbers in hex: nothing that allocates or takes a lock.
__attribute__((no_sanitize("thread", "address"))) void say_bug(int sig, const siginfo_t& si, uint64_t pc) {
  char buf[256];
  size_t n = 0;
  auto put = [&](const char* s) {
    while (*s != '\0' && n < sizeof buf) buf[n++] = *s++;
  };
  auto hex = [&](uint64_t v) {
    put("0x");
    for (int shift = 60; shift >= 0; shift -= 4) {
      if (n < sizeof buf) buf[n++] = "0123456789abcdef"[(v >> shift) & 0xf];
    }
  };
  put(sig == SIGBUS ? "a64run: internal error: host SIGBUS at pc "
                    : "a64run: internal error: host SIGSEGV at pc ");
  hex(pc);
  put(", address ");
  const auto host = reinterpret_cast<uint64_t>(si.si_addr);
  hex(host);
  if (uint64_t guest; Vcpu::running_window_address(host, &guest)) {
    // A guest address reached outside translated code: Unicorn's helpers (exclusives, atomics, DC ZVA) and
    // a64run's unguarded accesses are not taken as the guest's.
    put(" (guest address ");
    hex(guest);
    put(", not in translated code)\n");
  } else {
    put(" (not a guest access)\n");
  }
  (void)!::write(STDERR_FILENO, buf, n);
}

__attribute__((no_sanitize("thread", "address"))) void on_host_fault(int sig, siginfo_t* si, void* ctx) {
  auto* uc = static_cast<ucontext_t*>(ctx);
  if (si->si_code <= 0) {  // sent (kill, tgkill, sigqueue), not a fault: the guest's, through the intake
    const int saved_errno = errno;
    signals::forward_to_intake(*si);
    errno = saved_errno;
    return;
  }
  if (take_fault_access_fixup(uc, sig)) return;  // (a)
  Vcpu::take_host_fault(sig, *si, *uc);          // (b): does not return if the fault is the guest's
  // (c)
  const KernelSigaction& prev = g_previous[sig == SIGSEGV ? 0 : 1];
  if (prev.handler != reinterpret_cast<uint64_t>(SIG_DFL) &&
      prev.handler != reinterpret_cast<uint64_t>(SIG_IGN)) {
    if (prev.flags & SA_SIGINFO) {
      reinterpret_cast<void (*)(int, siginfo_t*, void*)>(prev.handler)(sig, si, ctx);
    } else {
      reinterpret_cast<void (*)(int)>(prev.handler)(sig);
    }
    return;
  }
  say_bug(sig, *si, static_cast<uint64_t>(uc->uc_mcontext.gregs[REG_RIP]));
  const KernelSigaction dfl{reinterpret_cast<uint64_t>(SIG_DFL), 0, 0, 0};
  ::syscall(SYS_rt_sigaction, sig, &dfl, nullptr, sizeof dfl.mask);
}

}  // namespace

void install_host_fault_handler() {
  if (g_installed.exchange(true)) return;  // a second install would make the handler its own previous one
  for (int i = 0; i < 2; ++i) {
    const int sig = i == 0 ? SIGSEGV : SIGBUS;
    ::syscall(SYS_rt_sigaction, sig, nullptr, &g_previous[i], sizeof g_previous[i].mask);
    KernelSigaction sa = g_previous[i];
    sa.handler = reinterpret_cast<uint64_t>(&on_host_fault);
    // The previous handler's restorer and flags stay (SA_ONSTACK, for a sanitizer's stack overflow report).
    sa.flags |= SA_SIGINFO;
    if (!(sa.flags & kSaRestorer)) {
      sa.flags |= kSaRestorer;
      sa.restorer = signals::raw_restorer();
    }
    ::syscall(SYS_rt_sigaction, sig, &sa, nullptr, sizeof sa.mask);
  }
}

}  // namespace emu
