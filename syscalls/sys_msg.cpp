// This file implements SysV message queues on the host's queues: msgget and msgctl are the host's calls with
// the structs translated; msgsnd and msgrcv are the host's calls on the guest's buffer (struct msgbuf, a long
// and the text, has the same layout on both sides), made interruptible by guest signals (ipc_wait.h).
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "signals/safe_syscall.h"
#include "signals/signals.h"
#include "syscalls/abi/errno.h"
#include "syscalls/ipc_wait.h"
#include "syscalls/sys_ipc.h"

namespace syscalls {
namespace {

using guest::from_host;

constexpr uint64_t kMtypeSize = sizeof(int64_t);  // struct msgbuf's mtype

long host_msgctl(int msqid, int cmd, void* buf) {
  return ::syscall(SYS_msgctl, msqid, cmd, buf);
}

template <typename H>
SysResult copy_out_struct(Task& t, uint64_t buf, const H& host, int64_t result) {
  const auto g = guest::to_guest(host);
  return emu::copy_out(t.as(), buf, &g, sizeof g) != 0 ? -EFAULT : result;
}

// The namespace's MSGMAX (the largest message), from the host.
uint64_t host_msgmax() {
  ::msginfo mi{};
  return host_msgctl(0, IPC_INFO, &mi) < 0 ? 8192 : static_cast<uint64_t>(mi.msgmax);
}

// The guest's buffer of `len` bytes at addr as a host pointer, when all of it is mapped with `prot`.
void* guest_buffer(Task& t, uint64_t addr, uint64_t len, int prot) {
  if (len < kMtypeSize || addr + len < addr) return nullptr;
  return emu::host_range(t.as(), addr, len, prot);
}

// A send or receive that may wait: the host's call as a safe system call. A signal ends it with
// ERESTARTNOHAND (ipc/msg.c), so it restarts when no handler runs, and fails with EINTR after one
// whatever SA_RESTART says.
SysResult waiting_call(Task& t, long nr, int msqid, void* buf, uint64_t size, int64_t msgtyp, int msgflg,
                       int64_t would_block) {
  const auto p = reinterpret_cast<long>(buf);
  const auto n = static_cast<long>(size);
  auto call = [&](int flg) {
    return nr == SYS_msgsnd ? ::syscall(nr, msqid, p, n, flg) : ::syscall(nr, msqid, p, n, msgtyp, flg);
  };
  if (msgflg & IPC_NOWAIT) return from_host(call(msgflg));
  IpcWait w;
  w.blocking = [&]() -> int64_t {
    return nr == SYS_msgsnd ? signals::safe_syscall(t, nr, msqid, p, n, msgflg)
                            : signals::safe_syscall(t, nr, msqid, p, n, msgtyp, msgflg);
  };
  w.nowait = [&]() -> int64_t { return from_host(call(msgflg | IPC_NOWAIT)); };
  w.would_block = would_block;
  const int64_t r = ipc_wait(t, w);
  return r == -EINTR ? signals::kERESTARTNOHAND : r;
}

}  // namespace

SysResult sys_msgget(Task&, int32_t key, int msgflg) {
  return from_host(::syscall(SYS_msgget, key, msgflg));
}

SysResult sys_msgctl(Task& t, int msqid, int cmd, uint64_t buf) {
  switch (cmd) {
    case guest::kIPC_INFO:
    case guest::kMSG_INFO: {
      ::msginfo h{};
      const long r = host_msgctl(msqid, cmd, &h);
      return r < 0 ? guest::neg_errno() : copy_out_struct(t, buf, h, r);
    }
    case guest::kIPC_STAT:
    case guest::kMSG_STAT:
    case guest::kMSG_STAT_ANY: {
      ::msqid64_ds h{};
      const long r = host_msgctl(msqid, cmd, &h);
      return r < 0 ? guest::neg_errno() : copy_out_struct(t, buf, h, r);
    }
    case guest::kIPC_SET: {
      guest::msqid64_ds g{};
      if (emu::copy_in(t.as(), &g, buf, sizeof g) != 0) return -EFAULT;
      ::msqid64_ds h = guest::to_host(g);
      return from_host(host_msgctl(msqid, cmd, &h));
    }
    case guest::kIPC_RMID:
      return from_host(host_msgctl(msqid, cmd, nullptr));
    default:
      return -EINVAL;
  }
}

// ksys_msgsnd/do_msgsnd's order: the type (EFAULT), the size and type values (EINVAL), the text (EFAULT),
// then the queue. The host reads the text from the guest's pages when they are all readable; otherwise the
// checks before the fault are made here.
SysResult sys_msgsnd(Task& t, int msqid, uint64_t msgp, uint64_t msgsz, int msgflg) {
  int64_t mtype = 0;
  if (emu::copy_in(t.as(), &mtype, msgp, sizeof mtype) != 0) return -EFAULT;
  void* buf =
      msgsz <= INT64_MAX - kMtypeSize ? guest_buffer(t, msgp, kMtypeSize + msgsz, PROT_READ) : nullptr;
  if (buf == nullptr) {
    if (static_cast<int64_t>(msgsz) < 0 || msgsz > host_msgmax() || msqid < 0 || mtype < 1) return -EINVAL;
    return -EFAULT;
  }
  return waiting_call(t, SYS_msgsnd, msqid, buf, msgsz, 0, msgflg, -EAGAIN);
}

// do_msgrcv: the host writes the message into the guest's buffer when all of it is writable; otherwise into
// a bounce buffer of at most MSGMAX bytes that is copied out (a fault there is EFAULT with the message
// taken off the queue, as Linux's store_msg).
SysResult sys_msgrcv(Task& t, int msqid, uint64_t msgp, uint64_t msgsz, int64_t msgtyp, int msgflg) {
  if (msqid < 0 || static_cast<int64_t>(msgsz) < 0) return -EINVAL;
  void* buf =
      msgsz <= INT64_MAX - kMtypeSize ? guest_buffer(t, msgp, kMtypeSize + msgsz, PROT_WRITE) : nullptr;
  std::vector<uint8_t> bounce;
  if (buf == nullptr) {
    msgsz = std::min(msgsz, host_msgmax());
    bounce.resize(kMtypeSize + msgsz);
    buf = bounce.data();
  }
  const int64_t r = waiting_call(t, SYS_msgrcv, msqid, buf, msgsz, msgtyp, msgflg, -ENOMSG);
  if (r < 0 || bounce.empty()) return r;
  return emu::copy_out(t.as(), msgp, bounce.data(), kMtypeSize + static_cast<uint64_t>(r)) != 0 ? -EFAULT : r;
}

}  // namespace syscalls
