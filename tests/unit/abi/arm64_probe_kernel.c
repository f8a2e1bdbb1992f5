/* Prints, as C++ static_asserts on guest::, the arm64 uapi's struct layouts and constants (kernel headers
   only: they clash with glibc's). Built and run by tests/unit/abi/gen_arm64_golden.sh. */
#include <asm-generic/errno.h>
#include <asm/ioctls.h>
#include <asm/mman.h>
#include <asm/poll.h>
#include <asm/sigcontext.h>
#include <asm/siginfo.h>
#include <asm/signal.h>
#include <asm/socket.h>
#include <asm/sockios.h>
#include <asm/stat.h>
#include <asm/statfs.h>
#include <asm/termbits.h>
#include <asm/termios.h>
#include <asm/ucontext.h>
#include <linux/eventpoll.h>
#include <linux/fcntl.h>
#include <linux/fs.h>
#include <linux/futex.h>
#include <linux/mman.h>
#include <linux/openat2.h>
#include <linux/resource.h>
#include <linux/sched.h>
#include <linux/sched/types.h>
#include <linux/signal.h>
#include <linux/stat.h>
#include <linux/sysinfo.h>
#include <linux/time.h>
#include <linux/times.h>
#include <linux/uio.h>
#include <linux/utsname.h>
#include <linux/wait.h>
#include <stddef.h>

int printf(const char* fmt, ...);

#define SIZE(g, k) printf("static_assert(sizeof(guest::%s) == %zu);\n", #g, sizeof(k))
#define OFF(g, gf, k, kf) printf("static_assert(offsetof(guest::%s, %s) == %zu);\n", #g, #gf, offsetof(k, kf))
#define SAME(g, k, f) OFF(g, f, k, f)
#define VAL(g, k) printf("static_assert(same_value<guest::%s, %lldLL>);\n", #g, (long long)(k))

static void stat_and_files(void) {
  SIZE(stat, struct stat);
  SAME(stat, struct stat, st_dev);
  SAME(stat, struct stat, st_ino);
  SAME(stat, struct stat, st_mode);
  SAME(stat, struct stat, st_nlink);
  SAME(stat, struct stat, st_uid);
  SAME(stat, struct stat, st_gid);
  SAME(stat, struct stat, st_rdev);
  SAME(stat, struct stat, st_size);
  SAME(stat, struct stat, st_blksize);
  SAME(stat, struct stat, st_blocks);
  OFF(stat, st_atime_sec, struct stat, st_atime);
  SAME(stat, struct stat, st_atime_nsec);
  OFF(stat, st_mtime_sec, struct stat, st_mtime);
  SAME(stat, struct stat, st_mtime_nsec);
  OFF(stat, st_ctime_sec, struct stat, st_ctime);
  SAME(stat, struct stat, st_ctime_nsec);
  OFF(stat, unused5, struct stat, __unused5);
  SIZE(statfs, struct statfs);
  SAME(statfs, struct statfs, f_type);
  SAME(statfs, struct statfs, f_bsize);
  SAME(statfs, struct statfs, f_blocks);
  SAME(statfs, struct statfs, f_bfree);
  SAME(statfs, struct statfs, f_bavail);
  SAME(statfs, struct statfs, f_files);
  SAME(statfs, struct statfs, f_ffree);
  SAME(statfs, struct statfs, f_fsid);
  SAME(statfs, struct statfs, f_namelen);
  SAME(statfs, struct statfs, f_frsize);
  SAME(statfs, struct statfs, f_flags);
  SAME(statfs, struct statfs, f_spare);
  SIZE(statx, struct statx);
  SIZE(statx_timestamp, struct statx_timestamp);
  SAME(statx, struct statx, stx_mask);
  SAME(statx, struct statx, stx_blksize);
  SAME(statx, struct statx, stx_attributes);
  SAME(statx, struct statx, stx_nlink);
  SAME(statx, struct statx, stx_uid);
  SAME(statx, struct statx, stx_gid);
  SAME(statx, struct statx, stx_mode);
  SAME(statx, struct statx, stx_ino);
  SAME(statx, struct statx, stx_size);
  SAME(statx, struct statx, stx_blocks);
  SAME(statx, struct statx, stx_attributes_mask);
  SAME(statx, struct statx, stx_atime);
  SAME(statx, struct statx, stx_btime);
  SAME(statx, struct statx, stx_ctime);
  SAME(statx, struct statx, stx_mtime);
  SAME(statx, struct statx, stx_rdev_major);
  SAME(statx, struct statx, stx_rdev_minor);
  SAME(statx, struct statx, stx_dev_major);
  SAME(statx, struct statx, stx_dev_minor);
  SAME(statx, struct statx, stx_mnt_id);
  SAME(statx, struct statx, stx_dio_mem_align);
  SAME(statx, struct statx, stx_dio_offset_align);
  OFF(statx, spare3, struct statx, __spare3);
  VAL(kSTATX_BASIC_STATS, STATX_BASIC_STATS);
  VAL(kSTATX_BTIME, STATX_BTIME);
  VAL(kSTATX_MNT_ID, STATX_MNT_ID);
  VAL(kSTATX_DIOALIGN, STATX_DIOALIGN);
  VAL(kS_IFMT, S_IFMT);
  VAL(kS_IFSOCK, S_IFSOCK);
  VAL(kS_IFLNK, S_IFLNK);
  VAL(kS_IFDIR, S_IFDIR);
  SIZE(flock, struct flock);
  SAME(flock, struct flock, l_type);
  SAME(flock, struct flock, l_whence);
  SAME(flock, struct flock, l_start);
  SAME(flock, struct flock, l_len);
  SAME(flock, struct flock, l_pid);
  SIZE(f_owner_ex, struct f_owner_ex);
  SIZE(open_how, struct open_how);
  SAME(open_how, struct open_how, mode);
  SAME(open_how, struct open_how, resolve);
}

