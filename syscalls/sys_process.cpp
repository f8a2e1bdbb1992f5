// This file implements process identity and lifetime syscalls that need no thread machinery.
#include "syscalls/sys_process.h"

#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <vector>

#include "emu/guest_mem.h"
#include "emu/task.h"
#include "signals/host_signals.h"
#include "signals/signals.h"
#include "syscalls/abi/errno.h"
#include "syscalls/fd_util.h"
#include "syscalls/host_call.h"
#include "syscalls/proc_mem.h"
#include "syscalls/procfs.h"
#include "syscalls/seccomp.h"

namespace syscalls {
namespace {}  // namespace

// exit(2): ends the calling thread; the last thread's exit ends the process.
SysResult sys_exit(Task& t, int status) {
  t.exit_thread(status);
  return kNoReturnValue;
}
// exit_group(2): ends every thread with the guest's status.
SysResult sys_exit_group(Task& t, int status) {
  t.exit_group(status);
}

// The process's host pid as a64run keeps it (a host getpid is a system call: about a microsecond here).
SysResult sys_getpid(Task& t) {
  return t.proc().host_pid();
}
SysResult sys_getppid(Task&) {
  return ::getppid();
}
SysResult sys_gettid(Task& t) {
  return t.tid();
}

SysResult sys_set_tid_address(Task& t, uint64_t tidptr) {
  t.clear_child_tid = tidptr;
  return t.tid();
}

// set_robust_list(2): remembered for thread death (FUTEX_OWNER_DIED); the head's size is fixed by the ABI.
SysResult sys_set_robust_list(Task& t, uint64_t head, uint64_t len) {
  if (len != 24) return -EINVAL;
  t.robust_list.store(head, std::memory_order_relaxed);
  t.robust_list_len = len;
  return 0;
}

// get_robust_list(2): a thread's head, stored after its size as Linux stores them. A thread of this process,
// or of a process that shares its memory (a CLONE_VM child), is looked up here; any other pid is the host's
// to find and to check (ptrace_may_access: ESRCH, EPERM). A native program's head is the host's answer.
// Another a64run's is its guest's, which this process cannot know: ENOSYS, logged once.
SysResult sys_get_robust_list(Task& t, int pid, GuestPtr<uint64_t> head, GuestPtr<uint64_t> len) {
  uint64_t value = 0;
  bool found = false;
  auto look = [&](emu::Task& th) {
    if (th.tid() != pid) return;
    value = th.robust_list.load(std::memory_order_relaxed);
    found = true;
  };
  if (pid == 0) {
    value = t.robust_list.load(std::memory_order_relaxed);
    found = true;
  } else {
    t.proc().for_each_thread(look);
    if (!found) t.proc().with_relative(pid, [&](emu::Process& p) { p.for_each_thread(look); });
  }
  if (!found) {
    uint64_t host_head = 0;
    size_t host_len = 0;
    if (::syscall(SYS_get_robust_list, pid, &host_head, &host_len) != 0) return -errno;
    MemTarget target;
    int memfd = -1;
    const int64_t r = classify_pid(pid, false, &target, &memfd);
    if (memfd >= 0) ::close(memfd);
    if (r == 0 && target.kind == MemTargetKind::kOwn) return -ESRCH;  // one of a64run's own threads
    if (r != 0 || target.kind != MemTargetKind::kPassThrough) {
      static std::once_flag logged;
      std::call_once(logged, [] {
        const char msg[] =
            "a64run: get_robust_list of another emulated process is not known, returning -ENOSYS\n";
        (void)!::write(2, msg, sizeof msg - 1);
      });
      return -ENOSYS;
    }
    value = host_head;
  }
  if (int64_t r = len.write(t.as(), 24); r < 0) return r;
  return head.write(t.as(), value);
}

// uname(2): the host's names with machine "aarch64" (struct utsname has the same layout on both).
SysResult sys_uname(Task& t, GuestPtr<struct utsname> buf) {
  struct utsname u {};
  if (::uname(&u) != 0) return -errno;
  strncpy(u.machine, "aarch64", sizeof u.machine);
  return buf.write(t.as(), u);
}

SysResult sys_getuid(Task&) {
  return ::getuid();  // not the kill's cache: exact at every call, as the kernel's
}
SysResult sys_geteuid(Task&) {
  return ::geteuid();
}
SysResult sys_getgid(Task&) {
  return ::getgid();
}
SysResult sys_getegid(Task&) {
  return ::getegid();
}

SysResult sys_getresuid(Task& t, GuestPtr<uint32_t> r, GuestPtr<uint32_t> e, GuestPtr<uint32_t> s) {
  uid_t a, b, c;
  if (::getresuid(&a, &b, &c) != 0) return -errno;
  if (r.write(t.as(), a) || e.write(t.as(), b) || s.write(t.as(), c)) return -EFAULT;
  return 0;
}

SysResult sys_getresgid(Task& t, GuestPtr<uint32_t> r, GuestPtr<uint32_t> e, GuestPtr<uint32_t> s) {
  gid_t a, b, c;
  if (::getresgid(&a, &b, &c) != 0) return -errno;
  if (r.write(t.as(), a) || e.write(t.as(), b) || s.write(t.as(), c)) return -EFAULT;
  return 0;
}

// Credential changes go straight to the host: raw syscalls change only the calling thread, like the guest's
// own raw syscalls (glibc's setuid broadcasts to every thread itself, through signals).
SysResult sys_setuid(Task&, uint32_t uid) {
  signals::forget_caller_uid();
  return guest::from_host(::syscall(SYS_setuid, uid));
}
SysResult sys_setgid(Task&, uint32_t gid) {
  return guest::from_host(::syscall(SYS_setgid, gid));
}
SysResult sys_setreuid(Task&, uint32_t r, uint32_t e) {
  signals::forget_caller_uid();
  return guest::from_host(::syscall(SYS_setreuid, r, e));
}
SysResult sys_setregid(Task&, uint32_t r, uint32_t e) {
  return guest::from_host(::syscall(SYS_setregid, r, e));
}
SysResult sys_setresuid(Task&, uint32_t r, uint32_t e, uint32_t s) {
  signals::forget_caller_uid();
  return guest::from_host(::syscall(SYS_setresuid, r, e, s));
}
SysResult sys_setresgid(Task&, uint32_t r, uint32_t e, uint32_t s) {
  return guest::from_host(::syscall(SYS_setresgid, r, e, s));
}
SysResult sys_setfsuid(Task&, uint32_t uid) {
  return ::syscall(SYS_setfsuid, uid);
}
SysResult sys_setfsgid(Task&, uint32_t gid) {
  return ::syscall(SYS_setfsgid, gid);
}

// getgroups(2): the count of the groups the process has; with a size, those groups (EINVAL when they do not
// fit). The host list is sized by the groups there are, never by the guest's size.
SysResult sys_getgroups(Task& t, int size, GuestPtr<uint32_t> list) {
  if (size < 0) return -EINVAL;
  const int n = ::getgroups(0, nullptr);
  if (n < 0) return -errno;
  if (size == 0) return n;
  if (n > size) return -EINVAL;
  std::vector<gid_t> g(static_cast<size_t>(n));
  const int got = ::getgroups(n, g.data());
  if (got < 0) return -errno;
  if (emu::copy_out(t.as(), list.addr, g.data(), static_cast<size_t>(got) * sizeof(gid_t)) != 0)
    return -EFAULT;
  return got;
}

// setgroups(2): the kernel checks the capability (EPERM), then the size (EINVAL), then reads the list
// (EFAULT). The host makes the first two: a size it refuses goes to it as it is, a list that cannot be read
// as the fault address.
SysResult sys_setgroups(Task& t, int size, GuestPtr<const uint32_t> list) {
  if (size < 0 || size > 65536) return guest::from_host(::syscall(SYS_setgroups, size, nullptr));
  std::vector<gid_t> g(static_cast<size_t>(size));
  const void* host = g.data();
  if (emu::copy_in(t.as(), g.data(), list.addr, g.size() * sizeof(gid_t)) != 0) host = kHostFaultAddr;
  return guest::from_host(::syscall(SYS_setgroups, size, host));
}

namespace {

// linux/capability.h: the header and data layouts are the same on arm64 and x86-64, and guest pids are host
// pids, so capget/capset pass through. The kernel writes its preferred version into the header when it
// does not know the caller's (cap_validate_magic); that write-back is copied to the guest.
struct CapHeader {
  uint32_t version;
  int32_t pid;
};
struct CapData {
  uint32_t effective, permitted, inheritable;
};
constexpr uint32_t kCapVersion1 = 0x19980330;

int64_t cap_header_back(Task& t, uint64_t header, const CapHeader& before, const CapHeader& after) {
  if (after.version == before.version) return 0;
  return emu::copy_out(t.as(), header, &after, sizeof after) != 0 ? -EFAULT : 0;
}

}  // namespace

SysResult sys_capget(Task& t, uint64_t header, uint64_t data) {
  CapHeader h{};
  if (emu::copy_in(t.as(), &h, header, sizeof h) != 0) return -EFAULT;
  const CapHeader before = h;
  CapData d[2]{};
  const int64_t r = guest::from_host(::syscall(SYS_capget, &h, data != 0 ? d : nullptr));
  if (const int64_t e = cap_header_back(t, header, before, h); e != 0) return e;
  if (r != 0 || data == 0) return r;
  const size_t n = h.version == kCapVersion1 ? 1 : 2;
  return emu::copy_out(t.as(), data, d, n * sizeof(CapData)) != 0 ? -EFAULT : 0;
}

SysResult sys_capset(Task& t, uint64_t header, uint64_t data) {
  CapHeader h{};
  if (emu::copy_in(t.as(), &h, header, sizeof h) != 0) return -EFAULT;
  const CapHeader before = h;
  CapData d[2]{};
  const size_t n = h.version == kCapVersion1 ? 1 : 2;
  if (data != 0 && emu::copy_in(t.as(), d, data, n * sizeof(CapData)) != 0) return -EFAULT;
  const int64_t r = guest::from_host(::syscall(SYS_capset, &h, data != 0 ? d : nullptr));
  if (const int64_t e = cap_header_back(t, header, before, h); e != 0) return e;
  return r;
}

namespace {

// A host call that needs a single-threaded host process (unshare of a user namespace; setns of a user or
// mount namespace, EINVAL, or of a time namespace, EUSERS, in a multithreaded one): for a guest with one
// thread, the intake thread steps aside for a second try. The guest's thread blocks every host signal
// meanwhile (what arrives waits for the next intake thread; the safe calls' wake signal too, so no signal is
// forwarded to a thread that is gone). A guest with more threads gets the host's answer for a multithreaded
// process, as Linux gives it.
int64_t single_threaded_host_call(Task& t, long nr, long a1, long a2) {
  const int64_t first = guest::from_host(::syscall(nr, a1, a2));
  if ((first != -EINVAL && first != -EUSERS) || t.proc().thread_count() != 1) return first;
  ::sigset_t all;
  ::sigset_t old;
  sigfillset(&all);
  ::syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &old, 8);
  int64_t r = first;
  if (signals::stop_host_signal_intake(t.proc())) {
    r = guest::from_host(::syscall(nr, a1, a2));
    signals::restart_host_signal_intake(t.proc());
  }
  ::syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, nullptr, 8);
  return r;
}

