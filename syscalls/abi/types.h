// Guest time, resource, process and small I/O structs (timespec ... clone_args) and their conversions.
#pragma once

#include <dirent.h>
#include <poll.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/times.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <ctime>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace guest {

// Guest pointers and sizes are 64-bit on arm64: every `void*`, `long` and `size_t` field is uint64_t or
// int64_t here, so no layout depends on the host's definitions. Conversions copy field by field.

// linux/time_types.h (__kernel_timespec; arm64's struct timespec is the same).
struct timespec {
  int64_t tv_sec;
  int64_t tv_nsec;
};
static_assert(sizeof(timespec) == 16 && offsetof(timespec, tv_nsec) == 8);

// linux/time_types.h (__kernel_old_timeval).
struct timeval {
  int64_t tv_sec;
  int64_t tv_usec;
};
static_assert(sizeof(timeval) == 16 && offsetof(timeval, tv_usec) == 8);

// linux/time.h
struct timezone {
  int32_t tz_minuteswest;
  int32_t tz_dsttime;
};
static_assert(sizeof(timezone) == 8 && offsetof(timezone, tz_dsttime) == 4);

// linux/time.h
struct itimerval {
  timeval it_interval;
  timeval it_value;
};
static_assert(sizeof(itimerval) == 32 && offsetof(itimerval, it_value) == 16);

// linux/time_types.h (__kernel_itimerspec).
struct itimerspec {
  timespec it_interval;
  timespec it_value;
};
static_assert(sizeof(itimerspec) == 32 && offsetof(itimerspec, it_value) == 16);

// linux/times.h (clock_t is long: clock ticks at USER_HZ = 100).
struct tms {
  int64_t tms_utime;
  int64_t tms_stime;
  int64_t tms_cutime;
  int64_t tms_cstime;
};
static_assert(sizeof(tms) == 32 && offsetof(tms, tms_cstime) == 24);

// linux/time.h: clock ids and flags (arch-independent).
inline constexpr int32_t kCLOCK_REALTIME = 0;
inline constexpr int32_t kCLOCK_MONOTONIC = 1;
inline constexpr int32_t kCLOCK_PROCESS_CPUTIME_ID = 2;
inline constexpr int32_t kCLOCK_THREAD_CPUTIME_ID = 3;
inline constexpr int32_t kCLOCK_MONOTONIC_RAW = 4;
inline constexpr int32_t kCLOCK_REALTIME_COARSE = 5;
inline constexpr int32_t kCLOCK_MONOTONIC_COARSE = 6;
inline constexpr int32_t kCLOCK_BOOTTIME = 7;
inline constexpr int32_t kCLOCK_REALTIME_ALARM = 8;
inline constexpr int32_t kCLOCK_BOOTTIME_ALARM = 9;
inline constexpr int32_t kCLOCK_TAI = 11;
inline constexpr int32_t kTIMER_ABSTIME = 1;
inline constexpr int32_t kITIMER_REAL = 0;
inline constexpr int32_t kITIMER_VIRTUAL = 1;
inline constexpr int32_t kITIMER_PROF = 2;
static_assert(kCLOCK_REALTIME == CLOCK_REALTIME && kCLOCK_MONOTONIC == CLOCK_MONOTONIC &&
              kCLOCK_PROCESS_CPUTIME_ID == CLOCK_PROCESS_CPUTIME_ID &&
              kCLOCK_THREAD_CPUTIME_ID == CLOCK_THREAD_CPUTIME_ID &&
              kCLOCK_MONOTONIC_RAW == CLOCK_MONOTONIC_RAW &&
              kCLOCK_REALTIME_COARSE == CLOCK_REALTIME_COARSE &&
              kCLOCK_MONOTONIC_COARSE == CLOCK_MONOTONIC_COARSE && kCLOCK_BOOTTIME == CLOCK_BOOTTIME &&
              kCLOCK_REALTIME_ALARM == CLOCK_REALTIME_ALARM &&
              kCLOCK_BOOTTIME_ALARM == CLOCK_BOOTTIME_ALARM && kCLOCK_TAI == CLOCK_TAI &&
              kTIMER_ABSTIME == TIMER_ABSTIME);
