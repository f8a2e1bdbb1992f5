// This file implements Linux AIO (io_setup, io_submit, io_getevents, io_pgetevents, io_cancel, io_destroy)
// on the host's AIO contexts. A context's id is the address of its ring, which user space may read (libaio
// checks its header): io_setup moves the host's ring into the guest window (the ring's mremap hook updates
// the context), so the guest's id is the ring's guest address and the host's is the same address on the
// host. An iocb travels by its guest address too (the kernel reports and cancels requests by it): io_submit
// writes the host form of the buffer pointer into the guest's iocb for the call and puts the guest's back.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

#include "signals/park.h"
#include "signals/safe_syscall.h"
#include "syscalls/abi/aio.h"
#include "syscalls/abi/errno.h"
#include "syscalls/abi/time_abi.h"
#include "syscalls/fd_util.h"
#include "syscalls/host_call.h"
#include "syscalls/sys_aio.h"
#include "syscalls/sys_file.h"
#include "syscalls/sys_poll.h"

namespace syscalls {
namespace {

using guest::from_host;

// The rings io_setup moved into the window: guest address -> size. Syscall handlers run one at a time
// under the run lock, which guards this (it is never touched with the lock released).
std::map<uint64_t, uint64_t> g_rings;

// The host's size of the mapping that starts at host address `at` (its /proc/self/maps line), or 0.
uint64_t host_mapping_size(uint64_t at) {
  FILE* f = ::fopen("/proc/self/maps", "re");
  if (f == nullptr) return 0;
  char line[512];
  uint64_t size = 0;
  while (::fgets(line, sizeof line, f) != nullptr) {
    unsigned long start = 0, end = 0;
    if (std::sscanf(line, "%lx-%lx", &start, &end) == 2 && start == at) {
      size = end - start;
      break;
    }
  }
  ::fclose(f);
  return size;
}

// A guest context id as the host's (an address outside the window is no context: 0, which the host
// refuses with EINVAL).
aio_context_t host_ctx(Task& t, uint64_t ctx) {
  return ctx != 0 && ctx < t.as().size() ? reinterpret_cast<aio_context_t>(t.as().host(ctx)) : 0;
}

// A guest address as the host's, for the kernel to use as the guest would (an address past the window is
// one the host refuses).
uint64_t host_addr(Task& t, uint64_t addr) {
  return addr < t.as().size() ? reinterpret_cast<uint64_t>(t.as().host(addr))
                              : reinterpret_cast<uint64_t>(kHostFaultAddr);
}

// The ring's capacity from its header (struct aio_ring: id, nr), which bounds a call's event count.
uint32_t ring_events(Task& t, uint64_t ctx) {
  uint32_t nr = 0;
  return emu::copy_in(t.as(), &nr, ctx + 4, sizeof nr) == 0 && nr != 0 ? nr : 1;
}

// Events from the host go out with their iocb addresses back in guest terms.
int64_t copy_events_out(Task& t, uint64_t events, std::vector<::io_event>& ev, int64_t n) {
  const auto base = reinterpret_cast<uint64_t>(t.as().base());
  for (int64_t i = 0; i < n; ++i) {
    if (ev[i].obj >= base && ev[i].obj - base < t.as().size()) ev[i].obj -= base;
  }
  if (n > 0 && emu::copy_out(t.as(), events, ev.data(), static_cast<size_t>(n) * sizeof(::io_event)) != 0)
    return -EFAULT;
  return n;
}

// One iocb: its host form is written over the guest's for the host's io_submit of it, then the guest's is
// put back. Returns the host's answer (1, or -errno).
int64_t submit_one(Task& t, aio_context_t hctx, uint64_t addr) {
  guest::iocb g{};
  if (emu::copy_in(t.as(), &g, addr, sizeof g) != 0) return -EFAULT;
  if (is_reserved_fd(static_cast<int>(g.aio_fildes))) return -EBADF;
  if ((g.aio_flags & guest::kIOCB_FLAG_RESFD) && is_reserved_fd(static_cast<int>(g.aio_resfd))) return -EBADF;
  uint64_t buf = g.aio_buf;
  std::vector<::iovec> iov;
  if (g.aio_lio_opcode == guest::kIOCB_CMD_PREADV || g.aio_lio_opcode == guest::kIOCB_CMD_PWRITEV) {
    // The kernel copies the vector at submission: a host copy of it lives for the call.
    if (g.aio_nbytes > static_cast<uint64_t>(guest::kUIO_MAXIOV)) return -EINVAL;
    std::vector<guest::iovec> gv(g.aio_nbytes);
    if (!gv.empty() && emu::copy_in(t.as(), gv.data(), g.aio_buf, gv.size() * sizeof(guest::iovec)) != 0)
      return -EFAULT;
    for (const guest::iovec& v : gv)
      iov.push_back({reinterpret_cast<void*>(host_addr(t, v.iov_base)), v.iov_len});
    buf = reinterpret_cast<uint64_t>(iov.data());
  } else if (g.aio_lio_opcode == guest::kIOCB_CMD_PREAD || g.aio_lio_opcode == guest::kIOCB_CMD_PWRITE) {
    buf = host_addr(t, g.aio_buf);
  }
  constexpr uint64_t kBufOffset = offsetof(guest::iocb, aio_buf);
  if (emu::copy_out(t.as(), addr + kBufOffset, &buf, sizeof buf) != 0) return -EFAULT;
  ::iocb* list[1] = {reinterpret_cast<::iocb*>(host_addr(t, addr))};
  const int64_t r = from_host(::syscall(SYS_io_submit, hctx, 1, list));
  emu::copy_out(t.as(), addr + kBufOffset, &g.aio_buf, sizeof g.aio_buf);
  return r;
}

// read_events with the run lock released, as a safe system call (a signal ends it with EINTR, never
// restarted).
int64_t get_events(Task& t, aio_context_t hctx, long min_nr, long nr, std::vector<::io_event>& ev,
                   const Timeout& to) {
  while (true) {
    timespec left{};
    if (!to.infinite) left = signals::sub_clamped(to.deadline, signals::now(CLOCK_MONOTONIC));
    const int64_t r = signals::safe_syscall(t, SYS_io_getevents, static_cast<long>(hctx), min_nr, nr,
                                            reinterpret_cast<long>(ev.data()),
                                            to.infinite ? 0 : reinterpret_cast<long>(&left));
    if (r != -EINTR || t.interrupted()) return r;
  }
}

SysResult getevents_common(Task& t, uint64_t ctx, int64_t min_nr, int64_t nr, uint64_t events,
                           uint64_t timeout) {
  Timeout to;
  if (timeout != 0) {
    guest::timespec g{};
    if (emu::copy_in(t.as(), &g, timeout, sizeof g) != 0) return -EFAULT;
    if (!guest::timespec_valid(g)) return -EINVAL;
    to = Timeout::after(guest::to_host(g));
  }
  const aio_context_t hctx = host_ctx(t, ctx);
  if (min_nr < 0 || nr < 0 || min_nr > nr || hctx == 0) {
    return from_host(::syscall(SYS_io_getevents, hctx, min_nr, nr, nullptr, nullptr));
  }
  const int64_t cap = std::min<int64_t>(nr, ring_events(t, ctx));
  std::vector<::io_event> ev(static_cast<size_t>(std::max<int64_t>(cap, 1)));
  const int64_t r = get_events(t, hctx, std::min(min_nr, cap), cap, ev, to);
  if (r < 0) return r;
  return copy_events_out(t, events, ev, r);
}

}  // namespace

// io_setup(2): the context id must read 0; the ring is moved to a free place in the window.
SysResult sys_io_setup(Task& t, uint32_t nr_events, GuestPtr<uint64_t> ctxp) {
  uint64_t ctx = 0;
  if (ctxp.read(t.as(), &ctx) != 0) return -EFAULT;
  if (ctx != 0 || nr_events == 0) return -EINVAL;
  aio_context_t h = 0;
  if (::syscall(SYS_io_setup, nr_events, &h) != 0) return guest::neg_errno();
  const uint64_t size = host_mapping_size(h);
  if (size == 0) {
    ::syscall(SYS_io_destroy, h);
    return -ENOMEM;
  }
  emu::MapSource info;
  info.name = "/[aio] (deleted)";
  auto move = [h, size](void* at) -> int64_t {
    void* m = ::mremap(reinterpret_cast<void*>(h), size, size, MREMAP_MAYMOVE | MREMAP_FIXED, at);
    return m == MAP_FAILED ? guest::neg_errno() : 0;
  };
  const int64_t g = t.as().attach_segment(0, size, false, PROT_READ | PROT_WRITE, info, move, 0);
  if (g < 0) {
    ::syscall(SYS_io_destroy, h);
    return g;
  }
  const auto where = static_cast<uint64_t>(g);
  g_rings[where] = size;
  if (ctxp.write(t.as(), where) != 0) {
    ::syscall(SYS_io_destroy, host_ctx(t, where));
    g_rings.erase(where);
    t.as().forget_unmapped(where, size);
    return -EFAULT;
  }
  return 0;
}

// io_destroy(2): the host waits for the context's requests and unmaps the ring; the window's reservation
// goes back over it at once.
SysResult sys_io_destroy(Task& t, uint64_t ctx) {
  const int64_t r = from_host(::syscall(SYS_io_destroy, host_ctx(t, ctx)));
  if (r == 0) {
    auto it = g_rings.find(ctx);
    if (it != g_rings.end()) {
      t.as().forget_unmapped(ctx, it->second);
      g_rings.erase(it);
    }
  }
  return r;
}

// io_submit(2): the iocbs one by one, as the kernel takes them: the number submitted, or the first one's
// error when none was.
SysResult sys_io_submit(Task& t, uint64_t ctx, int64_t nr, uint64_t iocbpp) {
  if (nr < 0) return -EINVAL;
  const aio_context_t hctx = host_ctx(t, ctx);
  if (hctx == 0) return -EINVAL;
  nr = std::min<int64_t>(nr, ring_events(t, ctx));
  int64_t done = 0;
  for (; done < nr; ++done) {
    uint64_t addr = 0;
    if (emu::copy_in(t.as(), &addr, iocbpp + static_cast<uint64_t>(done) * 8, sizeof addr) != 0) {
      return done > 0 ? done : -EFAULT;
    }
    const int64_t r = submit_one(t, hctx, addr);
    if (r < 0) return done > 0 ? done : r;
  }
  return done;
}

SysResult sys_io_getevents(Task& t, uint64_t ctx, int64_t min_nr, int64_t nr, uint64_t events,
                           uint64_t timeout) {
  return getevents_common(t, ctx, min_nr, nr, events, timeout);
}

// io_pgetevents(2): the signal mask of struct __aio_sigset holds for the wait, as in ppoll.
SysResult sys_io_pgetevents(Task& t, uint64_t ctx, int64_t min_nr, int64_t nr, uint64_t events,
                            uint64_t timeout, uint64_t usig) {
  struct {
    uint64_t sigmask;
    uint64_t sigsetsize;
  } s{};
  if (usig != 0 && emu::copy_in(t.as(), &s, usig, sizeof s) != 0) return -EFAULT;
  TempSigmask mask;
  if (const int64_t e = mask.install(t, s.sigmask, s.sigsetsize); e != 0) return e;
  const SysResult r = getevents_common(t, ctx, min_nr, nr, events, timeout);
  mask.finish(t, r == -EINTR);
  return r;
}

// io_cancel(2): the request is named by its iocb's address.
SysResult sys_io_cancel(Task& t, uint64_t ctx, uint64_t iocb, uint64_t result) {
  ::io_event ev{};
  const int64_t r = from_host(::syscall(SYS_io_cancel, host_ctx(t, ctx), host_addr(t, iocb), &ev));
  if (r != 0) return r;
  std::vector<::io_event> one{ev};
  return copy_events_out(t, result, one, 1) < 0 ? -EFAULT : 0;
}

}  // namespace syscalls