// A call (`call(flags)`) that joins several namespaces with a PID namespace for the children among them: the
// PID namespace comes last, by a call of its own, since from then on the process may start no thread
// (copy_process: EINVAL for CLONE_THREAD when pid_ns_for_children is not the task's own), and the intake
// thread's restart after a user or mount namespace is one. The others come first, so a user namespace among
// them owns it as the kernel's single call would make it. (Not atomic: if the second step fails, ENOSPC at
// the nesting or count limit, the first one's namespaces stay, which Linux's single call would not leave.)
template <typename Call>
int64_t pid_namespace_last(uint64_t flags, const Call& call) {
  if (!(flags & CLONE_NEWPID) || flags == CLONE_NEWPID) return call(flags);
  if (const int64_t r = call(flags & ~uint64_t{CLONE_NEWPID}); r != 0) return r;
  return call(CLONE_NEWPID);
}

}  // namespace

// unshare(CLONE_FILES) of a guest with one thread whose descriptor table another process shares (a clone
// with CLONE_FILES, either side): the host's, which copies the table (EMFILE past fs.nr_open, as Linux).
// a64run's signal worker writes signalfds' pipes by number, so it must be in the guest's table: the intake
// thread and its worker step aside and start again from this thread, with its new table.
SysResult unshare_files(Task& t) {
  if (!files_maybe_shared()) return 0;  // nothing shares it: Linux copies nothing either
  ::sigset_t all;
  ::sigset_t old;
  sigfillset(&all);
  ::syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &old, 8);
  const bool stopped = signals::stop_host_signal_intake(t.proc());
  const int64_t r = guest::from_host(::syscall(SYS_unshare, CLONE_FILES));
  if (stopped) signals::restart_host_signal_intake(t.proc());
  ::syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, nullptr, 8);
  return r;
}

