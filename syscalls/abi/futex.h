// Guest futex operations and flags, and the robust futex list head (set_robust_list).
#pragma once

#include <linux/futex.h>

#include <cstddef>
#include <cstdint>

namespace guest {

// linux/futex.h: operations (arch-independent). The low bits of futex_op are the command.
inline constexpr int32_t kFUTEX_WAIT = 0;
inline constexpr int32_t kFUTEX_WAKE = 1;
inline constexpr int32_t kFUTEX_FD = 2;
inline constexpr int32_t kFUTEX_REQUEUE = 3;
inline constexpr int32_t kFUTEX_CMP_REQUEUE = 4;
inline constexpr int32_t kFUTEX_WAKE_OP = 5;
inline constexpr int32_t kFUTEX_LOCK_PI = 6;
inline constexpr int32_t kFUTEX_UNLOCK_PI = 7;
inline constexpr int32_t kFUTEX_TRYLOCK_PI = 8;
inline constexpr int32_t kFUTEX_WAIT_BITSET = 9;
inline constexpr int32_t kFUTEX_WAKE_BITSET = 10;
inline constexpr int32_t kFUTEX_WAIT_REQUEUE_PI = 11;
inline constexpr int32_t kFUTEX_CMP_REQUEUE_PI = 12;
inline constexpr int32_t kFUTEX_LOCK_PI2 = 13;
inline constexpr int32_t kFUTEX_PRIVATE_FLAG = 128;
inline constexpr int32_t kFUTEX_CLOCK_REALTIME = 256;
inline constexpr int32_t kFUTEX_CMD_MASK = ~(kFUTEX_PRIVATE_FLAG | kFUTEX_CLOCK_REALTIME);
inline constexpr uint32_t kFUTEX_BITSET_MATCH_ANY = 0xffffffff;
static_assert(kFUTEX_WAIT == FUTEX_WAIT && kFUTEX_WAKE == FUTEX_WAKE && kFUTEX_FD == FUTEX_FD &&
              kFUTEX_REQUEUE == FUTEX_REQUEUE && kFUTEX_CMP_REQUEUE == FUTEX_CMP_REQUEUE &&
              kFUTEX_WAKE_OP == FUTEX_WAKE_OP && kFUTEX_LOCK_PI == FUTEX_LOCK_PI &&
              kFUTEX_UNLOCK_PI == FUTEX_UNLOCK_PI && kFUTEX_TRYLOCK_PI == FUTEX_TRYLOCK_PI &&
              kFUTEX_WAIT_BITSET == FUTEX_WAIT_BITSET && kFUTEX_WAKE_BITSET == FUTEX_WAKE_BITSET &&
              kFUTEX_WAIT_REQUEUE_PI == FUTEX_WAIT_REQUEUE_PI &&
              kFUTEX_CMP_REQUEUE_PI == FUTEX_CMP_REQUEUE_PI && kFUTEX_LOCK_PI2 == FUTEX_LOCK_PI2 &&
              kFUTEX_PRIVATE_FLAG == FUTEX_PRIVATE_FLAG && kFUTEX_CLOCK_REALTIME == FUTEX_CLOCK_REALTIME &&
              kFUTEX_CMD_MASK == FUTEX_CMD_MASK && kFUTEX_BITSET_MATCH_ANY == FUTEX_BITSET_MATCH_ANY);

// linux/futex.h: bits of a robust/PI futex word.
inline constexpr uint32_t kFUTEX_WAITERS = 0x80000000;
inline constexpr uint32_t kFUTEX_OWNER_DIED = 0x40000000;
inline constexpr uint32_t kFUTEX_TID_MASK = 0x3fffffff;
static_assert(kFUTEX_WAITERS == FUTEX_WAITERS && kFUTEX_OWNER_DIED == FUTEX_OWNER_DIED &&
              kFUTEX_TID_MASK == FUTEX_TID_MASK);

// linux/futex.h: ROBUST_LIST_LIMIT bounds the walk at thread exit.
inline constexpr int32_t kROBUST_LIST_LIMIT = 2048;
static_assert(kROBUST_LIST_LIMIT == ROBUST_LIST_LIMIT);

// linux/futex.h: struct robust_list_head; set_robust_list rejects any len but sizeof (24) with EINVAL.
// list.next and list_op_pending are guest addresses of struct robust_list {next}; the futex word of an
// entry is at entry + futex_offset. A list whose next points back at the head is empty.
struct robust_list_head {
  uint64_t list_next;
  int64_t futex_offset;
  uint64_t list_op_pending;
};
static_assert(sizeof(robust_list_head) == 24 && offsetof(robust_list_head, futex_offset) == 8 &&
              offsetof(robust_list_head, list_op_pending) == 16);

// linux/futex.h: FUTEX_WAKE_OP's encoded operation (arch-independent).
inline constexpr int32_t kFUTEX_OP_SET = 0;
inline constexpr int32_t kFUTEX_OP_ADD = 1;
inline constexpr int32_t kFUTEX_OP_OR = 2;
inline constexpr int32_t kFUTEX_OP_ANDN = 3;
inline constexpr int32_t kFUTEX_OP_XOR = 4;
inline constexpr int32_t kFUTEX_OP_OPARG_SHIFT = 8;
inline constexpr int32_t kFUTEX_OP_CMP_EQ = 0;
inline constexpr int32_t kFUTEX_OP_CMP_NE = 1;
inline constexpr int32_t kFUTEX_OP_CMP_LT = 2;
inline constexpr int32_t kFUTEX_OP_CMP_LE = 3;
inline constexpr int32_t kFUTEX_OP_CMP_GT = 4;
inline constexpr int32_t kFUTEX_OP_CMP_GE = 5;
static_assert(kFUTEX_OP_SET == FUTEX_OP_SET && kFUTEX_OP_XOR == FUTEX_OP_XOR &&
              kFUTEX_OP_OPARG_SHIFT == FUTEX_OP_OPARG_SHIFT && kFUTEX_OP_CMP_GE == FUTEX_OP_CMP_GE);

}  // namespace guest
