// This file implements mount and umount2 by handing them to the host: flags and the options string are the
// same on both kernels; a guest mounts into the host's mount namespace, as under qemu-user.
#include "syscalls/sys_mount.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <string>

#include "syscalls/abi/errno.h"
#include "syscalls/procfs.h"

namespace syscalls {
namespace {

constexpr uint64_t kPage = 4096;

// copy_mount_options: up to a page of the options, or as much of it as is readable up to the end of the
// page it starts in (a short string near the end of a mapping); nothing readable is EFAULT.
int64_t copy_options(Task& t, uint64_t data, std::array<char, kPage + 1>* out) {
  out->fill(0);
  if (emu::copy_in(t.as(), out->data(), data, kPage) == 0) return 0;
  const uint64_t to_boundary = kPage - (data & (kPage - 1));
  if (emu::copy_in(t.as(), out->data(), data, to_boundary) == 0) return 0;
  return -EFAULT;
}

// A path argument that may be NULL (the source of a remount or a propagation change).
int64_t optional_path(Task& t, GuestCStr p, GuestPath* out, bool* present) {
  *present = p.addr != 0;
  return *present ? read_guest_path(t, AT_FDCWD, p, out) : 0;
}

}  // namespace

SysResult sys_mount(Task& t, GuestCStr source, GuestCStr target, GuestCStr fstype, uint64_t flags,
                    uint64_t data) {
  std::string type;
  if (fstype.addr != 0) {
    if (const int64_t r = emu::read_cstring(t.as(), fstype.addr, kPage, &type); r < 0) return r;
  }
  bool has_source = false, has_target = false;
  GuestPath src, dst;
  if (const int64_t r = optional_path(t, source, &src, &has_source); r < 0) return r;
  if (const int64_t r = optional_path(t, target, &dst, &has_target); r < 0) return r;
  std::array<char, kPage + 1> options;
  if (data != 0) {
    if (const int64_t r = copy_options(t, data, &options); r < 0) return r;
  }
  return guest::from_host(
      ::mount(has_source ? src.host.c_str() : nullptr, has_target ? dst.host.c_str() : nullptr,
              fstype.addr != 0 ? type.c_str() : nullptr, flags, data != 0 ? options.data() : nullptr));
}

SysResult sys_umount2(Task& t, GuestCStr target, int flags) {
  GuestPath p;
  if (const int64_t r = read_guest_path(t, AT_FDCWD, target, &p); r < 0) return r;
  return guest::from_host(
      ::umount2((flags & UMOUNT_NOFOLLOW) ? p.nofollow().c_str() : p.host.c_str(), flags));
}

// pivot_root(2): the host's, on the host paths (the guest's mount namespace is the host process's, as for
// mount and umount2).
SysResult sys_pivot_root(Task& t, GuestCStr new_root, GuestCStr put_old) {
  GuestPath n;
  GuestPath o;
  if (const int64_t r = read_guest_path(t, AT_FDCWD, new_root, &n); r < 0) return r;
  if (const int64_t r = read_guest_path(t, AT_FDCWD, put_old, &o); r < 0) return r;
  return guest::from_host(::syscall(SYS_pivot_root, n.host.c_str(), o.host.c_str()));
}

}  // namespace syscalls