// unshare(2), with ksys_unshare's implied flags and check_unshare_flags' refusals. Namespaces are the host
// kernel's business (most apply to children, which are host processes too; a user namespace needs the
// intake thread out of the way: single_threaded_host_call). The fs attributes (cwd, root, umask) and the
// SysV semaphore undo list are per host thread, as they are per task in Linux: the host unshares them for
// the calling thread. The descriptor table: unshare_files for a guest with one thread; a thread of a
// multithreaded guest cannot get a table of its own (a64run's signal worker shares the process's): EINVAL.
SysResult sys_unshare(Task& t, uint64_t flags) {
  constexpr uint64_t kNamespaces = CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET | CLONE_NEWPID |
                                   CLONE_NEWCGROUP | CLONE_NEWUSER | 0x80 /* CLONE_NEWTIME */;
  constexpr uint64_t kPerThread = CLONE_FILES | CLONE_FS | CLONE_SYSVSEM;
  constexpr uint64_t kShared = CLONE_THREAD | CLONE_SIGHAND | CLONE_VM;  // only if nothing is shared
  if (flags & ~(kNamespaces | kPerThread | kShared)) return -EINVAL;
  if (flags & CLONE_NEWUSER) flags |= CLONE_THREAD | CLONE_FS;
  if (flags & CLONE_VM) flags |= CLONE_SIGHAND;
  if (flags & CLONE_SIGHAND) flags |= CLONE_THREAD;
  if (flags & CLONE_NEWNS) flags |= CLONE_FS;
  const bool one_thread = t.proc().thread_count() == 1;
  if ((flags & kShared) && !one_thread) return -EINVAL;
  if ((flags & (CLONE_SIGHAND | CLONE_VM)) && t.proc().signals().handlers.use_count() > 1) return -EINVAL;
  if ((flags & CLONE_VM) && t.proc().shares_memory()) return -EINVAL;
  if ((flags & CLONE_FILES) && !one_thread) return -EINVAL;
  if (flags & kNamespaces) {
    // The intake thread's worker, which the first signalfd needs, could not start after a PID namespace for
    // the children: it starts now.
    if (flags & CLONE_NEWPID) (void)signals::start_intake_worker(t.proc());
    int64_t r;
    if (!(flags & CLONE_NEWUSER)) {
      r = guest::from_host(::syscall(SYS_unshare, flags & kNamespaces));
    } else {
      r = pid_namespace_last(flags & kNamespaces, [&](uint64_t f) {
        return single_threaded_host_call(t, SYS_unshare, static_cast<long>(f), 0);
      });
      signals::forget_caller_uid();  // the uid as the new namespace sees it
    }
    if (r != 0) return r;
  }
  if (flags & (CLONE_FS | CLONE_SYSVSEM)) {
    if (const int64_t r = guest::from_host(::syscall(SYS_unshare, flags & (CLONE_FS | CLONE_SYSVSEM)));
        r != 0)
      return r;
  }
  return (flags & CLONE_FILES) ? unshare_files(t) : 0;
}

