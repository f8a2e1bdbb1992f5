// The syscall fuzzer's table: every system call of the generic (arm64) table it makes, with the kind of
// each argument and its properties (sysfuzz.h). Left out on purpose: exit and exit_group (they end the
// run), execve and execveat, clone, clone3 and rt_sigreturn (special operations make them safely), seccomp,
// ptrace, reboot, kexec and module loading. Numbers come from this architecture's headers, so the x86-64
// build makes the same calls with x86-64 numbers; one either architecture lacks is -1 and never made.
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/futex.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>

#include "sysfuzz.h"

#define LIST(name, ...)                             \
  static const uint64_t name##_v[] = {__VA_ARGS__}; \
  static const struct choice name = {name##_v, (int)(sizeof name##_v / sizeof name##_v[0])}

LIST(open_flags, O_WRONLY, O_RDWR, O_CREAT, O_EXCL, O_NOCTTY, O_TRUNC, O_APPEND, O_NONBLOCK, O_DSYNC,
     O_DIRECT, O_DIRECTORY, O_NOFOLLOW, O_NOATIME, O_CLOEXEC, O_PATH, O_TMPFILE);
LIST(at_flags, AT_SYMLINK_NOFOLLOW, AT_REMOVEDIR, AT_SYMLINK_FOLLOW, AT_NO_AUTOMOUNT, AT_EMPTY_PATH,
     AT_EACCESS);
LIST(prot, PROT_READ, PROT_WRITE, PROT_EXEC);
LIST(map_flags, MAP_SHARED, MAP_PRIVATE, MAP_FIXED, MAP_ANONYMOUS, MAP_NORESERVE, MAP_POPULATE, MAP_GROWSDOWN,
     MAP_FIXED_NOREPLACE, MAP_STACK, MAP_LOCKED);
LIST(mremap_flags, MREMAP_MAYMOVE, MREMAP_FIXED, 4 /* MREMAP_DONTUNMAP */);
LIST(madv, MADV_NORMAL, MADV_RANDOM, MADV_SEQUENTIAL, MADV_WILLNEED, MADV_DONTNEED, MADV_FREE, MADV_REMOVE,
     MADV_DONTFORK, MADV_DOFORK, MADV_MERGEABLE, MADV_UNMERGEABLE, MADV_HUGEPAGE, MADV_NOHUGEPAGE,
     MADV_DONTDUMP, MADV_DODUMP, MADV_WIPEONFORK, MADV_KEEPONFORK, MADV_COLD, MADV_PAGEOUT, 22, 23, 24, 25,
     100, 1000);
LIST(msync_flags, MS_ASYNC, MS_SYNC, MS_INVALIDATE);
LIST(mlock_flags, MCL_CURRENT, MCL_FUTURE, 4 /* MCL_ONFAULT */);
LIST(pipe_flags, O_NONBLOCK, O_CLOEXEC, O_DIRECT);
LIST(fd_flags, O_CLOEXEC, O_NONBLOCK);
LIST(seek_whence, SEEK_SET, SEEK_CUR, SEEK_END, 3 /* SEEK_DATA */, 4 /* SEEK_HOLE */, 5);
LIST(fcntl_cmds, F_DUPFD, F_GETFD, F_SETFD, F_GETFL, F_SETFL, F_GETLK, F_SETLK, F_SETLKW, F_SETOWN, F_GETOWN,
     F_SETSIG, F_GETSIG, F_SETOWN_EX, F_GETOWN_EX, F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW, F_SETLEASE,
     F_GETLEASE, F_NOTIFY, F_DUPFD_CLOEXEC, F_SETPIPE_SZ, F_GETPIPE_SZ, F_ADD_SEALS, F_GET_SEALS, 1032, 1037,
     0x7fff);
LIST(ioctl_reqs, FIONREAD, FIONBIO, FIOCLEX, FIONCLEX, FIOASYNC, TCGETS, TCSETS, TIOCGWINSZ, TIOCSWINSZ,
     TIOCGPGRP, TIOCSPGRP, TIOCOUTQ, TIOCGSID, TIOCINQ, TCFLSH, 0x80086601 /* FS_IOC_GETFLAGS */, 0x5401,
     0xc0105500, 0x8008ae9a);
LIST(flock_ops, LOCK_SH, LOCK_EX, LOCK_UN, LOCK_NB | LOCK_EX, LOCK_NB | LOCK_SH, 0, 16);
LIST(clocks, CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID,
     CLOCK_MONOTONIC_RAW, CLOCK_REALTIME_COARSE, CLOCK_MONOTONIC_COARSE, CLOCK_BOOTTIME, CLOCK_REALTIME_ALARM,
     CLOCK_BOOTTIME_ALARM, 11 /* CLOCK_TAI */, 12, -1ULL, (uint64_t)(-2 - 8 * 1) /* a pid's CPU clock */);
LIST(timer_flags, 0, TIMER_ABSTIME, 2);
LIST(itimers, ITIMER_REAL, ITIMER_VIRTUAL, ITIMER_PROF, 3);
LIST(sigmask_how, SIG_BLOCK, SIG_UNBLOCK, SIG_SETMASK, 3);
LIST(wait_opts, WNOHANG, WUNTRACED, WCONTINUED, WEXITED, WSTOPPED, WNOWAIT, __WALL, __WCLONE, __WNOTHREAD);
LIST(idtypes, P_ALL, P_PID, P_PGID, 3 /* P_PIDFD */, 4);
LIST(socket_domains, AF_UNIX, AF_INET, AF_INET6, AF_NETLINK, AF_PACKET, AF_UNSPEC, 45, 64);
LIST(socket_types, SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET, SOCK_RAW, SOCK_STREAM | SOCK_NONBLOCK,
     SOCK_DGRAM | SOCK_CLOEXEC, 11);
LIST(msg_flags, MSG_OOB, MSG_PEEK, MSG_DONTROUTE, MSG_CTRUNC, MSG_TRUNC, MSG_DONTWAIT, MSG_EOR, MSG_WAITALL,
     MSG_NOSIGNAL, MSG_MORE, MSG_CMSG_CLOEXEC, MSG_ERRQUEUE);
LIST(sock_levels, SOL_SOCKET, IPPROTO_TCP, IPPROTO_IP, IPPROTO_IPV6, 1000);
LIST(sock_opts, SO_DEBUG, SO_REUSEADDR, SO_TYPE, SO_ERROR, SO_DONTROUTE, SO_BROADCAST, SO_SNDBUF, SO_RCVBUF,
     SO_KEEPALIVE, SO_OOBINLINE, SO_LINGER, SO_RCVTIMEO, SO_SNDTIMEO, SO_PASSCRED, SO_PEERCRED, SO_ACCEPTCONN,
     SO_PROTOCOL, SO_DOMAIN, SO_ATTACH_FILTER, SO_BINDTODEVICE, SO_PEERSEC, SO_TIMESTAMP, 1, 2, 0);
LIST(shut_how, SHUT_RD, SHUT_WR, SHUT_RDWR, 3);
LIST(epoll_ops, EPOLL_CTL_ADD, EPOLL_CTL_DEL, EPOLL_CTL_MOD, 0, 4);
LIST(epoll_flags, EPOLL_CLOEXEC);
LIST(inotify_mask, IN_ACCESS, IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE, IN_OPEN, IN_MOVED_FROM, IN_CREATE,
     IN_DELETE, IN_ONLYDIR, IN_DONT_FOLLOW, IN_MASK_ADD, IN_ONESHOT);
LIST(futex_ops, FUTEX_WAIT, FUTEX_WAKE, FUTEX_REQUEUE, FUTEX_CMP_REQUEUE, FUTEX_WAKE_OP, FUTEX_WAIT_BITSET,
     FUTEX_WAKE_BITSET, FUTEX_LOCK_PI, FUTEX_UNLOCK_PI, FUTEX_TRYLOCK_PI, FUTEX_WAIT_REQUEUE_PI, 13,
     FUTEX_WAKE | FUTEX_PRIVATE_FLAG, FUTEX_WAIT | FUTEX_PRIVATE_FLAG,
     FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME, FUTEX_WAKE_OP | FUTEX_PRIVATE_FLAG,
     FUTEX_CMP_REQUEUE | FUTEX_PRIVATE_FLAG, FUTEX_WAKE | FUTEX_CLOCK_REALTIME);
LIST(getrandom_flags, 1 /* GRND_NONBLOCK */, 2 /* GRND_RANDOM */, 4 /* GRND_INSECURE */);
LIST(memfd_flags, MFD_CLOEXEC, MFD_ALLOW_SEALING, MFD_HUGETLB, 8 /* MFD_NOEXEC_SEAL */, 16 /* MFD_EXEC */);
LIST(eventfd_flags, EFD_CLOEXEC, EFD_NONBLOCK, EFD_SEMAPHORE);
LIST(timerfd_flags, TFD_CLOEXEC, TFD_NONBLOCK, TFD_TIMER_ABSTIME, TFD_TIMER_CANCEL_ON_SET);
LIST(renameat2_flags, 1 /* RENAME_NOREPLACE */, 2 /* RENAME_EXCHANGE */, 4 /* RENAME_WHITEOUT */);
LIST(access_mode, F_OK, R_OK, W_OK, X_OK);
LIST(fallocate_mode, 1 /* KEEP_SIZE */, 2 /* PUNCH_HOLE */, 8 /* COLLAPSE_RANGE */, 16 /* ZERO_RANGE */,
     32 /* INSERT_RANGE */);
LIST(splice_flags, 1 /* SPLICE_F_MOVE */, 2 /* NONBLOCK */, 4 /* MORE */, 8 /* GIFT */);
LIST(fadvice, POSIX_FADV_NORMAL, POSIX_FADV_RANDOM, POSIX_FADV_SEQUENTIAL, POSIX_FADV_WILLNEED,
     POSIX_FADV_DONTNEED, POSIX_FADV_NOREUSE, 6);
LIST(rlimits, RLIMIT_CPU, RLIMIT_FSIZE, RLIMIT_DATA, RLIMIT_STACK, RLIMIT_CORE, RLIMIT_RSS, RLIMIT_NPROC,
     RLIMIT_NOFILE, RLIMIT_MEMLOCK, RLIMIT_AS, RLIMIT_LOCKS, RLIMIT_SIGPENDING, RLIMIT_MSGQUEUE, RLIMIT_NICE,
     RLIMIT_RTPRIO, RLIMIT_RTTIME, 16, -1ULL);
LIST(prio_which, PRIO_PROCESS, PRIO_PGRP, PRIO_USER, 3);
LIST(sched_policies, SCHED_OTHER, SCHED_FIFO, SCHED_RR, SCHED_BATCH, SCHED_IDLE, 6 /* DEADLINE */, 7);
LIST(prctl_opts, PR_SET_PDEATHSIG, PR_GET_PDEATHSIG, PR_GET_DUMPABLE, PR_SET_DUMPABLE, PR_GET_KEEPCAPS,
     PR_SET_KEEPCAPS, PR_SET_NAME, PR_GET_NAME, PR_GET_SECCOMP, PR_CAPBSET_READ, PR_CAPBSET_DROP,
     PR_GET_TIMERSLACK, PR_SET_TIMERSLACK, PR_SET_CHILD_SUBREAPER, PR_GET_CHILD_SUBREAPER,
     PR_SET_NO_NEW_PRIVS, PR_GET_NO_NEW_PRIVS, PR_GET_TID_ADDRESS, PR_SET_THP_DISABLE, PR_GET_THP_DISABLE,
     PR_SET_PTRACER, PR_GET_SPECULATION_CTRL, 56 /* PR_GET_TAGGED_ADDR_CTRL */, 51 /* PR_SVE_GET_VL */,
     PR_SET_VMA, 0, 1000);
LIST(membarrier_cmds, 0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 3);
LIST(close_range_flags, 2 /* CLOSE_RANGE_CLOEXEC */, 4 /* CLOSE_RANGE_UNSHARE */);
LIST(unshare_flags, CLONE_FILES, CLONE_FS, CLONE_SYSVSEM, CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC,
     CLONE_NEWNET, CLONE_NEWPID, CLONE_SIGHAND, CLONE_VM, CLONE_THREAD);
LIST(ipc_cmds, 0 /* IPC_RMID */, 1 /* IPC_SET */, 2 /* IPC_STAT */, 3 /* IPC_INFO */, 11, 12, 13, 14, 15, 16,
     17, 18, 19, 20, 256);
LIST(ipc_flags, 01000 /* IPC_CREAT */, 02000 /* IPC_EXCL */, 04000 /* IPC_NOWAIT */, 0600,
     010000 /* SHM_RDONLY */, 020000 /* SHM_RND */, 0100000 /* SHM_EXEC */, 040000 /* MSG_EXCEPT */);
LIST(ipc_keys, 0 /* IPC_PRIVATE */, 0x1234, 0x5678, -1ULL);

// Shorthands: each argument is {kind, choice list}.
#define I \
  { A_INT, 0 }
#define SM \
  { A_SMALL, 0 }
#define FD \
  { A_FD, 0 }
#define DFD \
  { A_DIRFD, 0 }
#define IN \
  { A_IN, 0 }
#define OUT \
  { A_OUT, 0 }
#define LEN \
  { A_LEN, 0 }
#define PATH \
  { A_PATH, 0 }
#define MODE \
  { A_MODE, 0 }
#define OFF \
  { A_OFF, 0 }
#define MMA \
  { A_MMADDR, 0 }
#define MML \
  { A_MMLEN, 0 }
#define SIG \
  { A_SIG, 0 }
#define PID \
  { A_PID, 0 }
#define UID \
  { A_UID, 0 }
#define TS \
  { A_TIMESPEC, 0 }
#define ITS \
  { A_ITIMER, 0 }
#define SS \
  { A_SIGSET, 0 }
#define SSZ \
  { A_SIGSETSZ, 0 }
#define IOV \
  { A_IOVEC, 0 }
#define IOVN \
  { A_IOVCNT, 0 }
#define SA \
  { A_SOCKADDR, 0 }
#define SAL \
  { A_SOCKLEN, 0 }
#define LENP \
  { A_LENPTR, 0 }
#define MSG \
  { A_MSGHDR, 0 }
#define PFD \
  { A_POLLFD, 0 }
#define FDS \
  { A_FDSET, 0 }
#define EPE \
  { A_EPEVENT, 0 }
#define ACT \
  { A_SIGACT, 0 }
#define SEV \
  { A_SIGEVENT, 0 }
#define RLIM \
  { A_RLIMIT, 0 }
#define FVAL \
  { A_FUTEXVAL, 0 }
#define PTR \
  { A_PTR, 0 }
#define UL \
  { A_ULONG, 0 }
#define CH(l) \
  { A_CHOICE, &l }
#define BITS(l) \
  { A_BITS, &l }

#ifndef SYS_memfd_secret
#define SYS_memfd_secret -1
#endif
#ifndef SYS_cachestat
#define SYS_cachestat -1
#endif
#ifndef SYS_futex_waitv
#define SYS_futex_waitv -1
#endif
#ifndef SYS_process_mrelease
#define SYS_process_mrelease -1
#endif
#ifndef SYS_set_mempolicy_home_node
#define SYS_set_mempolicy_home_node -1
#endif

#define C(name, props, ...)       \
  {                               \
#name, SYS_##name, (props), { \
      __VA_ARGS__                 \
    }                             \
  }

