// This file implements F_OWNER_TID owners of this process through proxy threads: the fcntl owner and signal
// commands, the proxies' lifetime, and the translation of the host's owner signal into the guest's.
#include "signals/fasync_owner.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>

#include "emu/task.h"
#include "signals/host_signals.h"
#include "signals/safe_syscall.h"
#include "signals/signals.h"
#include "syscalls/abi/errno.h"
#include "syscalls/abi/siginfo.h"
#include "syscalls/fd_util.h"

namespace signals {
namespace {

using guest::from_host;

// The value of the marker that ends a proxy (SI_QUEUE from this process, to the proxy's tid).
constexpr uintptr_t kQuitMagic = 0xa64cf0e1;

int64_t host_fcntl(int fd, int cmd, long arg) {
  return from_host(::syscall(SYS_fcntl, fd, cmd, arg));
}

int64_t host_getown_ex(int fd, guest::f_owner_ex* o) {
  ::f_owner_ex h{};
  if (const int64_t r = from_host(::syscall(SYS_fcntl, fd, F_GETOWN_EX, &h)); r < 0) return r;
  o->type = h.type;
  o->pid = h.pid;
  return 0;
}

int64_t host_setown_ex(int fd, int type, int pid) {
  ::f_owner_ex h{};
  h.type = static_cast<__pid_type>(type);
  h.pid = pid;
  return from_host(::syscall(SYS_fcntl, fd, F_SETOWN_EX, &h));
}

// The latest entry for host tid `host_tid` (a number the host may have given to a later proxy too).
const OwnerProxy* find_host_tid_locked(const FasyncOwnerTable& tab, int host_tid) {
  const OwnerProxy* found = nullptr;
  for (const OwnerProxy& p : tab.proxies) {
    if (p.host_tid == host_tid) found = &p;
  }
  return found;
}

// What fd's description carries on the host, seen from the guest.
struct OwnerState {
  guest::f_owner_ex host_owner{};
  int host_sig = 0;
  const OwnerProxy* proxy = nullptr;  // the host owner is this proxy (type F_OWNER_TID)
  // The owner is a proxy and the host signal the owner signal: the guest's F_SETSIG is proxy->guest_sig.
  bool proxied() const { return proxy != nullptr && host_sig == owner_host_signal(); }
};

int64_t owner_state_locked(const FasyncOwnerTable& tab, int fd, OwnerState* st) {
  const int64_t sig = host_fcntl(fd, F_GETSIG, 0);
  if (sig < 0) return sig;
  st->host_sig = static_cast<int>(sig);
  if (const int64_t r = host_getown_ex(fd, &st->host_owner); r < 0) return r;
  if (st->host_owner.type == F_OWNER_TID) st->proxy = find_host_tid_locked(tab, st->host_owner.pid);
  return 0;
}

// linux/signal.h sig_specific_sicodes(): the signals whose si_code values mean something of their own, so
// send_sigio_to_task sends SI_SIGIO with them instead of the POLL_* reason (SIGPOLL keeps the reason).
bool sig_specific_sicodes(int sig) {
  switch (sig) {
    case guest::kSIGILL:
    case guest::kSIGFPE:
    case guest::kSIGSEGV:
    case guest::kSIGBUS:
    case guest::kSIGTRAP:
    case guest::kSIGCHLD:
    case guest::kSIGPOLL:
    case guest::kSIGSYS:
      return true;
    default:
      return false;
  }
}

// fs/fcntl.c send_sigio_to_task, for guest thread tid with F_SETSIG guest_sig: the host's owner signal
// carries the reason (si_code), si_band and si_fd. A signal that cannot be queued (an RT signal past
// RLIMIT_SIGPENDING) falls back to SIGIO, as there.
void send_sigio(emu::Process& proc, int tid, int guest_sig, const siginfo_t& hsi) {
  guest::siginfo si{};
  if (guest_sig != 0) {
    si.si_signo = guest_sig;
    si.si_code =
        guest_sig != guest::kSIGPOLL && sig_specific_sicodes(guest_sig) ? guest::kSI_SIGIO : hsi.si_code;
    si.fields.sigpoll.band = hsi.si_band;
    si.fields.sigpoll.fd = hsi.si_fd;
    if (send_to_thread_id(proc, tid, si) != -EAGAIN) return;
    si = guest::siginfo{};
  }
  si.si_signo = guest::kSIGIO;  // SEND_SIG_PRIV: SI_KERNEL, no pid or uid
  si.si_code = guest::kSI_KERNEL;
  (void)send_to_thread_id(proc, tid, si);
}

struct ProxyStart {
  emu::Process* proc;
  int guest_tid;
  int guest_sig;
  std::atomic<int> host_tid{0};
};

// A proxy: every host signal blocked, it takes the owner signal only. Those with a POLL_* si_code are the
// host's for the descriptions it owns (kill_fasync); any other is a process-directed one from elsewhere (a
// guest's signal 63), which it passes to the intake thread as a safe call's wake handler does.
void* proxy_main(void* arg) {
  auto* start = static_cast<ProxyStart*>(arg);
  emu::Process& proc = *start->proc;
  const int guest_tid = start->guest_tid;
  const int guest_sig = start->guest_sig;
  emu::Process::set_current(&proc);
  const uint64_t all = ~uint64_t{0};
  ::syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, nullptr, sizeof all);
  const int self = static_cast<int>(::gettid());
  syscalls::reserve_tid(self);
  syscalls::name_emulator_thread("fasync");
  start->host_tid.store(self, std::memory_order_release);  // `start` is the creator's again
  const uint64_t set = uint64_t{1} << (owner_host_signal() - 1);
  while (true) {
    siginfo_t hsi{};
    if (::syscall(SYS_rt_sigtimedwait, &set, &hsi, nullptr, sizeof set) <= 0) continue;
    if (hsi.si_code == SI_QUEUE && hsi.si_pid == ::getpid() &&
        reinterpret_cast<uintptr_t>(hsi.si_value.sival_ptr) == kQuitMagic) {
      break;
    }
    if (hsi.si_code >= POLL_IN && hsi.si_code <= POLL_HUP) {
      send_sigio(proc, guest_tid, guest_sig, hsi);
    } else {
      forward_to_intake(hsi);
    }
  }
  syscalls::unreserve_tid(self);
  return nullptr;
}

// The host tid of the live proxy for (guest_tid, guest_sig), started when there is none; -EAGAIN when the
// host refuses the thread.
int64_t proxy_for_locked(emu::Process& proc, int guest_tid, int guest_sig) {
  FasyncOwnerTable& tab = proc.fasync_owners;
  for (const OwnerProxy& p : tab.proxies) {
    if (p.live && p.guest_tid == guest_tid && p.guest_sig == guest_sig) return p.host_tid;
  }
  ProxyStart start{&proc, guest_tid, guest_sig};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, size_t{256} * 1024);
  pthread_t th;
  const int err = pthread_create(&th, &attr, &proxy_main, &start);
  pthread_attr_destroy(&attr);
  if (err != 0) return -EAGAIN;
  pthread_detach(th);
  int host_tid;
  while ((host_tid = start.host_tid.load(std::memory_order_acquire)) == 0) sched_yield();
  tab.proxies.push_back(OwnerProxy{host_tid, guest_tid, guest_sig, true});
  return host_tid;
}

