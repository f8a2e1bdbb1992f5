// This file implements the calls that look into other processes: process_vm_readv/writev and kcmp, as the
// host's calls on the host processes behind guest pids (a guest pid is a host pid). The local buffers are
// checked against this process's guest window (HostIovecs); the remote addresses are guest addresses in a
// process with this process's window layout (a fork relative, or this process itself), so they are moved
// by this window's base, and an address outside any window reaches the host as a faulting one.
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <vector>

#include "syscalls/abi/errno.h"
#include "syscalls/abi/types.h"
#include "syscalls/host_call.h"
#include "syscalls/sys_file.h"
#include "syscalls/sys_process_vm.h"

namespace syscalls {
namespace {

using guest::from_host;

constexpr int kKcmpEpollTfd = 7;  // KCMP_EPOLL_TFD: idx2 points to a struct kcmp_epoll_slot

// The remote vector: guest addresses in this window's layout, moved by its base.
int64_t remote_iovecs(Task& t, uint64_t remote, uint64_t count, std::vector<::iovec>* out) {
  if (count > static_cast<uint64_t>(guest::kUIO_MAXIOV)) return -EINVAL;
  std::vector<guest::iovec> g(count);
  if (count != 0 && emu::copy_in(t.as(), g.data(), remote, count * sizeof(guest::iovec)) != 0) return -EFAULT;
  out->resize(count);
  const uint64_t window = t.as().size();
  for (size_t i = 0; i < count; ++i) {
    const bool inside = g[i].iov_base <= window && g[i].iov_len <= window - g[i].iov_base;
    (*out)[i].iov_base = inside ? t.as().host(g[i].iov_base) : kHostFaultAddr;
    (*out)[i].iov_len = g[i].iov_len;
  }
  return 0;
}

struct VmRequest {
  int pid;
  uint64_t local, liovcnt, remote, riovcnt, flags;
};

// process_vm_rw: flags, the local vector, the remote vector, then the host's call.
SysResult process_vm(Task& t, long nr, const VmRequest& q, int local_prot) {
  if (q.flags != 0) return -EINVAL;
  HostIovecs lv;
  if (const int64_t r = lv.import(t.as(), q.local, q.liovcnt, local_prot); r < 0) return r;
  std::vector<::iovec> rv;
  if (const int64_t r = remote_iovecs(t, q.remote, q.riovcnt, &rv); r < 0) return r;
  return from_host(::syscall(nr, q.pid, lv.data(), lv.count(), rv.data(), rv.size(), 0));
}

}  // namespace

SysResult sys_process_vm_readv(Task& t, int pid, uint64_t local, uint64_t liovcnt, uint64_t remote,
                               uint64_t riovcnt, uint64_t flags) {
  return process_vm(t, SYS_process_vm_readv, {pid, local, liovcnt, remote, riovcnt, flags}, PROT_WRITE);
}

SysResult sys_process_vm_writev(Task& t, int pid, uint64_t local, uint64_t liovcnt, uint64_t remote,
                                uint64_t riovcnt, uint64_t flags) {
  return process_vm(t, SYS_process_vm_writev, {pid, local, liovcnt, remote, riovcnt, flags}, PROT_READ);
}

// kcmp(2): every type compares host objects (files, memory, fd tables, fs, signal handlers, I/O contexts,
// undo lists), which are the guest's. KCMP_EPOLL_TFD's slot is read here.
SysResult sys_kcmp(Task& t, int pid1, int pid2, int type, uint64_t idx1, uint64_t idx2) {
  struct {
    uint32_t efd, tfd, toff;
  } slot{};
  uint64_t arg2 = idx2;
  if (type == kKcmpEpollTfd) {
    arg2 = emu::copy_in(t.as(), &slot, idx2, sizeof slot) == 0 ? reinterpret_cast<uint64_t>(&slot)
                                                               : reinterpret_cast<uint64_t>(kHostFaultAddr);
  }
  return from_host(::syscall(SYS_kcmp, pid1, pid2, type, idx1, arg2));
}

}  // namespace syscalls
