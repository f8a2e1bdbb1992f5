// This file implements SysV shared memory: shmget and shmctl are the host's calls with the structs
// translated; shmat attaches the host segment into the guest window (AddressSpace::attach_segment) and shmdt
// takes it out, so the host kernel keeps the attach counts, fork's inheritance and the detaching at execve
// and exit, as Linux does for the guest.
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "syscalls/abi/errno.h"
#include "syscalls/sys_ipc.h"

namespace syscalls {
namespace {

using guest::from_host;

long host_shmctl(int shmid, int cmd, void* buf) {
  return ::syscall(SYS_shmctl, shmid, cmd, buf);
}

// The segment's size, or 0 when the host no longer says (shmdt then detaches the first piece only).
uint64_t segment_size(uint64_t id) {
  ::shmid64_ds ds{};
  return host_shmctl(static_cast<int>(id), IPC_STAT, &ds) == 0 ? ds.shm_segsz : 0;
}

template <typename H>
SysResult copy_out_struct(Task& t, uint64_t buf, const H& host, int64_t result) {
  const auto g = guest::to_guest(host);
  return emu::copy_out(t.as(), buf, &g, sizeof g) != 0 ? -EFAULT : result;
}

}  // namespace

SysResult sys_shmget(Task&, int32_t key, uint64_t size, int shmflg) {
  return from_host(::syscall(SYS_shmget, key, size, shmflg));
}

// do_shmat's order: the address (SHMLBA, SHM_RND, SHM_REMAP), the segment and the caller's access to it
// (the host's IPC_STAT fails exactly where its shmat would, both needing read access), then the place in the
// window. The segment is attached there by the host with SHM_REMAP over the reservation.
SysResult sys_shmat(Task& t, int shmid, uint64_t addr, int shmflg) {
  if (shmid < 0) return -EINVAL;
  const bool fixed = addr != 0;
  if (fixed) {
    if (addr & (guest::kSHMLBA - 1)) {
      if (!(shmflg & guest::kSHM_RND)) return -EINVAL;
      addr &= ~(guest::kSHMLBA - 1);
      if (addr == 0 && (shmflg & guest::kSHM_REMAP)) return -EINVAL;
    }
  } else if (shmflg & guest::kSHM_REMAP) {
    return -EINVAL;
  }
  ::shmid64_ds ds{};
  if (host_shmctl(shmid, IPC_STAT, &ds) != 0) return guest::neg_errno();
  int prot = PROT_READ;
  if (!(shmflg & guest::kSHM_RDONLY)) prot |= PROT_WRITE;
  if (shmflg & guest::kSHM_EXEC) prot |= PROT_EXEC;
  emu::MapSource info;
  info.inode = static_cast<uint64_t>(shmid);
  info.name = fmt::format("/SYSV{:08x} (deleted)", static_cast<uint32_t>(ds.shm_perm.key));
  const int host_flags = (shmflg & (guest::kSHM_RDONLY | guest::kSHM_EXEC)) | SHM_REMAP;
  auto attach = [shmid, host_flags](void* at) -> int64_t {
    return ::syscall(SYS_shmat, shmid, at, host_flags) == -1 ? guest::neg_errno() : 0;
  };
  if (fixed && addr == 0) return -EPERM;  // below vm.mmap_min_addr
  return t.as().attach_segment(addr, ds.shm_segsz, fixed && (shmflg & guest::kSHM_REMAP), prot, info, attach);
}

SysResult sys_shmdt(Task& t, uint64_t addr) {
  return t.as().detach_segment(addr, &segment_size);
}

// ksys_shmctl: IPC_SET reads the guest's struct before anything else; the others are the host's call, whose
// struct is translated on the way out (a fault there is EFAULT after the call took effect, as on Linux).
SysResult sys_shmctl(Task& t, int shmid, int cmd, uint64_t buf) {
  switch (cmd) {
    case guest::kIPC_INFO: {
      ::shminfo64 h{};
      const long r = host_shmctl(shmid, cmd, &h);
      return r < 0 ? guest::neg_errno() : copy_out_struct(t, buf, h, r);
    }
    case guest::kSHM_INFO: {
      ::shm_info h{};
      const long r = host_shmctl(shmid, cmd, &h);
      return r < 0 ? guest::neg_errno() : copy_out_struct(t, buf, h, r);
    }
    case guest::kIPC_STAT:
    case guest::kSHM_STAT:
    case guest::kSHM_STAT_ANY: {
      ::shmid64_ds h{};
      const long r = host_shmctl(shmid, cmd, &h);
      return r < 0 ? guest::neg_errno() : copy_out_struct(t, buf, h, r);
    }
    case guest::kIPC_SET: {
      guest::shmid64_ds g{};
      if (emu::copy_in(t.as(), &g, buf, sizeof g) != 0) return -EFAULT;
      ::shmid64_ds h = guest::to_host(g);
      return from_host(host_shmctl(shmid, cmd, &h));
    }
    case guest::kIPC_RMID:
    case guest::kSHM_LOCK:
    case guest::kSHM_UNLOCK:
      return from_host(host_shmctl(shmid, cmd, nullptr));
    default:
      return -EINVAL;
  }
}

}  // namespace syscalls