// setns(2): the host's, as unshare's namespaces are; joining a user, mount or time namespace needs the intake
// thread out of the way (single_threaded_host_call).
SysResult sys_setns(Task& t, int fd, int nstype) {
  if (is_reserved_fd(fd)) return -EBADF;
  // nstype 0 takes any namespace, a PID one too: the worker starts first, as for unshare.
  if (nstype == 0 || (nstype & CLONE_NEWPID)) (void)signals::start_intake_worker(t.proc());
  // A pidfd names several namespaces at once (an ns file names one type: the split gives its same EINVAL).
  const int64_t r = pid_namespace_last(static_cast<uint32_t>(nstype), [&](uint64_t f) {
    return single_threaded_host_call(t, SYS_setns, fd, static_cast<long>(f));
  });
  signals::forget_caller_uid();  // a user namespace joined sees the uid in its own map
  return r;
}

// sethostname/setdomainname: the host's UTS namespace is the guest's (a64run reports the host's uname).
namespace {
// sethostname and setdomainname: a name of up to __NEW_UTS_LEN (64) bytes, not NUL-terminated.
SysResult set_uts_name(Task& t, long host_nr, uint64_t name, int64_t len) {
  if (len < 0 || len > 64) return -EINVAL;
  char buf[64];
  if (emu::copy_in(t.as(), buf, name, static_cast<size_t>(len)) != 0) return -EFAULT;
  return guest::from_host(::syscall(host_nr, buf, len));
}
}  // namespace

