// Guest file descriptors are host descriptors. This file owns the few the emulator keeps for itself (hidden
// from the guest) and small fd helpers shared by the syscall areas.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace syscalls {

// Writes all of `data` to fd from its offset: 0, or -errno (-EIO when the file takes no more).
int64_t write_all(int fd, std::string_view data);
// State an execve hands to the new a64run (the seccomp filters, the pending signals): a memory file holding
// `data`, inherited across the exec (no close-on-exec); its fd, or -errno.
int exec_memfd(const char* name, std::string_view data);
// Reads the whole of such a file and closes it: false when it cannot be read or is longer than `limit`.
bool read_exec_memfd(int fd, size_t limit, std::string* out);
// Marks fd as the emulator's: guest syscalls on it fail with EBADF and close_range skips it.
void reserve_fd(int fd);
bool is_reserved_fd(int fd);
// Moves an emulator-owned fd up out of the way of the guest's low numbers, marks it reserved and
// close-on-exec, and returns the new number.
int make_reserved_fd(int fd);
// Whether this process's descriptor table may be shared with another process: set by a clone with
// CLONE_FILES (before it, so the child has it too), never cleared. close_range's CLOSE_RANGE_UNSHARE then
// unshares first, as the kernel does for a table with more than one user.
void note_files_shared();
bool files_maybe_shared();
// Threads the emulator runs for itself (the host signal intake, a CLONE_VM child's helper): hidden from
// /proc/self/task and the Threads: count of /proc/self/status. A fork child clears the table.
void reserve_tid(int tid);
void unreserve_tid(int tid);
void clear_reserved_tids();
bool is_reserved_tid(int tid);
int reserved_tid_count();
// Names the calling emulator thread "a64run:<role>" (its host comm), which is how /proc views of another
// a64run process tell its emulator threads from its guest threads (emulator_thread_count).
void name_emulator_thread(const char* role);
// Whether host process `pid` runs a64run (this executable), and how many of its threads are a64run's own.
bool is_a64run_process(int pid);
int emulator_thread_count(int pid);
// Whether the process (or thread) at proc_dir ("/proc/123", "/proc/123/task/124") runs an a64run: this
// executable, or any a64run build (a thread named as name_emulator_thread names them).
bool runs_a64run(const std::string& proc_dir);
bool is_emulator_thread(int pid, int tid);
// The path a host fd refers to (readlink of /proc/self/fd/N), or empty.
std::string fd_path(int fd);

}  // namespace syscalls
