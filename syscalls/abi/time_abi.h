// Guest time and scheduling ABI missing from types.h: struct timex, struct sched_attr, getrandom flags and
// the encoding of clock ids (dynamic CPU clocks, posix clock fds), with the pure checks the kernel applies to
// them.
#pragma once

#include <sched.h>
#include <sys/random.h>
#include <sys/timex.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "syscalls/abi/types.h"

namespace guest {

// linux/timex.h (struct __kernel_timex, what adjtimex and clock_adjtime take on a 64-bit kernel). x86-64's is
// the same layout, checked field by field against the host's struct timex below, so it crosses as bytes.
struct timex {
  uint32_t modes;
  int32_t pad0;
  int64_t offset;
  int64_t freq;
  int64_t maxerror;
  int64_t esterror;
  int32_t status;
  int32_t pad1;
  int64_t constant;
  int64_t precision;
  int64_t tolerance;
  timeval time;
  int64_t tick;
  int64_t ppsfreq;
  int64_t jitter;
  int32_t shift;
  int32_t pad2;
  int64_t stabil;
  int64_t jitcnt;
  int64_t calcnt;
  int64_t errcnt;
  int64_t stbcnt;
  int32_t tai;
  int32_t pad3[11];
};
static_assert(sizeof(timex) == 208 && offsetof(timex, offset) == 8 && offsetof(timex, status) == 40 &&
              offsetof(timex, constant) == 48 && offsetof(timex, time) == 72 && offsetof(timex, tick) == 88 &&
              offsetof(timex, shift) == 112 && offsetof(timex, stabil) == 120 &&
              offsetof(timex, stbcnt) == 152 && offsetof(timex, tai) == 160);
static_assert(sizeof(::timex) == sizeof(timex) && offsetof(::timex, offset) == offsetof(timex, offset) &&
              offsetof(::timex, freq) == offsetof(timex, freq) &&
              offsetof(::timex, maxerror) == offsetof(timex, maxerror) &&
              offsetof(::timex, esterror) == offsetof(timex, esterror) &&
              offsetof(::timex, status) == offsetof(timex, status) &&
              offsetof(::timex, constant) == offsetof(timex, constant) &&
              offsetof(::timex, precision) == offsetof(timex, precision) &&
              offsetof(::timex, tolerance) == offsetof(timex, tolerance) &&
              offsetof(::timex, time) == offsetof(timex, time) &&
              offsetof(::timex, tick) == offsetof(timex, tick) &&
              offsetof(::timex, ppsfreq) == offsetof(timex, ppsfreq) &&
              offsetof(::timex, jitter) == offsetof(timex, jitter) &&
              offsetof(::timex, shift) == offsetof(timex, shift) &&
              offsetof(::timex, stabil) == offsetof(timex, stabil) &&
              offsetof(::timex, jitcnt) == offsetof(timex, jitcnt) &&
              offsetof(::timex, calcnt) == offsetof(timex, calcnt) &&
              offsetof(::timex, errcnt) == offsetof(timex, errcnt) &&
              offsetof(::timex, stbcnt) == offsetof(timex, stbcnt) &&
              offsetof(::timex, tai) == offsetof(timex, tai));

// Same layout (asserted above): the padding crosses too, which the kernel ignores.
inline ::timex to_host(const timex& g) {
  ::timex h;
  std::memcpy(&h, &g, sizeof h);
  return h;
}
inline timex to_guest(const ::timex& h) {
  timex g;
  std::memcpy(&g, &h, sizeof g);
  return g;
}

// types.h defines struct sched_param; its conversions live here.
inline ::sched_param to_host(const sched_param& g) {
  ::sched_param h{};
  h.sched_priority = g.sched_priority;
  return h;
}
inline sched_param to_guest(const ::sched_param& h) {
  return {h.sched_priority};
}

// types.h defines struct timezone; its conversions live here. (`struct` because ::timezone is also glibc's
// global variable.)
inline struct ::timezone to_host(const timezone& g) {
  struct ::timezone h {};
  h.tz_minuteswest = g.tz_minuteswest;
  h.tz_dsttime = g.tz_dsttime;
  return h;
}
inline timezone to_guest(const struct ::timezone& h) {
  return {h.tz_minuteswest, h.tz_dsttime};
}

// linux/sched/types.h. The struct is extensible: `size` says which version the caller passed, and fields
// beyond what the kernel knows must be zero (else E2BIG).
struct sched_attr {
  uint32_t size;
  uint32_t sched_policy;
  uint64_t sched_flags;
  int32_t sched_nice;
  uint32_t sched_priority;
  uint64_t sched_runtime;
  uint64_t sched_deadline;
  uint64_t sched_period;
  uint32_t sched_util_min;
  uint32_t sched_util_max;
};
static_assert(sizeof(sched_attr) == 56 && offsetof(sched_attr, sched_nice) == 16 &&
              offsetof(sched_attr, sched_runtime) == 24 && offsetof(sched_attr, sched_util_min) == 48);
inline constexpr uint32_t kSCHED_ATTR_SIZE_VER0 = 48;
inline constexpr uint32_t kSCHED_ATTR_SIZE_VER1 = 56;
// The largest sched_attr size the kernel accepts is PAGE_SIZE; the guest's page is 4 KiB.
inline constexpr uint32_t kSchedAttrMaxSize = 4096;

// How many bytes of a guest sched_attr whose `size` field says `size` sched_setattr reads: the kernel reads a
// size of 0 as VER0, and for a size below VER0 or above a page it reads nothing more than the size field
// before failing with E2BIG.
constexpr uint32_t sched_attr_read_size(uint32_t size) {
  if (size == 0) return kSCHED_ATTR_SIZE_VER0;
  if (size < kSCHED_ATTR_SIZE_VER0 || size > kSchedAttrMaxSize) return sizeof(uint32_t);
  return size;
}

// uapi/linux/random.h: getrandom flags.
inline constexpr uint32_t kGRND_NONBLOCK = 0x0001;
inline constexpr uint32_t kGRND_RANDOM = 0x0002;
inline constexpr uint32_t kGRND_INSECURE = 0x0004;
static_assert(kGRND_NONBLOCK == GRND_NONBLOCK && kGRND_RANDOM == GRND_RANDOM &&
              kGRND_INSECURE == GRND_INSECURE);

// drivers/char/random.c: unknown bits, and INSECURE together with RANDOM, are EINVAL.
constexpr bool getrandom_flags_valid(uint32_t flags) {
  if (flags & ~(kGRND_NONBLOCK | kGRND_RANDOM | kGRND_INSECURE)) return false;
  return (flags & (kGRND_INSECURE | kGRND_RANDOM)) != (kGRND_INSECURE | kGRND_RANDOM);
}

// The kernel caps one read-like transfer at MAX_RW_COUNT (INT_MAX rounded down to the guest's 4 KiB page).
inline constexpr uint64_t kMaxRwCount = 0x7ffff000;

// linux/posix-timers.h: a negative clock id names a dynamic clock: ~pid or ~fd in the bits above 3, then a
// per-thread bit (bit 2) and the CPU clock type (bits 0-1: PROF, VIRT, SCHED). The otherwise unused pattern
// "process clock of type 3" (low three bits 011) means a posix clock fd (CLOCKFD) instead.
inline constexpr int32_t kCLOCKFD_MASK = 7;
inline constexpr int32_t kCLOCKFD = 3;

constexpr bool clock_is_fd(int32_t clockid) {
  return clockid < 0 && (clockid & kCLOCKFD_MASK) == kCLOCKFD;
}

// kernel/time: timespec64_valid, what nanosleep and clock_nanosleep require of their request.
constexpr bool timespec_valid(const timespec& ts) {
  return ts.tv_sec >= 0 && ts.tv_nsec >= 0 && ts.tv_nsec < 1000000000;
}

// What clock_nanosleep can do with a clock id (kernel/time/posix-timers.c: clockid_to_kclock,
// k_clock::nsleep).
enum class SleepClock {
  kInvalid,  // no such clock: EINVAL
  kNoSleep,  // a clock without nsleep (MONOTONIC_RAW, the COARSE clocks, THREAD_CPUTIME_ID, clock fds):
             // EOPNOTSUPP
  kTimer,    // REALTIME, MONOTONIC, BOOTTIME, TAI: an hrtimer on that clock
  kAlarm,    // REALTIME_ALARM, BOOTTIME_ALARM: need an RTC and CAP_WAKE_ALARM
  kCpu,      // PROCESS_CPUTIME_ID and dynamic CPU clocks: wait for an amount of CPU time
};

constexpr SleepClock classify_sleep_clock(int32_t clockid) {
  if (clockid < 0) return clock_is_fd(clockid) ? SleepClock::kNoSleep : SleepClock::kCpu;
  switch (clockid) {
    case kCLOCK_REALTIME:
    case kCLOCK_MONOTONIC:
    case kCLOCK_BOOTTIME:
    case kCLOCK_TAI:
      return SleepClock::kTimer;
    case kCLOCK_REALTIME_ALARM:
    case kCLOCK_BOOTTIME_ALARM:
      return SleepClock::kAlarm;
    case kCLOCK_PROCESS_CPUTIME_ID:
      return SleepClock::kCpu;
    case kCLOCK_THREAD_CPUTIME_ID:
    case kCLOCK_MONOTONIC_RAW:
    case kCLOCK_REALTIME_COARSE:
    case kCLOCK_MONOTONIC_COARSE:
      return SleepClock::kNoSleep;
    default:
      return SleepClock::kInvalid;
  }
}

}  // namespace guest
