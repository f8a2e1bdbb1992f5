// The guest's vDSO (AT_SYSINFO_EHDR): arm64 code a64run maps into every guest, built at a64run's build time
// with the arm64 cross compiler and embedded in the emulator (emu/vdso.h). Linux's arm64 vDSO exports
// these four symbols at version LINUX_2.6.39, and glibc and Go look them up by that name and version.
//
// CLOCK_MONOTONIC is answered here: Unicorn's CNTVCT_EL0 is the host's CLOCK_MONOTONIC in units of
// 1/CNTFRQ_EL0 (62.5 MHz, 16 ns), so one counter read (about 70 ns emulated) replaces a system call (over a
// microsecond). Every other clock is the system call, made from here exactly as the caller would have
// made it: clocks derived from the counter with an offset (REALTIME, BOOTTIME) would need the offset kept
// current across host clock steps, and MONOTONIC_RAW and the CPU-time clocks are not the counter at all.
#include <stdint.h>

struct guest_timespec {
  int64_t tv_sec;
  int64_t tv_nsec;
};
struct guest_timeval;
struct guest_timezone;

enum { kClockMonotonic = 1 };
enum { kNrGettimeofday = 169, kNrClockGettime = 113, kNrClockGetres = 114 };

static inline long syscall2(long nr, long a0, long a1) {
  register long x0 __asm__("x0") = a0;
  register long x1 __asm__("x1") = a1;
  register long x8 __asm__("x8") = nr;
  __asm__ volatile("svc #0" : "+r"(x0) : "r"(x1), "r"(x8) : "memory");
  return x0;
}

static inline uint64_t counter(void) {
  uint64_t v;
  __asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v)::"memory");
  return v;
}

static inline uint64_t counter_frequency(void) {
  uint64_t v;
  __asm__ volatile("mrs %0, cntfrq_el0" : "=r"(v));
  return v;
}

int __kernel_clock_gettime(int clock, struct guest_timespec* ts) {
  const uint64_t freq = counter_frequency();
  if (clock != kClockMonotonic || freq == 0 || 1000000000u % freq != 0)
    return (int)syscall2(kNrClockGettime, clock, (long)ts);
  const uint64_t ns = counter() * (1000000000u / freq);
  ts->tv_sec = (int64_t)(ns / 1000000000u);
  ts->tv_nsec = (int64_t)(ns % 1000000000u);
  return 0;
}

int __kernel_gettimeofday(struct guest_timeval* tv, struct guest_timezone* tz) {
  return (int)syscall2(kNrGettimeofday, (long)tv, (long)tz);
}

int __kernel_clock_getres(int clock, struct guest_timespec* res) {
  return (int)syscall2(kNrClockGetres, clock, (long)res);
}

// The kernel's vDSO also holds the return path of signal handlers, found by unwinders and debuggers by
// this name and these two instructions. In assembly: nothing may touch the stack before rt_sigreturn reads
// the frame at sp.
__asm__(
    ".text\n"
    ".globl __kernel_rt_sigreturn\n"
    ".type __kernel_rt_sigreturn, %function\n"
    "__kernel_rt_sigreturn:\n"
    "  mov x8, #139\n"
    "  svc #0\n"
    ".size __kernel_rt_sigreturn, .-__kernel_rt_sigreturn\n");
