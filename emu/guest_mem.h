// Checked access to guest memory: GuestPtr<T>, copy_in/copy_out and guest strings. Syscall code touches guest
// memory only through these, which return -EFAULT instead of touching anything outside the guest's VMAs.
#pragma once

#include <sys/mman.h>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "emu/address_space.h"

namespace emu {

// Copies n bytes from guest address src to host memory dst. Returns 0 or -EFAULT.
int64_t copy_in(AddressSpace& as, void* dst, uint64_t src, size_t n);
// Copies n bytes from host memory src to guest address dst (needs PROT_WRITE). Returns 0 or -EFAULT.
int64_t copy_out(AddressSpace& as, uint64_t dst, const void* src, size_t n);
// Reads a NUL-terminated guest string of at most max bytes (without the NUL). Returns 0, -EFAULT or
// -ENAMETOOLONG.
int64_t read_cstring(AddressSpace& as, uint64_t addr, size_t max, std::string* out);

// Returns a host pointer for [addr, addr+len) when it is mapped with `prot`, else nullptr. For handing guest
// buffers to host syscalls: if another thread unmaps the range meanwhile, the host kernel sees PROT_NONE
// pages and fails with EFAULT, so the emulator itself never touches them.
uint8_t* host_range(AddressSpace& as, uint64_t addr, uint64_t len, int prot);

// The part of the guest buffer [addr, addr+len) a host call may be given so that the host kernel transfers
// what the guest's would: Linux copies a buffer in order and stops at the first page it cannot touch. The
// span is host(addr) and a length up to the first page that is mapped but lacks `prot` (which the host
// could touch: private guest pages are host read-write) or the window's end; pages before that which are not
// mapped are the window's PROT_NONE reservation, and file pages past the end of their file fault on the
// host: there the host stops by itself, as Linux would. len 0 when
// the very first page may not be touched (or addr lies above the window). The caller checks access_ok
// (user_range_ok) first.
struct HostSpan {
  uint8_t* ptr;
  uint64_t len;
};
HostSpan host_span(AddressSpace& as, uint64_t addr, uint64_t len, int prot);

// A typed guest pointer, decoded from a syscall argument.
template <typename T>
struct GuestPtr {
  uint64_t addr = 0;

  bool null() const { return addr == 0; }
  GuestPtr<T> operator+(uint64_t n) const { return {addr + n * sizeof(T)}; }

  int64_t read(AddressSpace& as, std::remove_const_t<T>* out) const {
    return copy_in(as, out, addr, sizeof(T));
  }
  int64_t write(AddressSpace& as, const std::remove_const_t<T>& v) const requires(!std::is_const_v<T>) {
    return copy_out(as, addr, &v, sizeof(T));
  }
};

// A NUL-terminated guest string argument (paths, names): strace prints it quoted.
struct GuestCStr {
  uint64_t addr = 0;
};

}  // namespace emu