static_assert(kITIMER_REAL == ITIMER_REAL && kITIMER_VIRTUAL == ITIMER_VIRTUAL &&
              kITIMER_PROF == ITIMER_PROF);

inline ::timespec to_host(const timespec& g) {
  ::timespec h{};
  h.tv_sec = g.tv_sec;
  h.tv_nsec = g.tv_nsec;
  return h;
}
inline timespec to_guest(const ::timespec& h) {
  return {h.tv_sec, h.tv_nsec};
}

inline ::timeval to_host(const timeval& g) {
  ::timeval h{};
  h.tv_sec = g.tv_sec;
  h.tv_usec = g.tv_usec;
  return h;
}
inline timeval to_guest(const ::timeval& h) {
  return {h.tv_sec, h.tv_usec};
}

inline ::itimerval to_host(const itimerval& g) {
  ::itimerval h{};
  h.it_interval = to_host(g.it_interval);
  h.it_value = to_host(g.it_value);
  return h;
}
inline itimerval to_guest(const ::itimerval& h) {
  return {to_guest(h.it_interval), to_guest(h.it_value)};
}

inline ::itimerspec to_host(const itimerspec& g) {
  ::itimerspec h{};
  h.it_interval = to_host(g.it_interval);
  h.it_value = to_host(g.it_value);
  return h;
}
inline itimerspec to_guest(const ::itimerspec& h) {
  return {to_guest(h.it_interval), to_guest(h.it_value)};
}

inline tms to_guest(const ::tms& h) {
  return {h.tms_utime, h.tms_stime, h.tms_cutime, h.tms_cstime};
}

// linux/uio.h
struct iovec {
  uint64_t iov_base;  // guest address
  uint64_t iov_len;
};
static_assert(sizeof(iovec) == 16 && offsetof(iovec, iov_len) == 8);
inline constexpr int32_t kUIO_MAXIOV = 1024;
static_assert(kUIO_MAXIOV == IOV_MAX);

// linux/resource.h (rlimit64 for prlimit64 has the same layout on a 64-bit kernel).
struct rlimit {
  uint64_t rlim_cur;
  uint64_t rlim_max;
};
static_assert(sizeof(rlimit) == 16 && offsetof(rlimit, rlim_max) == 8);
inline constexpr uint64_t kRLIM_INFINITY = ~uint64_t{0};
static_assert(kRLIM_INFINITY == RLIM_INFINITY);

inline ::rlimit to_host(const rlimit& g) {
  ::rlimit h{};
  h.rlim_cur = g.rlim_cur;
  h.rlim_max = g.rlim_max;
  return h;
}
inline rlimit to_guest(const ::rlimit& h) {
  return {h.rlim_cur, h.rlim_max};
}

