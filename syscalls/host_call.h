// Helpers for handlers that hand a call to the host kernel with the guest's arguments converted: the host
// then applies its own checks (bad clock, missing pid, permission) in its own order.
#pragma once

#include <cstdint>

#include "emu/guest_mem.h"
#include "syscalls/abi/types.h"

namespace syscalls {

// A host address the host kernel always refuses with EFAULT (above the x86-64 user range, so access_ok fails
// before anything is touched).
inline void* const kHostFaultAddr = reinterpret_cast<void*>(uintptr_t{1} << 63);

// A guest buffer for a host call: its host address, nullptr for a NULL guest pointer, or kHostFaultAddr when
// it is not mapped with `prot`, so the host reports EFAULT in its own order among its other checks.
inline void* host_buf(emu::AddressSpace& as, uint64_t addr, uint64_t len, int prot) {
  if (addr == 0) return nullptr;
  uint8_t* p = emu::host_range(as, addr, len, prot);
  return p != nullptr ? p : kHostFaultAddr;
}

// A guest buffer for a host call that transfers data (read, write, send, recv...): the host address and the
// length to give the host (emu::host_span), so that a buffer that is only partly usable gets the partial
// transfer Linux makes. kHostFaultAddr when Linux's access_ok refuses the range, or when the first byte may
// not be touched: the host then fails with EFAULT after its own checks (a bad fd first). A zero length
// passes where Linux's access_ok passes.
struct HostTransfer {
  void* ptr;
  uint64_t len;
};
inline HostTransfer host_transfer(emu::AddressSpace& as, uint64_t addr, uint64_t len, int prot) {
  if (!emu::user_range_ok(addr, len)) return {kHostFaultAddr, len};
  if (len == 0) return {addr < as.size() ? as.host(addr) : as.base(), 0};
  const emu::HostSpan s = emu::host_span(as, addr, len, prot);
  if (s.len == 0) return {kHostFaultAddr, len};
  return {s.ptr, s.len};
}

// Copies the guest struct behind `p` in, converts it with to_host (namespace guest) into *host, and returns
// the pointer to give the host call: host, nullptr for a NULL guest pointer (which the host then treats as
// the guest's kernel would), or kHostFaultAddr when the guest memory does not copy in. The host then faults
// where the guest's kernel would have, so a call that checks its other arguments first (clock_settime's
// clock, sched_setparam's pid) still answers EINVAL or ESRCH before EFAULT, as Linux does.
template <typename G, typename H>
H* copy_in_for_host(emu::AddressSpace& as, emu::GuestPtr<const G> p, H* host) {
  if (p.null()) return nullptr;
  G g;
  if (p.read(as, &g) != 0) return static_cast<H*>(kHostFaultAddr);
  *host = to_host(g);  // found by ADL in namespace guest, wherever the overload is declared
  return host;
}

}  // namespace syscalls
