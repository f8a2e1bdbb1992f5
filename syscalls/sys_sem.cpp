// This file implements SysV semaphores on the host's semaphore sets: semget and semctl are the host's calls
// with semid64_ds (whose x86-64 layout differs) and the value arrays translated; semop and semtimedop are the
// host's call made interruptible (ipc_wait.h). SEM_UNDO is the host's: the guest's threads are the host
// process's threads (CLONE_SYSVSEM), a guest fork is a host fork (no undo list), and the host applies the
// undo list when the process exits, as Linux does for the guest.
#include <sys/syscall.h>
#include <unistd.h>

#include <vector>

#include "signals/park.h"
#include "signals/safe_syscall.h"
#include "syscalls/abi/errno.h"
#include "syscalls/host_call.h"
#include "syscalls/ipc_wait.h"
#include "syscalls/sys_ipc.h"

namespace syscalls {
namespace {

using guest::from_host;

long host_semctl(int semid, int semnum, int cmd, unsigned long arg) {
  return ::syscall(SYS_semctl, semid, semnum, cmd, arg);
}
unsigned long arg_ptr(void* p) {
  return reinterpret_cast<unsigned long>(p);
}

template <typename H>
SysResult copy_out_struct(Task& t, uint64_t buf, const H& host, int64_t result) {
  const auto g = guest::to_guest(host);
  return emu::copy_out(t.as(), buf, &g, sizeof g) != 0 ? -EFAULT : result;
}

// The number of semaphores in the set (GETALL and SETALL need it for their arrays), or -errno.
int64_t set_size(int semid) {
  ::semid64_ds ds{};
  if (host_semctl(semid, 0, IPC_STAT, arg_ptr(&ds)) != 0) return guest::neg_errno();
  return static_cast<int64_t>(ds.sem_nsems);
}

SysResult get_all(Task& t, int semid, uint64_t array) {
  const int64_t n = set_size(semid);
  if (n < 0) return n;
  std::vector<uint16_t> vals(static_cast<size_t>(n));
  if (host_semctl(semid, 0, GETALL, arg_ptr(vals.data())) != 0) return guest::neg_errno();
  return emu::copy_out(t.as(), array, vals.data(), vals.size() * sizeof(uint16_t)) != 0 ? -EFAULT : 0;
}

// semctl_main's order: the set and the caller's right to alter it, then the guest's array (EFAULT), then
// the values (ERANGE). An unreadable array goes to the host as a faulting address, so the host's checks
// come first as on Linux.
SysResult set_all(Task& t, int semid, uint64_t array) {
  const int64_t n = set_size(semid);
  if (n < 0) return n;
  std::vector<uint16_t> vals(static_cast<size_t>(n));
  void* p = vals.data();
  if (emu::copy_in(t.as(), vals.data(), array, vals.size() * sizeof(uint16_t)) != 0) p = kHostFaultAddr;
  return from_host(host_semctl(semid, 0, SETALL, arg_ptr(p)));
}

// The namespace's SEMOPM (semop's E2BIG limit), from the host.
uint32_t host_semopm() {
  ::seminfo si{};
  return host_semctl(0, 0, IPC_INFO, arg_ptr(&si)) < 0 ? guest::kSEMOPM : static_cast<uint32_t>(si.semopm);
}

}  // namespace

SysResult sys_semget(Task&, int32_t key, int nsems, int semflg) {
  return from_host(::syscall(SYS_semget, key, nsems, semflg));
}

// semctl(2): `arg` is the union semun, passed by value: an int for SETVAL, a pointer otherwise.
SysResult sys_semctl(Task& t, int semid, int semnum, int cmd, uint64_t arg) {
  switch (cmd) {
    case guest::kIPC_INFO:
    case guest::kSEM_INFO: {
      ::seminfo h{};
      const long r = host_semctl(semid, semnum, cmd, arg_ptr(&h));
      return r < 0 ? guest::neg_errno() : copy_out_struct(t, arg, h, r);
    }
    case guest::kIPC_STAT:
    case guest::kSEM_STAT:
    case guest::kSEM_STAT_ANY: {
      ::semid64_ds h{};
      const long r = host_semctl(semid, semnum, cmd, arg_ptr(&h));
      return r < 0 ? guest::neg_errno() : copy_out_struct(t, arg, h, r);
    }
    case guest::kIPC_SET: {
      guest::semid64_ds g{};
      if (emu::copy_in(t.as(), &g, arg, sizeof g) != 0) return -EFAULT;
      ::semid64_ds h = guest::to_host(g);
      return from_host(host_semctl(semid, semnum, cmd, arg_ptr(&h)));
    }
    case guest::kGETALL:
      return get_all(t, semid, arg);
    case guest::kSETALL:
      return set_all(t, semid, arg);
    case guest::kSETVAL:
      return from_host(host_semctl(semid, semnum, cmd, static_cast<uint32_t>(arg)));
    case guest::kIPC_RMID:
    case guest::kGETVAL:
    case guest::kGETPID:
    case guest::kGETNCNT:
    case guest::kGETZCNT:
      return from_host(host_semctl(semid, semnum, cmd, 0));
    default:
      return -EINVAL;
  }
}

SysResult sys_semop(Task& t, int semid, GuestPtr<const guest::sembuf> sops, uint32_t nsops) {
  return sys_semtimedop(t, semid, sops, nsops, GuestPtr<const guest::timespec>{});
}

// do_semtimedop's order: nsops and semid, SEMOPM (E2BIG), the operations (EFAULT), the timeout (EFAULT,
// EINVAL), then the host's call. A signal ends a blocked semop with -EINTR, never restarted (signal(7)).
SysResult sys_semtimedop(Task& t, int semid, GuestPtr<const guest::sembuf> sops, uint32_t nsops,
                         GuestPtr<const guest::timespec> timeout) {
  if (nsops < 1 || semid < 0) return -EINVAL;
  if (nsops > guest::kSEMOPM && nsops > host_semopm()) return -E2BIG;
  std::vector<::sembuf> ops(nsops);
  if (emu::copy_in(t.as(), ops.data(), sops.addr, nsops * sizeof(guest::sembuf)) != 0) return -EFAULT;
  timespec deadline{};
  const timespec* dl = nullptr;
  if (!timeout.null()) {
    guest::timespec g{};
    if (timeout.read(t.as(), &g) != 0) return -EFAULT;
    if (g.tv_sec < 0 || g.tv_nsec < 0 || g.tv_nsec >= 1'000'000'000) return -EINVAL;
    deadline = signals::add(signals::now(CLOCK_MONOTONIC), guest::to_host(g));
    dl = &deadline;
  }
  bool guest_nowait = false;
  for (const ::sembuf& op : ops) guest_nowait |= (op.sem_flg & IPC_NOWAIT) != 0;
  IpcWait w;
  w.blocking = [&]() -> int64_t {
    timespec left{};
    if (dl != nullptr) left = ipc_time_left(*dl);
    return signals::safe_syscall(t, SYS_semtimedop, semid, reinterpret_cast<long>(ops.data()), nsops,
                                 dl != nullptr ? reinterpret_cast<long>(&left) : 0);
  };
  // The polled form: every operation without waiting. One that the guest marked IPC_NOWAIT itself then
  // cannot be told from one that would wait, so such a call is made as it is (ThreadSanitizer builds only).
  std::vector<::sembuf> nowait_ops = ops;
  for (::sembuf& op : nowait_ops) op.sem_flg = static_cast<int16_t>(op.sem_flg | IPC_NOWAIT);
  w.nowait = [&]() -> int64_t {
    return from_host(
        ::syscall(SYS_semtimedop, semid, guest_nowait ? ops.data() : nowait_ops.data(), nsops, nullptr));
  };
  w.deadline = dl;
  return ipc_wait(t, w);
}

}  // namespace syscalls