// asm-generic/resource.h: resource numbers. x86-64 uses the same file.
inline constexpr int32_t kRLIMIT_CPU = 0;
inline constexpr int32_t kRLIMIT_FSIZE = 1;
inline constexpr int32_t kRLIMIT_DATA = 2;
inline constexpr int32_t kRLIMIT_STACK = 3;
inline constexpr int32_t kRLIMIT_CORE = 4;
inline constexpr int32_t kRLIMIT_RSS = 5;
inline constexpr int32_t kRLIMIT_NPROC = 6;
inline constexpr int32_t kRLIMIT_NOFILE = 7;
inline constexpr int32_t kRLIMIT_MEMLOCK = 8;
inline constexpr int32_t kRLIMIT_AS = 9;
inline constexpr int32_t kRLIMIT_LOCKS = 10;
inline constexpr int32_t kRLIMIT_SIGPENDING = 11;
inline constexpr int32_t kRLIMIT_MSGQUEUE = 12;
inline constexpr int32_t kRLIMIT_NICE = 13;
inline constexpr int32_t kRLIMIT_RTPRIO = 14;
inline constexpr int32_t kRLIMIT_RTTIME = 15;
inline constexpr int32_t kRLIM_NLIMITS = 16;
static_assert(kRLIMIT_CPU == RLIMIT_CPU && kRLIMIT_FSIZE == RLIMIT_FSIZE && kRLIMIT_DATA == RLIMIT_DATA &&
              kRLIMIT_STACK == RLIMIT_STACK && kRLIMIT_CORE == RLIMIT_CORE && kRLIMIT_RSS == RLIMIT_RSS &&
              kRLIMIT_NPROC == RLIMIT_NPROC && kRLIMIT_NOFILE == RLIMIT_NOFILE &&
              kRLIMIT_MEMLOCK == RLIMIT_MEMLOCK && kRLIMIT_AS == RLIMIT_AS && kRLIMIT_LOCKS == RLIMIT_LOCKS &&
              kRLIMIT_SIGPENDING == RLIMIT_SIGPENDING && kRLIMIT_MSGQUEUE == RLIMIT_MSGQUEUE &&
              kRLIMIT_NICE == RLIMIT_NICE && kRLIMIT_RTPRIO == RLIMIT_RTPRIO &&
              kRLIMIT_RTTIME == RLIMIT_RTTIME && kRLIM_NLIMITS == RLIMIT_NLIMITS);

// linux/resource.h
struct rusage {
  timeval ru_utime;
  timeval ru_stime;
  int64_t ru_maxrss;
  int64_t ru_ixrss;
  int64_t ru_idrss;
  int64_t ru_isrss;
  int64_t ru_minflt;
  int64_t ru_majflt;
  int64_t ru_nswap;
  int64_t ru_inblock;
  int64_t ru_oublock;
  int64_t ru_msgsnd;
  int64_t ru_msgrcv;
  int64_t ru_nsignals;
  int64_t ru_nvcsw;
  int64_t ru_nivcsw;
};
static_assert(sizeof(rusage) == 144 && offsetof(rusage, ru_maxrss) == 32 &&
              offsetof(rusage, ru_nivcsw) == 136);
inline constexpr int32_t kRUSAGE_SELF = 0;
inline constexpr int32_t kRUSAGE_CHILDREN = -1;
inline constexpr int32_t kRUSAGE_THREAD = 1;
static_assert(kRUSAGE_SELF == RUSAGE_SELF && kRUSAGE_CHILDREN == RUSAGE_CHILDREN &&
              kRUSAGE_THREAD == RUSAGE_THREAD);

inline rusage to_guest(const ::rusage& h) {
  rusage g{};
  g.ru_utime = to_guest(h.ru_utime);
  g.ru_stime = to_guest(h.ru_stime);
  g.ru_maxrss = h.ru_maxrss;
  g.ru_ixrss = h.ru_ixrss;
  g.ru_idrss = h.ru_idrss;
  g.ru_isrss = h.ru_isrss;
  g.ru_minflt = h.ru_minflt;
  g.ru_majflt = h.ru_majflt;
  g.ru_nswap = h.ru_nswap;
  g.ru_inblock = h.ru_inblock;
  g.ru_oublock = h.ru_oublock;
  g.ru_msgsnd = h.ru_msgsnd;
  g.ru_msgrcv = h.ru_msgrcv;
  g.ru_nsignals = h.ru_nsignals;
  g.ru_nvcsw = h.ru_nvcsw;
  g.ru_nivcsw = h.ru_nivcsw;
  return g;
}

// linux/utsname.h (struct new_utsname, what uname(2) fills on arm64).
inline constexpr size_t kUtsLen = 65;
struct utsname {
  char sysname[kUtsLen];
  char nodename[kUtsLen];
  char release[kUtsLen];
  char version[kUtsLen];
  char machine[kUtsLen];
  char domainname[kUtsLen];
};
static_assert(sizeof(utsname) == 390 && offsetof(utsname, machine) == 260 &&
              offsetof(utsname, domainname) == 325);