SysResult sys_sethostname(Task& t, uint64_t name, int64_t len) {
  return set_uts_name(t, SYS_sethostname, name, len);
}
SysResult sys_setdomainname(Task& t, uint64_t name, int64_t len) {
  return set_uts_name(t, SYS_setdomainname, name, len);
}

// vhangup(2): the host's, on the controlling terminal of the host process, which is the guest's.
SysResult sys_vhangup(Task&) {
  return guest::from_host(::syscall(SYS_vhangup));
}

SysResult sys_getpgid(Task&, int pid) {
  return guest::from_host(::getpgid(pid));
}
SysResult sys_setpgid(Task&, int pid, int pgid) {
  return guest::from_host(::setpgid(pid, pgid));
}
SysResult sys_getsid(Task&, int pid) {
  return guest::from_host(::getsid(pid));
}
SysResult sys_setsid(Task&) {
  return guest::from_host(::setsid());
}

// prlimit64(2) and friends: the host's limits (struct rlimit64 is two u64 on both sides), but for the
// calling process's RLIMIT_AS, which a64run keeps and enforces itself (emu::guest_as_limit: the host
// process holds the guest window reserved, so a host limit would stop a64run's own allocations, and its
// fork), and RLIMIT_SIGPENDING (below). RLIMIT_DATA still goes to the host, whose data size is the guest's
// writable memory and a64run's heap.
namespace {

bool has_cap_sys_resource() {
  CapHeader h{0x20080522 /* _LINUX_CAPABILITY_VERSION_3 */, 0};
  CapData d[2]{};
  return ::syscall(SYS_capget, &h, d) == 0 && (d[0].effective & (1u << 24 /* CAP_SYS_RESOURCE */)) != 0;
}

// RLIMIT_SIGPENDING of the guest's own process: the guest's value is a64run's (signals::
// guest_sigpending_limit), the host's is only ever raised, never lowered (a64run's wake signals need it).
// The checks are do_prlimit's: soft above hard is EINVAL; a hard limit raised needs CAP_SYS_RESOURCE.
int64_t own_sigpending_limit(const rlimit* nl, rlimit* ol) {
  rlimit host{};
  if (::prlimit(0, RLIMIT_SIGPENDING, nullptr, &host) != 0) return -errno;
  rlimit cur = host;
  signals::guest_sigpending_limit(&cur);
  if (nl != nullptr) {
    if (nl->rlim_cur > nl->rlim_max) return -EINVAL;
    // Above the host's hard limit the host's own prlimit below judges; up to it, the guest's lowered one.
    if (nl->rlim_max > cur.rlim_max && nl->rlim_max <= host.rlim_max && !has_cap_sys_resource())
      return -EPERM;
    const rlimit up{std::max(host.rlim_cur, nl->rlim_cur), std::max(host.rlim_max, nl->rlim_max)};
    if ((up.rlim_cur != host.rlim_cur || up.rlim_max != host.rlim_max) &&
        ::prlimit(0, RLIMIT_SIGPENDING, &up, nullptr) != 0)
      return -errno;
    signals::set_guest_sigpending_limit(*nl);
  }
  if (ol != nullptr) *ol = cur;
  return 0;
}

// RLIMIT_AS of the guest's own process: a64run's value only (do_prlimit's checks, as above).
int64_t own_as_limit(const rlimit* nl, rlimit* ol) {
  uint64_t cur = 0, max = 0;
  emu::guest_as_rlimit(&cur, &max);
  if (nl != nullptr) {
    if (nl->rlim_cur > nl->rlim_max) return -EINVAL;
    if (nl->rlim_max > max && !has_cap_sys_resource()) return -EPERM;
    emu::set_guest_as_rlimit(nl->rlim_cur, nl->rlim_max);
  }
  if (ol != nullptr) *ol = rlimit{cur, max};
  return 0;
}

}  // namespace

