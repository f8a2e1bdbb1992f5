// Guest Linux AIO ABI (linux/aio_abi.h): struct iocb and struct io_event, the same little-endian 64-bit
// layouts on arm64 and x86-64.
#pragma once

#include <linux/aio_abi.h>

#include <cstddef>
#include <cstdint>

namespace guest {

struct iocb {
  uint64_t aio_data;
  uint32_t aio_key;
  uint32_t aio_rw_flags;
  uint16_t aio_lio_opcode;
  int16_t aio_reqprio;
  uint32_t aio_fildes;
  uint64_t aio_buf;  // a guest address: the buffer, or for PREADV/PWRITEV the iovec array
  uint64_t aio_nbytes;
  int64_t aio_offset;
  uint64_t aio_reserved2;
  uint32_t aio_flags;
  uint32_t aio_resfd;
};
static_assert(sizeof(iocb) == 64 && offsetof(iocb, aio_lio_opcode) == 16 && offsetof(iocb, aio_buf) == 24 &&
              offsetof(iocb, aio_flags) == 56);
static_assert(sizeof(::iocb) == sizeof(iocb) && offsetof(::iocb, aio_buf) == offsetof(iocb, aio_buf) &&
              offsetof(::iocb, aio_resfd) == offsetof(iocb, aio_resfd));

struct io_event {
  uint64_t data;
  uint64_t obj;  // the iocb's address
  int64_t res;
  int64_t res2;
};
static_assert(sizeof(io_event) == 32 && sizeof(::io_event) == 32);

inline constexpr uint16_t kIOCB_CMD_PREAD = 0;
inline constexpr uint16_t kIOCB_CMD_PWRITE = 1;
inline constexpr uint16_t kIOCB_CMD_PREADV = 7;
inline constexpr uint16_t kIOCB_CMD_PWRITEV = 8;
inline constexpr uint32_t kIOCB_FLAG_RESFD = 1;
static_assert(kIOCB_CMD_PREAD == IOCB_CMD_PREAD && kIOCB_CMD_PWRITE == IOCB_CMD_PWRITE &&
              kIOCB_CMD_PREADV == IOCB_CMD_PREADV && kIOCB_CMD_PWRITEV == IOCB_CMD_PWRITEV &&
              kIOCB_FLAG_RESFD == IOCB_FLAG_RESFD);

}  // namespace guest
