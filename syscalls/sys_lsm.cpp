// This file implements the security module calls as the host's: the LSM attribute calls (lsm_get_self_attr,
// lsm_set_self_attr, lsm_list_modules) and Landlock (landlock_create_ruleset, landlock_add_rule,
// landlock_restrict_self). Their structs (struct lsm_ctx, the ruleset and rule attributes) have the same
// layout on both sides and cross as host copies. A Landlock domain restricts the calling thread and its later
// children, as on Linux: the guest thread's host thread, so a64run's own file accesses for that thread obey
// the guest's rules too (a guest that allows itself too little may keep a64run from re-executing itself).
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "syscalls/abi/errno.h"
#include "syscalls/fd_util.h"
#include "syscalls/host_call.h"
#include "syscalls/sys_lsm.h"

namespace syscalls {
namespace {

using guest::from_host;

constexpr long kLandlockCreateRuleset = 444, kLandlockAddRule = 445, kLandlockRestrictSelf = 446,
               kLsmGetSelfAttr = 459, kLsmSetSelfAttr = 460, kLsmListModules = 461;
constexpr uint64_t kPage = 4096;
constexpr uint32_t kMaxOut = 1u << 16;  // the most an LSM attribute or module list call writes here

// A host copy of `size` guest bytes at addr: nullptr for NULL, kHostFaultAddr when unreadable or larger than
// a page (the host refuses that size before it reads).
void* host_copy(Task& t, std::vector<uint8_t>* buf, uint64_t addr, uint64_t size) {
  if (addr == 0) return nullptr;
  if (size > kPage) return kHostFaultAddr;
  buf->resize(size);
  if (size != 0 && emu::copy_in(t.as(), buf->data(), addr, size) != 0) return kHostFaultAddr;
  return buf->data();
}

// lsm_get_self_attr and lsm_list_modules: *size is the room in the buffer, and comes back as what was used
// (or needed, with E2BIG); the buffer is filled through a host copy.
SysResult sized_output(Task& t, long nr, long first, uint64_t buf, uint64_t size_addr, uint32_t flags) {
  uint32_t size = 0;
  if (emu::copy_in(t.as(), &size, size_addr, sizeof size) != 0) return -EFAULT;
  std::vector<uint8_t> out(std::min(size, kMaxOut));
  auto hsize = static_cast<uint32_t>(out.size());
  void* hp = buf == 0 ? nullptr : out.data();
  const int64_t r = nr == kLsmListModules ? from_host(::syscall(nr, hp, &hsize, flags))
                                          : from_host(::syscall(nr, first, hp, &hsize, flags));
  if (r < 0 && r != -E2BIG) return r;
  if (emu::copy_out(t.as(), size_addr, &hsize, sizeof hsize) != 0) return -EFAULT;
  if (r >= 0 && hp != nullptr && hsize != 0 &&
      emu::copy_out(t.as(), buf, out.data(), std::min<uint64_t>(hsize, out.size())) != 0)
    return -EFAULT;
  return r;
}

}  // namespace

SysResult sys_lsm_get_self_attr(Task& t, uint32_t attr, uint64_t ctx, uint64_t size, uint32_t flags) {
  return sized_output(t, kLsmGetSelfAttr, attr, ctx, size, flags);
}

SysResult sys_lsm_set_self_attr(Task& t, uint32_t attr, uint64_t ctx, uint32_t size, uint32_t flags) {
  std::vector<uint8_t> buf;
  return from_host(::syscall(kLsmSetSelfAttr, attr, host_copy(t, &buf, ctx, size), size, flags));
}

SysResult sys_lsm_list_modules(Task& t, uint64_t ids, uint64_t size, uint32_t flags) {
  return sized_output(t, kLsmListModules, 0, ids, size, flags);
}

SysResult sys_landlock_create_ruleset(Task& t, uint64_t attr, uint64_t size, uint32_t flags) {
  std::vector<uint8_t> buf;
  return from_host(::syscall(kLandlockCreateRuleset, host_copy(t, &buf, attr, size), size, flags));
}

// landlock_add_rule(2): a path-beneath rule (12 packed bytes: the access mask and a directory's
// descriptor) or a network port rule (16 bytes).
SysResult sys_landlock_add_rule(Task& t, int ruleset_fd, uint32_t rule_type, uint64_t attr, uint32_t flags) {
  constexpr uint32_t kPathBeneath = 1, kNetPort = 2;
  if (is_reserved_fd(ruleset_fd)) return -EBADF;
  std::vector<uint8_t> buf;
  void* hp = kHostFaultAddr;
  if (rule_type == kPathBeneath) {
    hp = host_copy(t, &buf, attr, 12);
    int32_t parent = -1;
    if (hp != nullptr && hp != kHostFaultAddr) memcpy(&parent, buf.data() + 8, sizeof parent);
    if (is_reserved_fd(parent)) return -EBADF;
  } else if (rule_type == kNetPort) {
    hp = host_copy(t, &buf, attr, 16);
  }
  return from_host(::syscall(kLandlockAddRule, ruleset_fd, rule_type, hp, flags));
}

SysResult sys_landlock_restrict_self(Task&, int ruleset_fd, uint32_t flags) {
  if (is_reserved_fd(ruleset_fd)) return -EBADF;
  return from_host(::syscall(kLandlockRestrictSelf, ruleset_fd, flags));
}

}  // namespace syscalls