// Makes `st`'s description name the proxy for (guest_tid, guest_sig). The host's signal becomes the owner
// signal before the owner changes: an event in between reaches the old owner (with the owner signal, which
// an old proxy turns into its own guest signal), never a proxy with a signal it does not take.
int64_t point_at_proxy_locked(emu::Process& proc, int fd, const OwnerState& st, int guest_tid,
                              int guest_sig) {
  const int64_t host_tid = proxy_for_locked(proc, guest_tid, guest_sig);
  if (host_tid < 0) return host_tid;
  if (st.host_sig != owner_host_signal()) {
    if (const int64_t r = host_fcntl(fd, F_SETSIG, owner_host_signal()); r < 0) return r;
  }
  const int64_t r = host_setown_ex(fd, F_OWNER_TID, static_cast<int>(host_tid));
  if (r < 0 && st.host_sig != owner_host_signal()) (void)host_fcntl(fd, F_SETSIG, st.host_sig);
  return r;
}

// The owner signal the guest set for st's description.
int guest_sig_of(const OwnerState& st) {
  return st.proxied() ? st.proxy->guest_sig : st.host_sig;
}

}  // namespace

// The safe calls' wake signal: guest threads take it in a handler, the intake thread and the proxies with
// rt_sigtimedwait, and a64run sends it itself only to guest threads (Task::wake), so every arrival at a
// proxy is either the host's for a description it owns or another process's kill, told apart by si_code.
int owner_host_signal() {
  return wake_signal();
}

