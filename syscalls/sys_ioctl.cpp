// This file implements ioctl(2) from a table of the requests a64run carries: each names how its argument
// travels, and the argument is copied through a host buffer, never handed over as a guest address. Anything
// else is -ENOTTY (logged once per request), since passing an unknown request on could let the host write
// through a guest address taken for a host pointer.
#include "syscalls/sys_ioctl.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/if_tun.h>
#include <linux/loop.h>
#include <linux/random.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <set>
#include <vector>

#include "signals/safe_syscall.h"
#include "signals/signals.h"
#include "syscalls/abi/errno.h"
#include "syscalls/abi/fcntl.h"
#include "syscalls/abi/termios.h"
#include "syscalls/fd_util.h"
#include "syscalls/procfs.h"
#include "syscalls/sys_userfaultfd.h"

namespace syscalls {
namespace {

using guest::from_host;
using A = IoctlArg;

constexpr uint16_t kTermios = sizeof(guest::termios);
constexpr uint16_t kTermios2 = sizeof(guest::termios2);
constexpr uint16_t kWinsize = sizeof(guest::winsize);
constexpr uint16_t kIfreq = sizeof(ifreq);
constexpr uint16_t kTermio = 18;
static_assert(TCGETA == 0x5405 && TCSETA == 0x5406 && TCSETAW == 0x5407 && TCSETAF == 0x5408);
static_assert(sizeof(ifreq) == 40 && sizeof(arpreq) == 68 && sizeof(file_clone_range) == 32);
// NSIO (0xb7) requests: _IO(NSIO, nr), and _IOR(NSIO, nr, T) for a T of 4, 8 and 16 bytes.
constexpr uint32_t kNsio = 0xb700;
constexpr uint32_t kNsioR4 = 0x8004b700;
constexpr uint32_t kNsioR8 = 0x8008b700;
constexpr uint32_t kNsioR16 = 0x8010b700;
// PIDFD_GET_CGROUP_NAMESPACE (_IO(PIDFS_IOCTL_MAGIC, 1)) ... PIDFD_GET_UTS_NAMESPACE (10).
constexpr uint32_t kPidfdGetNs = 0xff00;
// PIDFD_GET_INFO is _IOWR(0xff, 11, struct pidfd_info): the struct grows, and its size travels in the
// request's size field, so any size (up to the buffer) goes through as an in-and-out struct of that size.
constexpr uint32_t kPidfdGetInfoNr = 11;

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
    // The old struct termio (asm-generic/termios.h: four shorts, c_line, c_cc[8]; 18 bytes on both).
    {TCGETA, A::kOut, kTermio, false, false},
    {TCSETA, A::kIn, kTermio, false, false},
    {TCSETAW, A::kIn, kTermio, true, false},
    {TCSETAF, A::kIn, kTermio, true, false},
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
    // Block devices (linux/fs.h): BLKBSZGET/BLKBSZSET move an int whatever their size field says;
    // BLKGETSIZE and BLKRAGET a long, BLKROTATIONAL an unsigned short; the ranges are two u64.
    {BLKROSET, A::kIn, 4, false, false},
    {BLKROGET, A::kOut, 4, false, false},
    {BLKRRPART, A::kNone, 0, true, false},
    {BLKGETSIZE, A::kOut, 8, false, false},
    {BLKRASET, A::kValue, 0, false, false},
    {BLKRAGET, A::kOut, 8, false, false},
    {BLKFRASET, A::kValue, 0, false, false},
    {BLKFRAGET, A::kOut, 8, false, false},
    {BLKBSZGET, A::kOut, 4, false, false},
    {BLKBSZSET, A::kIn, 4, false, false},
    {BLKIOMIN, A::kOut, 4, false, false},
    {BLKIOOPT, A::kOut, 4, false, false},
    {BLKALIGNOFF, A::kOut, 4, false, false},
    {BLKPBSZGET, A::kOut, 4, false, false},
    {BLKDISCARDZEROES, A::kOut, 4, false, false},
    {BLKROTATIONAL, A::kOut, 2, false, false},
    {BLKDISCARD, A::kIn, 16, true, false},
    {BLKSECDISCARD, A::kIn, 16, true, false},
    {BLKZEROOUT, A::kIn, 16, true, false},
    {FICLONERANGE, A::kIn, sizeof(file_clone_range), true, false},
    // /dev/random (linux/random.h).
    {RNDGETENTCNT, A::kOut, 4, false, false},
    {RNDADDTOENTCNT, A::kIn, 4, false, false},
    {RNDZAPENTCNT, A::kNone, 0, false, false},
    {RNDCLEARPOOL, A::kNone, 0, false, false},
    {RNDRESEEDCRNG, A::kNone, 0, false, false},
    // TUN/TAP (linux/if_tun.h): struct ifreq is 40 bytes of names, numbers and sockaddrs on both sides.
    {TUNSETIFF, A::kInOut, kIfreq, false, false},
    {TUNGETIFF, A::kOut, kIfreq, false, false},
    {TUNGETFEATURES, A::kOut, 4, false, false},
    {TUNSETPERSIST, A::kValue, 0, false, false},
    {TUNSETOWNER, A::kValue, 0, false, false},
    {TUNSETGROUP, A::kValue, 0, false, false},
    {TUNSETLINK, A::kValue, 0, false, false},
    {TUNSETOFFLOAD, A::kValue, 0, false, false},
    {TUNSETNOCSUM, A::kValue, 0, false, false},
    {TUNGETSNDBUF, A::kOut, 4, false, false},
    {TUNSETSNDBUF, A::kIn, 4, false, false},
    {TUNGETVNETHDRSZ, A::kOut, 4, false, false},
    {TUNSETVNETHDRSZ, A::kIn, 4, false, false},
    {TUNSETQUEUE, A::kIn, kIfreq, false, false},
    // Sockets (linux/sockios.h): interface queries on struct ifreq, ARP entries, timestamps, queue sizes.
    {SIOCGIFNAME, A::kInOut, kIfreq, false, false},
    {SIOCGIFFLAGS, A::kInOut, kIfreq, false, false},
    {SIOCSIFFLAGS, A::kIn, kIfreq, false, false},
    {SIOCGIFADDR, A::kInOut, kIfreq, false, false},
    {SIOCSIFADDR, A::kIn, kIfreq, false, false},
    {SIOCGIFDSTADDR, A::kInOut, kIfreq, false, false},
    {SIOCSIFDSTADDR, A::kIn, kIfreq, false, false},
    {SIOCGIFBRDADDR, A::kInOut, kIfreq, false, false},
    {SIOCSIFBRDADDR, A::kIn, kIfreq, false, false},
    {SIOCGIFNETMASK, A::kInOut, kIfreq, false, false},
    {SIOCSIFNETMASK, A::kIn, kIfreq, false, false},
    {SIOCGIFMETRIC, A::kInOut, kIfreq, false, false},
    {SIOCSIFMETRIC, A::kIn, kIfreq, false, false},
    {SIOCGIFMTU, A::kInOut, kIfreq, false, false},
    {SIOCSIFMTU, A::kIn, kIfreq, false, false},
    {SIOCSIFNAME, A::kIn, kIfreq, false, false},
    {SIOCGIFHWADDR, A::kInOut, kIfreq, false, false},
    {SIOCSIFHWADDR, A::kIn, kIfreq, false, false},
    {SIOCGIFINDEX, A::kInOut, kIfreq, false, false},
    {SIOCGIFTXQLEN, A::kInOut, kIfreq, false, false},
    {SIOCSIFTXQLEN, A::kIn, kIfreq, false, false},
    {SIOCGIFMAP, A::kInOut, kIfreq, false, false},
    {SIOCSIFMAP, A::kIn, kIfreq, false, false},
    {SIOCGIFPFLAGS, A::kInOut, kIfreq, false, false},
    {SIOCSIFPFLAGS, A::kIn, kIfreq, false, false},
    {SIOCGIFSLAVE, A::kInOut, kIfreq, false, false},
    {SIOCADDMULTI, A::kIn, kIfreq, false, false},
    {SIOCDELMULTI, A::kIn, kIfreq, false, false},
    {SIOCDARP, A::kIn, sizeof(arpreq), false, false},
    {SIOCGARP, A::kInOut, sizeof(arpreq), false, false},
    {SIOCSARP, A::kIn, sizeof(arpreq), false, false},
    {SIOCATMARK, A::kOut, 4, false, false},
    {SIOCGPGRP, A::kOut, 4, false, false},
    {SIOCSPGRP, A::kIn, 4, false, false},
    {SIOCOUTQNSD, A::kOut, 4, false, false},
    {SIOCGSTAMP_OLD, A::kOut, 16, false, false},    // struct timeval, 64-bit on both
    {SIOCGSTAMPNS_OLD, A::kOut, 16, false, false},  // struct timespec
    // Namespace files (linux/nsfs.h): related namespaces as new descriptors, ids and pids. The pid
    // translations take the pid itself (their _IOR size is for show); NS_GET_OWNER_UID writes a uid_t.
    {kNsio + 1, A::kNone, 0, false, false},      // NS_GET_USERNS
    {kNsio + 2, A::kNone, 0, false, false},      // NS_GET_PARENT
    {kNsio + 3, A::kNone, 0, false, false},      // NS_GET_NSTYPE
    {kNsio + 4, A::kOut, 4, false, false},       // NS_GET_OWNER_UID
    {kNsioR8 + 5, A::kOut, 8, false, false},     // NS_GET_MNTNS_ID
    {kNsioR4 + 6, A::kValue, 0, false, false},   // NS_GET_PID_FROM_PIDNS
    {kNsioR4 + 7, A::kValue, 0, false, false},   // NS_GET_TGID_FROM_PIDNS
    {kNsioR4 + 8, A::kValue, 0, false, false},   // NS_GET_PID_IN_PIDNS
    {kNsioR4 + 9, A::kValue, 0, false, false},   // NS_GET_TGID_IN_PIDNS
    {kNsioR16 + 10, A::kOut, 16, false, false},  // NS_MNT_GET_INFO
    {kNsioR16 + 11, A::kOut, 16, false, false},  // NS_MNT_GET_NEXT
    {kNsioR16 + 12, A::kOut, 16, false, false},  // NS_MNT_GET_PREV
    {kNsioR8 + 13, A::kOut, 8, false, false},    // NS_GET_ID
    // pidfs (linux/pidfd.h): the namespaces of the process behind a pidfd, as new descriptors.
    {kPidfdGetNs + 1, A::kNone, 0, false, false},
    {kPidfdGetNs + 2, A::kNone, 0, false, false},
    {kPidfdGetNs + 3, A::kNone, 0, false, false},
    {kPidfdGetNs + 4, A::kNone, 0, false, false},
    {kPidfdGetNs + 5, A::kNone, 0, false, false},
    {kPidfdGetNs + 6, A::kNone, 0, false, false},
    {kPidfdGetNs + 7, A::kNone, 0, false, false},
    {kPidfdGetNs + 8, A::kNone, 0, false, false},
    {kPidfdGetNs + 9, A::kNone, 0, false, false},
    {kPidfdGetNs + 10, A::kNone, 0, false, false},
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

// SIOCGIFCONF: struct ifconf holds a length and a pointer to the guest's array of ifreqs (NULL asks for the
// length needed). The host fills a host buffer of the guest's length (at most 64 KiB), copied out.
int64_t if_conf(Task& t, int fd, uint64_t arg) {
  struct {
    int32_t len;
    int32_t pad;
    uint64_t buf;
  } g{};
  static_assert(sizeof g == sizeof(ifconf));
  if (emu::copy_in(t.as(), &g, arg, sizeof g) != 0) return fd_error_first(fd, -EFAULT);
  std::vector<char> buf(g.buf == 0 ? 0 : std::clamp<int32_t>(g.len, 0, 65536));
  ifconf h{};
  h.ifc_len = static_cast<int>(buf.size());
  h.ifc_buf = g.buf == 0 ? nullptr : buf.data();
  if (::ioctl(fd, SIOCGIFCONF, &h) != 0) return guest::neg_errno();
  if (g.buf != 0 && h.ifc_len > 0 &&
      emu::copy_out(t.as(), g.buf, buf.data(), static_cast<size_t>(h.ifc_len)) != 0)
    return -EFAULT;
  g.len = h.ifc_len;
  return emu::copy_out(t.as(), arg, &g, sizeof g) != 0 ? -EFAULT : 0;
}

// FS_IOC_FIEMAP: struct fiemap (a 32-byte header) and room for fm_extent_count extents of 56 bytes after it;
// the host fills a host copy, and the header and the extents it mapped are copied out.
int64_t fiemap(Task& t, int fd, uint64_t arg) {
  constexpr uint32_t kMaxExtents = 65536;
  struct fiemap head {};
  if (emu::copy_in(t.as(), &head, arg, sizeof head) != 0) return fd_error_first(fd, -EFAULT);
  const uint32_t count = std::min(head.fm_extent_count, kMaxExtents);
  std::vector<uint8_t> buf(sizeof head + size_t{count} * sizeof(fiemap_extent));
  head.fm_extent_count = count;
  memcpy(buf.data(), &head, sizeof head);
  {
    emu::RunLockReleaser unlocked(t.proc().run_lock(), &t.cpu());
    if (::ioctl(fd, FS_IOC_FIEMAP, buf.data()) != 0) return guest::neg_errno();
  }
  memcpy(&head, buf.data(), sizeof head);
  const size_t mapped = count == 0 ? 0 : std::min(head.fm_mapped_extents, count);
  return emu::copy_out(t.as(), arg, buf.data(), sizeof head + mapped * sizeof(fiemap_extent)) != 0 ? -EFAULT
                                                                                                   : 0;
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
  if (cmd == SIOCGIFCONF) return if_conf(t, fd, arg);
  if (guest::ioc_type(cmd) == 0xaa) return userfaultfd_ioctl(t, fd, cmd, arg);
  if (cmd == FS_IOC_FIEMAP) return fiemap(t, fd, arg);
  if (cmd == kProcmapQuery) {
    // Any other descriptor: ENOTTY, as for every file but a maps file (a maps file of another process is
    // the host's, whose query would answer in host addresses).
    const int64_t r = procmap_query(t, fd, arg);
    if (r != kNotMapsFile) return r;
    return ::fcntl(fd, F_GETFD) < 0 ? -EBADF : -ENOTTY;
  }
  if (cmd == guest::kFIOASYNC) t.proc().self_signals_armed.store(true, std::memory_order_relaxed);
  IoctlSpec pidfd_info{cmd, A::kInOut, static_cast<uint16_t>(guest::ioc_size(cmd)), false, false};
  const bool is_pidfd_info = guest::ioc_type(cmd) == 0xff && guest::ioc_nr(cmd) == kPidfdGetInfoNr &&
                             guest::ioc_size(cmd) <= kMaxArgSize;
  // pidfd_info_get: a NULL struct is EINVAL, before anything is read.
  if (is_pidfd_info && arg == 0) return from_host(::ioctl(fd, cmd, nullptr));
  const IoctlSpec* s = is_pidfd_info ? &pidfd_info : find_ioctl(cmd);
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
  // A NULL argument goes to the host as NULL: the request decides (EFAULT, or "no struct wanted").
  if (arg == 0) return host_ioctl(t, *s, fd, 0);
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
