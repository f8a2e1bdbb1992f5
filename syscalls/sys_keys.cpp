// This file implements the key management calls (add_key, request_key, keyctl) as the host's: keys live in
// the host kernel's keyrings, whose thread, process and session keyrings are the guest's (guest threads are
// host threads). Strings and payloads cross through host copies; an unreadable one reaches the host as a
// faulting address, so the host's checks keep Linux's order.
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <string>
#include <vector>

#include "syscalls/abi/errno.h"
#include "syscalls/host_call.h"
#include "syscalls/sys_file.h"
#include "syscalls/sys_keys.h"

namespace syscalls {
namespace {

using guest::from_host;

// The largest string or payload the key calls take (a big_key's payload is below 1 MiB; descriptions and
// type names are far shorter): anything longer is refused by the host whatever its contents.
constexpr size_t kMaxString = 8192;
constexpr uint64_t kMaxPayload = uint64_t{1} << 20;

enum Cmd : int {
  kJoinSessionKeyring = 1,
  kUpdate = 2,
  kDescribe = 6,
  kSearch = 10,
  kRead = 11,
  kInstantiate = 12,
  kGetSecurity = 17,
  kInstantiateIov = 20,
  kDhCompute = 23,
  kPkeyQuery = 24,
  kPkeyVerify = 28,
  kRestrictKeyring = 29,
  kCapabilities = 31,
};

// Host copies of a call's guest strings and buffers, alive for the call.
class HostArgs {
 public:
  explicit HostArgs(Task& t) : t_(t) {}
  // A NUL-terminated string: nullptr for NULL, kHostFaultAddr when unreadable.
  long string(uint64_t addr) {
    if (addr == 0) return 0;
    std::string& s = strings_.emplace_back();
    const int64_t r = emu::read_cstring(t_.as(), addr, kMaxString, &s);
    if (r == -EFAULT) return reinterpret_cast<long>(kHostFaultAddr);
    if (r < 0) s.assign(kMaxString + 1, 'x');  // too long for any key call: the host says so
    return reinterpret_cast<long>(s.c_str());
  }
  // `len` bytes to read: a host copy, nullptr for NULL, kHostFaultAddr when unreadable (or beyond any limit).
  long input(uint64_t addr, uint64_t len) {
    if (addr == 0) return 0;
    if (len > kMaxPayload) return reinterpret_cast<long>(kHostFaultAddr);
    std::vector<uint8_t>& b = buffers_.emplace_back(len);
    if (len != 0 && emu::copy_in(t_.as(), b.data(), addr, len) != 0)
      return reinterpret_cast<long>(kHostFaultAddr);
    return reinterpret_cast<long>(b.data());
  }

 private:
  Task& t_;
  std::deque<std::string> strings_;  // a deque: growing it moves no string (their c_str() are handed out)
  std::deque<std::vector<uint8_t>> buffers_;
};

// A keyctl command that fills a guest buffer (DESCRIBE, READ, GET_SECURITY, CAPABILITIES): the host fills a
// bounce buffer; GET_SECURITY and CAPABILITIES write min(result, buflen) bytes, DESCRIBE and READ all of the
// result or nothing when it does not fit, and the result is the full length either way. A buffer that does
// not take the copy is EFAULT after the call, as the kernel's copy_to_user at the end.
SysResult output_cmd(Task& t, int cmd, long arg2, uint64_t buf, uint64_t buflen) {
  std::vector<uint8_t> out(std::min(buflen, kMaxPayload));
  void* hp = buf == 0 ? nullptr : out.data();
  const int64_t r = cmd == kCapabilities ? from_host(::syscall(SYS_keyctl, cmd, hp, out.size()))
                                         : from_host(::syscall(SYS_keyctl, cmd, arg2, hp, out.size()));
  if (r <= 0 || hp != out.data()) return r;
  const bool partial = cmd == kGetSecurity || cmd == kCapabilities;
  const uint64_t n = partial ? std::min<uint64_t>(static_cast<uint64_t>(r), out.size())
                             : (static_cast<uint64_t>(r) <= out.size() ? static_cast<uint64_t>(r) : 0);
  if (n != 0 && emu::copy_out(t.as(), buf, out.data(), n) != 0) return -EFAULT;
  return r;
}

}  // namespace

SysResult sys_add_key(Task& t, uint64_t type, uint64_t description, uint64_t payload, uint64_t plen,
                      int32_t keyring) {
  if (plen > kMaxPayload - 1) return -EINVAL;
  HostArgs a(t);
  const long ty = a.string(type);
  const long desc = a.string(description);
  const long pay = a.input(payload, plen);
  return from_host(::syscall(SYS_add_key, ty, desc, pay, plen, keyring));
}

SysResult sys_request_key(Task& t, uint64_t type, uint64_t description, uint64_t callout, int32_t dest) {
  HostArgs a(t);
  const long ty = a.string(type);
  const long desc = a.string(description);
  const long info = a.string(callout);
  return from_host(::syscall(SYS_request_key, ty, desc, info, dest));
}

// keyctl(2): each command's pointer arguments are translated; scalar-only commands pass as they are. The
// Diffie-Hellman and public-key commands are refused as by a kernel built without them.
SysResult sys_keyctl(Task& t, int cmd, uint64_t arg2, uint64_t arg3, uint64_t arg4, uint64_t arg5) {
  HostArgs a(t);
  const auto l = [](uint64_t v) { return static_cast<long>(v); };
  switch (cmd) {
    case kJoinSessionKeyring:
      return from_host(::syscall(SYS_keyctl, cmd, a.string(arg2)));
    case kUpdate:
      return from_host(::syscall(SYS_keyctl, cmd, l(arg2), a.input(arg3, arg4), l(arg4)));
    case kInstantiate:
      return from_host(::syscall(SYS_keyctl, cmd, l(arg2), a.input(arg3, arg4), l(arg4), l(arg5)));
    case kSearch:
      return from_host(::syscall(SYS_keyctl, cmd, l(arg2), a.string(arg3), a.string(arg4), l(arg5)));
    case kRestrictKeyring:
      return from_host(::syscall(SYS_keyctl, cmd, l(arg2), a.string(arg3), a.string(arg4)));
    case kDescribe:
    case kRead:
    case kGetSecurity:
      return output_cmd(t, cmd, l(arg2), arg3, arg4);
    case kCapabilities:
      return output_cmd(t, cmd, 0, arg2, arg3);
    case kInstantiateIov: {
      HostIovecs iov;
      if (const int64_t r = iov.import(t.as(), arg3, arg4, PROT_READ); r < 0) return r;
      return from_host(::syscall(SYS_keyctl, cmd, l(arg2), iov.data(), l(arg4), l(arg5)));
    }
    default:
      if (cmd >= kDhCompute && cmd <= kPkeyVerify) return -EOPNOTSUPP;
      return from_host(::syscall(SYS_keyctl, cmd, l(arg2), l(arg3), l(arg4), l(arg5)));
  }
}

}  // namespace syscalls