static void open_flags_and_fcntl(void) {
  VAL(kO_ACCMODE, O_ACCMODE);
  VAL(kO_WRONLY, O_WRONLY);
  VAL(kO_RDWR, O_RDWR);
  VAL(kO_CREAT, O_CREAT);
  VAL(kO_EXCL, O_EXCL);
  VAL(kO_NOCTTY, O_NOCTTY);
  VAL(kO_TRUNC, O_TRUNC);
  VAL(kO_APPEND, O_APPEND);
  VAL(kO_NONBLOCK, O_NONBLOCK);
  VAL(kO_DSYNC, O_DSYNC);
  VAL(kFASYNC, FASYNC);
  VAL(kO_DIRECT, O_DIRECT);
  VAL(kO_LARGEFILE, O_LARGEFILE);
  VAL(kO_DIRECTORY, O_DIRECTORY);
  VAL(kO_NOFOLLOW, O_NOFOLLOW);
  VAL(kO_NOATIME, O_NOATIME);
  VAL(kO_CLOEXEC, O_CLOEXEC);
  VAL(k__O_SYNC, __O_SYNC);
  VAL(kO_SYNC, O_SYNC);
  VAL(kO_PATH, O_PATH);
  VAL(k__O_TMPFILE, __O_TMPFILE);
  VAL(kO_TMPFILE, O_TMPFILE);
  VAL(kF_DUPFD, F_DUPFD);
  VAL(kF_GETLK, F_GETLK);
  VAL(kF_SETLKW, F_SETLKW);
  VAL(kF_SETOWN, F_SETOWN);
  VAL(kF_GETSIG, F_GETSIG);
  VAL(kF_SETOWN_EX, F_SETOWN_EX);
  VAL(kF_GETOWNER_UIDS, F_GETOWNER_UIDS);
  VAL(kF_OFD_GETLK, F_OFD_GETLK);
  VAL(kF_OFD_SETLKW, F_OFD_SETLKW);
  VAL(kF_DUPFD_CLOEXEC, F_DUPFD_CLOEXEC);
  VAL(kF_CANCELLK, F_CANCELLK);
  VAL(kF_GETPIPE_SZ, F_GETPIPE_SZ);
  VAL(kF_GET_SEALS, F_GET_SEALS);
  VAL(kF_SET_FILE_RW_HINT, F_SET_FILE_RW_HINT);
  VAL(kF_SEAL_FUTURE_WRITE, F_SEAL_FUTURE_WRITE);
  VAL(kF_UNLCK, F_UNLCK);
  VAL(kF_OWNER_PGRP, F_OWNER_PGRP);
  VAL(kLOCK_UN, LOCK_UN);
  VAL(kAT_FDCWD, AT_FDCWD);
  VAL(kAT_SYMLINK_NOFOLLOW, AT_SYMLINK_NOFOLLOW);
  VAL(kAT_EACCESS, AT_EACCESS);
  VAL(kAT_REMOVEDIR, AT_REMOVEDIR);
  VAL(kAT_SYMLINK_FOLLOW, AT_SYMLINK_FOLLOW);
  VAL(kAT_NO_AUTOMOUNT, AT_NO_AUTOMOUNT);
  VAL(kAT_EMPTY_PATH, AT_EMPTY_PATH);
  VAL(kAT_STATX_SYNC_TYPE, AT_STATX_SYNC_TYPE);
  VAL(kAT_STATX_FORCE_SYNC, AT_STATX_FORCE_SYNC);
  VAL(kAT_STATX_DONT_SYNC, AT_STATX_DONT_SYNC);
  VAL(kAT_RECURSIVE, AT_RECURSIVE);
  VAL(kRENAME_NOREPLACE, RENAME_NOREPLACE);
  VAL(kRENAME_EXCHANGE, RENAME_EXCHANGE);
  VAL(kRENAME_WHITEOUT, RENAME_WHITEOUT);
  VAL(kRESOLVE_IN_ROOT, RESOLVE_IN_ROOT);
  VAL(kRESOLVE_CACHED, RESOLVE_CACHED);
}