int64_t fcntl_setown_ex(emu::Process& proc, int fd, const guest::f_owner_ex& owner) {
  std::lock_guard lk(*proc.fasync_owners.mu);
  OwnerState st;
  if (const int64_t r = owner_state_locked(proc.fasync_owners, fd, &st); r < 0) return r;
  if (owner.type == F_OWNER_TID && owner.pid > 0 && proc.find_thread(owner.pid) != nullptr)
    return point_at_proxy_locked(proc, fd, st, owner.pid, guest_sig_of(st));
  // Any other owner is the host's own; a description that leaves a proxy gets the guest's signal back.
  if (const int64_t r = host_setown_ex(fd, owner.type, owner.pid); r < 0) return r;
  return st.proxied() ? host_fcntl(fd, F_SETSIG, st.proxy->guest_sig) : 0;
}

int64_t fcntl_setown(emu::Process& proc, int fd, uint64_t arg) {
  std::lock_guard lk(*proc.fasync_owners.mu);
  OwnerState st;
  if (const int64_t r = owner_state_locked(proc.fasync_owners, fd, &st); r < 0) return r;
  // F_SETOWN's owner is a process or a group (a thread's id names its process): never a proxy.
  if (const int64_t r = host_fcntl(fd, F_SETOWN, static_cast<long>(arg)); r < 0) return r;
  return st.proxied() ? host_fcntl(fd, F_SETSIG, st.proxy->guest_sig) : 0;
}

int64_t fcntl_getown_ex(emu::Process& proc, int fd, guest::f_owner_ex* owner) {
  std::lock_guard lk(*proc.fasync_owners.mu);
  if (const int64_t r = host_getown_ex(fd, owner); r < 0) return r;
  if (owner->type != F_OWNER_TID) return 0;
  if (const OwnerProxy* p = find_host_tid_locked(proc.fasync_owners, owner->pid)) owner->pid = p->guest_tid;
  return 0;
}

// f_getown(): the owner's id, negated for a process group.
int64_t fcntl_getown(emu::Process& proc, int fd) {
  guest::f_owner_ex o{};
  if (const int64_t r = fcntl_getown_ex(proc, fd, &o); r < 0) return r;
  return o.type == F_OWNER_PGRP ? -int64_t{o.pid} : int64_t{o.pid};
}

int64_t fcntl_setsig(emu::Process& proc, int fd, uint64_t sig) {
  std::lock_guard lk(*proc.fasync_owners.mu);
  OwnerState st;
  if (const int64_t r = owner_state_locked(proc.fasync_owners, fd, &st); r < 0) return r;
  if (sig > static_cast<uint64_t>(guest::kSIGRTMAX)) return -EINVAL;  // valid_signal()
  // A description that names a live proxy moves to the proxy for the new signal; one whose proxy ended
  // (its thread exited) keeps the dead owner and takes the signal itself, as the host answers F_GETSIG.
  if (st.proxied() && st.proxy->live && proc.find_thread(st.proxy->guest_tid) != nullptr)
    return point_at_proxy_locked(proc, fd, st, st.proxy->guest_tid, static_cast<int>(sig));
  return host_fcntl(fd, F_SETSIG, static_cast<long>(sig));
}

int64_t fcntl_getsig(emu::Process& proc, int fd) {
  std::lock_guard lk(*proc.fasync_owners.mu);
  OwnerState st;
  if (const int64_t r = owner_state_locked(proc.fasync_owners, fd, &st); r < 0) return r;
  return guest_sig_of(st);
}

void end_owner_proxies(emu::Process& proc, int tid) {
  std::lock_guard lk(*proc.fasync_owners.mu);
  for (OwnerProxy& p : proc.fasync_owners.proxies) {
    if (!p.live || p.guest_tid != tid) continue;
    siginfo_t si{};
    si.si_signo = owner_host_signal();
    si.si_code = SI_QUEUE;
    si.si_pid = static_cast<int>(::getpid());
    si.si_uid = ::getuid();
    si.si_value.sival_ptr = reinterpret_cast<void*>(kQuitMagic);
    ::syscall(SYS_rt_tgsigqueueinfo, ::getpid(), p.host_tid, si.si_signo, &si);
    p.live = false;
  }
}

void reset_owner_proxies_after_fork(emu::Process& proc) {
  proc.fasync_owners.mu = new std::mutex;
  for (OwnerProxy& p : proc.fasync_owners.proxies) p.live = false;
}

}  // namespace signals
