// This file owns what guest paths mean on the host: the -L sysroot, and the /proc files that describe the
// guest rather than a64run (exe, cmdline, environ, auxv, maps, smaps, stat, status, comm,
// fdinfo, cpuinfo). /proc/PID/mem and pagemap are the host's files, served by syscalls/proc_mem.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "syscalls/dispatch.h"

namespace syscalls {

// A /proc file that a64run answers itself. Everything else under /proc is the host's.
enum class ProcNode {
  kNone,      // not special: the host's file
  kExe,       // /proc/<self>/exe: the guest executable
  kCmdline,   // the guest's argv
  kEnviron,   // the guest's initial environment
  kAuxv,      // the guest's auxiliary vector
  kMaps,      // the guest's address space
  kSmaps,     // the same, with sizes and residency
  kStat,      // the host's, with the guest's comm and vsize
  kStatus,    // the host's, with the guest's Name and VmSize
  kComm,      // the guest's command name
  kLimits,    // the host's, with the limits a64run keeps for the guest (RLIMIT_AS, RLIMIT_SIGPENDING)
  kFdInfo,    // /proc/<self>/fdinfo/<n>: the host's, with guest open flags
  kHiddenFd,  // fd/<n> or fdinfo/<n> of an emulator-reserved descriptor: ENOENT
  kCpuinfo,   // /proc/cpuinfo: an aarch64 CPU
};

// The classification of an absolute guest path.
struct ProcPath {
  ProcNode node = ProcNode::kNone;
  std::string host_dir;  // the host's directory for the same process or thread ("/proc/self", ...)
  int fd = -1;           // for kFdInfo and kHiddenFd
  // For kStat and kStatus of another process (/proc/<peer>/stat, status): its pid. Only its thread count
  // is fixed, and only when it is another a64run (read_guest_path checks; the node is kNone otherwise).
  int peer = 0;
};

// Classifies a guest path (pure). /proc/self, /proc/thread-self, /proc/<pid> and /proc/<pid>/task/<tid> name
// the guest when <pid> is `pid` or `tid`; repeated slashes and "." components are ignored. `reserved`
// says whether an fd number belongs to the emulator. /proc/<other pid>/stat and status are kStat and
// kStatus with `peer` set.
ProcPath classify_proc_path(std::string_view path, int pid, int tid, bool (*reserved)(int));

// A path argument read from the guest and resolved for the host.
struct GuestPath {
  // What to hand to a host call that follows a final symlink (relative paths stay relative).
  std::string host;
  // The same for a call that acts on a final symlink itself: differs from `host` when the sysroot's copy
  // is a symlink, which a64run follows itself (emu/sysroot.h).
  std::string host_nofollow;
  std::string link;  // for kExe: the /proc link itself
  ProcPath proc;     // what it names under /proc
  // An absolute path outside /proc that the sysroot rule left as the host's own (Sysroot::Resolved).
  bool hosts = false;

