// This file owns siginfo_layout() and the field-by-field siginfo conversions between guest and host.
#include "syscalls/abi/siginfo.h"

#include <cstring>

namespace guest {
namespace {

// kernel/signal.c sig_sicodes[]: signals whose positive si_codes have a signal-specific meaning.
struct SpecificCodes {
  int sig;
  int limit;
  SiginfoLayout layout;
};
constexpr SpecificCodes kSpecificCodes[] = {
    {kSIGILL, kNSIGILL, SiginfoLayout::kFault},   {kSIGFPE, kNSIGFPE, SiginfoLayout::kFault},
    {kSIGSEGV, kNSIGSEGV, SiginfoLayout::kFault}, {kSIGBUS, kNSIGBUS, SiginfoLayout::kFault},
    {kSIGTRAP, kNSIGTRAP, SiginfoLayout::kFault}, {kSIGCHLD, kNSIGCHLD, SiginfoLayout::kChld},
    {kSIGPOLL, kNSIGPOLL, SiginfoLayout::kPoll},  {kSIGSYS, kNSIGSYS, SiginfoLayout::kSys},
};

SiginfoLayout fault_exception(int sig, int code, SiginfoLayout layout) {
  if (sig == kSIGBUS && code >= kBUS_MCEERR_AR && code <= kBUS_MCEERR_AO) return SiginfoLayout::kFaultMceErr;
  if (sig == kSIGSEGV && code == kSEGV_BNDERR) return SiginfoLayout::kFaultBndErr;
  if (sig == kSIGSEGV && code == kSEGV_PKUERR) return SiginfoLayout::kFaultPkuErr;
  if (sig == kSIGTRAP && code == kTRAP_PERF) return SiginfoLayout::kFaultPerfEvent;
  return layout;
}

uint64_t addr_of(const void* p) {
  return reinterpret_cast<uintptr_t>(p);
}
void* ptr_of(uint64_t a) {
  return reinterpret_cast<void*>(static_cast<uintptr_t>(a));
}

}  // namespace

SiginfoLayout siginfo_layout(int sig, int code) {
  if (code > kSI_USER && code < kSI_KERNEL) {
    for (const SpecificCodes& s : kSpecificCodes) {
      if (s.sig != sig) continue;
      if (code <= s.limit) return fault_exception(sig, code, s.layout);
      return SiginfoLayout::kKill;
    }
    return code <= kNSIGPOLL ? SiginfoLayout::kPoll : SiginfoLayout::kKill;
  }
  if (code == kSI_TIMER) return SiginfoLayout::kTimer;
  if (code == kSI_SIGIO) return SiginfoLayout::kPoll;
  if (code < 0) return SiginfoLayout::kRt;
  return SiginfoLayout::kKill;
}

siginfo to_guest(const ::siginfo_t& h) {
  siginfo g{};
  g.si_signo = h.si_signo;
  g.si_errno = h.si_errno;
  g.si_code = h.si_code;
  auto& f = g.fields;
  switch (siginfo_layout(h.si_signo, h.si_code)) {
    case SiginfoLayout::kKill:
      f.kill.pid = h.si_pid;
      f.kill.uid = h.si_uid;
      break;
    case SiginfoLayout::kTimer:
      f.timer.tid = h.si_timerid;
      f.timer.overrun = h.si_overrun;
      f.timer.sigval = addr_of(h.si_value.sival_ptr);
      break;
    case SiginfoLayout::kRt:
      f.rt.pid = h.si_pid;
      f.rt.uid = h.si_uid;
      f.rt.sigval = addr_of(h.si_value.sival_ptr);
      break;
    case SiginfoLayout::kChld:
      f.sigchld.pid = h.si_pid;
      f.sigchld.uid = h.si_uid;
      f.sigchld.status = h.si_status;
      f.sigchld.utime = h.si_utime;
      f.sigchld.stime = h.si_stime;
      break;
    case SiginfoLayout::kFault:
    case SiginfoLayout::kFaultPerfEvent:
      f.sigfault.addr = addr_of(h.si_addr);
      break;
    case SiginfoLayout::kFaultMceErr:
      f.sigfault.addr = addr_of(h.si_addr);
      f.sigfault.u.addr_lsb = h.si_addr_lsb;
      break;
    case SiginfoLayout::kFaultBndErr:
      f.sigfault.addr = addr_of(h.si_addr);
      f.sigfault.u.addr_bnd.lower = addr_of(h.si_lower);
      f.sigfault.u.addr_bnd.upper = addr_of(h.si_upper);
      break;
    case SiginfoLayout::kFaultPkuErr:
      f.sigfault.addr = addr_of(h.si_addr);
      f.sigfault.u.addr_pkey.pkey = h.si_pkey;
      break;
    case SiginfoLayout::kPoll:
      f.sigpoll.band = h.si_band;
      f.sigpoll.fd = h.si_fd;
      break;
    case SiginfoLayout::kSys:
      f.sigsys.call_addr = addr_of(h.si_call_addr);
      f.sigsys.syscall = h.si_syscall;
      f.sigsys.arch = h.si_arch;
      break;
  }
  return g;
}

::siginfo_t to_host(const siginfo& g) {
  ::siginfo_t h;
  std::memset(&h, 0, sizeof(h));
  h.si_signo = g.si_signo;
  h.si_errno = g.si_errno;
  h.si_code = g.si_code;
  const auto& f = g.fields;
  switch (siginfo_layout(g.si_signo, g.si_code)) {
    case SiginfoLayout::kKill:
      h.si_pid = f.kill.pid;
      h.si_uid = f.kill.uid;
      break;
    case SiginfoLayout::kTimer:
      h.si_timerid = f.timer.tid;
      h.si_overrun = f.timer.overrun;
      h.si_value.sival_ptr = ptr_of(f.timer.sigval);
      break;
    case SiginfoLayout::kRt:
      h.si_pid = f.rt.pid;
      h.si_uid = f.rt.uid;
      h.si_value.sival_ptr = ptr_of(f.rt.sigval);
      break;
    case SiginfoLayout::kChld:
      h.si_pid = f.sigchld.pid;
      h.si_uid = f.sigchld.uid;
      h.si_status = f.sigchld.status;
      h.si_utime = f.sigchld.utime;
      h.si_stime = f.sigchld.stime;
      break;
    case SiginfoLayout::kFault:
    case SiginfoLayout::kFaultPerfEvent:
      h.si_addr = ptr_of(f.sigfault.addr);
      break;
    case SiginfoLayout::kFaultMceErr:
      h.si_addr = ptr_of(f.sigfault.addr);
      h.si_addr_lsb = f.sigfault.u.addr_lsb;
      break;
    case SiginfoLayout::kFaultBndErr:
      h.si_addr = ptr_of(f.sigfault.addr);
      h.si_lower = ptr_of(f.sigfault.u.addr_bnd.lower);
      h.si_upper = ptr_of(f.sigfault.u.addr_bnd.upper);
      break;
    case SiginfoLayout::kFaultPkuErr:
      h.si_addr = ptr_of(f.sigfault.addr);
      h.si_pkey = f.sigfault.u.addr_pkey.pkey;
      break;
    case SiginfoLayout::kPoll:
      h.si_band = f.sigpoll.band;
      h.si_fd = f.sigpoll.fd;
      break;
    case SiginfoLayout::kSys:
      h.si_call_addr = ptr_of(f.sigsys.call_addr);
      h.si_syscall = f.sigsys.syscall;
      h.si_arch = f.sigsys.arch;
      break;
  }
  return h;
}

}  // namespace guest
