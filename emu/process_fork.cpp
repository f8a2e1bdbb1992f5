// This file implements process creation for clone: fork, and vfork with shared memory.
#include "emu/process_fork.h"

#include <fcntl.h>
#include <linux/sched.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <vector>

#include "emu/cpu_state.h"
#include "emu/engine_reuse.h"
#include "emu/guest_mem.h"
#include "signals/host_signals.h"
#include "signals/signalfd.h"
#include "syscalls/abi/signal.h"
#include "syscalls/fd_util.h"
#include "syscalls/proc_mem.h"

#if defined(__SANITIZE_ADDRESS__)
#define A64RUN_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define A64RUN_ASAN 1
#endif
#endif
#if defined(A64RUN_ASAN)
#include <sanitizer/asan_interface.h>
#endif

namespace emu {
namespace {

// A child's stack comes from mmap. AddressSanitizer keeps the poisoned redzones of a stack's frames in its
// shadow memory after the stack is unmapped, and a child that shares this thread's TLS leaves many of them:
// ASan takes the child for this thread, finds its stack pointer outside this thread's stack and ignores
// the unpoisoning at each longjmp out of the CPU loop ("ignoring requested __asan_handle_no_return"). A
// later mapping at the same addresses then began inside those redzones: a child's stack (a false
// stack-buffer-overflow in its first frames), or a new thread's stack and TLS (one in the next vmhelper
// thread's read of errno, in the syscall fuzzer's CLONE_VM spawns). So the shadow is clean when a child's
// stack is mapped and again when it is unmapped.
void* map_child_stack(size_t size, int extra_flags) {
  void* stack = ::mmap(nullptr, size, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | extra_flags, -1, 0);
#if defined(A64RUN_ASAN)
  if (stack != MAP_FAILED) __asan_unpoison_memory_region(stack, size);
#endif
  return stack;
}

void unmap_child_stack(void* stack, size_t size) {
#if defined(A64RUN_ASAN)
  __asan_unpoison_memory_region(stack, size);
#endif
  ::munmap(stack, size);
}

constexpr size_t kVforkStack = size_t{256} * 1024;
// A CLONE_VM child runs the emulator for as long as it lives: a thread-sized stack, reserved, not committed.
constexpr size_t kVmChildStack = size_t{8} << 20;

// Flags a host process clone can honour as they are (fd table and fs sharing, the parent relationship, new
// namespaces: the host kernel checks the caller's privileges).
constexpr uint64_t kHostCloneFlags = CLONE_FILES | CLONE_FS | CLONE_PARENT | CLONE_SYSVSEM | CLONE_IO |
                                     CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC |
                                     CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET;

// What only the host's clone3 makes: a child with chosen pids, one started in a cgroup, one in a new time
// namespace (CLONE_NEWTIME is a CSIGNAL bit for clone).
bool needs_host_clone3(const ForkRequest& r) {
  return r.set_tid_size != 0 || (r.flags & (CLONE_INTO_CGROUP | CLONE_NEWTIME)) != 0;
}

struct clone_args host_clone3_args(const ForkRequest& r, uint64_t flags) {
  struct clone_args a {};
  a.flags = flags | (r.flags & (CLONE_INTO_CGROUP | CLONE_NEWTIME));
  a.exit_signal = static_cast<uint64_t>(r.exit_signal);
  if (r.set_tid_size != 0) {
    a.set_tid = reinterpret_cast<uint64_t>(r.set_tid.data());
    a.set_tid_size = r.set_tid_size;
  }
  // The guest's descriptors are the host's, a64run's reserved ones aside (the kernel's fget finds none).
  if (r.flags & CLONE_INTO_CGROUP)
    a.cgroup = syscalls::is_reserved_fd(r.cgroup) ? uint64_t{INT32_MAX} : r.cgroup;
  return a;
}

}  // namespace
}  // namespace emu

