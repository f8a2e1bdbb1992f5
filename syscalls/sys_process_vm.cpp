// This file implements the calls that look into other processes: process_vm_readv/writev and kcmp, as the
// host's calls on the host processes behind guest pids (a guest pid is a host pid). The local buffers are
// checked against this process's guest window (HostIovecs, or checked copies); the remote addresses are
// guest addresses of the target's window when it runs a64run (syscalls/proc_mem.h): this process's own (a
// thread, a CLONE_VM relative) goes to the host call within the guest's mappings and protections, another
// a64run's through a /proc/PID/mem descriptor at its window's host addresses, and a process that runs no
// a64run gets them as they are.
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "syscalls/abi/errno.h"
#include "syscalls/abi/iovec.h"
#include "syscalls/abi/types.h"
#include "syscalls/host_call.h"
#include "syscalls/proc_mem.h"
#include "syscalls/sys_file.h"
#include "syscalls/sys_process_vm.h"

namespace syscalls {
namespace {

using guest::from_host;

constexpr int kKcmpEpollTfd = 7;  // KCMP_EPOLL_TFD: idx2 points to a struct kcmp_epoll_slot

// iovec_from_user: at most UIO_MAXIOV, copied in, no length negative as ssize_t. Remote addresses are not
// checked (process_vm_rw_core faults on them as it reaches them).
int64_t guest_iovecs(Task& t, uint64_t addr, uint64_t count, std::vector<guest::iovec>* out) {
  if (count > static_cast<uint64_t>(guest::kUIO_MAXIOV)) return -EINVAL;
  out->resize(count);
  if (count != 0 && emu::copy_in(t.as(), out->data(), addr, count * sizeof(guest::iovec)) != 0)
    return -EFAULT;
  for (const guest::iovec& v : *out) {
    if (static_cast<int64_t>(v.iov_len) < 0) return -EINVAL;
  }
  return 0;
}

// This process's own memory as the remote side: the host stops where the guest's pages end or lack `prot`,
// as pin_user_pages_remote (no FOLL_FORCE) would, and nothing of the rest is handed on.
std::vector<::iovec> own_remote(Task& t, const std::vector<guest::iovec>& g, int prot) {
  std::vector<::iovec> out;
  for (const guest::iovec& v : g) {
    if (v.iov_len == 0) {
      out.push_back({nullptr, 0});
      continue;
    }
    const HostTransfer b = host_transfer(t.as(), v.iov_base, v.iov_len, prot);
    out.push_back({b.ptr, b.len});
    if (b.ptr == kHostFaultAddr || b.len < v.iov_len) break;
  }
  return out;
}

// A process that runs no a64run: its addresses are its own.
std::vector<::iovec> as_given(const std::vector<guest::iovec>& g) {
  std::vector<::iovec> out;
  out.reserve(g.size());
  for (const guest::iovec& v : g) out.push_back({reinterpret_cast<void*>(v.iov_base), v.iov_len});
  return out;
}

struct VmRequest {
  int pid;
  uint64_t local, liovcnt, remote, riovcnt, flags;
};

// process_vm_rw: flags, the local vector (a zero total is 0), the remote vector (nothing to copy is 0),
// then the target, then the copy.
SysResult process_vm(Task& t, long nr, const VmRequest& q, int local_prot) {
  if (q.flags != 0) return -EINVAL;
  HostIovecs lv;
  if (const int64_t r = lv.import(t.as(), q.local, q.liovcnt, local_prot); r < 0) return r;
  if (lv.total() == 0) return 0;
  std::vector<guest::iovec> rv;
  if (const int64_t r = guest_iovecs(t, q.remote, q.riovcnt, &rv); r < 0) return r;
  if (std::all_of(rv.begin(), rv.end(), [](const guest::iovec& v) { return v.iov_len == 0; })) return 0;
  const bool write = nr == SYS_process_vm_writev;
  MemTarget target;
  int memfd = -1;
  if (const int64_t r = classify_pid(q.pid, write, &target, &memfd); r < 0) return r;
  switch (target.kind) {
    case MemTargetKind::kOwn: {
      const std::vector<::iovec> h = own_remote(t, rv, write ? PROT_WRITE : PROT_READ);
      return from_host(::syscall(nr, ::getpid(), lv.data(), lv.count(), h.data(), h.size(), 0));
    }
    case MemTargetKind::kWindow: {
      std::vector<guest::iovec> local;
      (void)guest_iovecs(t, q.local, q.liovcnt, &local);  // read and checked by lv.import already
      (void)guest::clamp_iovecs(local);
      const int64_t r = window_transfer(t, memfd, target, local, rv, write);
      ::close(memfd);
      return r;
    }
    case MemTargetKind::kRefused:
      return -EFAULT;  // an a64run whose window is unknown: as if nothing were mapped there
    default: {
      const std::vector<::iovec> h = as_given(rv);
      return from_host(::syscall(nr, q.pid, lv.data(), lv.count(), h.data(), h.size(), 0));
    }
  }
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
