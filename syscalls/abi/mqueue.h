// Guest POSIX message queue ABI: struct mq_attr (linux/mqueue.h) and the mq_notify cookie length.
#pragma once

#include <mqueue.h>

#include <cstddef>
#include <cstdint>

namespace guest {

// linux/mqueue.h: four longs and four reserved ones, 64 bytes; the host's is the same.
struct mq_attr {
  int64_t mq_flags;  // O_NONBLOCK or 0 (the same bit on both sides)
  int64_t mq_maxmsg;
  int64_t mq_msgsize;
  int64_t mq_curmsgs;
  int64_t reserved[4];
};
static_assert(sizeof(mq_attr) == 64 && offsetof(mq_attr, mq_msgsize) == 16 &&
              offsetof(mq_attr, mq_curmsgs) == 24);
static_assert(sizeof(::mq_attr) == sizeof(mq_attr) &&
              offsetof(::mq_attr, mq_msgsize) == offsetof(mq_attr, mq_msgsize) &&
              offsetof(::mq_attr, mq_curmsgs) == offsetof(mq_attr, mq_curmsgs));

inline ::mq_attr to_host(const mq_attr& g) {
  ::mq_attr h{};
  h.mq_flags = g.mq_flags;
  h.mq_maxmsg = g.mq_maxmsg;
  h.mq_msgsize = g.mq_msgsize;
  h.mq_curmsgs = g.mq_curmsgs;
  return h;
}
inline mq_attr to_guest(const ::mq_attr& h) {
  mq_attr g{};
  g.mq_flags = h.mq_flags;
  g.mq_maxmsg = h.mq_maxmsg;
  g.mq_msgsize = h.mq_msgsize;
  g.mq_curmsgs = h.mq_curmsgs;
  return g;
}

// linux/mqueue.h: SIGEV_THREAD's cookie, which the kernel copies from sigev_value.sival_ptr and sends
// through the netlink socket named by sigev_signo when the notification fires.
inline constexpr size_t kNOTIFY_COOKIE_LEN = 32;

}  // namespace guest
