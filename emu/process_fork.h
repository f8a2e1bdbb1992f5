// fork_process: clone without CLONE_THREAD. A host fork makes the child (copy-on-write guest memory, every
// emulator lock re-initialised, only the calling thread kept); CLONE_VM|CLONE_VFORK (posix_spawn) makes a
// host process that shares the guest's memory while the parent waits for its exec or exit; CLONE_VM alone
// makes a host process that shares it for its whole life.
#pragma once

#include <array>
#include <cstdint>

#include "emu/task.h"

namespace emu {

struct ForkRequest {
  uint64_t flags = 0;  // CLONE_* without the exit signal
  int exit_signal = 0;
  uint64_t stack = 0;  // new SP or 0
  uint64_t tls = 0;
  uint64_t parent_tid = 0;
  uint64_t child_tid = 0;
  uint64_t pidfd = 0;
  // clone3 only: the pids to give the child (set_tid, innermost PID namespace first) and the cgroup directory
  // to start it in (CLONE_INTO_CGROUP): the host's clone3 makes such a child, and checks them.
  std::array<int32_t, 32> set_tid{};
  uint32_t set_tid_size = 0;
  int cgroup = -1;
};

// MAX_PID_NS_LEVEL: the most pids clone3's set_tid may name.
inline constexpr uint64_t kMaxSetTid = 32;

// Returns the child's pid in the parent (0 in the child) or a negative errno.
int64_t fork_process(Task& t, const ForkRequest& r);

// A new thread cloned from `t` that runs in this memory: `t`'s registers with x0 = 0 (the child's return
// value) and its signal mask (copy_process), on a vCPU from `t`'s pool. In `child_proc`: `t`'s own process
// for a thread (clone's CLONE_THREAD), a new one for the first thread of vfork_shared and vm_clone.
Task* first_child_thread(Task& t, Process& child_proc);

}  // namespace emu
