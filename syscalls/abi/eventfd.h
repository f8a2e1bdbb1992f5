// Guest flags of eventfd2 and the timerfd calls (linux/eventfd.h, linux/timerfd.h).
#pragma once

#include <sys/eventfd.h>
#include <sys/timerfd.h>

#include <cstdint>

namespace guest {

// EFD_* and TFD_* reuse O_CLOEXEC and O_NONBLOCK, which arm64 takes unchanged from asm-generic/fcntl.h as
// x86-64 does, so the values pass through; the handlers still reject unknown bits by name.
inline constexpr int32_t kEFD_SEMAPHORE = 1;
inline constexpr int32_t kEFD_CLOEXEC = 02000000;
inline constexpr int32_t kEFD_NONBLOCK = 04000;
inline constexpr int32_t kEFD_FLAGS = kEFD_SEMAPHORE | kEFD_CLOEXEC | kEFD_NONBLOCK;
static_assert(kEFD_SEMAPHORE == EFD_SEMAPHORE && kEFD_CLOEXEC == EFD_CLOEXEC &&
              kEFD_NONBLOCK == EFD_NONBLOCK);

inline constexpr int32_t kTFD_CLOEXEC = 02000000;
inline constexpr int32_t kTFD_NONBLOCK = 04000;
inline constexpr int32_t kTFD_CREATE_FLAGS = kTFD_CLOEXEC | kTFD_NONBLOCK;
inline constexpr int32_t kTFD_TIMER_ABSTIME = 1;
inline constexpr int32_t kTFD_TIMER_CANCEL_ON_SET = 2;
inline constexpr int32_t kTFD_SETTIME_FLAGS = kTFD_TIMER_ABSTIME | kTFD_TIMER_CANCEL_ON_SET;
static_assert(kTFD_CLOEXEC == TFD_CLOEXEC && kTFD_NONBLOCK == TFD_NONBLOCK &&
              kTFD_TIMER_ABSTIME == TFD_TIMER_ABSTIME && kTFD_TIMER_CANCEL_ON_SET == TFD_TIMER_CANCEL_ON_SET);

}  // namespace guest
