// Guest open flags and their translation to and from the host's, fcntl commands, flock, AT_* flags.
#pragma once

#include <fcntl.h>
#include <linux/openat2.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>

namespace guest {

// arm64's asm/fcntl.h overrides four asm-generic open flags; x86-64 keeps the asm-generic values. Every other
// bit is the same on both, so translation swaps these four bits and passes the rest through unchanged
// (including bits neither kernel knows: the host then ignores or rejects them exactly as arm64 would).
inline constexpr uint32_t kO_ACCMODE = 00000003;
inline constexpr uint32_t kO_RDONLY = 00000000;
inline constexpr uint32_t kO_WRONLY = 00000001;
inline constexpr uint32_t kO_RDWR = 00000002;
inline constexpr uint32_t kO_CREAT = 00000100;
inline constexpr uint32_t kO_EXCL = 00000200;
inline constexpr uint32_t kO_NOCTTY = 00000400;
inline constexpr uint32_t kO_TRUNC = 00001000;
inline constexpr uint32_t kO_APPEND = 00002000;
inline constexpr uint32_t kO_NONBLOCK = 00004000;
inline constexpr uint32_t kO_NDELAY = kO_NONBLOCK;
inline constexpr uint32_t kO_DSYNC = 00010000;
inline constexpr uint32_t kFASYNC = 00020000;
inline constexpr uint32_t kO_DIRECTORY = 00040000;  // arm64 (x86-64: 0200000)
inline constexpr uint32_t kO_NOFOLLOW = 00100000;   // arm64 (x86-64: 0400000)
inline constexpr uint32_t kO_DIRECT = 00200000;     // arm64 (x86-64: 040000)
inline constexpr uint32_t kO_LARGEFILE = 00400000;  // arm64 (x86-64: 0100000)
inline constexpr uint32_t kO_NOATIME = 01000000;
inline constexpr uint32_t kO_CLOEXEC = 02000000;
inline constexpr uint32_t k__O_SYNC = 04000000;
inline constexpr uint32_t kO_SYNC = k__O_SYNC | kO_DSYNC;
inline constexpr uint32_t kO_PATH = 010000000;
inline constexpr uint32_t k__O_TMPFILE = 020000000;
// O_TMPFILE carries O_DIRECTORY so old kernels fail it; the bit swap keeps that pairing on the host.
inline constexpr uint32_t kO_TMPFILE = k__O_TMPFILE | kO_DIRECTORY;

// The host kernel's values of the four bits that move. glibc's O_LARGEFILE is 0 on x86-64 (open() there
// always behaves as large-file), but the kernel still sets 0100000 in what F_GETFL reports.
namespace host {
inline constexpr uint32_t kO_DIRECT = 00040000;
inline constexpr uint32_t kO_LARGEFILE = 00100000;
inline constexpr uint32_t kO_DIRECTORY = 00200000;
inline constexpr uint32_t kO_NOFOLLOW = 00400000;
static_assert(kO_DIRECT == O_DIRECT && kO_DIRECTORY == O_DIRECTORY && kO_NOFOLLOW == O_NOFOLLOW);
}  // namespace host

// The flags that are the same number on both: check them against the host's headers.
static_assert(kO_ACCMODE == O_ACCMODE && kO_RDONLY == O_RDONLY && kO_WRONLY == O_WRONLY &&
              kO_RDWR == O_RDWR && kO_CREAT == O_CREAT && kO_EXCL == O_EXCL && kO_NOCTTY == O_NOCTTY &&
              kO_TRUNC == O_TRUNC && kO_APPEND == O_APPEND && kO_NONBLOCK == O_NONBLOCK &&
              kO_DSYNC == O_DSYNC && kFASYNC == FASYNC && kO_NOATIME == O_NOATIME &&
              kO_CLOEXEC == O_CLOEXEC && kO_SYNC == O_SYNC && kO_PATH == O_PATH &&
              k__O_TMPFILE == (O_TMPFILE & ~O_DIRECTORY));

struct OpenFlagMove {
  uint32_t guest;
  uint32_t host;
};
inline constexpr OpenFlagMove kMovedOpenFlags[] = {
    {kO_DIRECTORY, host::kO_DIRECTORY},
    {kO_NOFOLLOW, host::kO_NOFOLLOW},
    {kO_DIRECT, host::kO_DIRECT},
    {kO_LARGEFILE, host::kO_LARGEFILE},
};
// Both sides move the same four bits among themselves (a permutation), so translation is a bijection.
inline constexpr uint32_t kMovedOpenFlagBits = kO_DIRECTORY | kO_NOFOLLOW | kO_DIRECT | kO_LARGEFILE;
static_assert(kMovedOpenFlagBits ==
              (host::kO_DIRECTORY | host::kO_NOFOLLOW | host::kO_DIRECT | host::kO_LARGEFILE));

// Guest open/openat/F_SETFL flags to the host's.
constexpr int host_open_flags(uint32_t guest_flags) {
  uint32_t out = guest_flags & ~kMovedOpenFlagBits;
  for (const OpenFlagMove& m : kMovedOpenFlags) {
    if (guest_flags & m.guest) out |= m.host;
  }
  return static_cast<int>(out);
}

// Host flags (F_GETFL, /proc fdinfo) to the guest's.
constexpr uint32_t guest_open_flags(int host_flags) {
  const auto in = static_cast<uint32_t>(host_flags);
  uint32_t out = in & ~kMovedOpenFlagBits;
  for (const OpenFlagMove& m : kMovedOpenFlags) {
    if (in & m.host) out |= m.guest;
  }
  return out;
}

static_assert(host_open_flags(kO_TMPFILE | kO_RDWR) == (O_TMPFILE | O_RDWR));
static_assert(guest_open_flags(O_TMPFILE | O_WRONLY) == (kO_TMPFILE | kO_WRONLY));

// linux/openat2.h: openat2's argument. Its flags are the open flags above (upper 32 bits must be 0: the
// kernel rejects them with EINVAL); mode and resolve are arch-independent.
struct open_how {
  uint64_t flags;
  uint64_t mode;
  uint64_t resolve;
};
static_assert(sizeof(open_how) == 24 && offsetof(open_how, mode) == 8 && offsetof(open_how, resolve) == 16);
inline constexpr size_t kOPEN_HOW_SIZE_VER0 = 24;
inline constexpr uint64_t kRESOLVE_NO_XDEV = 0x01;
inline constexpr uint64_t kRESOLVE_NO_MAGICLINKS = 0x02;
inline constexpr uint64_t kRESOLVE_NO_SYMLINKS = 0x04;
inline constexpr uint64_t kRESOLVE_BENEATH = 0x08;
inline constexpr uint64_t kRESOLVE_IN_ROOT = 0x10;
inline constexpr uint64_t kRESOLVE_CACHED = 0x20;
static_assert(kRESOLVE_NO_XDEV == RESOLVE_NO_XDEV && kRESOLVE_NO_MAGICLINKS == RESOLVE_NO_MAGICLINKS &&
              kRESOLVE_NO_SYMLINKS == RESOLVE_NO_SYMLINKS && kRESOLVE_BENEATH == RESOLVE_BENEATH &&
              kRESOLVE_IN_ROOT == RESOLVE_IN_ROOT && kRESOLVE_CACHED == RESOLVE_CACHED);

// asm-generic/fcntl.h and linux/fcntl.h: fcntl commands. arm64 and x86-64 use the same numbers. On a
// 64-bit kernel F_GETLK64/F_SETLK64/F_SETLKW64 (12-14) are not commands at all (the uapi defines them only
// for 32-bit userspace; glibc's F_GETLK64 is F_GETLK): fcntl(12..14) is EINVAL on arm64 and on the host.
inline constexpr int32_t kF_DUPFD = 0;
inline constexpr int32_t kF_GETFD = 1;
inline constexpr int32_t kF_SETFD = 2;
inline constexpr int32_t kF_GETFL = 3;
inline constexpr int32_t kF_SETFL = 4;
inline constexpr int32_t kF_GETLK = 5;
inline constexpr int32_t kF_SETLK = 6;
inline constexpr int32_t kF_SETLKW = 7;
inline constexpr int32_t kF_SETOWN = 8;
inline constexpr int32_t kF_GETOWN = 9;
inline constexpr int32_t kF_SETSIG = 10;
inline constexpr int32_t kF_GETSIG = 11;
inline constexpr int32_t kF_SETOWN_EX = 15;
inline constexpr int32_t kF_GETOWN_EX = 16;
inline constexpr int32_t kF_GETOWNER_UIDS = 17;
inline constexpr int32_t kF_OFD_GETLK = 36;
inline constexpr int32_t kF_OFD_SETLK = 37;
inline constexpr int32_t kF_OFD_SETLKW = 38;
inline constexpr int32_t kF_LINUX_SPECIFIC_BASE = 1024;
inline constexpr int32_t kF_SETLEASE = kF_LINUX_SPECIFIC_BASE + 0;
inline constexpr int32_t kF_GETLEASE = kF_LINUX_SPECIFIC_BASE + 1;
inline constexpr int32_t kF_NOTIFY = kF_LINUX_SPECIFIC_BASE + 2;
inline constexpr int32_t kF_CANCELLK = kF_LINUX_SPECIFIC_BASE + 5;
inline constexpr int32_t kF_DUPFD_CLOEXEC = kF_LINUX_SPECIFIC_BASE + 6;
inline constexpr int32_t kF_SETPIPE_SZ = kF_LINUX_SPECIFIC_BASE + 7;
inline constexpr int32_t kF_GETPIPE_SZ = kF_LINUX_SPECIFIC_BASE + 8;
inline constexpr int32_t kF_ADD_SEALS = kF_LINUX_SPECIFIC_BASE + 9;
inline constexpr int32_t kF_GET_SEALS = kF_LINUX_SPECIFIC_BASE + 10;
inline constexpr int32_t kF_GET_RW_HINT = kF_LINUX_SPECIFIC_BASE + 11;
inline constexpr int32_t kF_SET_RW_HINT = kF_LINUX_SPECIFIC_BASE + 12;
inline constexpr int32_t kF_GET_FILE_RW_HINT = kF_LINUX_SPECIFIC_BASE + 13;
inline constexpr int32_t kF_SET_FILE_RW_HINT = kF_LINUX_SPECIFIC_BASE + 14;
static_assert(kF_DUPFD == F_DUPFD && kF_GETFD == F_GETFD && kF_SETFD == F_SETFD && kF_GETFL == F_GETFL &&
              kF_SETFL == F_SETFL && kF_GETLK == F_GETLK && kF_SETLK == F_SETLK && kF_SETLKW == F_SETLKW &&
              kF_SETOWN == F_SETOWN && kF_GETOWN == F_GETOWN && kF_SETSIG == F_SETSIG &&
              kF_GETSIG == F_GETSIG && kF_SETOWN_EX == F_SETOWN_EX && kF_GETOWN_EX == F_GETOWN_EX &&
              kF_OFD_GETLK == F_OFD_GETLK && kF_OFD_SETLK == F_OFD_SETLK && kF_OFD_SETLKW == F_OFD_SETLKW &&
              kF_SETLEASE == F_SETLEASE && kF_GETLEASE == F_GETLEASE && kF_NOTIFY == F_NOTIFY &&
              kF_DUPFD_CLOEXEC == F_DUPFD_CLOEXEC && kF_SETPIPE_SZ == F_SETPIPE_SZ &&
              kF_GETPIPE_SZ == F_GETPIPE_SZ && kF_ADD_SEALS == F_ADD_SEALS && kF_GET_SEALS == F_GET_SEALS &&
              kF_GET_RW_HINT == F_GET_RW_HINT && kF_SET_RW_HINT == F_SET_RW_HINT &&
              kF_GET_FILE_RW_HINT == F_GET_FILE_RW_HINT && kF_SET_FILE_RW_HINT == F_SET_FILE_RW_HINT);
// glibc maps the 64-suffixed names onto the plain commands on a 64-bit target.
static_assert(F_GETLK64 == kF_GETLK && F_SETLK64 == kF_SETLK && F_SETLKW64 == kF_SETLKW);

inline constexpr int32_t kFD_CLOEXEC = 1;
inline constexpr int32_t kF_RDLCK = 0;
inline constexpr int32_t kF_WRLCK = 1;
inline constexpr int32_t kF_UNLCK = 2;
inline constexpr int32_t kF_OWNER_TID = 0;
inline constexpr int32_t kF_OWNER_PID = 1;
inline constexpr int32_t kF_OWNER_PGRP = 2;
inline constexpr int32_t kF_SEAL_SEAL = 0x0001;
inline constexpr int32_t kF_SEAL_SHRINK = 0x0002;
inline constexpr int32_t kF_SEAL_GROW = 0x0004;
inline constexpr int32_t kF_SEAL_WRITE = 0x0008;
inline constexpr int32_t kF_SEAL_FUTURE_WRITE = 0x0010;
inline constexpr int32_t kLOCK_SH = 1;
inline constexpr int32_t kLOCK_EX = 2;
inline constexpr int32_t kLOCK_NB = 4;
inline constexpr int32_t kLOCK_UN = 8;
static_assert(kFD_CLOEXEC == FD_CLOEXEC && kF_RDLCK == F_RDLCK && kF_WRLCK == F_WRLCK &&
              kF_UNLCK == F_UNLCK && kF_OWNER_TID == F_OWNER_TID && kF_OWNER_PID == F_OWNER_PID &&
              kF_OWNER_PGRP == F_OWNER_PGRP && kF_SEAL_SEAL == F_SEAL_SEAL &&
              kF_SEAL_SHRINK == F_SEAL_SHRINK && kF_SEAL_GROW == F_SEAL_GROW &&
              kF_SEAL_WRITE == F_SEAL_WRITE && kF_SEAL_FUTURE_WRITE == F_SEAL_FUTURE_WRITE &&
              kLOCK_SH == LOCK_SH && kLOCK_EX == LOCK_EX && kLOCK_NB == LOCK_NB && kLOCK_UN == LOCK_UN);

// asm-generic/fcntl.h: struct flock with __kernel_off_t = long (arm64 defines no __ARCH_FLOCK_PAD).
struct flock {
  int16_t l_type;
  int16_t l_whence;
  int32_t pad0;  // implicit alignment padding
  int64_t l_start;
  int64_t l_len;
  int32_t l_pid;
  int32_t pad1;  // implicit tail padding
};
static_assert(sizeof(flock) == 32 && offsetof(flock, l_whence) == 2 && offsetof(flock, l_start) == 8 &&
              offsetof(flock, l_len) == 16 && offsetof(flock, l_pid) == 24);

inline ::flock to_host(const flock& g) {
  ::flock h{};
  h.l_type = g.l_type;
  h.l_whence = g.l_whence;
  h.l_start = g.l_start;
  h.l_len = g.l_len;
  h.l_pid = g.l_pid;
  return h;
}
inline flock to_guest(const ::flock& h) {
  flock g{};
  g.l_type = h.l_type;
  g.l_whence = h.l_whence;
  g.l_start = h.l_start;
  g.l_len = h.l_len;
  g.l_pid = h.l_pid;
  return g;
}

// asm-generic/fcntl.h
struct f_owner_ex {
  int32_t type;
  int32_t pid;
};
static_assert(sizeof(f_owner_ex) == 8 && offsetof(f_owner_ex, pid) == 4);

// linux/fcntl.h: *at() flags (arch-independent). AT_EACCESS and AT_REMOVEDIR share 0x200 by design.
inline constexpr int32_t kAT_FDCWD = -100;
inline constexpr int32_t kAT_SYMLINK_NOFOLLOW = 0x100;
inline constexpr int32_t kAT_EACCESS = 0x200;
inline constexpr int32_t kAT_REMOVEDIR = 0x200;
inline constexpr int32_t kAT_SYMLINK_FOLLOW = 0x400;
inline constexpr int32_t kAT_NO_AUTOMOUNT = 0x800;
inline constexpr int32_t kAT_EMPTY_PATH = 0x1000;
inline constexpr int32_t kAT_STATX_SYNC_TYPE = 0x6000;
inline constexpr int32_t kAT_STATX_SYNC_AS_STAT = 0x0000;
inline constexpr int32_t kAT_STATX_FORCE_SYNC = 0x2000;
inline constexpr int32_t kAT_STATX_DONT_SYNC = 0x4000;
inline constexpr int32_t kAT_RECURSIVE = 0x8000;
static_assert(kAT_FDCWD == AT_FDCWD && kAT_SYMLINK_NOFOLLOW == AT_SYMLINK_NOFOLLOW &&
              kAT_EACCESS == AT_EACCESS && kAT_REMOVEDIR == AT_REMOVEDIR &&
              kAT_SYMLINK_FOLLOW == AT_SYMLINK_FOLLOW && kAT_NO_AUTOMOUNT == AT_NO_AUTOMOUNT &&
              kAT_EMPTY_PATH == AT_EMPTY_PATH && kAT_STATX_SYNC_TYPE == AT_STATX_SYNC_TYPE &&
              kAT_STATX_SYNC_AS_STAT == AT_STATX_SYNC_AS_STAT &&
              kAT_STATX_FORCE_SYNC == AT_STATX_FORCE_SYNC && kAT_STATX_DONT_SYNC == AT_STATX_DONT_SYNC &&
              kAT_RECURSIVE == AT_RECURSIVE);

// linux/fs.h: renameat2 flags.
inline constexpr uint32_t kRENAME_NOREPLACE = 1u << 0;
inline constexpr uint32_t kRENAME_EXCHANGE = 1u << 1;
inline constexpr uint32_t kRENAME_WHITEOUT = 1u << 2;
static_assert(kRENAME_NOREPLACE == RENAME_NOREPLACE && kRENAME_EXCHANGE == RENAME_EXCHANGE &&
              kRENAME_WHITEOUT == RENAME_WHITEOUT);

}  // namespace guest