// Copies a NUL-terminated host string into a 65-byte guest field, truncating and always terminating.
inline void copy_uts_field(char (&dst)[kUtsLen], const char* src) {
  const size_t n = ::strnlen(src, kUtsLen - 1);
  std::memset(dst, 0, kUtsLen);
  std::memcpy(dst, src, n);
}

// The host's names; the caller overrides machine ("aarch64") and anything else the guest must not see.
inline utsname to_guest(const ::utsname& h) {
  utsname g{};
  copy_uts_field(g.sysname, h.sysname);
  copy_uts_field(g.nodename, h.nodename);
  copy_uts_field(g.release, h.release);
  copy_uts_field(g.version, h.version);
  copy_uts_field(g.machine, h.machine);
  copy_uts_field(g.domainname, h.domainname);
  return g;
}

// linux/sysinfo.h (64-bit: _f[] padding is 0 bytes, the struct ends at mem_unit + 4 bytes tail pad).
struct sysinfo {
  int64_t uptime;
  uint64_t loads[3];
  uint64_t totalram;
  uint64_t freeram;
  uint64_t sharedram;
  uint64_t bufferram;
  uint64_t totalswap;
  uint64_t freeswap;
  uint16_t procs;
  uint16_t pad;
  uint32_t pad2;  // implicit on arm64
  uint64_t totalhigh;
  uint64_t freehigh;
  uint32_t mem_unit;
  uint32_t pad3;  // implicit tail padding
};
static_assert(sizeof(sysinfo) == 112 && offsetof(sysinfo, procs) == 80 &&
              offsetof(sysinfo, totalhigh) == 88 && offsetof(sysinfo, mem_unit) == 104);

inline sysinfo to_guest(const struct ::sysinfo& h) {
  sysinfo g{};
  g.uptime = h.uptime;
  for (int i = 0; i < 3; ++i) g.loads[i] = h.loads[i];
  g.totalram = h.totalram;
  g.freeram = h.freeram;
  g.sharedram = h.sharedram;
  g.bufferram = h.bufferram;
  g.totalswap = h.totalswap;
  g.freeswap = h.freeswap;
  g.procs = h.procs;
  g.totalhigh = h.totalhigh;
  g.freehigh = h.freehigh;
  g.mem_unit = h.mem_unit;
  return g;
}

// asm-generic/poll.h (x86-64 uses the same file, so the POLL* bits are equal).
struct pollfd {
  int32_t fd;
  int16_t events;
  int16_t revents;
};
static_assert(sizeof(pollfd) == 8 && offsetof(pollfd, events) == 4 && offsetof(pollfd, revents) == 6);
inline constexpr int16_t kPOLLIN = 0x0001;
inline constexpr int16_t kPOLLPRI = 0x0002;
inline constexpr int16_t kPOLLOUT = 0x0004;
inline constexpr int16_t kPOLLERR = 0x0008;
inline constexpr int16_t kPOLLHUP = 0x0010;
inline constexpr int16_t kPOLLNVAL = 0x0020;
inline constexpr int16_t kPOLLRDNORM = 0x0040;
inline constexpr int16_t kPOLLRDBAND = 0x0080;
inline constexpr int16_t kPOLLWRNORM = 0x0100;
inline constexpr int16_t kPOLLWRBAND = 0x0200;
inline constexpr int16_t kPOLLMSG = 0x0400;
inline constexpr int16_t kPOLLREMOVE = 0x1000;
inline constexpr int16_t kPOLLRDHUP = 0x2000;
static_assert(kPOLLIN == POLLIN && kPOLLPRI == POLLPRI && kPOLLOUT == POLLOUT && kPOLLERR == POLLERR &&
              kPOLLHUP == POLLHUP && kPOLLNVAL == POLLNVAL && kPOLLRDNORM == POLLRDNORM &&
              kPOLLRDBAND == POLLRDBAND && kPOLLWRNORM == POLLWRNORM && kPOLLWRBAND == POLLWRBAND &&
              kPOLLMSG == POLLMSG && kPOLLREMOVE == POLLREMOVE && kPOLLRDHUP == POLLRDHUP);

