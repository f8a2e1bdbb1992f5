// ioctl(2): the terminal, pty, file, block, loop, random, TUN, socket interface and pidfd requests whose
// arguments a64run knows how to carry.
#pragma once

#include <cstddef>
#include <cstdint>

#include "syscalls/dispatch.h"

namespace syscalls {

// How a request's third argument is carried to the host.
enum class IoctlArg : uint8_t {
  kNone,      // unused
  kValue,     // a plain integer, passed as is
  kIn,        // points at `size` bytes the host reads
  kOut,       // points at `size` bytes the host writes
  kInOut,     // both
  kOpenFlags  // guest open flags (TIOCGPTPEER), translated
};

struct IoctlSpec {
  uint32_t cmd;
  IoctlArg arg;
  uint16_t size;
  bool blocks;     // may wait (tcdrain-like): a safe system call, without the run lock
  bool arg_is_fd;  // the value names a descriptor (FICLONE): reserved ones are EBADF
};

// The spec of a request a64run passes to the host, or nullptr for one it refuses (-ENOTTY). Layouts and
// numbers of every listed request are the same on arm64 and x86-64 (asm-generic ioctls, termbits).
const IoctlSpec* find_ioctl(uint32_t cmd);

SysResult sys_ioctl(Task& t, int fd, uint32_t cmd, uint64_t arg);

}  // namespace syscalls