// a64run_clone3_fn(args, size, fn, arg): clone3 whose child starts on args->stack in fn(arg) and exits with
// its return value, as glibc's clone(fn, ...) does for clone (which has no set_tid or cgroup). Returns the
// child's pid or -errno in the parent. The child has the caller's registers (the kernel copies them), so fn
// and arg wait in r8 and r9, which the syscall instruction keeps.
extern "C" long a64run_clone3_fn(struct clone_args* args, size_t size, int (*fn)(void*), void* arg);
asm(R"(
  .text
  .globl a64run_clone3_fn
  .type a64run_clone3_fn, @function
a64run_clone3_fn:
  .cfi_startproc
  mov %rdx, %r8
  mov %rcx, %r9
  mov $435, %eax
  syscall
  test %rax, %rax
  jz 1f
  ret
1:
  .cfi_undefined %rip
  xor %ebp, %ebp
  mov %r9, %rdi
  call *%r8
  mov %eax, %edi
  mov $60, %eax
  syscall
  hlt
  .cfi_endproc
  .size a64run_clone3_fn, .-a64run_clone3_fn
)");

namespace emu {
namespace {

// A host process clone whose child runs fn(arg) on [stack, stack + size): glibc's clone, or clone3 when the
// request needs it. Returns the pid, or -1 with errno set.
int host_clone_fn(int (*fn)(void*), char* stack, size_t size, uint64_t flags, const ForkRequest& r,
                  void* arg) {
  if (!needs_host_clone3(r)) return ::clone(fn, stack + size, static_cast<int>(flags) | r.exit_signal, arg);
  struct clone_args a = host_clone3_args(r, flags);
  a.stack = reinterpret_cast<uint64_t>(stack);
  a.stack_size = size;
  const long pid = a64run_clone3_fn(&a, sizeof a, fn, arg);
  if (pid < 0) {
    errno = static_cast<int>(-pid);
    return -1;
  }
  return static_cast<int>(pid);
}

// CLONE_CLEAR_SIGHAND (flush_signal_handlers(t, 0)): every handler back to SIG_DFL, an ignored signal stays
// ignored; flags, masks and restorers cleared. In the child, before its first instruction.
void clear_signal_handlers(Process& proc) {
  signals::ProcessSignals& ps = proc.signals();
  guest::sigaction chld{};
  {
    std::lock_guard lk(ps.sig_lock);
    for (guest::sigaction& a : ps.actions) {
      if (a.handler != guest::kSIG_IGN) a.handler = guest::kSIG_DFL;
      a.sa_flags = 0;
      a.sa_restorer = 0;
      a.sa_mask = 0;
    }
    chld = ps.actions[guest::kSIGCHLD - 1];
  }
  signals::mirror_sigchld_action(chld);
}

void child_setup(Task& t, const ForkRequest& r) {
  if (r.flags & CLONE_CLEAR_SIGHAND) clear_signal_handlers(t.proc());
  if (r.stack) t.cpu().set_sp(r.stack);
  if (r.flags & CLONE_SETTLS) t.cpu().set_reg(UC_ARM64_REG_TPIDR_EL0, r.tls);
  const int pid = static_cast<int>(::getpid());
  if (r.flags & CLONE_CHILD_SETTID) (void)copy_out(t.as(), r.child_tid, &pid, sizeof pid);
  // Linux stores the parent's copy before the child runs; with CLONE_VM the child reads that very word, so
  // it is stored here, before the child's first instruction, not only by the parent after clone returns.
  if ((r.flags & CLONE_PARENT_SETTID) && (r.flags & CLONE_VM))
    (void)copy_out(t.as(), r.parent_tid, &pid, sizeof pid);
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
  Process& proc = c->child->proc();
  Process::set_current(&proc);  // (in the parent thread's TLS, which this process borrows: restored there)
  proc.set_host_pid(static_cast<int>(::getpid()));
  c->child->set_tid(static_cast<int>(::syscall(SYS_gettid)));
  proc.add_thread(c->child);
  child_setup(*c->child, c->req);
  c->child->run();  // ends in exit_group or execve, both of which leave this process
  _exit(0);
}

// A relative is about to run in this memory: the vCPUs share translated blocks no more (emu/tb_share.cpp,
// invariant 6), and each drops its translations, which may chain into another engine's buffer, before it
// runs guest code again.
void stop_sharing_blocks(AddressSpace& as) {
  if (!as.tb_share().on()) return;
  CodeGate::Closed closed(as.gate());
  as.tb_share().turn_off();
  as.invalidate_code();
}

// CLONE_VM|CLONE_VFORK: the child is a host process in the emulator's own address space (as glibc's
// posix_spawn does natively), so the guest's writes in the child are the parent's. The calling host thread
// is suspended by the kernel until the child execs or exits. The child is a guest process of its own (a
// Process sharing this one's memory): what it does to signal actions (Go's child resets every handler) or
// to its pending signals is not the parent's. Its vCPU goes back to this process's pool.
int64_t vfork_shared(Task& t, const ForkRequest& r) {
  void* stack = map_child_stack(kVforkStack, 0);
  if (stack == MAP_FAILED) return -ENOMEM;
  stop_sharing_blocks(t.proc().as());
  auto* proc = new Process(t.proc(), (r.flags & CLONE_SIGHAND) != 0);
  VforkChild c{&t, first_child_thread(t, *proc), r};
  int pid;
  {
    RunLockReleaser unlocked(t.proc().run_lock(), &t.cpu());
    pid = host_clone_fn(&vfork_child_main, static_cast<char*>(stack), kVforkStack,
                        CLONE_VM | CLONE_VFORK | (r.flags & kHostCloneFlags), r, &c);
  }
  const int err = errno;
  Process::set_current(&t.proc());
  // The child has exec'd or exited: its vCPU goes back to this process's pool, reset (emu/engine_reuse.cpp),
  // if it stopped in the system-call hook; one that died in guest code (a fatal signal) may have been
  // translating, and is closed.
  std::unique_ptr<Vcpu> cpu = c.child->release_cpu();
  if (!cpu->in_code() && reset_abandoned_engine(cpu->uc())) t.proc().recycle_vcpu(std::move(cpu));
  cpu.reset();
  delete c.child;
  delete proc;
  unmap_child_stack(stack, kVforkStack);
  if (pid < 0) return -err;
  return parent_finish(t, r, pid);
}

// A clone with CLONE_VM and neither CLONE_THREAD nor CLONE_VFORK: a guest process of its own in this one's
// memory. The host makes the same: a host process cloned with CLONE_VM runs the emulator in the emulator's
// memory, with a Process of its own (threads, pending signals, timers, its intake thread) over the shared
// address space, run lock and futex queues; so guest atomics between the two stay exact. That host process
// needs a thread-local storage block no running thread uses: a helper thread lends its own and makes the
// clone with CLONE_VFORK, so the kernel holds the helper until the child has exec'd or exited; the helper
// then frees what the child left in the shared memory.
struct VmChild {
  Process* proc;
  Task* task;
  ForkRequest req;
  char* stack;
  std::atomic<int>* pid_out;  // the parent's: the child's pid, or -errno from the helper
  signals::Park* parent_park;
};

int vm_child_main(void* arg) {
  auto* c = static_cast<VmChild*>(arg);
  Process& proc = *c->proc;
  Task* task = c->task;
  Process::set_current(&proc);
  const int pid = static_cast<int>(::getpid());
  proc.set_host_pid(pid);
  task->set_tid(pid);
  proc.add_thread(task);
  // Without CLONE_FILES the child's descriptors are copies, its signalfds' pipes still the parent's.
  if (!(c->req.flags & CLONE_FILES)) signals::signalfd_after_fork(proc);
  signals::restart_host_signal_intake(proc);
  child_setup(*task, c->req);
  c->pid_out->store(pid, std::memory_order_release);
  c->parent_park->unpark();
  task->run();  // returns when this thread exits and others of its process live on
  delete task;
  ::syscall(SYS_exit, 0);
  return 0;
}

// After the child's first thread has left the memory: once the child has exec'd nothing of it runs here any
// more; otherwise its other threads may, until the whole child is gone (waitable, or reaped already). By
// pid, not pidfd: no descriptor of the guest's table may appear under its feet. (Should the guest reap the
// child and the pid come back as another child, the wait only frees later.)
void wait_until_gone(const VmChild& c, int pid) {
  if (c.proc->execing.load(std::memory_order_acquire)) return;
  siginfo_t si{};
  while (::waitid(P_PID, static_cast<id_t>(pid), &si, WEXITED | WNOWAIT | __WALL) != 0 && errno == EINTR) {
  }
}

void* vm_helper_main(void* arg) {
  signals::block_after_thread_start();
  auto* c = static_cast<VmChild*>(arg);
  const int self = static_cast<int>(::gettid());
  syscalls::reserve_tid(self);
  syscalls::name_emulator_thread("vmhelper");
  // The child's glibc finds its thread id in this thread's descriptor (rwlocks compare it with their
  // writer's). The kernel zeroes it when this thread dies, and the parent's exit_group kills it at any time:
  // the descriptor keeps the id instead. (glibc then never reuses this thread's stack: a leak of one small
  // stack per CLONE_VM child.)
  ::syscall(SYS_set_tid_address, nullptr);
  const int pid = host_clone_fn(&vm_child_main, c->stack, kVmChildStack,
                                CLONE_VM | CLONE_VFORK | (c->req.flags & kHostCloneFlags), c->req, c);
  if (pid < 0) {
    c->pid_out->store(-errno, std::memory_order_release);
    c->parent_park->unpark();
  } else {
    wait_until_gone(*c, pid);
  }
  // Lifetime: a thread that exits while others live on deletes its own Task; every other Task of the child
  // is still registered once the child is gone (the last thread dies registered: Task::exit_thread), and is
  // deleted here, with it the vCPU that names the process deleted below.
  std::vector<Task*> left;
  c->proc->for_each_thread([&](Task& t) { left.push_back(&t); });
  if (pid < 0) left.push_back(c->task);
  for (Task* t : left) delete t;
  delete c->proc;
  unmap_child_stack(c->stack, kVmChildStack);
  delete c;
  syscalls::unreserve_tid(self);
  return nullptr;
}

int64_t vm_clone(Task& t, const ForkRequest& r) {
  void* stack = map_child_stack(kVmChildStack, MAP_NORESERVE);
  if (stack == MAP_FAILED) return -ENOMEM;
  stop_sharing_blocks(t.proc().as());
  auto* proc = new Process(t.proc(), (r.flags & CLONE_SIGHAND) != 0);
  // (The altstack is not inherited: a new Task has none, as CLONE_VM without CLONE_VFORK clears it.)
  Task* task = first_child_thread(t, *proc);
  std::atomic<int> pid{0};
  auto* c = new VmChild{proc, task, r, static_cast<char*>(stack), &pid, &t.park()};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attr, size_t{256} * 1024);
  pthread_t th;
  const int err = pthread_create(&th, &attr, &vm_helper_main, c);
  pthread_attr_destroy(&attr);
  if (err != 0) {
    delete task;
    delete proc;
    unmap_child_stack(stack, kVmChildStack);
    delete c;
    return -EAGAIN;
  }
  while (pid.load(std::memory_order_acquire) == 0) t.park().wait(nullptr, CLOCK_MONOTONIC);
  const int v = pid.load(std::memory_order_acquire);
  return v < 0 ? v : parent_finish(t, r, v);
}

}  // namespace