inline ::pollfd to_host(const pollfd& g) {
  ::pollfd h{};
  h.fd = g.fd;
  h.events = g.events;
  h.revents = g.revents;
  return h;
}
inline pollfd to_guest(const ::pollfd& h) {
  return {h.fd, h.events, h.revents};
}

// linux/sched/types.h
struct sched_param {
  int32_t sched_priority;
};
static_assert(sizeof(sched_param) == 4);

// linux/dirent.h (kernel-internal; the layout getdents64 writes). arm64 has no getdents (only the 64 form),
// and x86-64's getdents64 writes the same layout, so a host getdents64 buffer is already in guest form.
struct linux_dirent64 {
  uint64_t d_ino;
  int64_t d_off;
  uint16_t d_reclen;
  uint8_t d_type;
  // char d_name[] starts at kDirent64NameOffset, NUL-terminated, record padded to 8 bytes.
};
inline constexpr size_t kDirent64NameOffset = 19;
static_assert(offsetof(linux_dirent64, d_off) == 8 && offsetof(linux_dirent64, d_reclen) == 16 &&
              offsetof(linux_dirent64, d_type) == 18);
static_assert(offsetof(::dirent64, d_ino) == 0 && offsetof(::dirent64, d_off) == 8 &&
              offsetof(::dirent64, d_reclen) == 16 && offsetof(::dirent64, d_type) == 18 &&
              offsetof(::dirent64, d_name) == kDirent64NameOffset);

// linux/sched.h: clone3's argument; `size` tells which version the guest passed.
struct clone_args {
  uint64_t flags;
  uint64_t pidfd;       // guest address of an int
  uint64_t child_tid;   // guest address of a pid_t
  uint64_t parent_tid;  // guest address of a pid_t
  uint64_t exit_signal;
  uint64_t stack;
  uint64_t stack_size;
  uint64_t tls;
  uint64_t set_tid;  // guest address of a pid_t array
  uint64_t set_tid_size;
  uint64_t cgroup;
};
static_assert(sizeof(clone_args) == 88 && offsetof(clone_args, exit_signal) == 32 &&
              offsetof(clone_args, tls) == 56 && offsetof(clone_args, cgroup) == 80);
inline constexpr size_t kCLONE_ARGS_SIZE_VER0 = 64;
inline constexpr size_t kCLONE_ARGS_SIZE_VER1 = 80;
inline constexpr size_t kCLONE_ARGS_SIZE_VER2 = 88;

