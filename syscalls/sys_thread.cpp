// This file implements clone and clone3: guest threads are host threads with their own vCPU; other clones
// are host processes made by fork, or by a host CLONE_VM|CLONE_VFORK clone that shares the guest's memory.
#include "syscalls/sys_thread.h"

#include <linux/sched.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <mutex>

#include "emu/guest_mem.h"
#include "emu/process_fork.h"
#include "signals/host_signals.h"

namespace syscalls {
namespace {

constexpr uint64_t kNamespaceFlags = CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC |
                                     CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWTIME;

struct CloneRequest {
  uint64_t flags = 0;
  int exit_signal = SIGCHLD;
  uint64_t stack = 0;  // new SP, 0 to keep the caller's
  uint64_t tls = 0;
  uint64_t parent_tid = 0;
  uint64_t child_tid = 0;
  uint64_t pidfd = 0;
  std::array<int32_t, emu::kMaxSetTid> set_tid{};
  uint32_t set_tid_size = 0;
  int cgroup = -1;
};

struct ThreadStart {
  emu::Task* task;
  uint64_t flags;
  uint64_t parent_tid, child_tid;  // CLONE_PARENT_SETTID and CLONE_CHILD_SETTID addresses
  std::atomic<int> tid{0};
  signals::Park* parent_park;
  emu::Task* parent;
};

void* thread_main(void* arg) {
  signals::block_after_thread_start();
  auto* start = static_cast<ThreadStart*>(arg);
  emu::Task* task = start->task;
  emu::Process::set_current(&task->proc());
  const int tid = static_cast<int>(::gettid());
  task->set_tid(tid);
  // The thread is one of the process's, and both TID writes have landed, before clone returns and before
  // this thread runs guest code (copy_process). The parent waits without the run lock, so this thread could
  // take it at once.
  {
    // The creator's seccomp chain as it is now, under the lock a TSYNC holds (syscalls/seccomp.cpp): a
    // TSYNC before this finds the creator synced, one after finds this thread registered.
    std::lock_guard lk(task->proc().signals().sig_lock);
    task->inherit_seccomp(*start->parent);
    task->proc().add_thread(task);
  }
  if (start->flags & CLONE_PARENT_SETTID)
    (void)emu::copy_out(task->as(), start->parent_tid, &tid, sizeof tid);
  if (start->flags & CLONE_CHILD_SETTID) (void)emu::copy_out(task->as(), start->child_tid, &tid, sizeof tid);
  signals::Park* parent = start->parent_park;
  start->tid.store(tid, std::memory_order_release);
  parent->unpark();  // `start` belongs to the parent from here on
  task->run();
  delete task;
  return nullptr;
}

int64_t validate(const CloneRequest& r) {
  const uint64_t f = r.flags;
  if ((f & CLONE_THREAD) && !(f & CLONE_SIGHAND)) return -EINVAL;
  if ((f & CLONE_SIGHAND) && !(f & CLONE_VM)) return -EINVAL;
  if ((f & CLONE_FS) && (f & CLONE_NEWNS)) return -EINVAL;
  if ((f & CLONE_PIDFD) && (f & CLONE_THREAD)) return -EINVAL;
  if ((f & CLONE_THREAD) && (f & (CLONE_NEWUSER | CLONE_NEWPID))) return -EINVAL;
  // A new process's namespaces are made by the host's clone (which checks the privileges); a thread's are
  // not: its host thread shares the emulator's. (CLONE_NEWTIME never gets here: it is a CSIGNAL bit.)
  if ((f & kNamespaceFlags) && (f & CLONE_THREAD)) return -EPERM;
  // A thread is a host thread of pthread_create's: its id and cgroup are the host's choice.
  if ((f & CLONE_THREAD) && (r.set_tid_size != 0 || (f & CLONE_INTO_CGROUP))) {
    static std::once_flag logged;
    std::call_once(logged, [] {
      const char msg[] =
          "a64run: clone3 of a thread with set_tid or CLONE_INTO_CGROUP is not supported, "
          "returning -EINVAL\n";
      (void)!::write(2, msg, sizeof msg - 1);
    });
    return -EINVAL;
  }
  return 0;
}

int64_t spawn_thread(Task& t, const CloneRequest& r) {
  // A new vCPU (uc_open) takes milliseconds and the host thread's start more when the host is busy: without
  // the run lock, the process's other threads run meanwhile.
  emu::RunLockReleaser unlocked(t.proc().run_lock(), &t.cpu());
  emu::Task* child = emu::first_child_thread(t, t.proc());
  if (r.stack) child->cpu().set_sp(r.stack);
  if (r.flags & CLONE_SETTLS) child->cpu().set_reg(UC_ARM64_REG_TPIDR_EL0, r.tls);
  if (r.flags & CLONE_CHILD_CLEARTID) child->clear_child_tid = r.child_tid;

  ThreadStart start{child, r.flags, r.parent_tid, r.child_tid, {0}, &t.park(), &t};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_t th;
  const int err = pthread_create(&th, &attr, &thread_main, &start);
  pthread_attr_destroy(&attr);
  if (err != 0) {
    delete child;
    // glibc passes clone's error on: EINVAL is the kernel's (a PID namespace for the children that is not
    // the process's own, after unshare(CLONE_NEWPID) or setns), the rest are out of resources.
    return err == EINVAL ? -EINVAL : -EAGAIN;
  }
  while (start.tid.load(std::memory_order_acquire) == 0) t.park().wait(nullptr, CLOCK_MONOTONIC);
  return start.tid.load(std::memory_order_acquire);
}

int64_t do_clone(Task& t, const CloneRequest& r) {
  if (int64_t e = validate(r); e < 0) return e;
  // Linux stores the pidfd before the child exists (copy_process) and fails the clone on a bad address.
  if ((r.flags & CLONE_PIDFD) && emu::host_range(t.as(), r.pidfd, sizeof(int), PROT_WRITE) == nullptr) {
    return -EFAULT;
  }
  if (r.flags & CLONE_THREAD) return spawn_thread(t, r);
  emu::ForkRequest fr;
  fr.flags = r.flags;
  fr.exit_signal = r.exit_signal;
  fr.stack = r.stack;
  fr.tls = r.tls;
  fr.parent_tid = r.parent_tid;
  fr.child_tid = r.child_tid;
  fr.pidfd = r.pidfd;
  fr.set_tid = r.set_tid;
  fr.set_tid_size = r.set_tid_size;
  fr.cgroup = r.cgroup;
  return emu::fork_process(t, fr);
}

}  // namespace

// clone(2), arm64 argument order: flags, stack, parent_tid, tls, child_tid.
SysResult sys_clone(Task& t, uint64_t flags, uint64_t newsp, uint64_t parent_tid, uint64_t tls,
                    uint64_t child_tid) {
  CloneRequest r;
  r.flags = flags & 0xffffffffULL & ~uint64_t{CSIGNAL};  // kernel_clone_args: the lower 32 bits
  r.exit_signal = static_cast<int>(flags & CSIGNAL);
  r.stack = newsp;
  r.tls = tls;
  r.parent_tid = parent_tid;
  r.child_tid = child_tid;
  r.pidfd = parent_tid;  // CLONE_PIDFD reuses parent_tid as the pidfd pointer
  if ((flags & CLONE_PIDFD) && (flags & CLONE_PARENT_SETTID)) return -EINVAL;
  return do_clone(t, r);
}

// clone3(2): struct clone_args (include/uapi/linux/sched.h), at least CLONE_ARGS_SIZE_VER0 bytes. The checks
// of copy_clone_args_from_user and clone3_args_valid, in their order.
SysResult sys_clone3(Task& t, uint64_t args, uint64_t size) {
  struct {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid, set_tid_size,
        cgroup;
  } a{};
  constexpr uint64_t kSizeVer0 = 64, kSizeVer2 = sizeof a;
  if (size > 4096) return -E2BIG;
  if (size < kSizeVer0) return -EINVAL;
  if (emu::copy_in(t.as(), &a, args, std::min<uint64_t>(size, sizeof a)) != 0) return -EFAULT;
  // copy_struct_from_user: bytes past the fields this kernel knows must be readable and zero.
  for (uint64_t off = sizeof a; off < size; off += 8) {
    uint8_t tail[8] = {};
    const uint64_t n = std::min<uint64_t>(8, size - off);
    if (emu::copy_in(t.as(), tail, args + off, n) != 0) return -EFAULT;
    for (uint64_t i = 0; i < n; ++i)
      if (tail[i] != 0) return -E2BIG;
  }
  if (a.set_tid_size > emu::kMaxSetTid) return -EINVAL;
  if ((a.set_tid == 0) != (a.set_tid_size == 0)) return -EINVAL;
  if ((a.exit_signal & ~uint64_t{CSIGNAL}) != 0 || a.exit_signal > 64) return -EINVAL;
  if ((a.flags & CLONE_INTO_CGROUP) && (a.cgroup > INT32_MAX || size < kSizeVer2)) return -EINVAL;
  CloneRequest r;
  if (a.set_tid_size != 0) {
    if (emu::copy_in(t.as(), r.set_tid.data(), a.set_tid, a.set_tid_size * sizeof(int32_t)) != 0)
      return -EFAULT;
    r.set_tid_size = static_cast<uint32_t>(a.set_tid_size);
  }
  // clone3_args_valid: the 32 legacy bits (CSIGNAL and CLONE_DETACHED excepted, CLONE_NEWTIME allowed) and
  // the two clone3-only flags; a signal at exit only for a child of the caller; a stack with a size, in the
  // user address space.
  constexpr uint64_t kClone3Flags = 0xffffffffULL | CLONE_CLEAR_SIGHAND | CLONE_INTO_CGROUP;
  if ((a.flags & ~kClone3Flags) || (a.flags & (CLONE_DETACHED | (CSIGNAL & ~uint64_t{CLONE_NEWTIME}))))
    return -EINVAL;
  if ((a.flags & CLONE_SIGHAND) && (a.flags & CLONE_CLEAR_SIGHAND)) return -EINVAL;
  if ((a.flags & (CLONE_THREAD | CLONE_PARENT)) && a.exit_signal != 0) return -EINVAL;
  if ((a.stack == 0) != (a.stack_size == 0)) return -EINVAL;
  if (a.stack != 0 && !emu::user_range_ok(a.stack, a.stack_size)) return -EINVAL;
  r.flags = a.flags;
  r.exit_signal = static_cast<int>(a.exit_signal);
  r.stack = a.stack ? a.stack + a.stack_size : 0;
  r.tls = a.tls;
  r.parent_tid = a.parent_tid;
  r.child_tid = a.child_tid;
  r.pidfd = a.pidfd;
  r.cgroup = static_cast<int>(a.cgroup);
  return do_clone(t, r);
}

}  // namespace syscalls
