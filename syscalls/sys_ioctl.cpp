// This file implements ioctl(2) from a table of the requests a64run carries: each names how its argument
// travels, and the argument is copied through a host buffer, never handed over as a guest address. Anything
// else is -ENOTTY (logged once per request), since passing an unknown request on could let the host write
// through a guest address taken for a host pointer.
#include "syscalls/sys_ioctl.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <mutex>
#include <set>

#include "signals/safe_syscall.h"
#include "signals/signals.h"
#include "syscalls/abi/errno.h"
#include "syscalls/abi/fcntl.h"
#include "syscalls/abi/termios.h"
#include "syscalls/fd_util.h"

namespace syscalls {
namespace {

using guest::from_host;
using A = IoctlArg;

constexpr uint16_t kTermios = sizeof(guest::termios);
constexpr uint16_t kTermios2 = sizeof(guest::termios2);
constexpr uint16_t kWinsize = sizeof(guest::winsize);

// Requests and their argument shapes. termios, termios2 and winsize are the kernel's asm-generic structs on
// both sides (abi/termios.h); int-sized arguments are ints (pid_t, flags, counts).
constexpr IoctlSpec kIoctls[] = {
    {guest::kTCGETS, A::kOut, kTermios, false, false},
    {guest::kTCSETS, A::kIn, kTermios, false, false},
    {guest::kTCSETSW, A::kIn, kTermios, true, false},
    {guest::kTCSETSF, A::kIn, kTermios, true, false},
    {guest::kTCGETS2, A::kOut, kTermios2, false, false},
    {guest::kTCSETS2, A::kIn, kTermios2, false, false},
    {guest::kTCSETSW2, A::kIn, kTermios2, true, false},
    {guest::kTCSETSF2, A::kIn, kTermios2, true, false},
    {TIOCGLCKTRMIOS, A::kOut, kTermios, false, false},
    {TIOCSLCKTRMIOS, A::kIn, kTermios, false, false},
    {guest::kTCSBRK, A::kValue, 0, true, false},
    {guest::kTCSBRKP, A::kValue, 0, true, false},
    {TIOCSBRK, A::kNone, 0, false, false},
    {TIOCCBRK, A::kNone, 0, false, false},
    {guest::kTCXONC, A::kValue, 0, false, false},
    {guest::kTCFLSH, A::kValue, 0, false, false},
    {guest::kTIOCGWINSZ, A::kOut, kWinsize, false, false},
    {guest::kTIOCSWINSZ, A::kIn, kWinsize, false, false},
    {guest::kTIOCEXCL, A::kNone, 0, false, false},
    {guest::kTIOCNXCL, A::kNone, 0, false, false},
    {guest::kTIOCGEXCL, A::kOut, 4, false, false},
    {guest::kTIOCSCTTY, A::kValue, 0, false, false},
    {guest::kTIOCNOTTY, A::kNone, 0, false, false},
    {guest::kTIOCGPGRP, A::kOut, 4, false, false},
    {guest::kTIOCSPGRP, A::kIn, 4, false, false},
    {guest::kTIOCGSID, A::kOut, 4, false, false},
    {guest::kTIOCOUTQ, A::kOut, 4, false, false},
    {guest::kTIOCSTI, A::kIn, 1, false, false},
    {TIOCMGET, A::kOut, 4, false, false},
    {TIOCMBIS, A::kIn, 4, false, false},
    {TIOCMBIC, A::kIn, 4, false, false},
    {TIOCMSET, A::kIn, 4, false, false},
    {guest::kTIOCPKT, A::kIn, 4, false, false},
    {guest::kTIOCGPKT, A::kOut, 4, false, false},
    {guest::kTIOCGETD, A::kOut, 4, false, false},
    {guest::kTIOCSETD, A::kIn, 4, false, false},
    {guest::kTIOCGPTN, A::kOut, 4, false, false},
    {guest::kTIOCSPTLCK, A::kIn, 4, false, false},
    {guest::kTIOCGPTLCK, A::kOut, 4, false, false},
    {guest::kTIOCGPTPEER, A::kOpenFlags, 0, false, false},
    {guest::kTIOCGDEV, A::kOut, 4, false, false},
    {guest::kTIOCSIG, A::kValue, 0, false, false},
    {guest::kTIOCVHANGUP, A::kNone, 0, false, false},
    {guest::kFIONREAD, A::kOut, 4, false, false},
    {guest::kFIONBIO, A::kIn, 4, false, false},
    {guest::kFIOASYNC, A::kIn, 4, false, false},
    {guest::kFIOCLEX, A::kNone, 0, false, false},
    {guest::kFIONCLEX, A::kNone, 0, false, false},
    {guest::kFIOQSIZE, A::kOut, 8, false, false},
    {FIGETBSZ, A::kOut, 4, false, false},
    {FICLONE, A::kValue, 0, true, true},
    {FS_IOC_GETFLAGS, A::kOut, 4, false, false},  // _IOR('f', 1, long), but the kernel moves an int
    {FS_IOC_SETFLAGS, A::kIn, 4, false, false},
    {FS_IOC_GETVERSION, A::kOut, 4, false, false},
    {BLKGETSIZE64, A::kOut, 8, false, false},
    {BLKSSZGET, A::kOut, 4, false, false},
    {BLKFLSBUF, A::kNone, 0, true, false},
    // Loop devices (linux/loop.h: loop_info64 and loop_config are fixed-width fields on every architecture).
    {LOOP_SET_FD, A::kValue, 0, false, true},
    {LOOP_CLR_FD, A::kNone, 0, false, false},
    {LOOP_SET_STATUS64, A::kIn, sizeof(loop_info64), false, false},
    {LOOP_GET_STATUS64, A::kOut, sizeof(loop_info64), false, false},
    {LOOP_CHANGE_FD, A::kValue, 0, false, true},
    {LOOP_SET_CAPACITY, A::kNone, 0, false, false},
    {LOOP_SET_DIRECT_IO, A::kValue, 0, false, false},
    {LOOP_SET_BLOCK_SIZE, A::kValue, 0, false, false},
    {LOOP_CONFIGURE, A::kIn, sizeof(loop_config), false, false},
    {LOOP_CTL_ADD, A::kValue, 0, false, false},
    {LOOP_CTL_REMOVE, A::kValue, 0, false, false},
    {LOOP_CTL_GET_FREE, A::kNone, 0, false, false},
};

constexpr uint16_t kMaxArgSize = 320;  // loop_config's 304 bytes are the largest argument
static_assert([] {
  for (const IoctlSpec& s : kIoctls) {
    if (s.size > kMaxArgSize) return false;
  }
  return true;
}());

std::mutex g_logged_mu;
std::set<uint32_t> g_logged;  // GUARDED_BY(g_logged_mu)

void log_unknown_once(uint32_t cmd) {
  {
    std::lock_guard lk(g_logged_mu);
    if (!g_logged.insert(cmd).second) return;
  }
  const std::string line = fmt::format(
      "a64run: unsupported ioctl {:#x} (type '{:c}', nr {:#x}, size {}), "
      "returning -ENOTTY\n",
      cmd,
      static_cast<char>(guest::ioc_type(cmd) >= 0x20 && guest::ioc_type(cmd) < 0x7f ? guest::ioc_type(cmd)
                                                                                    : '?'),
      guest::ioc_nr(cmd), guest::ioc_size(cmd));
  (void)!::write(STDERR_FILENO, line.data(), line.size());
}

// The kernel looks at the descriptor before the argument: a closed fd is EBADF even with a bad pointer.
int64_t fd_error_first(int fd, int64_t err) {
  return ::fcntl(fd, F_GETFD) < 0 ? -EBADF : err;
}

// A request that waits (for a terminal's output to drain) is a safe system call: a signal ends the wait with
// tty_ioctl's answer, -EINTR for a break or tcdrain (TCSBRK, TCSBRKP), a restart under SA_RESTART for the
// TCSETS*W and *F forms (set_termios' -ERESTARTSYS).
int64_t host_ioctl(Task& t, const IoctlSpec& s, int fd, unsigned long arg) {
  if (s.blocks) {
    const bool is_break = s.cmd == guest::kTCSBRK || s.cmd == guest::kTCSBRKP;
    return signals::blocking_syscall(t, is_break ? -EINTR : signals::kERESTARTSYS, SYS_ioctl, fd, s.cmd,
                                     static_cast<long>(arg));
  }
  return from_host(::ioctl(fd, s.cmd, arg));
}

// The old struct loop_info of arm64 (asm-generic: a 32-bit __kernel_old_dev_t), which x86-64 lays out
// with 64-bit device numbers. LOOP_SET_STATUS and LOOP_GET_STATUS go to the host as their loop_info64 forms,
// converted as the kernel converts the old struct (loop_info64_from_old, loop_info64_to_old).
struct GuestLoopInfo {
  int32_t lo_number;
  uint32_t lo_device;
  uint64_t lo_inode;
  uint32_t lo_rdevice;
  int32_t lo_offset;
  int32_t lo_encrypt_type;
  int32_t lo_encrypt_key_size;
  int32_t lo_flags;
  char lo_name[LO_NAME_SIZE];
  uint8_t lo_encrypt_key[LO_KEY_SIZE];
  uint64_t lo_init[2];
  char reserved[4];
};
static_assert(sizeof(GuestLoopInfo) == 160 && offsetof(GuestLoopInfo, lo_name) == 36 &&
              offsetof(GuestLoopInfo, lo_init) == 136);

int64_t loop_status_old(Task& t, int fd, uint32_t cmd, uint64_t arg) {
  GuestLoopInfo g{};
  loop_info64 h{};
  if (cmd == LOOP_SET_STATUS) {
    if (emu::copy_in(t.as(), &g, arg, sizeof g) != 0) return fd_error_first(fd, -EFAULT);
    h.lo_device = g.lo_device;
    h.lo_inode = g.lo_inode;
    h.lo_rdevice = g.lo_rdevice;
    h.lo_offset = static_cast<uint64_t>(static_cast<int64_t>(g.lo_offset));
    h.lo_flags = static_cast<uint32_t>(g.lo_flags);
    memcpy(h.lo_file_name, g.lo_name, LO_NAME_SIZE);
    return from_host(::ioctl(fd, LOOP_SET_STATUS64, &h));
  }
  if (::ioctl(fd, LOOP_GET_STATUS64, &h) != 0) return guest::neg_errno();
  g.lo_number = static_cast<int32_t>(h.lo_number);
  g.lo_device = static_cast<uint32_t>(h.lo_device);
  g.lo_inode = h.lo_inode;
  g.lo_rdevice = static_cast<uint32_t>(h.lo_rdevice);
  g.lo_offset = static_cast<int32_t>(h.lo_offset);
  g.lo_flags = static_cast<int32_t>(h.lo_flags);
  memcpy(g.lo_name, h.lo_file_name, LO_NAME_SIZE);
  if (g.lo_device != h.lo_device || g.lo_rdevice != h.lo_rdevice ||
      static_cast<uint64_t>(static_cast<int64_t>(g.lo_offset)) != h.lo_offset)
    return -EOVERFLOW;
  return emu::copy_out(t.as(), arg, &g, sizeof g) != 0 ? -EFAULT : 0;
}

}  // namespace

const IoctlSpec* find_ioctl(uint32_t cmd) {
  for (const IoctlSpec& s : kIoctls) {
    if (s.cmd == cmd) return &s;
  }
  return nullptr;
}

SysResult sys_ioctl(Task& t, int fd, uint32_t cmd, uint64_t arg) {
  if (is_reserved_fd(fd)) return -EBADF;
  if (cmd == LOOP_SET_STATUS || cmd == LOOP_GET_STATUS) return loop_status_old(t, fd, cmd, arg);
  const IoctlSpec* s = find_ioctl(cmd);
  if (s == nullptr) {
    if (::fcntl(fd, F_GETFD) < 0) return -EBADF;
    log_unknown_once(cmd);
    return -ENOTTY;
  }
  switch (s->arg) {
    case A::kNone:
      return host_ioctl(t, *s, fd, 0);
    case A::kValue:
      if (s->arg_is_fd && is_reserved_fd(static_cast<int>(arg))) return -EBADF;
      return host_ioctl(t, *s, fd, arg);
    case A::kOpenFlags:
      return host_ioctl(t, *s, fd, static_cast<unsigned>(guest::host_open_flags(static_cast<uint32_t>(arg))));
    default:
      break;
  }
  alignas(8) uint8_t buf[kMaxArgSize] = {};
  if (s->arg == A::kIn || s->arg == A::kInOut) {
    if (const int64_t r = emu::copy_in(t.as(), buf, arg, s->size); r < 0) return fd_error_first(fd, r);
  }
  const int64_t r = host_ioctl(t, *s, fd, reinterpret_cast<unsigned long>(buf));
  if (r < 0 || s->arg == A::kIn) return r;
  if (const int64_t w = emu::copy_out(t.as(), arg, buf, s->size); w < 0) return w;
  return r;
}

}  // namespace syscalls