static void signals(void) {
  SIZE(sigaction, struct sigaction);
  OFF(sigaction, handler, struct sigaction, sa_handler);
  SAME(sigaction, struct sigaction, sa_flags);
  SAME(sigaction, struct sigaction, sa_restorer);
  SAME(sigaction, struct sigaction, sa_mask);
  SIZE(stack_t, stack_t);
  SAME(stack_t, stack_t, ss_sp);
  SAME(stack_t, stack_t, ss_flags);
  SAME(stack_t, stack_t, ss_size);
  SIZE(sigset_t, sigset_t);
  VAL(kSA_NOCLDSTOP, SA_NOCLDSTOP);
  VAL(kSA_NOCLDWAIT, SA_NOCLDWAIT);
  VAL(kSA_SIGINFO, SA_SIGINFO);
  VAL(kSA_UNSUPPORTED, SA_UNSUPPORTED);
  VAL(kSA_EXPOSE_TAGBITS, SA_EXPOSE_TAGBITS);
  VAL(kSA_RESTORER, SA_RESTORER);
  VAL(kSA_ONSTACK, SA_ONSTACK);
  VAL(kSA_RESTART, SA_RESTART);
  VAL(kSA_NODEFER, SA_NODEFER);
  VAL(kSA_RESETHAND, SA_RESETHAND);
  VAL(kSS_ONSTACK, SS_ONSTACK);
  VAL(kSS_DISABLE, SS_DISABLE);
  VAL(kSS_AUTODISARM, SS_AUTODISARM);
  VAL(kMINSIGSTKSZ, MINSIGSTKSZ);
  VAL(kSIGSTKSZ, SIGSTKSZ);
  VAL(kSIG_BLOCK, SIG_BLOCK);
  VAL(kSIG_UNBLOCK, SIG_UNBLOCK);
  VAL(kSIG_SETMASK, SIG_SETMASK);
  VAL(kSIGHUP, SIGHUP);
  VAL(kSIGBUS, SIGBUS);
  VAL(kSIGUSR1, SIGUSR1);
  VAL(kSIGSTKFLT, SIGSTKFLT);
  VAL(kSIGCHLD, SIGCHLD);
  VAL(kSIGCONT, SIGCONT);
  VAL(kSIGSTOP, SIGSTOP);
  VAL(kSIGURG, SIGURG);
  VAL(kSIGIO, SIGIO);
  VAL(kSIGPWR, SIGPWR);
  VAL(kSIGSYS, SIGSYS);
  VAL(kSIGRTMIN, SIGRTMIN);
  VAL(kSIGRTMAX, SIGRTMAX);
  VAL(kNSIG, _NSIG);
  SIZE(siginfo, siginfo_t);
  SAME(siginfo, siginfo_t, si_signo);
  SAME(siginfo, siginfo_t, si_errno);
  SAME(siginfo, siginfo_t, si_code);
  OFF(siginfo, fields.kill.pid, siginfo_t, si_pid);
  OFF(siginfo, fields.kill.uid, siginfo_t, si_uid);
  OFF(siginfo, fields.timer.tid, siginfo_t, si_tid);
  OFF(siginfo, fields.timer.overrun, siginfo_t, si_overrun);
  OFF(siginfo, fields.timer.sigval, siginfo_t, _sifields._timer._sigval);
  OFF(siginfo, fields.timer.sys_private, siginfo_t, si_sys_private);
  OFF(siginfo, fields.rt.sigval, siginfo_t, si_value);
  OFF(siginfo, fields.sigchld.status, siginfo_t, si_status);
  OFF(siginfo, fields.sigchld.utime, siginfo_t, si_utime);
  OFF(siginfo, fields.sigchld.stime, siginfo_t, si_stime);
  OFF(siginfo, fields.sigfault.addr, siginfo_t, si_addr);
  OFF(siginfo, fields.sigfault.u.addr_lsb, siginfo_t, si_addr_lsb);
  OFF(siginfo, fields.sigfault.u.addr_bnd.lower, siginfo_t, si_lower);
  OFF(siginfo, fields.sigfault.u.addr_bnd.upper, siginfo_t, si_upper);
  OFF(siginfo, fields.sigfault.u.addr_pkey.pkey, siginfo_t, si_pkey);
  OFF(siginfo, fields.sigfault.u.perf.data, siginfo_t, si_perf_data);
  OFF(siginfo, fields.sigfault.u.perf.type, siginfo_t, si_perf_type);
  OFF(siginfo, fields.sigfault.u.perf.flags, siginfo_t, si_perf_flags);
  OFF(siginfo, fields.sigpoll.band, siginfo_t, si_band);
  OFF(siginfo, fields.sigpoll.fd, siginfo_t, si_fd);
  OFF(siginfo, fields.sigsys.call_addr, siginfo_t, si_call_addr);
  OFF(siginfo, fields.sigsys.syscall, siginfo_t, si_syscall);
  OFF(siginfo, fields.sigsys.arch, siginfo_t, si_arch);
  VAL(kSI_USER, SI_USER);
  VAL(kSI_KERNEL, SI_KERNEL);
  VAL(kSI_QUEUE, SI_QUEUE);
  VAL(kSI_TIMER, SI_TIMER);
  VAL(kSI_SIGIO, SI_SIGIO);
  VAL(kSI_TKILL, SI_TKILL);
  VAL(kSI_DETHREAD, SI_DETHREAD);
  VAL(kSI_ASYNCNL, SI_ASYNCNL);
  VAL(kNSIGILL, NSIGILL);
  VAL(kNSIGFPE, NSIGFPE);
  VAL(kNSIGSEGV, NSIGSEGV);
  VAL(kNSIGBUS, NSIGBUS);
  VAL(kNSIGTRAP, NSIGTRAP);
  VAL(kNSIGCHLD, NSIGCHLD);
  VAL(kNSIGPOLL, NSIGPOLL);
  VAL(kNSIGSYS, NSIGSYS);
  VAL(kSEGV_MTESERR, SEGV_MTESERR);
  VAL(kTRAP_PERF, TRAP_PERF);
  VAL(kBUS_MCEERR_AR, BUS_MCEERR_AR);
  VAL(kCLD_STOPPED, CLD_STOPPED);
  VAL(kPOLL_HUP, POLL_HUP);
  VAL(kSYS_USER_DISPATCH, SYS_USER_DISPATCH);
  SIZE(sigevent, struct sigevent);
  SAME(sigevent, struct sigevent, sigev_value);
  SAME(sigevent, struct sigevent, sigev_signo);
  SAME(sigevent, struct sigevent, sigev_notify);
  OFF(sigevent, sigev_un.tid, struct sigevent, _sigev_un._tid);
  OFF(sigevent, sigev_un.sigev_thread.attribute, struct sigevent, _sigev_un._sigev_thread._attribute);
  VAL(kSIGEV_THREAD_ID, SIGEV_THREAD_ID);
}

