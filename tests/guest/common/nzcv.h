// Shared by the guest tests of the condition flags (signals/lazy_flags, signals/lazy_ccmp): the Arm
// pseudocode's ConditionHolds, a SIGSEGV handler that reads and rewrites NZCV in the frame, and a thread
// that keeps signalling another.
#ifndef A64RUN_TESTS_GUEST_COMMON_NZCV_H_
#define A64RUN_TESTS_GUEST_COMMON_NZCV_H_

#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/ucontext.h>
#include <unistd.h>

// ConditionHolds (shared/functions/system/ConditionHolds): whether A64 condition `cond` (EQ 0 ... LE 13;
// not AL or NV) holds for NZCV `nzcv` (in bits 31..28, as in PSTATE).

static inline int condition_holds(int cond, uint32_t nzcv) {
  const int n = nzcv >> 31 & 1, z = nzcv >> 30 & 1, c = nzcv >> 29 & 1, v = nzcv >> 28 & 1;
  int result = 0;
  switch (cond >> 1) {
    case 0:
      result = z;
      break;
    case 1:
      result = c;
      break;
    case 2:
      result = n;
      break;
    case 3:
      result = v;
      break;
    case 4:
      result = c && !z;
      break;
    case 5:
      result = n == v;
      break;
    default:
      result = n == v && !z;
      break;
  }
  return (cond & 1) ? !result : result;
}

// on_segv_nzcv, a SA_SIGINFO handler for a load that faults: it records the fault's PC and the frame's
// NZCV, writes fault_write as the frame's NZCV and steps over the load.
static uint32_t fault_got, fault_write;
static uint64_t fault_pc;

static inline void on_segv_nzcv(int sig, siginfo_t* si, void* ucv) {
  (void)sig, (void)si;
  mcontext_t* mc = &((ucontext_t*)ucv)->uc_mcontext;
  fault_pc = mc->pc;
  fault_got = (uint32_t)mc->pstate & 0xf0000000u;
  mc->pstate = (mc->pstate & ~0xf0000000ull) | fault_write;
  mc->pc += 4;
}

// A thread (pthread_create(..., sender, &tid)) that sends SIGUSR1 to thread `tid` of this process over and
// over until stop_sender is set.
static _Atomic int stop_sender;

static inline void* sender(void* arg) {
  const pid_t tid = *(pid_t*)arg;
  while (!stop_sender) {
    syscall(SYS_tgkill, getpid(), tid, SIGUSR1);
    for (volatile int i = 0; i < 200; i++) {
    }
  }
  return NULL;
}

#endif  // A64RUN_TESTS_GUEST_COMMON_NZCV_H_
