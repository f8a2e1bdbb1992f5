// This file implements the host signal intake thread and SIGCHLD mirroring.
#include "signals/host_signals.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "emu/task.h"
#include "signals/signals.h"
#include "signals/timers.h"
#include "syscalls/fd_util.h"

namespace signals {
namespace {

std::atomic<uint64_t> g_child_events{0};
std::atomic<int> g_intake_tid{0};

// The signals a64run takes asynchronously: all but the synchronous faults (those in the emulator are bugs).
::sigset_t async_set() {
  ::sigset_t s;
  sigfillset(&s);
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP}) sigdelset(&s, sig);
  return s;
}

void* intake_main(void* arg) {
  auto* proc = static_cast<emu::Process*>(arg);
  syscalls::reserve_tid(static_cast<int>(::gettid()));
  g_intake_tid.store(static_cast<int>(::gettid()), std::memory_order_release);
  ::sigset_t set = async_set();
  while (true) {
    siginfo_t hsi{};
    // The raw call: glibc's sigwaitinfo would leave out its reserved RT signals 32 and 33.
    const long sig = ::syscall(SYS_rt_sigtimedwait, &set, &hsi, nullptr, 8);
    if (sig <= 0) continue;
    if (sig == timer_host_signal() && hsi.si_code == SI_TIMER) {
      timer_expired(*proc, reinterpret_cast<uintptr_t>(hsi.si_value.sival_ptr), hsi.si_overrun);
      continue;
    }
    if (sig == SIGCHLD) {
      g_child_events.fetch_add(1, std::memory_order_acq_rel);
      proc->wake_child_waiters();
    }
    send_to_process(*proc, guest::to_guest(hsi));
  }
  return nullptr;
}

}  // namespace

void start_host_signal_intake(emu::Process& proc) {
  ::sigset_t set = async_set();
  ::syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, nullptr, 8);
  struct sigaction ign {};
  ign.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ign, nullptr);
  pthread_t th;
  pthread_create(&th, nullptr, &intake_main, &proc);
  pthread_detach(th);
}

void restart_host_signal_intake(emu::Process& proc) {
  g_intake_tid.store(0, std::memory_order_release);
  pthread_t th;
  pthread_create(&th, nullptr, &intake_main, &proc);
  pthread_detach(th);
}

void mirror_sigchld_action(const guest::sigaction& act) {
  struct sigaction h {};
  if (act.handler == guest::kSIG_IGN) {
    h.sa_handler = SIG_IGN;
  } else {
    // Blocked everywhere and taken by the intake thread: the handler never runs; the flags are what count.
    h.sa_handler = SIG_DFL;
    h.sa_flags = static_cast<int>(act.sa_flags & (guest::kSA_NOCLDSTOP | guest::kSA_NOCLDWAIT));
  }
  ::sigaction(SIGCHLD, &h, nullptr);
}

int intake_tid() {
  int tid;
  while ((tid = g_intake_tid.load(std::memory_order_acquire)) == 0) sched_yield();
  return tid;
}

uint64_t child_event_count() {
  return g_child_events.load(std::memory_order_acquire);
}

}  // namespace signals