static void signal_frame(void) {
  SIZE(sigcontext, struct sigcontext);
  SAME(sigcontext, struct sigcontext, regs);
  SAME(sigcontext, struct sigcontext, sp);
  SAME(sigcontext, struct sigcontext, pc);
  SAME(sigcontext, struct sigcontext, pstate);
  OFF(sigcontext, reserved, struct sigcontext, __reserved);
  SIZE(ucontext, struct ucontext);
  SAME(ucontext, struct ucontext, uc_link);
  SAME(ucontext, struct ucontext, uc_stack);
  SAME(ucontext, struct ucontext, uc_sigmask);
  OFF(ucontext, unused, struct ucontext, __unused);
  SAME(ucontext, struct ucontext, uc_mcontext);
  SIZE(aarch64_ctx, struct _aarch64_ctx);
  SIZE(fpsimd_context, struct fpsimd_context);
  SAME(fpsimd_context, struct fpsimd_context, fpsr);
  SAME(fpsimd_context, struct fpsimd_context, vregs);
  SIZE(esr_context, struct esr_context);
  SIZE(extra_context, struct extra_context);
  SAME(extra_context, struct extra_context, datap);
  SAME(extra_context, struct extra_context, size);
  SIZE(sve_context, struct sve_context);
  VAL(kFPSIMD_MAGIC, FPSIMD_MAGIC);
  VAL(kESR_MAGIC, ESR_MAGIC);
  VAL(kEXTRA_MAGIC, EXTRA_MAGIC);
  VAL(kSVE_MAGIC, SVE_MAGIC);
  VAL(kZA_MAGIC, ZA_MAGIC);
}

