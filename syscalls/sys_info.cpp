// This file implements sysinfo, getrusage and getrandom from the host's answers. The guest is the emulator
// process as the host sees it, so getrusage(RUSAGE_SELF) counts the emulator's own CPU time, faults and
// memory (ru_maxrss includes translated code), and RUSAGE_THREAD the calling host thread's.
#include "syscalls/sys_info.h"

#include <sys/random.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include <algorithm>

#include "signals/safe_syscall.h"
#include "signals/signals.h"
#include "syscalls/abi/errno.h"

namespace syscalls {
namespace {

// getrandom blocks only until the host's entropy pool is initialised (early boot). Asks without blocking
// first, so that the usual call keeps the run lock, and waits as a safe system call otherwise. Checks the
// flags the way the host does (EAGAIN for GRND_NONBLOCK while not ready).
int64_t wait_for_entropy(Task& t, uint32_t flags) {
  if (::getrandom(nullptr, 0, flags | GRND_NONBLOCK) == 0) return 0;
  if (errno != EAGAIN || (flags & guest::kGRND_NONBLOCK) != 0) return guest::neg_errno();
  // The wait ends on a signal and restarts under SA_RESTART (wait_for_random_bytes: -ERESTARTSYS).
  return signals::blocking_syscall(t, signals::kERESTARTSYS, SYS_getrandom, 0, 0, flags);
}

// Fills host memory [p, p+n) that maps guest memory. Returns the bytes written: fewer only when another
// thread unmapped part of the range meanwhile (the host then sees PROT_NONE pages and fails with EFAULT).
uint64_t fill_random(uint8_t* p, uint64_t n, uint32_t flags) {
  uint64_t done = 0;
  while (done < n) {
    const ssize_t r = ::getrandom(p + done, n - done, flags);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    done += static_cast<uint64_t>(r);
  }
  return done;
}

}  // namespace

// sysinfo(2): the host's figures, in its mem_unit.
SysResult sys_sysinfo(Task& t, GuestPtr<guest::sysinfo> info) {
  struct ::sysinfo h {};
  if (::sysinfo(&h) != 0) return guest::neg_errno();
  return info.write(t.as(), guest::to_guest(h));
}

// getrusage(2): RUSAGE_SELF, RUSAGE_CHILDREN (the guest's children are the emulator's) or RUSAGE_THREAD; the
// host rejects any other `who` with EINVAL before the pointer is used.
SysResult sys_getrusage(Task& t, int32_t who, GuestPtr<guest::rusage> usage) {
  ::rusage h{};
  if (::syscall(SYS_getrusage, who, &h) != 0) return guest::neg_errno();
  return usage.write(t.as(), guest::to_guest(h));
}

// getrandom(2): writes straight into guest memory. Like Linux, a buffer that is only partly writable gets the
// bytes before the first page that is not, and the count of those (EFAULT only when there are none).
SysResult sys_getrandom(Task& t, GuestPtr<uint8_t> buf, uint64_t count, uint32_t flags) {
  if (!guest::getrandom_flags_valid(flags)) return -EINVAL;
  if (const int64_t r = wait_for_entropy(t, flags); r < 0) return r;
  count = std::min(count, guest::kMaxRwCount);
  if (!emu::user_range_ok(buf.addr, count)) return -EFAULT;  // import_ubuf's access_ok, even for 0 bytes
  if (count == 0) return 0;
  if (uint8_t* p = emu::host_range(t.as(), buf.addr, count, PROT_WRITE)) {
    const uint64_t n = fill_random(p, count, flags);
    return n > 0 ? static_cast<SysResult>(n) : -EFAULT;
  }
  uint64_t done = 0;
  while (done < count) {
    const uint64_t addr = buf.addr + done;
    const uint64_t chunk = std::min(count - done, emu::kPageSize - (addr & emu::kPageMask));
    uint8_t* p = emu::host_range(t.as(), addr, chunk, PROT_WRITE);
    if (p == nullptr) break;
    const uint64_t n = fill_random(p, chunk, flags);
    done += n;
    if (n < chunk) break;
  }
  return done > 0 ? static_cast<SysResult>(done) : -EFAULT;
}

}  // namespace syscalls
