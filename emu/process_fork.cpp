// This file implements process creation for clone: fork, and vfork with shared memory.
#include "emu/process_fork.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "emu/cpu_state.h"
#include "emu/guest_mem.h"

namespace emu {
namespace {

constexpr size_t kVforkStack = size_t{256} * 1024;

// Flags a host process clone can honour as they are (fd table and fs sharing, the parent relationship, new
// namespaces: the host kernel checks the caller's privileges).
constexpr uint64_t kHostCloneFlags = CLONE_FILES | CLONE_FS | CLONE_PARENT | CLONE_SYSVSEM | CLONE_IO |
                                     CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC |
                                     CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET;

void child_setup(Task& t, const ForkRequest& r) {
  if (r.stack) t.cpu().set_sp(r.stack);
  if (r.flags & CLONE_SETTLS) t.cpu().set_reg(UC_ARM64_REG_TPIDR_EL0, r.tls);
  const int pid = static_cast<int>(::getpid());
  if (r.flags & CLONE_CHILD_SETTID) (void)copy_out(t.as(), r.child_tid, &pid, sizeof pid);
  if (r.flags & CLONE_CHILD_CLEARTID) t.clear_child_tid = r.child_tid;
}

int64_t parent_finish(Task& t, const ForkRequest& r, int pid) {
  if (r.flags & CLONE_PARENT_SETTID) (void)copy_out(t.as(), r.parent_tid, &pid, sizeof pid);
  if (r.flags & CLONE_PIDFD) {
    const int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    if (fd >= 0) {
      ::fcntl(fd, F_SETFD, FD_CLOEXEC);
      (void)copy_out(t.as(), r.pidfd, &fd, sizeof fd);
    }
  }
  return pid;
}

struct VforkChild {
  Task* parent;
  Task* child;
  ForkRequest req;
};

int vfork_child_main(void* arg) {
  auto* c = static_cast<VforkChild*>(arg);
  c->child->set_tid(static_cast<int>(::syscall(SYS_gettid)));
  child_setup(*c->child, c->req);
  c->child->run();  // ends in exit_group or execve, both of which leave this process
  _exit(0);
}

// CLONE_VM|CLONE_VFORK: the child is a host process in the emulator's own address space (as glibc's
// posix_spawn does natively), so the guest's writes in the child are the parent's. The calling host thread
// is suspended by the kernel until the child execs or exits.
int64_t vfork_shared(Task& t, const ForkRequest& r) {
  void* stack =
      ::mmap(nullptr, kVforkStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED) return -ENOMEM;
  CpuState st;
  save_cpu_state(t.cpu(), &st);
  st.x[0] = 0;
  VforkChild c{&t, new Task(t.proc(), 0), r};
  c.child->set_vfork_child(true);
  restore_cpu_state(c.child->cpu(), st);
  int pid;
  {
    RunLockReleaser unlocked(t.proc().run_lock(), &t.cpu());
    pid = ::clone(&vfork_child_main, static_cast<char*>(stack) + kVforkStack,
                  CLONE_VM | CLONE_VFORK | static_cast<int>(r.flags & kHostCloneFlags) | r.exit_signal, &c);
  }
  const int err = errno;
  delete c.child;  // the child has exec'd or exited: its vCPU goes back to the pool
  ::munmap(stack, kVforkStack);
  if (pid < 0) return -err;
  return parent_finish(t, r, pid);
}

}  // namespace

int64_t fork_process(Task& t, const ForkRequest& r) {
  if ((r.flags & CLONE_VM) && !(r.flags & CLONE_VFORK)) return -EINVAL;  // not supported: see table.inc
  if (r.flags & CLONE_VM) return vfork_shared(t, r);

  // CLONE_VFORK without CLONE_VM: the parent still waits for the child's exec or exit, seen as the end of a
  // close-on-exec pipe.
  int vfork_pipe[2] = {-1, -1};
  if ((r.flags & CLONE_VFORK) && ::pipe2(vfork_pipe, O_CLOEXEC) != 0) return -errno;

  Process& proc = t.proc();
  proc.prepare_fork();
  pid_t pid;
  if ((r.flags & kHostCloneFlags) == 0 && r.exit_signal == SIGCHLD) {
    pid = ::fork();
  } else {
    pid = static_cast<pid_t>(::syscall(SYS_clone, (r.flags & kHostCloneFlags) | r.exit_signal, 0, 0, 0, 0));
  }
  const int err = errno;
  if (pid == 0) {
    proc.after_fork_child(&t);
    if (vfork_pipe[0] >= 0) ::close(vfork_pipe[0]);
    child_setup(t, r);
    return 0;
  }
  proc.after_fork_parent();
  if (pid < 0) return -err;
  if (vfork_pipe[0] >= 0) {
    ::close(vfork_pipe[1]);
    RunLockReleaser unlocked(proc.run_lock(), &t.cpu());
    char b;
    while (::read(vfork_pipe[0], &b, 1) < 0 && errno == EINTR) {
    }
    ::close(vfork_pipe[0]);
  }
  return parent_finish(t, r, pid);
}

}  // namespace emu