static void misc_types(void) {
  SIZE(timespec, struct timespec);
  SIZE(timeval, struct timeval);
  SIZE(timezone, struct timezone);
  SIZE(itimerval, struct itimerval);
  SAME(itimerval, struct itimerval, it_value);
  SIZE(itimerspec, struct itimerspec);
  SAME(itimerspec, struct itimerspec, it_value);
  SIZE(tms, struct tms);
  SAME(tms, struct tms, tms_cstime);
  SIZE(iovec, struct iovec);
  SAME(iovec, struct iovec, iov_len);
  VAL(kUIO_MAXIOV, UIO_MAXIOV);
  SIZE(rlimit, struct rlimit);
  SIZE(rusage, struct rusage);
  SAME(rusage, struct rusage, ru_maxrss);
  SAME(rusage, struct rusage, ru_nivcsw);
  VAL(kRLIM_INFINITY, RLIM_INFINITY);
  VAL(kRLIMIT_NPROC, RLIMIT_NPROC);
  VAL(kRLIMIT_NOFILE, RLIMIT_NOFILE);
  VAL(kRLIMIT_MEMLOCK, RLIMIT_MEMLOCK);
  VAL(kRLIMIT_AS, RLIMIT_AS);
  VAL(kRLIMIT_RTTIME, RLIMIT_RTTIME);
  VAL(kRLIM_NLIMITS, RLIM_NLIMITS);
  VAL(kRUSAGE_THREAD, RUSAGE_THREAD);
  SIZE(utsname, struct new_utsname);
  SAME(utsname, struct new_utsname, machine);
  SAME(utsname, struct new_utsname, domainname);
  SIZE(sysinfo, struct sysinfo);
  SAME(sysinfo, struct sysinfo, procs);
  SAME(sysinfo, struct sysinfo, totalhigh);
  SAME(sysinfo, struct sysinfo, mem_unit);
  SIZE(pollfd, struct pollfd);
  SAME(pollfd, struct pollfd, events);
  SAME(pollfd, struct pollfd, revents);
  VAL(kPOLLWRNORM, POLLWRNORM);
  VAL(kPOLLWRBAND, POLLWRBAND);
  VAL(kPOLLMSG, POLLMSG);
  VAL(kPOLLREMOVE, POLLREMOVE);
  VAL(kPOLLRDHUP, POLLRDHUP);
  SIZE(sched_param, struct sched_param);
  SIZE(clone_args, struct clone_args);
  SAME(clone_args, struct clone_args, exit_signal);
  SAME(clone_args, struct clone_args, tls);
  SAME(clone_args, struct clone_args, cgroup);
  VAL(kCLONE_ARGS_SIZE_VER0, CLONE_ARGS_SIZE_VER0);
  VAL(kCLONE_ARGS_SIZE_VER2, CLONE_ARGS_SIZE_VER2);
  VAL(kCLONE_NEWTIME, CLONE_NEWTIME);
  VAL(kCLONE_PIDFD, CLONE_PIDFD);
  VAL(kCLONE_THREAD, CLONE_THREAD);
  VAL(kCLONE_SETTLS, CLONE_SETTLS);
  VAL(kCLONE_CHILD_CLEARTID, CLONE_CHILD_CLEARTID);
  VAL(kCLONE_CLEAR_SIGHAND, CLONE_CLEAR_SIGHAND);
  VAL(kCLONE_INTO_CGROUP, CLONE_INTO_CGROUP);
  VAL(kWNOHANG, WNOHANG);
  VAL(kWEXITED, WEXITED);
  VAL(kWNOWAIT, WNOWAIT);
  VAL(k__WALL, __WALL);
  VAL(k__WCLONE, __WCLONE);
  VAL(kP_PIDFD, P_PIDFD);
  VAL(kCLOCK_BOOTTIME, CLOCK_BOOTTIME);
  VAL(kCLOCK_TAI, CLOCK_TAI);
  VAL(kTIMER_ABSTIME, TIMER_ABSTIME);
  SIZE(robust_list_head, struct robust_list_head);
  SAME(robust_list_head, struct robust_list_head, futex_offset);
  SAME(robust_list_head, struct robust_list_head, list_op_pending);
  VAL(kFUTEX_LOCK_PI2, FUTEX_LOCK_PI2);
  VAL(kFUTEX_CMD_MASK, FUTEX_CMD_MASK);
  VAL(kFUTEX_TID_MASK, FUTEX_TID_MASK);
  VAL(kROBUST_LIST_LIMIT, ROBUST_LIST_LIMIT);
  SIZE(epoll_event, struct epoll_event);
  SAME(epoll_event, struct epoll_event, data);
  VAL(kEPOLL_CLOEXEC, EPOLL_CLOEXEC);
  VAL(kEPOLLNVAL, EPOLLNVAL);
  VAL(kEPOLLEXCLUSIVE, EPOLLEXCLUSIVE);
  VAL(kEPOLLWAKEUP, EPOLLWAKEUP);
  VAL(kEPOLLONESHOT, EPOLLONESHOT);
  VAL(kEPOLLET, EPOLLET);
}

