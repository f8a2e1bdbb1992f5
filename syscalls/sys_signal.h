// Signal syscalls: actions, masks, pending sets, waits for signals, sending, altstacks and sigreturn.
#pragma once

#include "syscalls/abi/siginfo.h"
#include "syscalls/abi/signal.h"
#include "syscalls/dispatch.h"

namespace syscalls {

SysResult sys_rt_sigaction(Task& t, int sig, GuestPtr<const guest::sigaction> act,
                           GuestPtr<guest::sigaction> oact, uint64_t sigsetsize);
SysResult sys_rt_sigprocmask(Task& t, int how, GuestPtr<const uint64_t> set, GuestPtr<uint64_t> oset,
                             uint64_t sigsetsize);
SysResult sys_rt_sigpending(Task& t, GuestPtr<uint64_t> set, uint64_t sigsetsize);
SysResult sys_rt_sigsuspend(Task& t, GuestPtr<const uint64_t> mask, uint64_t sigsetsize);
SysResult sys_rt_sigtimedwait(Task& t, GuestPtr<const uint64_t> set, GuestPtr<guest::siginfo> info,
                              uint64_t timeout, uint64_t sigsetsize);
SysResult sys_kill(Task& t, int pid, int sig);
SysResult sys_tkill(Task& t, int tid, int sig);
SysResult sys_tgkill(Task& t, int tgid, int tid, int sig);
SysResult sys_rt_sigqueueinfo(Task& t, int pid, int sig, GuestPtr<const guest::siginfo> info);
SysResult sys_rt_tgsigqueueinfo(Task& t, int tgid, int tid, int sig, GuestPtr<const guest::siginfo> info);
SysResult sys_pidfd_send_signal(Task& t, int pidfd, int sig, GuestPtr<const guest::siginfo> info,
                                uint32_t flags);
SysResult sys_pidfd_open(Task& t, int pid, uint32_t flags);
SysResult sys_pidfd_getfd(Task& t, int pidfd, int targetfd, uint32_t flags);
SysResult sys_sigaltstack(Task& t, GuestPtr<const guest::stack_t> ss, GuestPtr<guest::stack_t> old);
SysResult sys_rt_sigreturn(Task& t);
SysResult sys_restart_syscall(Task& t);

}  // namespace syscalls