SysResult sys_prlimit64(Task& t, int pid, int resource, GuestPtr<const uint64_t> new_limit,
                        GuestPtr<uint64_t> old_limit) {
  if (resource < 0 || resource >= RLIM_NLIMITS) return -EINVAL;
  struct rlimit nl {
  }, ol{};
  if (!new_limit.null() && emu::copy_in(t.as(), &nl, new_limit.addr, sizeof nl) != 0) return -EFAULT;
  if (resource == RLIMIT_AS && (pid == 0 || pid == t.proc().host_pid())) {
    if (const int64_t r = own_as_limit(new_limit.null() ? nullptr : &nl, old_limit.null() ? nullptr : &ol);
        r != 0)
      return r;
  } else if (resource == RLIMIT_SIGPENDING && (pid == 0 || pid == t.proc().host_pid())) {
    if (const int64_t r =
            own_sigpending_limit(new_limit.null() ? nullptr : &nl, old_limit.null() ? nullptr : &ol);
        r != 0)
      return r;
  } else if (::prlimit(pid, static_cast<__rlimit_resource>(resource), new_limit.null() ? nullptr : &nl,
                       old_limit.null() ? nullptr : &ol) != 0) {
    return -errno;
  }
  if (!old_limit.null() && emu::copy_out(t.as(), old_limit.addr, &ol, sizeof ol) != 0) return -EFAULT;
  return 0;
}

SysResult sys_getrlimit(Task& t, int resource, GuestPtr<uint64_t> rlim) {
  return sys_prlimit64(t, 0, resource, {}, rlim.null() ? GuestPtr<uint64_t>{1} : rlim);
}

SysResult sys_setrlimit(Task& t, int resource, GuestPtr<const uint64_t> rlim) {
  if (rlim.null()) return -EFAULT;
  return sys_prlimit64(t, 0, resource, rlim, {});
}

