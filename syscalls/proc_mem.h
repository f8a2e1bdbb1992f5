// The guest's view of process memory through /proc: /proc/PID/mem and /proc/PID/pagemap descriptors, whose
// offsets are guest addresses (for pagemap, guest page numbers times 8), and the same translation for
// process_vm_readv/writev. The host's files take host addresses, which would reach a64run's own memory, so
// every host descriptor of such a file that enters the guest's table is noted here (an open of any path,
// SCM_RIGHTS, pidfd_getfd, a descriptor inherited across execve) and a64run serves its reads and writes.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "syscalls/abi/types.h"
#include "syscalls/dispatch.h"

namespace syscalls {

// Whose memory a /proc/PID/mem or pagemap descriptor, or a process_vm pid, reaches.
enum class MemTargetKind : uint8_t {
  kPassThrough,  // a process that runs no a64run (its addresses are its own), or memory that is gone
  kOwn,          // this process's guest memory (a CLONE_VM relative's is the same)
  kWindow,       // another a64run process of this build (a fork relative, an exec'd child): guest address a
                 // is at host address base + a there
  kRefused,      // an a64run whose window cannot be found (another build): nothing is mapped there
};

struct MemTarget {
  MemTargetKind kind = MemTargetKind::kPassThrough;
  uint64_t base = 0;  // kWindow: its window
  uint64_t size = 0;
  std::string dir;  // its /proc directory ("/proc/123", "/proc/123/task/124")
};

// This process's window, published at a fixed address of a64run's image for other a64run processes to read
// through /proc/PID/mem (main.cpp, once the address space exists). A fork child (not a CLONE_VM one) gets a
// memory identity of its own, which tells its memory from its parent's.
void publish_window(const emu::AddressSpace& as);
void proc_mem_after_fork();

// A descriptor entered the guest's table: notes it when it is a /proc/PID/mem or pagemap file (a fstat).
void proc_mem_note_fd(int fd);
// Every guest descriptor a new a64run image inherited.
void proc_mem_note_inherited();
// A source of descriptors a64run does not see open (fanotify's events): from now on every read and write
// looks at its descriptor.
void proc_mem_watch_all();

// The read and write family on one descriptor.
struct MemIo {
  bool write = false;
  bool vector = false;  // iov/iovcnt (readv...), else buf/count (read, pread64...)
  uint64_t buf = 0, count = 0;
  uint64_t iov = 0, iovcnt = 0;
  int64_t pos = -1;  // -1: the file position
  int flags = 0;     // RWF_* of preadv2/pwritev2
};
// Serves io when fd is a noted /proc/PID/mem or pagemap descriptor of an a64run process: the byte count or
// -errno, as Linux's mem_rw and pagemap_read give them (the file position moves by what was done).
// kNotProcMem when fd is anything else (the caller makes the host call).
inline constexpr int64_t kNotProcMem = INT64_MIN + 2;
int64_t proc_mem_io(Task& t, int fd, const MemIo& io);
// Whether fd is a mem or pagemap descriptor, and its target (proc_mem_io's lookup; a descriptor of such a
// file that was never noted is noted now). Cheap (one relaxed load) until the guest has met such a file.
bool proc_mem_lookup(int fd, MemTarget* target, bool* pagemap);

// process_vm_readv/writev's target: pid's memory, classified through a /proc/PID/mem descriptor that pins it
// (*memfd, opened for writing when `write`, for kWindow only; the caller closes it). Returns 0, -ESRCH or
// -EPERM.
int64_t classify_pid(int pid, bool write, MemTarget* out, int* memfd);

// The host mappings of another process inside [lo, hi) that a /proc/PID/mem access reaches (any protection
// but PROT_NONE: a64run's window reservation is PROT_NONE), joined, from its maps file.
class HostMaps {
 public:
  bool load(const std::string& proc_dir, uint64_t lo, uint64_t hi);
  // How many bytes from addr on (at most len) lie in mapped ranges without a gap.
  uint64_t prefix(uint64_t addr, uint64_t len) const;
  const std::vector<std::pair<uint64_t, uint64_t>>& ranges() const { return ranges_; }

 private:
  std::vector<std::pair<uint64_t, uint64_t>> ranges_;
};

// Copies between a target a64run's window (through its mem descriptor) and the guest's local iovecs, as
// process_vm_rw_core: remote segments in order, stopping at the first fault on either side. Returns the
// byte count, or -EFAULT when nothing moved.
int64_t window_transfer(Task& t, int memfd, const MemTarget& target, std::span<const guest::iovec> local,
                        std::span<const guest::iovec> remote, bool write);

}  // namespace syscalls
