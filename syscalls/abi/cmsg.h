// Conversion of control-message (cmsg) chains between a guest msghdr's msg_control and the host's, header by
// header, with the kernel's rules for walking a chain (CMSG_FIRSTHDR/CMSG_NXTHDR/CMSG_OK).
#pragma once

#include <cstdint>
#include <span>

#include "syscalls/abi/socket.h"

namespace guest {

// Copies a guest control buffer into `host` (the same size: both layouts align to 8 with a 16-byte header,
// socket.h), converting each well-formed header field by field and copying its payload. A header the kernel
// would refuse (cmsg_len shorter than a header or past the end) and everything after it is copied as is, so
// the host refuses it the same way. `fd_ok` vets every fd of an SCM_RIGHTS message: the result is -EBADF when
// it refuses one, else 0. Fds past SCM_MAX_FD (253 in all) are not vetted: the host refuses those with
// EINVAL.
int64_t cmsgs_to_host(std::span<const uint8_t> guest, std::span<uint8_t> host, bool (*fd_ok)(int fd));

// Copies the control data a host recvmsg wrote (`host`, its returned msg_controllen bytes) into the guest's
// buffer of the same size, converting headers field by field. Returns the bytes written.
uint64_t cmsgs_to_guest(std::span<const uint8_t> host, std::span<uint8_t> guest);

}  // namespace guest