// Compare-mode shorthands for the differential lanes.
#define AF (P_ARCHFREE)
#define OK (P_CMP_OK)
#define NC (P_CMP_NONE)
#define ST (P_STATE)
#define BL (P_BLOCKS)
#define RARE (P_RARE)
#define ND (P_NODIFF)

const struct call sysfuzz_calls[] = {
    // Files and descriptors.
    C(openat, AF | OK | ST, DFD, PATH, BITS(open_flags), MODE),
    C(openat2, OK | ST, DFD, PATH, IN, LEN),
    C(close, AF | ST, FD),
    C(close_range, AF | ST | RARE, SM, I, BITS(close_range_flags)),
    C(dup, AF | OK | ST, FD),
    C(dup3, AF | ST, FD, FD, BITS(fd_flags)),
    C(pipe2, AF | OK | ST, OUT, BITS(pipe_flags)),
    C(read, AF | BL, FD, OUT, LEN),
    C(write, AF | BL, FD, IN, LEN),
    C(readv, AF | BL, FD, IOV, IOVN),
    C(writev, AF | BL, FD, IOV, IOVN),
    C(pread64, AF, FD, OUT, LEN, OFF),
    C(pwrite64, AF, FD, IN, LEN, OFF),
    C(preadv, AF, FD, IOV, IOVN, OFF, I),
    C(pwritev, AF, FD, IOV, IOVN, OFF, I),
    C(preadv2, AF | BL, FD, IOV, IOVN, OFF, I, SM),
    C(pwritev2, AF | BL, FD, IOV, IOVN, OFF, I, SM),
    C(lseek, AF, FD, OFF, CH(seek_whence)),
    C(sendfile, AF | BL, FD, FD, PTR, LEN),
    C(splice, AF | BL, FD, PTR, FD, PTR, LEN, BITS(splice_flags)),
    C(tee, AF | BL, FD, FD, LEN, BITS(splice_flags)),
    C(vmsplice, AF | BL, FD, IOV, IOVN, BITS(splice_flags)),
    C(copy_file_range, AF, FD, PTR, FD, PTR, LEN, SM),
    C(fcntl, OK | BL, FD, CH(fcntl_cmds), PTR),
    C(ioctl, OK, FD, CH(ioctl_reqs), PTR),
    C(flock, AF | BL, FD, CH(flock_ops)),
    C(ftruncate, AF, FD, OFF),
    C(truncate, AF, PATH, OFF),
    C(fallocate, AF, FD, BITS(fallocate_mode), OFF, OFF),
    C(fsync, AF, FD),
    C(fdatasync, AF, FD),
    C(sync_file_range, AF, FD, OFF, OFF, SM),
    C(fadvise64, AF, FD, OFF, OFF, CH(fadvice)),
    C(readahead, AF, FD, OFF, LEN),
    C(sync, AF | RARE, ),
    C(syncfs, AF | RARE, FD),
    C(getdents64, OK, FD, OUT, LEN),
    C(fstat, OK, FD, OUT),
    C(newfstatat, OK, DFD, PATH, OUT, BITS(at_flags)),
    C(statx, OK, DFD, PATH, BITS(at_flags), UL, OUT),
    C(statfs, OK, PATH, OUT),
    C(fstatfs, OK, FD, OUT),
    C(getcwd, AF, OUT, LEN),
    C(chdir, AF | ST, PATH),
    C(fchdir, AF | ST, FD),
    C(chroot, AF, PATH),
    C(mkdirat, AF | ST, DFD, PATH, MODE),
    C(mknodat, AF | ST, DFD, PATH, MODE, UL),
    C(unlinkat, AF | ST, DFD, PATH, BITS(at_flags)),
    C(symlinkat, AF | ST, PATH, DFD, PATH),
    C(linkat, AF | ST, DFD, PATH, DFD, PATH, BITS(at_flags)),
    C(renameat, AF | ST, DFD, PATH, DFD, PATH),
    C(renameat2, AF | ST, DFD, PATH, DFD, PATH, BITS(renameat2_flags)),
    C(readlinkat, AF, DFD, PATH, OUT, LEN),
    C(faccessat, AF, DFD, PATH, BITS(access_mode)),
    C(faccessat2, AF, DFD, PATH, BITS(access_mode), BITS(at_flags)),
    C(fchmod, AF, FD, MODE),
    C(fchmodat, AF, DFD, PATH, MODE),
    C(fchown, AF, FD, UID, UID),
    C(fchownat, AF, DFD, PATH, UID, UID, BITS(at_flags)),
    C(utimensat, OK, DFD, PATH, TS, BITS(at_flags)),
    C(umask, AF, MODE),
    C(setxattr, AF, PATH, PATH, IN, LEN, SM),
    C(lsetxattr, AF, PATH, PATH, IN, LEN, SM),
    C(fsetxattr, AF, FD, PATH, IN, LEN, SM),
    C(getxattr, AF, PATH, PATH, OUT, LEN),
    C(lgetxattr, AF, PATH, PATH, OUT, LEN),
    C(fgetxattr, AF, FD, PATH, OUT, LEN),
    C(listxattr, AF, PATH, OUT, LEN),
    C(llistxattr, AF, PATH, OUT, LEN),
    C(flistxattr, AF, FD, OUT, LEN),
    C(removexattr, AF, PATH, PATH),
    C(lremovexattr, AF, PATH, PATH),
    C(fremovexattr, AF, FD, PATH),
    C(memfd_create, AF | OK | ST, PATH, BITS(memfd_flags)),
    C(eventfd2, AF | OK | ST, UL, BITS(eventfd_flags)),
    C(inotify_init1, AF | OK | ST, BITS(fd_flags)),
    C(inotify_add_watch, AF | OK, FD, PATH, BITS(inotify_mask)),
    C(inotify_rm_watch, AF, FD, I),
    C(mount, 0, PATH, PATH, PATH, UL, IN),
    C(umount2, 0, PATH, SM),
    // Memory.
    C(brk, NC, UL),
    C(mmap, OK | ST, MMA, MML, BITS(prot), BITS(map_flags), FD, OFF),
    C(munmap, AF | ST, MMA, MML),
    C(mprotect, AF | ST, MMA, MML, BITS(prot)),
    C(mremap, OK | ST, MMA, MML, UL, BITS(mremap_flags), MMA),
    C(madvise, AF | ST, MMA, MML, CH(madv)),
    C(msync, AF, MMA, MML, BITS(msync_flags)),
    C(mincore, AF, MMA, MML, OUT),
    C(mlock, AF, MMA, MML),
    C(munlock, AF, MMA, MML),
    C(mlock2, AF, MMA, MML, SM),
    C(mlockall, AF | RARE, BITS(mlock_flags)),
    C(munlockall, AF | RARE, ),
    C(remap_file_pages, RARE, MMA, MML, I, I, I),
    C(membarrier, AF, CH(membarrier_cmds), SM, I),
    C(pkey_mprotect, RARE, MMA, MML, BITS(prot), I),
    C(pkey_alloc, RARE, SM, SM),
    C(pkey_free, RARE, SM),
    C(memfd_secret, RARE | OK, SM),
    C(process_madvise, RARE, FD, IOV, IOVN, CH(madv), SM),
    C(mbind, RARE, MMA, MML, I, PTR, I, SM),
    C(set_mempolicy, RARE, I, PTR, I),
    C(get_mempolicy, RARE, OUT, PTR, I, MMA, SM),
    C(migrate_pages, RARE, PID, I, PTR, PTR),
    C(move_pages, RARE, PID, I, PTR, PTR, OUT, SM),
    C(cachestat, RARE, FD, IN, OUT, SM),
    // Time.
    C(clock_gettime, NC, CH(clocks), OUT),
    C(clock_getres, NC, CH(clocks), OUT),
    C(clock_settime, AF, CH(clocks), TS),
    C(clock_nanosleep, BL | ND, CH(clocks), CH(timer_flags), TS, OUT),
    C(nanosleep, BL | ND, TS, OUT),
    C(gettimeofday, NC, OUT, OUT),
    C(settimeofday, 0, IN, IN),
    C(adjtimex, NC, PTR),
    C(clock_adjtime, NC, CH(clocks), PTR),
    C(times, NC, OUT),
    C(getitimer, NC, CH(itimers), OUT),
    C(setitimer, ND | ST, CH(itimers), ITS, OUT),
    C(timer_create, OK | ND | ST, CH(clocks), SEV, OUT),
    C(timer_settime, ND | ST, SM, CH(timer_flags), ITS, OUT),
    C(timer_gettime, NC, SM, OUT),
    C(timer_getoverrun, NC, SM),
    C(timer_delete, ND, SM),
    C(timerfd_create, AF | OK | ST, CH(clocks), BITS(timerfd_flags)),
    C(timerfd_settime, AF | ND, FD, BITS(timerfd_flags), ITS, OUT),
    C(timerfd_gettime, NC, FD, OUT),
    // Signals.
    C(rt_sigaction, ST, SIG, ACT, OUT, SSZ),
    C(rt_sigprocmask, ST, CH(sigmask_how), SS, OUT, SSZ),
    C(rt_sigpending, 0, OUT, SSZ),
    C(rt_sigsuspend, BL | ND, SS, SSZ),
    C(rt_sigtimedwait, BL | ND, SS, OUT, TS, SSZ),
    C(rt_sigqueueinfo, ND, PID, SIG, IN),
    C(rt_tgsigqueueinfo, ND, PID, PID, SIG, IN),
    C(kill, ND, PID, SIG),
    C(tkill, ND, PID, SIG),
    C(tgkill, ND, PID, PID, SIG),
    C(sigaltstack, 0, IN, OUT),
    C(signalfd4, OK | ST, FD, SS, SSZ, BITS(fd_flags)),
    C(pidfd_open, OK | ND, PID, SM),
    C(pidfd_send_signal, ND, FD, SIG, IN, SM),
    C(pidfd_getfd, OK | ND, FD, FD, SM),
    C(restart_syscall, RARE, ),
    // Polling.
    C(ppoll, BL | OK, PFD, SM, TS, SS, SSZ),
    C(pselect6, BL | OK, SM, FDS, FDS, FDS, TS, PTR),
    C(epoll_create1, OK | ST, BITS(epoll_flags)),
    C(epoll_ctl, 0, FD, CH(epoll_ops), FD, EPE),
    C(epoll_pwait, BL | OK, FD, OUT, SM, I, SS, SSZ),
    C(epoll_pwait2, BL | OK, FD, OUT, SM, TS, SS, SSZ),
    // Processes and threads.
    C(getpid, NC, ),
    C(getppid, NC, ),
    C(gettid, NC, ),
    C(getuid, AF, ),
    C(geteuid, AF, ),
    C(getgid, AF, ),
    C(getegid, AF, ),
    C(getresuid, AF, OUT, OUT, OUT),
    C(getresgid, AF, OUT, OUT, OUT),
    C(setuid, AF, UID),
    C(setgid, AF, UID),
    C(setreuid, AF, UID, UID),
    C(setregid, AF, UID, UID),
    C(setresuid, AF, UID, UID, UID),
    C(setresgid, AF, UID, UID, UID),
    C(setfsuid, AF, UID),
    C(setfsgid, AF, UID),
    C(getgroups, AF, I, OUT),
    C(setgroups, AF, I, IN),
    C(capget, 0, PTR, PTR),
    C(capset, 0, IN, IN),
    C(getpgid, NC, PID),
    C(setpgid, ND, PID, PID),
    C(getsid, NC, PID),
    C(setsid, ND | ST, ),
    C(getpriority, NC, CH(prio_which), PID),
    C(setpriority, ND, CH(prio_which), PID, I),
    C(getrlimit, 0, CH(rlimits), OUT),
    C(setrlimit, ST, CH(rlimits), RLIM),
    C(prlimit64, ND, PID, CH(rlimits), RLIM, OUT),
    C(getrusage, NC, I, OUT),
    C(prctl, OK, CH(prctl_opts), UL, UL, UL, UL),
    C(personality, ST | RARE, UL),
    C(uname, OK, OUT),
    C(sethostname, 0, IN, LEN),
    C(setdomainname, 0, IN, LEN),
    C(sysinfo, OK | NC, OUT),
    C(getcpu, NC, OUT, OUT, PTR),
    C(getrandom, AF | OK | NC, OUT, LEN, BITS(getrandom_flags)),
    C(set_tid_address, NC, PTR),
    C(set_robust_list, 0, PTR, LEN),
    C(get_robust_list, 0, PID, OUT, OUT),
    C(unshare, ND | ST, BITS(unshare_flags)),
    C(wait4, BL | ND, PID, OUT, BITS(wait_opts), OUT),
    C(waitid, BL | ND, CH(idtypes), PID, OUT, BITS(wait_opts), OUT),
    C(sched_yield, AF, ),
    C(sched_getaffinity, OK, PID, LEN, OUT),
    C(sched_setaffinity, ND, PID, LEN, IN),
    C(sched_getscheduler, NC, PID),
    C(sched_setscheduler, ND, PID, CH(sched_policies), IN),
    C(sched_getparam, NC, PID, OUT),
    C(sched_setparam, ND, PID, IN),
    C(sched_get_priority_max, AF, CH(sched_policies)),
    C(sched_get_priority_min, AF, CH(sched_policies)),
    C(sched_rr_get_interval, NC, PID, OUT),
    C(sched_getattr, NC, PID, OUT, LEN, SM),
    C(sched_setattr, ND, PID, IN, SM),
    C(ioprio_get, NC, SM, PID),
    C(ioprio_set, ND, SM, PID, I),
    C(futex, BL | ND, PTR, CH(futex_ops), FVAL, TS, PTR, UL),
    C(futex_waitv, BL | ND, IN, SM, SM, TS, CH(clocks)),
    C(kcmp, RARE, PID, PID, SM, UL, UL),
    C(process_vm_readv, RARE, PID, IOV, IOVN, IOV, IOVN, SM),
    C(process_vm_writev, RARE, PID, IOV, IOVN, IOV, IOVN, SM),
    C(process_mrelease, RARE, FD, SM),
    // Sockets.
    C(socket, OK | ST, CH(socket_domains), CH(socket_types), SM),
    C(socketpair, OK | ST, CH(socket_domains), CH(socket_types), SM, OUT),
    C(bind, 0, FD, SA, SAL),
    C(listen, 0, FD, I),
    C(accept, BL | OK, FD, OUT, LENP),
    C(accept4, BL | OK, FD, OUT, LENP, BITS(fd_flags)),
    C(connect, BL, FD, SA, SAL),
    C(getsockname, 0, FD, OUT, LENP),
    C(getpeername, 0, FD, OUT, LENP),
    C(sendto, BL, FD, IN, LEN, BITS(msg_flags), SA, SAL),
    C(recvfrom, BL, FD, OUT, LEN, BITS(msg_flags), OUT, LENP),
    C(setsockopt, 0, FD, CH(sock_levels), CH(sock_opts), IN, LEN),
    C(getsockopt, 0, FD, CH(sock_levels), CH(sock_opts), OUT, LENP),
    C(shutdown, ST, FD, CH(shut_how)),
    C(sendmsg, BL, FD, MSG, BITS(msg_flags)),
    C(recvmsg, BL, FD, MSG, BITS(msg_flags)),
    C(sendmmsg, BL, FD, PTR, SM, BITS(msg_flags)),
    C(recvmmsg, BL, FD, PTR, SM, BITS(msg_flags), TS),
    // System V IPC and POSIX message queues (a64run may leave them ENOSYS).
    C(msgget, OK | ST, CH(ipc_keys), BITS(ipc_flags)),
    C(msgctl, 0, SM, CH(ipc_cmds), PTR),
    C(msgsnd, BL, SM, IN, LEN, BITS(ipc_flags)),
    C(msgrcv, BL, SM, OUT, LEN, I, BITS(ipc_flags)),
    C(semget, OK | ST, CH(ipc_keys), SM, BITS(ipc_flags)),
    C(semctl, 0, SM, SM, CH(ipc_cmds), PTR),
    C(semop, BL, SM, IN, SM),
    C(semtimedop, BL, SM, IN, SM, TS),
    C(shmget, OK | ST, CH(ipc_keys), LEN, BITS(ipc_flags)),
    C(shmctl, 0, SM, CH(ipc_cmds), PTR),
    C(shmat, OK | ST, SM, MMA, BITS(ipc_flags)),
    C(shmdt, ST, MMA),
    C(mq_open, OK | ST, PATH, BITS(open_flags), MODE, IN),
    C(mq_unlink, 0, PATH),
    C(mq_timedsend, BL, FD, IN, LEN, SM, TS),
    C(mq_timedreceive, BL, FD, OUT, LEN, OUT, TS),
    C(mq_notify, 0, FD, SEV),
    C(mq_getsetattr, 0, FD, IN, OUT),
    // Unimplemented or privileged: the answer is ENOSYS or EPERM, never a crash.
    C(io_setup, RARE, SM, OUT),
    C(io_destroy, RARE, UL),
    C(io_submit, RARE, UL, SM, PTR),
    C(io_cancel, RARE, UL, PTR, OUT),
    C(io_getevents, RARE | BL, UL, SM, SM, OUT, TS),
    C(io_uring_setup, RARE, SM, PTR),
    C(io_uring_enter, RARE | BL, FD, SM, SM, SM, SS, SSZ),
    C(io_uring_register, RARE, FD, SM, PTR, SM),
    C(userfaultfd, RARE, BITS(fd_flags)),
    C(perf_event_open, RARE, IN, PID, I, FD, SM),
    C(bpf, RARE, SM, PTR, LEN),
    C(add_key, RARE, PATH, PATH, IN, LEN, I),
    C(request_key, RARE, PATH, PATH, PATH, I),
    C(keyctl, RARE, SM, UL, UL, UL, UL),
    C(fanotify_init, RARE, BITS(fd_flags), BITS(fd_flags)),
    C(quotactl, RARE, UL, PATH, UID, PTR),
    C(acct, RARE, PATH),
    C(vhangup, RARE, ),
    C(setns, RARE, FD, BITS(unshare_flags)),
    C(open_tree, RARE, DFD, PATH, SM),
    C(fsopen, RARE, PATH, SM),
    C(fspick, RARE, DFD, PATH, SM),
    C(landlock_create_ruleset, RARE, IN, LEN, SM),
    C(name_to_handle_at, RARE, DFD, PATH, PTR, OUT, SM),
    C(open_by_handle_at, RARE, FD, IN, BITS(open_flags)),
};

const int sysfuzz_ncalls = (int)(sizeof sysfuzz_calls / sizeof sysfuzz_calls[0]);
