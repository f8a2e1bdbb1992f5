// This file implements the scheduling syscalls. Each guest thread is a host thread with the same tid, so they
// act on host threads: pid 0 is the calling thread, a tid names that thread, and the host applies its own
// checks and permissions (ESRCH, EPERM for real-time policies or a lower nice value without the capability).
#include "syscalls/sys_sched.h"

#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "syscalls/abi/errno.h"
#include "syscalls/host_call.h"

namespace syscalls {
namespace {

// Room for any host cpumask: the kernel's cpumask_size() is at most NR_CPUS / 8 = 1 KiB on x86-64.
constexpr size_t kMaskBytes = 8192;
using MaskBuffer = std::array<uint64_t, kMaskBytes / sizeof(uint64_t)>;

// The host kernel's cpumask_size(): how many bytes sched_setaffinity reads at most, and sched_getaffinity
// writes. A constant of the running kernel.
size_t host_cpumask_size() {
  static const size_t size = [] {
    MaskBuffer buf{};
    const long n = ::syscall(SYS_sched_getaffinity, 0, kMaskBytes, buf.data());
    return n > 0 ? static_cast<size_t>(n) : kMaskBytes;
  }();
  return size;
}

}  // namespace

// sched_setparam(2), sched_setscheduler(2): the host checks pid, NULL and policy before the struct's memory.
SysResult sys_sched_setparam(Task& t, int32_t pid, GuestPtr<const guest::sched_param> param) {
  ::sched_param h{};
  const ::sched_param* hp = copy_in_for_host(t.as(), param, &h);
  return guest::from_host(::syscall(SYS_sched_setparam, pid, hp));
}

SysResult sys_sched_setscheduler(Task& t, int32_t pid, int32_t policy,
                                 GuestPtr<const guest::sched_param> param) {
  ::sched_param h{};
  const ::sched_param* hp = copy_in_for_host(t.as(), param, &h);
  return guest::from_host(::syscall(SYS_sched_setscheduler, pid, policy, hp));
}

SysResult sys_sched_getscheduler(Task&, int32_t pid) {
  return guest::from_host(::syscall(SYS_sched_getscheduler, pid));
}

// sched_getparam(2): a NULL param is the host's EINVAL; the struct is written after the lookup succeeds.
SysResult sys_sched_getparam(Task& t, int32_t pid, GuestPtr<guest::sched_param> param) {
  ::sched_param h{};
  const int64_t r = guest::from_host(::syscall(SYS_sched_getparam, pid, param.null() ? nullptr : &h));
  if (r < 0) return r;
  return param.write(t.as(), guest::to_guest(h));
}

// sched_setaffinity(2): like the kernel, reads at most cpumask_size() bytes of a longer mask (a shorter one
// is zero-extended by the host). The host gets that length: it treats it as it would the guest's.
SysResult sys_sched_setaffinity(Task& t, int32_t pid, uint32_t len, GuestPtr<const uint64_t> mask) {
  MaskBuffer buf{};
  const size_t n = std::min<size_t>(len, host_cpumask_size());
  const void* hp = emu::copy_in(t.as(), buf.data(), mask.addr, n) == 0 ? buf.data() : kHostFaultAddr;
  return guest::from_host(::syscall(SYS_sched_setaffinity, pid, n, hp));
}

// sched_getaffinity(2): the raw syscall's result is the number of bytes written, min(len, cpumask_size()), so
// the guest's len goes to the host unchanged (it checks that len is large enough and a multiple of 8) and buf
// is large enough for any len.
SysResult sys_sched_getaffinity(Task& t, int32_t pid, uint32_t len, GuestPtr<uint64_t> mask) {
  MaskBuffer buf{};
  const int64_t n = guest::from_host(::syscall(SYS_sched_getaffinity, pid, len, buf.data()));
  if (n < 0) return n;
  return emu::copy_out(t.as(), mask.addr, buf.data(), static_cast<size_t>(n)) != 0 ? -EFAULT : n;
}

// sched_yield(2): hands the run lock to the next waiting vCPU and queues behind it, not in front as a thread
// waking from a wait does (RunLockReleaser): a thread spinning on sched_yield must let the thread it waits
// for run a full slice. Then yields the host CPU too.
SysResult sys_sched_yield(Task& t) {
  emu::RunLock& lock = t.proc().run_lock();
  lock.release(&t.cpu());
  ::sched_yield();
  lock.acquire(&t.cpu(), /*priority=*/false);
  return 0;
}

SysResult sys_sched_get_priority_max(Task&, int32_t policy) {
  return guest::from_host(::syscall(SYS_sched_get_priority_max, policy));
}

SysResult sys_sched_get_priority_min(Task&, int32_t policy) {
  return guest::from_host(::syscall(SYS_sched_get_priority_min, policy));
}

SysResult sys_sched_rr_get_interval(Task& t, int32_t pid, GuestPtr<guest::timespec> interval) {
  ::timespec h{};
  const int64_t r = guest::from_host(::syscall(SYS_sched_rr_get_interval, pid, &h));
  if (r < 0) return r;
  return interval.write(t.as(), guest::to_guest(h));
}

// sched_setattr(2): struct sched_attr is the same on both architectures and extensible, so it crosses as the
// bytes its `size` field covers; the host checks the size, the zero tail and the values. On E2BIG the kernel
// writes the size it knows back into the guest's struct.
SysResult sys_sched_setattr(Task& t, int32_t pid, GuestPtr<guest::sched_attr> attr, uint32_t flags) {
  std::array<uint8_t, guest::kSchedAttrMaxSize> buf{};
  void* hp = nullptr;
  if (!attr.null()) {
    uint32_t size = 0;
    const bool ok = emu::copy_in(t.as(), &size, attr.addr, sizeof size) == 0 &&
                    emu::copy_in(t.as(), buf.data(), attr.addr, guest::sched_attr_read_size(size)) == 0;
    hp = ok ? buf.data() : kHostFaultAddr;
  }
  const int64_t r = guest::from_host(::syscall(SYS_sched_setattr, pid, hp, flags));
  if (r == -E2BIG && hp == buf.data()) {
    // Linux ignores a failure of this write too.
    (void)emu::copy_out(t.as(), attr.addr, buf.data(), sizeof(uint32_t));
  }
  return r;
}

// sched_getattr(2): the host fills a page-sized buffer (it refuses a larger size) and sets `size` to what it
// knows, min(size, sizeof(struct sched_attr)). Recent kernels (copy_struct_to_user; the 6.18 host here does)
// also zero the rest of the caller's size, earlier ones leave it alone. The guest gets exactly the bytes the
// host wrote: the buffer starts out nonzero, so a zeroed tail shows.
SysResult sys_sched_getattr(Task& t, int32_t pid, GuestPtr<guest::sched_attr> attr, uint32_t size,
                            uint32_t flags) {
  std::array<uint8_t, guest::kSchedAttrMaxSize> buf;
  buf.fill(0xa5);
  const int64_t r =
      guest::from_host(::syscall(SYS_sched_getattr, pid, attr.null() ? nullptr : buf.data(), size, flags));
  if (r < 0) return r;
  uint32_t known = 0;
  std::memcpy(&known, buf.data(), sizeof known);
  known = std::min<uint32_t>({known, size, guest::kSchedAttrMaxSize});
  const uint32_t end = std::min<uint32_t>(size, guest::kSchedAttrMaxSize);
  const bool tail_zeroed =
      std::all_of(buf.begin() + known, buf.begin() + end, [](uint8_t b) { return b == 0; });
  return emu::copy_out(t.as(), attr.addr, buf.data(), tail_zeroed ? end : known) != 0 ? -EFAULT : r;
}

// getcpu(2): either pointer may be NULL; the third argument has been unused since Linux 2.6.24.
SysResult sys_getcpu(Task& t, GuestPtr<uint32_t> cpu, GuestPtr<uint32_t> node, uint64_t) {
  unsigned int c = 0;
  unsigned int n = 0;
  if (::getcpu(&c, &n) != 0) return guest::neg_errno();
  if (!cpu.null() && cpu.write(t.as(), c) != 0) return -EFAULT;
  if (!node.null() && node.write(t.as(), n) != 0) return -EFAULT;
  return 0;
}

// getpriority(2): the raw syscall's result, 20 - nice (1..40), which the guest's libc turns back into nice.
SysResult sys_getpriority(Task&, int32_t which, int32_t who) {
  return guest::from_host(::syscall(SYS_getpriority, which, who));
}

SysResult sys_setpriority(Task&, int32_t which, int32_t who, int32_t prio) {
  return guest::from_host(::syscall(SYS_setpriority, which, who, prio));
}

SysResult sys_ioprio_get(Task&, int32_t which, int32_t who) {
  return guest::from_host(::syscall(SYS_ioprio_get, which, who));
}

SysResult sys_ioprio_set(Task&, int32_t which, int32_t who, int32_t ioprio) {
  return guest::from_host(::syscall(SYS_ioprio_set, which, who, ioprio));
}

}  // namespace syscalls