  // What to hand to a host call that acts on a final symlink itself (lstat, readlink, unlink, rename...).
  const std::string& nofollow() const { return proc.node == ProcNode::kExe ? link : host_nofollow; }
  // True for the /proc files open_proc_file serves.
  bool synthesized() const {
    return proc.node != ProcNode::kNone && proc.node != ProcNode::kExe && proc.node != ProcNode::kHiddenFd;
  }
};

// Reads and resolves a path argument: absolute paths go through the sysroot rule (emu/sysroot.h),
// /proc/<self>/exe becomes the guest executable, an emulator fd under /proc/<self>/fd is ENOENT, and a
// relative path against a reserved dirfd is EBADF. Returns 0 or -EFAULT, -ENAMETOOLONG, -ENOENT, -EBADF,
// -ELOOP (too many symlinks of the sysroot before the final component).
int64_t read_guest_path(Task& t, int dirfd, GuestCStr p, GuestPath* out);

// Opens a file a64run synthesizes (proc.node is not kNone, kExe or kHiddenFd) with the guest's host-side
// open flags. The file is a sealed read-only memfd, so read, lseek, fstat and mmap work. Returns a new fd
// or -errno.
int64_t open_proc_file(Task& t, const ProcPath& proc, int host_flags);

// PROCMAP_QUERY (Linux 6.11), the ioctl of a /proc/<pid>/maps file: kNotMapsFile when fd is no maps file
// open_proc_file served (the caller goes on), else the ioctl's result.
inline constexpr uint32_t kProcmapQuery = 0xc0686611;  // _IOWR('f', 17, struct procmap_query)
inline constexpr int64_t kNotMapsFile = INT64_MIN + 3;
int64_t procmap_query(Task& t, int fd, uint64_t arg);

// The guest's command name: the host's comm, unless it is still a64run's own, then the program's basename
// (both at most 15 bytes, as the kernel's TASK_COMM_LEN).
std::string guest_comm(std::string_view host_comm, std::string_view emulator_comm, std::string_view program);

// The calling thread's command name as the guest sees it (prctl(PR_GET_NAME), /proc/thread-self/comm): its
// host thread's, through guest_comm. Empty when the host does not answer.
std::string calling_thread_comm(Task& t);

// /proc/<self>/limits of the host with one line's soft and hard values replaced (pure): the line that
// starts with `name`, in the kernel's columns (proc_pid_limits: %-25s, two %-20s, the unit). UINT64_MAX
// reads "unlimited".
std::string fix_proc_limits(std::string_view host_limits, std::string_view name, uint64_t cur, uint64_t max);

// A guest thread's signals as fs/proc/array.c shows them (task_sig, collect_sigign_sigcatch): its own pending
// set, its process's shared one, its blocked mask, the actions that are SIG_IGN and those with a handler
// (bit sig - 1 each), and the signals queued against RLIMIT_SIGPENDING with the guest's limit of them
// (none: the host's stands).
struct ProcSignals {
  uint64_t pending = 0, shared_pending = 0, blocked = 0, ignored = 0, caught = 0;
  uint64_t queued = 0;
  std::optional<uint64_t> queue_limit;
};

// /proc/<pid>/stat of the host with field 2 (comm), 20 (num_threads, less the emulator's `hidden_threads`),
// 23 (vsize), unless 0 28 (startstack), and with `sigs` 31 to 34 (signal, blocked, sigignore, sigcatch: the
// low 31 bits, as do_task_stat prints them) replaced (pure); an empty comm or a zero vsize keeps the host's.
// Returns the input unchanged when it does not parse.
std::string fix_proc_stat(std::string_view host_stat, std::string_view comm, uint64_t vsize,
                          uint64_t start_stack, int hidden_threads, const ProcSignals* sigs = nullptr);

// /proc/<pid>/status of the host with the Name:, VmSize: and Threads: lines replaced as fix_proc_stat does
// (pure).
// seccomp_mode >= 0: the Seccomp: and Seccomp_filters: lines are the guest thread's.
// sigs: the SigQ:, SigPnd:, ShdPnd:, SigBlk:, SigIgn: and SigCgt: lines are (the host's are a64run's own).
std::string fix_proc_status(std::string_view host_status, std::string_view comm, uint64_t vsize,
                            int hidden_threads, int seccomp_mode = -1, int seccomp_filters = 0,
                            const ProcSignals* sigs = nullptr);

// /proc/<pid>/fdinfo/<n> of the host with its "flags:" line in guest open flags (pure).
std::string fix_proc_fdinfo(std::string_view host_fdinfo);

// /proc/cpuinfo for `ncpu` processors with the features in AT_HWCAP/AT_HWCAP2 and the given MIDR_EL1 (pure).
std::string render_cpuinfo(int ncpu, uint64_t hwcap, uint64_t hwcap2, uint64_t midr);

}  // namespace syscalls