// personality(2): the guest's persona is the host process's, which execve keeps as Linux keeps the guest's
// (its flags; PER_CLEAR_ON_SETID for set-user-ID programs) and fork copies. Linux accepts any value but
// PER_LINUX32 on a CPU without 32-bit EL0, as this one is. The flags act where Linux's act on arm64: UNAME26
// through the host's uname, STICKY_TIMEOUTS in select and poll (sys_poll.cpp), READ_IMPLIES_EXEC in mmap
// and mprotect (sys_mm.cpp).
SysResult sys_personality(Task&, uint32_t persona) {
  constexpr uint32_t kPerMask = 0x00ff;
  constexpr uint32_t kPerLinux32 = 0x0008;
  if (persona != 0xffffffffu && (persona & kPerMask) == kPerLinux32) return -EINVAL;
  const long old = ::syscall(SYS_personality, persona);
  if (old < 0) return -errno;
  if (persona != 0xffffffffu) set_cached_personality(persona);
  return old;
}

namespace {
std::atomic<uint64_t> g_personality{UINT64_MAX};  // UINT64_MAX: not read from the host yet
}  // namespace

uint32_t guest_personality() {
  uint64_t p = g_personality.load(std::memory_order_relaxed);
  if (p == UINT64_MAX) {
    p = static_cast<uint32_t>(::syscall(SYS_personality, 0xffffffffu));
    g_personality.store(p, std::memory_order_relaxed);
  }
  return static_cast<uint32_t>(p);
}

void set_cached_personality(uint32_t persona) {
  g_personality.store(persona, std::memory_order_relaxed);
}

// prctl(2): options that concern the calling thread or process go to the host thread that runs it (names
// show in /proc, timer slack applies to its sleeps); arm64-only options report what the CPU model lacks.
SysResult sys_prctl(Task& t, int option, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5) {
  switch (option) {
    case PR_SET_NAME: {
      char name[16] = {};
      std::string s;
      if (int64_t r = emu::read_cstring(t.as(), a2, 4096, &s); r == -EFAULT) return r;
      strncpy(name, s.c_str(), sizeof name - 1);
      return guest::from_host(::prctl(PR_SET_NAME, name, 0, 0, 0));
    }
    case PR_GET_NAME: {
      // The host thread's name is a64run's own until the guest renames it: the guest sees its program's.
      char name[16] = {};
      const std::string comm = calling_thread_comm(t);
      if (comm.empty()) return -EINVAL;
      comm.copy(name, sizeof name - 1);  // at most 15 bytes: the rest of name stays 0
      return emu::copy_out(t.as(), a2, name, sizeof name);
    }
    case PR_GET_PDEATHSIG:
    case PR_GET_CHILD_SUBREAPER: {
      int v = 0;
      if (::prctl(option, &v, 0, 0, 0) != 0) return -errno;
      return emu::copy_out(t.as(), a2, &v, sizeof v);
    }
    case PR_GET_SECCOMP:
      return seccomp::prctl_get(t);
    case PR_SET_SECCOMP:
      return seccomp::prctl_set(t, a2, a3);
    case PR_SET_PDEATHSIG:
    case PR_SET_TIMERSLACK:
    case PR_GET_TIMERSLACK:
    case PR_SET_DUMPABLE:
    case PR_GET_DUMPABLE:
    case PR_SET_NO_NEW_PRIVS:
    case PR_GET_NO_NEW_PRIVS:
    case PR_SET_CHILD_SUBREAPER:
    case PR_CAPBSET_READ:
    case PR_CAPBSET_DROP:
    case PR_GET_KEEPCAPS:
    case PR_SET_KEEPCAPS:
    case PR_GET_SECUREBITS:
    case PR_SET_SECUREBITS:
    case PR_CAP_AMBIENT:
    case PR_GET_THP_DISABLE:
    case PR_SET_THP_DISABLE:
      return guest::from_host(::prctl(option, a2, a3, a4, a5));
    default:
      // PR_SVE_*, PR_PAC_*, PR_*_TAGGED_ADDR_CTRL, PR_SET_MM, PR_SET_VMA (as without
      // CONFIG_ANON_VMA_NAME) and the rest: not available on this CPU model.
      return -EINVAL;
  }
}

}  // namespace syscalls
