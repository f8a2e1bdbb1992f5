// seccomp(2) and prctl's PR_SET_SECCOMP/PR_GET_SECCOMP: strict mode and classic BPF filters, run by a64run
// on the guest's own system calls before it handles them (docs/seccomp.md). A filter is the kernel's to
// check (bpf_check_classic, seccomp_check_filter) and to run (the classic BPF machine), bit for bit; its
// chain is a thread's, inherited by its new threads and processes and kept across execve.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "syscalls/abi/seccomp.h"
#include "syscalls/dispatch.h"

namespace syscalls::seccomp {

// One filter of a thread's chain. Immutable once attached: threads, processes and the chain's newer
// filters share it (Linux's seccomp_filter, refcounted the same way).
struct Filter {
  std::vector<guest::sock_filter> prog;
  std::shared_ptr<const Filter> prev;  // the filter attached before this one
  bool log = false;                    // SECCOMP_FILTER_FLAG_LOG
};
using Chain = std::shared_ptr<const Filter>;

// The kernel's checks of a program, as seccomp_prepare_filter makes them: 0 or -EINVAL.
int64_t check_program(std::span<const guest::sock_filter> prog);
// Runs one checked program over `data` (the classic BPF machine as Linux converts it: a division by a zero
// X returns 0, shifts by X take its low five bits).
uint32_t run_program(std::span<const guest::sock_filter> prog, const guest::seccomp_data& data);
// Runs every filter of the chain, newest first; the result with the lowest action (as a signed number)
// wins, the newest among equals (seccomp_run_filters).
uint32_t run_chain(const Filter* chain, const guest::seccomp_data& data);
int chain_size(const Filter* chain);

// The dispatcher's check of one system call on a thread in seccomp mode (t.seccomp_mode != 0): true when the
// call is to run; false when the filter decided, with *result what the call returns (kNoReturnValue when the
// thread is gone or a SIGSYS handler now runs).
bool allows(Task& t, int nr, const uint64_t* regs, SysResult* result);

// prctl(PR_GET_SECCOMP) and prctl(PR_SET_SECCOMP, mode, filter).
SysResult prctl_get(Task& t);
SysResult prctl_set(Task& t, uint64_t mode, uint64_t filter);

// The thread's mode and filter count, as /proc/<pid>/status shows them; false for a thread the process no
// longer has.
bool status_of(Task& t, int tid, int* mode, int* filters);

// execve: the chain travels to the a64run that runs the new program in a memory file it reads at its
// start (--exec-seccomp=FD). exec_fd makes that file (-1 for a thread without filters, or -errno);
// read_exec_fd reads, checks and closes it.
int exec_fd(Task& t);
std::string serialize(const Filter* chain);
bool deserialize(std::string_view bytes, Chain* out);
bool read_exec_fd(int fd, Chain* out);
// The first thread of the new program takes the chain read at start, in filter mode.
void install_exec_chain(Task& t, Chain chain);

}  // namespace syscalls::seccomp

namespace syscalls {
SysResult sys_seccomp(Task& t, uint32_t op, uint32_t flags, uint64_t uargs);
}  // namespace syscalls