static void tty_and_mman(void) {
  SIZE(termios, struct termios);
  SAME(termios, struct termios, c_line);
  SAME(termios, struct termios, c_cc);
  SIZE(termios2, struct termios2);
  SAME(termios2, struct termios2, c_ispeed);
  SIZE(winsize, struct winsize);
  VAL(kNCCS, NCCS);
  VAL(kTCGETS, TCGETS);
  VAL(kTCSETS, TCSETS);
  VAL(kTCSETSW, TCSETSW);
  VAL(kTCSETSF, TCSETSF);
  VAL(kTIOCSCTTY, TIOCSCTTY);
  VAL(kTIOCGPGRP, TIOCGPGRP);
  VAL(kTIOCSPGRP, TIOCSPGRP);
  VAL(kTIOCGWINSZ, TIOCGWINSZ);
  VAL(kTIOCSWINSZ, TIOCSWINSZ);
  VAL(kFIONREAD, FIONREAD);
  VAL(kFIONBIO, FIONBIO);
  VAL(kTIOCNOTTY, TIOCNOTTY);
  VAL(kTIOCGSID, TIOCGSID);
  VAL(kTCGETS2, TCGETS2);
  VAL(kTCSETS2, TCSETS2);
  VAL(kTCSETSW2, TCSETSW2);
  VAL(kTCSETSF2, TCSETSF2);
  VAL(kTIOCGPTN, TIOCGPTN);
  VAL(kTIOCSPTLCK, TIOCSPTLCK);
  VAL(kTIOCGPTPEER, TIOCGPTPEER);
  VAL(kFIONCLEX, FIONCLEX);
  VAL(kFIOCLEX, FIOCLEX);
  VAL(kFIOASYNC, FIOASYNC);
  VAL(kFIOQSIZE, FIOQSIZE);
  VAL(kPROT_BTI, PROT_BTI);
  VAL(kPROT_MTE, PROT_MTE);
  VAL(kPROT_SEM, PROT_SEM);
  VAL(kPROT_GROWSDOWN, PROT_GROWSDOWN);
  VAL(kMAP_SHARED_VALIDATE, MAP_SHARED_VALIDATE);
  VAL(kMAP_FIXED, MAP_FIXED);
  VAL(kMAP_ANONYMOUS, MAP_ANONYMOUS);
  VAL(kMAP_GROWSDOWN, MAP_GROWSDOWN);
  VAL(kMAP_DENYWRITE, MAP_DENYWRITE);
  VAL(kMAP_EXECUTABLE, MAP_EXECUTABLE);
  VAL(kMAP_LOCKED, MAP_LOCKED);
  VAL(kMAP_NORESERVE, MAP_NORESERVE);
  VAL(kMAP_POPULATE, MAP_POPULATE);
  VAL(kMAP_NONBLOCK, MAP_NONBLOCK);
  VAL(kMAP_STACK, MAP_STACK);
  VAL(kMAP_HUGETLB, MAP_HUGETLB);
  VAL(kMAP_SYNC, MAP_SYNC);
  VAL(kMAP_FIXED_NOREPLACE, MAP_FIXED_NOREPLACE);
  VAL(kMAP_UNINITIALIZED, MAP_UNINITIALIZED);
  VAL(kMAP_HUGE_2MB, MAP_HUGE_2MB);
  VAL(kMAP_HUGE_1GB, MAP_HUGE_1GB);
  VAL(kMREMAP_DONTUNMAP, MREMAP_DONTUNMAP);
  VAL(kMCL_ONFAULT, MCL_ONFAULT);
  VAL(kMLOCK_ONFAULT, MLOCK_ONFAULT);
  VAL(kMADV_FREE, MADV_FREE);
  VAL(kMADV_COLLAPSE, MADV_COLLAPSE);
  VAL(kMADV_SOFT_OFFLINE, MADV_SOFT_OFFLINE);
  VAL(kSOL_SOCKET, SOL_SOCKET);
  VAL(kSO_REUSEPORT, SO_REUSEPORT);
  VAL(kSO_PEERCRED, SO_PEERCRED);
  VAL(kSO_RCVTIMEO, SO_RCVTIMEO_OLD);
  VAL(kSO_SNDTIMEO, SO_SNDTIMEO_OLD);
  VAL(kSO_TIMESTAMP, SO_TIMESTAMP_OLD);
  VAL(kSO_TIMESTAMPNS, SO_TIMESTAMPNS_OLD);
  VAL(kSO_TIMESTAMPING, SO_TIMESTAMPING_OLD);
  VAL(kSO_PEERSEC, SO_PEERSEC);
  VAL(kSO_PROTOCOL, SO_PROTOCOL);
  VAL(kSO_DOMAIN, SO_DOMAIN);
  VAL(kSO_PEERGROUPS, SO_PEERGROUPS);
  VAL(kSO_SNDTIMEO_NEW, SO_SNDTIMEO_NEW);
  VAL(kSIOCATMARK, SIOCATMARK);
  VAL(kSIOCGSTAMP, SIOCGSTAMP_OLD);
  VAL(kFIOGETOWN, FIOGETOWN);
}

#define ERRNO_VAL(name) printf("static_assert(" #name " == %d);\n", name)
static void errnos(void) {
  ERRNO_VAL(EDEADLK);
  ERRNO_VAL(ENAMETOOLONG);
  ERRNO_VAL(ENOSYS);
  ERRNO_VAL(ELOOP);
  ERRNO_VAL(ENOMSG);
  ERRNO_VAL(EOVERFLOW);
  ERRNO_VAL(ENOTSOCK);
  ERRNO_VAL(EOPNOTSUPP);
  ERRNO_VAL(EADDRINUSE);
  ERRNO_VAL(ETIMEDOUT);
  ERRNO_VAL(ECANCELED);
  ERRNO_VAL(EOWNERDEAD);
  ERRNO_VAL(EHWPOISON);
}

int main(void) {
  stat_and_files();
  open_flags_and_fcntl();
  signals();
  signal_frame();
  misc_types();
  tty_and_mman();
  errnos();
  return 0;
}
