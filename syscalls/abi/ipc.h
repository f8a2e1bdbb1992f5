// Guest SysV IPC ABI: the ipc64_perm, shmid64_ds, semid64_ds and msqid64_ds structs of arm64 (asm-generic
// layouts), the IPC_INFO/SHM_INFO/SEM_INFO/MSG_INFO structs, sembuf, and their conversions from and to the
// host's (x86-64) kernel structs. The command numbers and flags are the same on both sides; arm64 has no
// IPC_64 version bit (ipc_parse_version exists only on architectures with the old multiplexed ipc call), so a
// command with it is EINVAL there and on the x86-64 host alike.
#pragma once

#include <asm/ipcbuf.h>
#include <asm/msgbuf.h>
#include <asm/sembuf.h>
#include <asm/shmbuf.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>

// glibc's <bits/msq.h> names its own msqid_ds field __msg_cbytes and defines msg_cbytes to it, which would
// rename the kernel struct's field too.
#undef msg_cbytes

#include <cstddef>
#include <cstdint>

namespace guest {

// linux/ipc.h, linux/shm.h, linux/sem.h, linux/msg.h: the same values on arm64 and x86-64.
inline constexpr int32_t kIPC_CREAT = 00001000;
inline constexpr int32_t kIPC_EXCL = 00002000;
inline constexpr int32_t kIPC_NOWAIT = 00004000;
inline constexpr int32_t kIPC_RMID = 0;
inline constexpr int32_t kIPC_SET = 1;
inline constexpr int32_t kIPC_STAT = 2;
inline constexpr int32_t kIPC_INFO = 3;
inline constexpr int32_t kSHM_LOCK = 11;
inline constexpr int32_t kSHM_UNLOCK = 12;
inline constexpr int32_t kSHM_STAT = 13;
inline constexpr int32_t kSHM_INFO = 14;
inline constexpr int32_t kSHM_STAT_ANY = 15;
inline constexpr int32_t kSHM_RDONLY = 010000;
inline constexpr int32_t kSHM_RND = 020000;
inline constexpr int32_t kSHM_REMAP = 040000;
inline constexpr int32_t kSHM_EXEC = 0100000;
inline constexpr int32_t kGETPID = 11;
inline constexpr int32_t kGETVAL = 12;
inline constexpr int32_t kGETALL = 13;
inline constexpr int32_t kGETNCNT = 14;
inline constexpr int32_t kGETZCNT = 15;
inline constexpr int32_t kSETVAL = 16;
inline constexpr int32_t kSETALL = 17;
inline constexpr int32_t kSEM_STAT = 18;
inline constexpr int32_t kSEM_INFO = 19;
inline constexpr int32_t kSEM_STAT_ANY = 20;
inline constexpr int32_t kSEM_UNDO = 0x1000;
inline constexpr int32_t kMSG_STAT = 11;
inline constexpr int32_t kMSG_INFO = 12;
inline constexpr int32_t kMSG_STAT_ANY = 13;
inline constexpr int32_t kMSG_NOERROR = 010000;
inline constexpr int32_t kMSG_EXCEPT = 020000;
inline constexpr int32_t kMSG_COPY = 040000;
static_assert(kIPC_CREAT == IPC_CREAT && kIPC_EXCL == IPC_EXCL && kIPC_NOWAIT == IPC_NOWAIT &&
              kIPC_RMID == IPC_RMID && kIPC_SET == IPC_SET && kIPC_STAT == IPC_STAT && kIPC_INFO == IPC_INFO);
static_assert(kSHM_LOCK == SHM_LOCK && kSHM_UNLOCK == SHM_UNLOCK && kSHM_STAT == SHM_STAT &&
              kSHM_INFO == SHM_INFO && kSHM_STAT_ANY == SHM_STAT_ANY && kSHM_RDONLY == SHM_RDONLY &&
              kSHM_RND == SHM_RND && kSHM_REMAP == SHM_REMAP && kSHM_EXEC == SHM_EXEC);
static_assert(kGETPID == GETPID && kGETVAL == GETVAL && kGETALL == GETALL && kGETNCNT == GETNCNT &&
              kGETZCNT == GETZCNT && kSETVAL == SETVAL && kSETALL == SETALL && kSEM_STAT == SEM_STAT &&
              kSEM_INFO == SEM_INFO && kSEM_STAT_ANY == SEM_STAT_ANY && kSEM_UNDO == SEM_UNDO);
static_assert(kMSG_STAT == MSG_STAT && kMSG_INFO == MSG_INFO && kMSG_STAT_ANY == MSG_STAT_ANY &&
              kMSG_NOERROR == MSG_NOERROR && kMSG_EXCEPT == MSG_EXCEPT && kMSG_COPY == MSG_COPY);

// arm64's SHMLBA is PAGE_SIZE (asm-generic/shmparam.h; the 16 KiB COMPAT_SHMLBA is for 32-bit tasks only).
inline constexpr uint64_t kSHMLBA = 4096;
// linux/sem.h: SEMOPM (the default sc_semopm, what semop's E2BIG compares against is the namespace's).
inline constexpr uint32_t kSEMOPM = 500;

// asm-generic/ipcbuf.h with a 32-bit __kernel_mode_t: 48 bytes.
struct ipc64_perm {
  int32_t key;
  uint32_t uid;
  uint32_t gid;
  uint32_t cuid;
  uint32_t cgid;
  uint32_t mode;
  uint16_t seq;
  uint16_t pad2;
  uint64_t unused1;
  uint64_t unused2;
};
static_assert(sizeof(ipc64_perm) == 48 && offsetof(ipc64_perm, mode) == 20 &&
              offsetof(ipc64_perm, seq) == 24 && offsetof(ipc64_perm, unused1) == 32);

// asm-generic/shmbuf.h, 64-bit: 112 bytes.
struct shmid64_ds {
  ipc64_perm shm_perm;
  uint64_t shm_segsz;
  int64_t shm_atime;
  int64_t shm_dtime;
  int64_t shm_ctime;
  int32_t shm_cpid;
  int32_t shm_lpid;
  uint64_t shm_nattch;
  uint64_t unused4;
  uint64_t unused5;
};
static_assert(sizeof(shmid64_ds) == 112 && offsetof(shmid64_ds, shm_segsz) == 48 &&
              offsetof(shmid64_ds, shm_ctime) == 72 && offsetof(shmid64_ds, shm_cpid) == 80 &&
              offsetof(shmid64_ds, shm_nattch) == 88);

// asm-generic/shmbuf.h: what IPC_INFO writes (72 bytes).
struct shminfo64 {
  uint64_t shmmax;
  uint64_t shmmin;
  uint64_t shmmni;
  uint64_t shmseg;
  uint64_t shmall;
  uint64_t unused[4];
};
static_assert(sizeof(shminfo64) == 72);

// linux/shm.h: what SHM_INFO writes (48 bytes).
struct shm_info {
  int32_t used_ids;
  int32_t pad;
  uint64_t shm_tot;
  uint64_t shm_rss;
  uint64_t shm_swp;
  uint64_t swap_attempts;
  uint64_t swap_successes;
};
static_assert(sizeof(shm_info) == 48 && offsetof(shm_info, shm_tot) == 8);

// asm-generic/sembuf.h, 64-bit: 88 bytes. x86-64's has a padding word after each time (104 bytes), so
// semid64_ds is the one IPC struct whose layout differs between the two.
struct semid64_ds {
  ipc64_perm sem_perm;
  int64_t sem_otime;
  int64_t sem_ctime;
  uint64_t sem_nsems;
  uint64_t unused3;
  uint64_t unused4;
};
static_assert(sizeof(semid64_ds) == 88 && offsetof(semid64_ds, sem_otime) == 48 &&
              offsetof(semid64_ds, sem_ctime) == 56 && offsetof(semid64_ds, sem_nsems) == 64);

// linux/sem.h: what IPC_INFO and SEM_INFO write (40 bytes), and one semop operation (6 bytes).
struct seminfo {
  int32_t semmap;
  int32_t semmni;
  int32_t semmns;
  int32_t semmnu;
  int32_t semmsl;
  int32_t semopm;
  int32_t semume;
  int32_t semusz;
  int32_t semvmx;
  int32_t semaem;
};
static_assert(sizeof(seminfo) == 40);
struct sembuf {
  uint16_t sem_num;
  int16_t sem_op;
  int16_t sem_flg;
};
static_assert(sizeof(sembuf) == 6 && offsetof(sembuf, sem_flg) == 4);

// asm-generic/msgbuf.h, 64-bit: 120 bytes.
struct msqid64_ds {
  ipc64_perm msg_perm;
  int64_t msg_stime;
  int64_t msg_rtime;
  int64_t msg_ctime;
  uint64_t msg_cbytes;
  uint64_t msg_qnum;
  uint64_t msg_qbytes;
  int32_t msg_lspid;
  int32_t msg_lrpid;
  uint64_t unused4;
  uint64_t unused5;
};
static_assert(sizeof(msqid64_ds) == 120 && offsetof(msqid64_ds, msg_stime) == 48 &&
              offsetof(msqid64_ds, msg_cbytes) == 72 && offsetof(msqid64_ds, msg_qbytes) == 88 &&
              offsetof(msqid64_ds, msg_lspid) == 96 && offsetof(msqid64_ds, unused4) == 104);

// linux/msg.h: what IPC_INFO and MSG_INFO write (32 bytes).
struct msginfo {
  int32_t msgpool;
  int32_t msgmap;
  int32_t msgmax;
  int32_t msgmnb;
  int32_t msgmni;
  int32_t msgssz;
  int32_t msgtql;
  uint16_t msgseg;
  uint16_t pad;
};
static_assert(sizeof(msginfo) == 32 && offsetof(msginfo, msgseg) == 28);

// The host's structs: the x86-64 kernel's (asm/ipcbuf.h, asm/shmbuf.h, asm/sembuf.h, asm/msgbuf.h) and
// glibc's info structs, which are the kernel's.
static_assert(sizeof(::ipc64_perm) == 48 && sizeof(::shmid64_ds) == 112 && sizeof(::shminfo64) == 72 &&
              sizeof(::semid64_ds) == 104 && sizeof(::msqid64_ds) == 120);
static_assert(sizeof(::shm_info) == sizeof(shm_info) && sizeof(::seminfo) == sizeof(seminfo) &&
              sizeof(::msginfo) == sizeof(msginfo) && sizeof(::sembuf) == sizeof(sembuf));
static_assert(offsetof(::sembuf, sem_op) == offsetof(sembuf, sem_op) &&
              offsetof(::sembuf, sem_flg) == offsetof(sembuf, sem_flg));

inline ipc64_perm to_guest(const ::ipc64_perm& h) {
  ipc64_perm g{};
  g.key = h.key;
  g.uid = h.uid;
  g.gid = h.gid;
  g.cuid = h.cuid;
  g.cgid = h.cgid;
  g.mode = h.mode;
  g.seq = h.seq;
  return g;
}
// IPC_SET reads uid, gid and mode only (ipc_update_perm).
inline ::ipc64_perm to_host(const ipc64_perm& g) {
  ::ipc64_perm h{};
  h.key = g.key;
  h.uid = g.uid;
  h.gid = g.gid;
  h.cuid = g.cuid;
  h.cgid = g.cgid;
  h.mode = g.mode;
  h.seq = g.seq;
  return h;
}

inline shmid64_ds to_guest(const ::shmid64_ds& h) {
  shmid64_ds g{};
  g.shm_perm = to_guest(h.shm_perm);
  g.shm_segsz = h.shm_segsz;
  g.shm_atime = h.shm_atime;
  g.shm_dtime = h.shm_dtime;
  g.shm_ctime = h.shm_ctime;
  g.shm_cpid = h.shm_cpid;
  g.shm_lpid = h.shm_lpid;
  g.shm_nattch = h.shm_nattch;
  return g;
}
inline ::shmid64_ds to_host(const shmid64_ds& g) {
  ::shmid64_ds h{};
  h.shm_perm = to_host(g.shm_perm);
  h.shm_segsz = g.shm_segsz;
  h.shm_atime = g.shm_atime;
  h.shm_dtime = g.shm_dtime;
  h.shm_ctime = g.shm_ctime;
  h.shm_cpid = g.shm_cpid;
  h.shm_lpid = g.shm_lpid;
  h.shm_nattch = g.shm_nattch;
  return h;
}
inline shminfo64 to_guest(const ::shminfo64& h) {
  shminfo64 g{};
  g.shmmax = h.shmmax;
  g.shmmin = h.shmmin;
  g.shmmni = h.shmmni;
  g.shmseg = h.shmseg;
  g.shmall = h.shmall;
  return g;
}
inline shm_info to_guest(const ::shm_info& h) {
  shm_info g{};
  g.used_ids = h.used_ids;
  g.shm_tot = h.shm_tot;
  g.shm_rss = h.shm_rss;
  g.shm_swp = h.shm_swp;
  g.swap_attempts = h.swap_attempts;
  g.swap_successes = h.swap_successes;
  return g;
}

inline semid64_ds to_guest(const ::semid64_ds& h) {
  semid64_ds g{};
  g.sem_perm = to_guest(h.sem_perm);
  g.sem_otime = h.sem_otime;
  g.sem_ctime = h.sem_ctime;
  g.sem_nsems = h.sem_nsems;
  return g;
}
inline ::semid64_ds to_host(const semid64_ds& g) {
  ::semid64_ds h{};
  h.sem_perm = to_host(g.sem_perm);
  h.sem_otime = g.sem_otime;
  h.sem_ctime = g.sem_ctime;
  h.sem_nsems = g.sem_nsems;
  return h;
}
inline seminfo to_guest(const ::seminfo& h) {
  return seminfo{h.semmap, h.semmni, h.semmns, h.semmnu, h.semmsl,
                 h.semopm, h.semume, h.semusz, h.semvmx, h.semaem};
}

inline msqid64_ds to_guest(const ::msqid64_ds& h) {
  msqid64_ds g{};
  g.msg_perm = to_guest(h.msg_perm);
  g.msg_stime = h.msg_stime;
  g.msg_rtime = h.msg_rtime;
  g.msg_ctime = h.msg_ctime;
  g.msg_cbytes = h.msg_cbytes;
  g.msg_qnum = h.msg_qnum;
  g.msg_qbytes = h.msg_qbytes;
  g.msg_lspid = h.msg_lspid;
  g.msg_lrpid = h.msg_lrpid;
  return g;
}
inline ::msqid64_ds to_host(const msqid64_ds& g) {
  ::msqid64_ds h{};
  h.msg_perm = to_host(g.msg_perm);
  h.msg_stime = g.msg_stime;
  h.msg_rtime = g.msg_rtime;
  h.msg_ctime = g.msg_ctime;
  h.msg_cbytes = g.msg_cbytes;
  h.msg_qnum = g.msg_qnum;
  h.msg_qbytes = g.msg_qbytes;
  h.msg_lspid = g.msg_lspid;
  h.msg_lrpid = g.msg_lrpid;
  return h;
}
inline msginfo to_guest(const ::msginfo& h) {
  msginfo g{};
  g.msgpool = h.msgpool;
  g.msgmap = h.msgmap;
  g.msgmax = h.msgmax;
  g.msgmnb = h.msgmnb;
  g.msgmni = h.msgmni;
  g.msgssz = h.msgssz;
  g.msgtql = h.msgtql;
  g.msgseg = h.msgseg;
  return g;
}

}  // namespace guest