// linux/sched.h: clone flags (arch-independent). The low byte of clone(2)'s flags is the exit signal.
inline constexpr uint64_t kCSIGNAL = 0x000000ff;
inline constexpr uint64_t kCLONE_NEWTIME = 0x00000080;
inline constexpr uint64_t kCLONE_VM = 0x00000100;
inline constexpr uint64_t kCLONE_FS = 0x00000200;
inline constexpr uint64_t kCLONE_FILES = 0x00000400;
inline constexpr uint64_t kCLONE_SIGHAND = 0x00000800;
inline constexpr uint64_t kCLONE_PIDFD = 0x00001000;
inline constexpr uint64_t kCLONE_PTRACE = 0x00002000;
inline constexpr uint64_t kCLONE_VFORK = 0x00004000;
inline constexpr uint64_t kCLONE_PARENT = 0x00008000;
inline constexpr uint64_t kCLONE_THREAD = 0x00010000;
inline constexpr uint64_t kCLONE_NEWNS = 0x00020000;
inline constexpr uint64_t kCLONE_SYSVSEM = 0x00040000;
inline constexpr uint64_t kCLONE_SETTLS = 0x00080000;
inline constexpr uint64_t kCLONE_PARENT_SETTID = 0x00100000;
inline constexpr uint64_t kCLONE_CHILD_CLEARTID = 0x00200000;
inline constexpr uint64_t kCLONE_DETACHED = 0x00400000;
inline constexpr uint64_t kCLONE_UNTRACED = 0x00800000;
inline constexpr uint64_t kCLONE_CHILD_SETTID = 0x01000000;
inline constexpr uint64_t kCLONE_NEWCGROUP = 0x02000000;
inline constexpr uint64_t kCLONE_NEWUTS = 0x04000000;
inline constexpr uint64_t kCLONE_NEWIPC = 0x08000000;
inline constexpr uint64_t kCLONE_NEWUSER = 0x10000000;
inline constexpr uint64_t kCLONE_NEWPID = 0x20000000;
inline constexpr uint64_t kCLONE_NEWNET = 0x40000000;
inline constexpr uint64_t kCLONE_IO = 0x80000000;
inline constexpr uint64_t kCLONE_CLEAR_SIGHAND = 0x100000000;  // clone3 only
inline constexpr uint64_t kCLONE_INTO_CGROUP = 0x200000000;    // clone3 only
static_assert(kCLONE_VM == CLONE_VM && kCLONE_FS == CLONE_FS && kCLONE_FILES == CLONE_FILES &&
              kCLONE_SIGHAND == CLONE_SIGHAND && kCLONE_PTRACE == CLONE_PTRACE &&
              kCLONE_VFORK == CLONE_VFORK && kCLONE_PARENT == CLONE_PARENT && kCLONE_THREAD == CLONE_THREAD &&
              kCLONE_NEWNS == CLONE_NEWNS && kCLONE_SYSVSEM == CLONE_SYSVSEM &&
              kCLONE_SETTLS == CLONE_SETTLS && kCLONE_PARENT_SETTID == CLONE_PARENT_SETTID &&
              kCLONE_CHILD_CLEARTID == CLONE_CHILD_CLEARTID && kCLONE_DETACHED == CLONE_DETACHED &&
              kCLONE_UNTRACED == CLONE_UNTRACED && kCLONE_CHILD_SETTID == CLONE_CHILD_SETTID &&
              kCLONE_NEWCGROUP == CLONE_NEWCGROUP && kCLONE_NEWUTS == CLONE_NEWUTS &&
              kCLONE_NEWIPC == CLONE_NEWIPC && kCLONE_NEWUSER == CLONE_NEWUSER &&
              kCLONE_NEWPID == CLONE_NEWPID && kCLONE_NEWNET == CLONE_NEWNET && kCLONE_IO == CLONE_IO);

// linux/wait.h: wait4/waitid options and waitid id types (arch-independent).
inline constexpr int32_t kWNOHANG = 0x00000001;
inline constexpr int32_t kWUNTRACED = 0x00000002;
inline constexpr int32_t kWSTOPPED = kWUNTRACED;
inline constexpr int32_t kWEXITED = 0x00000004;
inline constexpr int32_t kWCONTINUED = 0x00000008;
inline constexpr int32_t kWNOWAIT = 0x01000000;
inline constexpr int32_t k__WNOTHREAD = 0x20000000;
inline constexpr int32_t k__WALL = 0x40000000;
inline constexpr int32_t k__WCLONE = static_cast<int32_t>(0x80000000);
inline constexpr int32_t kP_ALL = 0;
inline constexpr int32_t kP_PID = 1;
inline constexpr int32_t kP_PGID = 2;
inline constexpr int32_t kP_PIDFD = 3;
static_assert(kWNOHANG == WNOHANG && kWUNTRACED == WUNTRACED && kWEXITED == WEXITED &&
              kWCONTINUED == WCONTINUED && kWNOWAIT == WNOWAIT && k__WNOTHREAD == __WNOTHREAD &&
              k__WALL == __WALL && k__WCLONE == static_cast<int32_t>(__WCLONE));
static_assert(kP_ALL == P_ALL && kP_PID == P_PID && kP_PGID == P_PGID);

}  // namespace guest
