// Guest stat, statfs and statx structs, and their conversions from the host's.
#pragma once

#include <sys/stat.h>
#include <sys/statfs.h>

#include <cstddef>
#include <cstdint>

namespace guest {

// asm-generic/stat.h (arm64's asm/stat.h includes it): 128 bytes. x86-64's is a different 144-byte layout
// (st_nlink is 64-bit and comes before st_mode), so a host stat is always converted, never copied.
struct stat {
  uint64_t st_dev;
  uint64_t st_ino;
  uint32_t st_mode;
  uint32_t st_nlink;
  uint32_t st_uid;
  uint32_t st_gid;
  uint64_t st_rdev;
  uint64_t pad1;
  int64_t st_size;
  int32_t st_blksize;
  int32_t pad2;
  int64_t st_blocks;
  int64_t st_atime_sec;  // st_atime in the uapi; renamed because glibc defines st_atime as a macro
  uint64_t st_atime_nsec;
  int64_t st_mtime_sec;
  uint64_t st_mtime_nsec;
  int64_t st_ctime_sec;
  uint64_t st_ctime_nsec;
  uint32_t unused4;
  uint32_t unused5;
};
static_assert(sizeof(stat) == 128);
static_assert(offsetof(stat, st_ino) == 8 && offsetof(stat, st_mode) == 16 &&
              offsetof(stat, st_nlink) == 20 && offsetof(stat, st_uid) == 24 &&
              offsetof(stat, st_gid) == 28 && offsetof(stat, st_rdev) == 32 &&
              offsetof(stat, st_size) == 48 && offsetof(stat, st_blksize) == 56 &&
              offsetof(stat, st_blocks) == 64 && offsetof(stat, st_atime_sec) == 72 &&
              offsetof(stat, st_atime_nsec) == 80 && offsetof(stat, st_mtime_sec) == 88 &&
              offsetof(stat, st_ctime_sec) == 104 && offsetof(stat, st_ctime_nsec) == 112);

// The kernel's cp_new_stat fails with EOVERFLOW when st_nlink does not fit in 32 bits; a host nlink that
// large is not reachable on a real file system, so the conversion narrows it.
inline stat to_guest(const struct ::stat& h) {
  stat g{};
  g.st_dev = h.st_dev;
  g.st_ino = h.st_ino;
  g.st_mode = h.st_mode;
  g.st_nlink = static_cast<uint32_t>(h.st_nlink);
  g.st_uid = h.st_uid;
  g.st_gid = h.st_gid;
  g.st_rdev = h.st_rdev;
  g.st_size = h.st_size;
  g.st_blksize = static_cast<int32_t>(h.st_blksize);
  g.st_blocks = h.st_blocks;
  g.st_atime_sec = h.st_atim.tv_sec;
  g.st_atime_nsec = static_cast<uint64_t>(h.st_atim.tv_nsec);
  g.st_mtime_sec = h.st_mtim.tv_sec;
  g.st_mtime_nsec = static_cast<uint64_t>(h.st_mtim.tv_nsec);
  g.st_ctime_sec = h.st_ctim.tv_sec;
  g.st_ctime_nsec = static_cast<uint64_t>(h.st_ctim.tv_nsec);
  return g;
}

// asm-generic/statfs.h with __statfs_word = __kernel_long_t (64-bit): 120 bytes. fstatfs64/statfs64 do not
// exist on arm64; statfs/fstatfs write this.
struct statfs {
  int64_t f_type;
  int64_t f_bsize;
  uint64_t f_blocks;
  uint64_t f_bfree;
  uint64_t f_bavail;
  uint64_t f_files;
  uint64_t f_ffree;
  int32_t f_fsid[2];
  int64_t f_namelen;
  int64_t f_frsize;
  int64_t f_flags;
  int64_t f_spare[4];
};
static_assert(sizeof(statfs) == 120);
static_assert(offsetof(statfs, f_bsize) == 8 && offsetof(statfs, f_blocks) == 16 &&
              offsetof(statfs, f_ffree) == 48 && offsetof(statfs, f_fsid) == 56 &&
              offsetof(statfs, f_namelen) == 64 && offsetof(statfs, f_frsize) == 72 &&
              offsetof(statfs, f_flags) == 80 && offsetof(statfs, f_spare) == 88);

inline statfs to_guest(const struct ::statfs& h) {
  statfs g{};
  g.f_type = h.f_type;
  g.f_bsize = h.f_bsize;
  g.f_blocks = h.f_blocks;
  g.f_bfree = h.f_bfree;
  g.f_bavail = h.f_bavail;
  g.f_files = h.f_files;
  g.f_ffree = h.f_ffree;
  g.f_fsid[0] = h.f_fsid.__val[0];
  g.f_fsid[1] = h.f_fsid.__val[1];
  g.f_namelen = h.f_namelen;
  g.f_frsize = h.f_frsize;
  g.f_flags = h.f_flags;
  return g;
}

// linux/stat.h
struct statx_timestamp {
  int64_t tv_sec;
  uint32_t tv_nsec;
  int32_t reserved;
};
static_assert(sizeof(statx_timestamp) == 16 && offsetof(statx_timestamp, tv_nsec) == 8);

// linux/stat.h: 256 bytes, made of fixed-width fields with explicit padding, identical on every
// architecture. Fields the host kernel does not fill stay zero, and stx_mask tells the guest which are valid.
struct statx {
  uint32_t stx_mask;
  uint32_t stx_blksize;
  uint64_t stx_attributes;
  uint32_t stx_nlink;
  uint32_t stx_uid;
  uint32_t stx_gid;
  uint16_t stx_mode;
  uint16_t spare0;
  uint64_t stx_ino;
  uint64_t stx_size;
  uint64_t stx_blocks;
  uint64_t stx_attributes_mask;
  statx_timestamp stx_atime;
  statx_timestamp stx_btime;
  statx_timestamp stx_ctime;
  statx_timestamp stx_mtime;
  uint32_t stx_rdev_major;
  uint32_t stx_rdev_minor;
  uint32_t stx_dev_major;
  uint32_t stx_dev_minor;
  uint64_t stx_mnt_id;
  uint32_t stx_dio_mem_align;
  uint32_t stx_dio_offset_align;
  uint64_t spare3[12];
};
static_assert(sizeof(statx) == 256);
static_assert(offsetof(statx, stx_attributes) == 8 && offsetof(statx, stx_nlink) == 16 &&
              offsetof(statx, stx_mode) == 28 && offsetof(statx, stx_ino) == 32 &&
              offsetof(statx, stx_attributes_mask) == 56 && offsetof(statx, stx_atime) == 64 &&
              offsetof(statx, stx_btime) == 80 && offsetof(statx, stx_ctime) == 96 &&
              offsetof(statx, stx_mtime) == 112 && offsetof(statx, stx_rdev_major) == 128 &&
              offsetof(statx, stx_dev_minor) == 140 && offsetof(statx, stx_mnt_id) == 144 &&
              offsetof(statx, stx_dio_mem_align) == 152 && offsetof(statx, spare3) == 160);

// linux/stat.h: statx mask bits (arch-independent).
inline constexpr uint32_t kSTATX_TYPE = 0x0001;
inline constexpr uint32_t kSTATX_MODE = 0x0002;
inline constexpr uint32_t kSTATX_NLINK = 0x0004;
inline constexpr uint32_t kSTATX_UID = 0x0008;
inline constexpr uint32_t kSTATX_GID = 0x0010;
inline constexpr uint32_t kSTATX_ATIME = 0x0020;
inline constexpr uint32_t kSTATX_MTIME = 0x0040;
inline constexpr uint32_t kSTATX_CTIME = 0x0080;
inline constexpr uint32_t kSTATX_INO = 0x0100;
inline constexpr uint32_t kSTATX_SIZE = 0x0200;
inline constexpr uint32_t kSTATX_BLOCKS = 0x0400;
inline constexpr uint32_t kSTATX_BASIC_STATS = 0x07ff;
inline constexpr uint32_t kSTATX_BTIME = 0x0800;
inline constexpr uint32_t kSTATX_MNT_ID = 0x1000;
inline constexpr uint32_t kSTATX_DIOALIGN = 0x2000;
inline constexpr uint32_t kSTATX__RESERVED = 0x80000000;
static_assert(kSTATX_TYPE == STATX_TYPE && kSTATX_MODE == STATX_MODE && kSTATX_NLINK == STATX_NLINK &&
              kSTATX_UID == STATX_UID && kSTATX_GID == STATX_GID && kSTATX_ATIME == STATX_ATIME &&
              kSTATX_MTIME == STATX_MTIME && kSTATX_CTIME == STATX_CTIME && kSTATX_INO == STATX_INO &&
              kSTATX_SIZE == STATX_SIZE && kSTATX_BLOCKS == STATX_BLOCKS &&
              kSTATX_BASIC_STATS == STATX_BASIC_STATS && kSTATX_BTIME == STATX_BTIME &&
              kSTATX__RESERVED == STATX__RESERVED);

inline statx_timestamp to_guest(const struct ::statx_timestamp& h) {
  return {h.tv_sec, h.tv_nsec, 0};
}

// From glibc's (or the host uapi's) struct statx; copies every field the host header names.
inline statx to_guest(const struct ::statx& h) {
  statx g{};
  g.stx_mask = h.stx_mask;
  g.stx_blksize = h.stx_blksize;
  g.stx_attributes = h.stx_attributes;
  g.stx_nlink = h.stx_nlink;
  g.stx_uid = h.stx_uid;
  g.stx_gid = h.stx_gid;
  g.stx_mode = h.stx_mode;
  g.stx_ino = h.stx_ino;
  g.stx_size = h.stx_size;
  g.stx_blocks = h.stx_blocks;
  g.stx_attributes_mask = h.stx_attributes_mask;
  g.stx_atime = to_guest(h.stx_atime);
  g.stx_btime = to_guest(h.stx_btime);
  g.stx_ctime = to_guest(h.stx_ctime);
  g.stx_mtime = to_guest(h.stx_mtime);
  g.stx_rdev_major = h.stx_rdev_major;
  g.stx_rdev_minor = h.stx_rdev_minor;
  g.stx_dev_major = h.stx_dev_major;
  g.stx_dev_minor = h.stx_dev_minor;
#ifdef STATX_MNT_ID
  g.stx_mnt_id = h.stx_mnt_id;
#endif
#ifdef STATX_DIOALIGN
  g.stx_dio_mem_align = h.stx_dio_mem_align;
  g.stx_dio_offset_align = h.stx_dio_offset_align;
#endif
  return g;
}

// linux/stat.h: file type and mode bits (the same on every Linux architecture).
inline constexpr uint32_t kS_IFMT = 0170000;
inline constexpr uint32_t kS_IFSOCK = 0140000;
inline constexpr uint32_t kS_IFLNK = 0120000;
inline constexpr uint32_t kS_IFREG = 0100000;
inline constexpr uint32_t kS_IFBLK = 0060000;
inline constexpr uint32_t kS_IFDIR = 0040000;
inline constexpr uint32_t kS_IFCHR = 0020000;
inline constexpr uint32_t kS_IFIFO = 0010000;
inline constexpr uint32_t kS_ISUID = 0004000;
inline constexpr uint32_t kS_ISGID = 0002000;
inline constexpr uint32_t kS_ISVTX = 0001000;
static_assert(kS_IFMT == S_IFMT && kS_IFSOCK == S_IFSOCK && kS_IFLNK == S_IFLNK && kS_IFREG == S_IFREG &&
              kS_IFBLK == S_IFBLK && kS_IFDIR == S_IFDIR && kS_IFCHR == S_IFCHR && kS_IFIFO == S_IFIFO &&
              kS_ISUID == S_ISUID && kS_ISGID == S_ISGID && kS_ISVTX == S_ISVTX);

}  // namespace guest