int64_t fork_process(Task& t, const ForkRequest& r) {
  if (r.flags & CLONE_FILES) syscalls::note_files_shared();
  if ((r.flags & CLONE_VM) && !(r.flags & CLONE_VFORK)) return vm_clone(t, r);
  if (r.flags & CLONE_VM) return vfork_shared(t, r);

  // CLONE_VFORK without CLONE_VM: the parent still waits for the child's exec or exit, seen as the end of a
  // close-on-exec pipe.
  int vfork_pipe[2] = {-1, -1};
  if ((r.flags & CLONE_VFORK) && ::pipe2(vfork_pipe, O_CLOEXEC) != 0) return -errno;

  Process& proc = t.proc();
  // A shared descriptor table brings descriptors the other process opened: a /proc/PID/mem one among them
  // must be looked at on use (its memory is another a64run's, whose host addresses the host file takes).
  if (r.flags & CLONE_FILES) syscalls::proc_mem_watch_all();
  proc.prepare_fork();
  pid_t pid;
  if (needs_host_clone3(r)) {
    struct clone_args a = host_clone3_args(r, r.flags & kHostCloneFlags);
    pid = static_cast<pid_t>(::syscall(SYS_clone3, &a, sizeof a));
  } else if ((r.flags & kHostCloneFlags) == 0 && r.exit_signal == SIGCHLD) {
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

Task* first_child_thread(Task& t, Process& child_proc) {
  CpuState st;
  save_cpu_state(t.cpu(), &st);
  st.x[0] = 0;
  auto* child = new Task(child_proc, 0, t.proc().take_vcpu(nullptr));
  restore_cpu_state(child->cpu(), st);
  std::lock_guard lk(t.proc().signals().sig_lock);
  child->sig().blocked = t.sig().blocked;
  child->inherit_seccomp(t);
  return child;
}

}  // namespace emu
