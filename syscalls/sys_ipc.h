// SysV IPC syscalls: shared memory (sys_shm.cpp), semaphores (sys_sem.cpp) and message queues
// (sys_msg.cpp). The objects are the host kernel's, so they are shared with every other process of the host
// as on Linux; a64run translates the structs (abi/ipc.h), places shared memory in the guest window and makes
// the blocking calls interruptible by guest signals (ipc_wait.h).
#pragma once

#include "syscalls/abi/ipc.h"
#include "syscalls/dispatch.h"

namespace syscalls {

SysResult sys_shmget(Task& t, int32_t key, uint64_t size, int shmflg);
SysResult sys_shmat(Task& t, int shmid, uint64_t addr, int shmflg);
SysResult sys_shmdt(Task& t, uint64_t addr);
SysResult sys_shmctl(Task& t, int shmid, int cmd, uint64_t buf);

SysResult sys_semget(Task& t, int32_t key, int nsems, int semflg);
SysResult sys_semctl(Task& t, int semid, int semnum, int cmd, uint64_t arg);
SysResult sys_semop(Task& t, int semid, GuestPtr<const guest::sembuf> sops, uint32_t nsops);
SysResult sys_semtimedop(Task& t, int semid, GuestPtr<const guest::sembuf> sops, uint32_t nsops,
                         GuestPtr<const guest::timespec> timeout);

SysResult sys_msgget(Task& t, int32_t key, int msgflg);
SysResult sys_msgctl(Task& t, int msqid, int cmd, uint64_t buf);
SysResult sys_msgsnd(Task& t, int msqid, uint64_t msgp, uint64_t msgsz, int msgflg);
SysResult sys_msgrcv(Task& t, int msqid, uint64_t msgp, uint64_t msgsz, int64_t msgtyp, int msgflg);

}  // namespace syscalls
