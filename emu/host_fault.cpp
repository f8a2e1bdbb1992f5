// This file owns the host's SIGSEGV and SIGBUS handler. Translated code loads and stores straight to the
// guest window (emu/direct_memory.cpp), whose host pages carry the guest's permissions, so a guest access
// that Linux would refuse faults in the host: the handler hands such a fault to the vCPU
// (Vcpu::take_host_fault), which makes it the guest's SIGSEGV or SIGBUS. Everything else still ends a64run
// as before: a fault elsewhere is an a64run bug (the previous action runs: a sanitizer's report, or the
// default action when the faulting instruction runs again), and the signal sent by another process
// (si_code <= 0) goes to the intake thread like any other asynchronous signal.
//
// The handler runs only on threads that run guest code: a64run blocks every signal in every thread, and
// a vCPU thread unblocks these two before it first enters guest code (allow_host_faults). A fault on a
// thread that blocks its signal is fatal whatever the handler (the kernel resets the action), as it was.
#include "emu/host_fault.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <mutex>

#include "emu/vcpu.h"
#include "signals/host_signals.h"

namespace emu {
namespace {

struct sigaction g_previous[2];  // SIGSEGV's and SIGBUS's actions before ours
thread_local bool t_allowed = false;

struct sigaction& previous(int sig) {
  return g_previous[sig == SIGBUS ? 1 : 0];
}

void on_host_fault(int sig, siginfo_t* si, void* ctx) {
  if (si->si_code <= 0) {  // kill, tgkill or sigqueue from another process: asynchronous
    const int saved_errno = errno;
    signals::forward_to_intake(*si);
    errno = saved_errno;
    return;
  }
  Vcpu::take_host_fault(sig, *si, *static_cast<ucontext_t*>(ctx));  // leaves translated code if the guest's
  const struct sigaction& old = previous(sig);
  if ((old.sa_flags & SA_SIGINFO) && old.sa_sigaction != nullptr) {
    old.sa_sigaction(sig, si, ctx);
    return;
  }
  if (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN) {
    old.sa_handler(sig);
    return;
  }
  // The default action: the faulting instruction runs again and the kernel kills a64run with the signal.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  ::sigaction(sig, &dfl, nullptr);
}

}  // namespace

void install_host_fault_handler() {
  static std::once_flag once;  // a second install would make the handler its own previous action
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_sigaction = &on_host_fault;
    sa.sa_flags = SA_SIGINFO;
    sigfillset(&sa.sa_mask);
    ::sigaction(SIGSEGV, &sa, &previous(SIGSEGV));
    ::sigaction(SIGBUS, &sa, &previous(SIGBUS));
  });
}

bool host_faults_allowed_here() {
  return t_allowed;
}

void allow_host_faults() {
  if (t_allowed) return;
  t_allowed = true;
  ::sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGSEGV);
  sigaddset(&set, SIGBUS);
  ::pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

}  // namespace emu
