// Guest errno numbers, and from_host(): the one helper that turns a host result into a negative Linux errno.
#pragma once

#include <cerrno>
#include <cstdint>

namespace guest {

// arm64 and x86-64 both take their errno numbers from asm-generic/errno-base.h and asm-generic/errno.h
// (x86 has no override), so a host errno is the guest's errno. The list below is the arm64 uapi, checked
// against the host's <errno.h>; handlers return -EINVAL etc. with the host macros.
// clang-format off
#define A64RUN_ARM64_ERRNOS(X)                                                                         \
  X(EPERM, 1) X(ENOENT, 2) X(ESRCH, 3) X(EINTR, 4) X(EIO, 5) X(ENXIO, 6) X(E2BIG, 7) X(ENOEXEC, 8)     \
  X(EBADF, 9) X(ECHILD, 10) X(EAGAIN, 11) X(ENOMEM, 12) X(EACCES, 13) X(EFAULT, 14) X(ENOTBLK, 15)     \
  X(EBUSY, 16) X(EEXIST, 17) X(EXDEV, 18) X(ENODEV, 19) X(ENOTDIR, 20) X(EISDIR, 21) X(EINVAL, 22)     \
  X(ENFILE, 23) X(EMFILE, 24) X(ENOTTY, 25) X(ETXTBSY, 26) X(EFBIG, 27) X(ENOSPC, 28) X(ESPIPE, 29)   \
  X(EROFS, 30) X(EMLINK, 31) X(EPIPE, 32) X(EDOM, 33) X(ERANGE, 34) X(EDEADLK, 35)                   \
  X(ENAMETOOLONG, 36) X(ENOLCK, 37) X(ENOSYS, 38) X(ENOTEMPTY, 39) X(ELOOP, 40)                      \
  X(EWOULDBLOCK, 11) X(ENOMSG, 42) X(EIDRM, 43) X(ECHRNG, 44) X(EL2NSYNC, 45) X(EL3HLT, 46)          \
  X(EL3RST, 47) X(ELNRNG, 48) X(EUNATCH, 49) X(ENOCSI, 50) X(EL2HLT, 51) X(EBADE, 52) X(EBADR, 53)   \
  X(EXFULL, 54) X(ENOANO, 55) X(EBADRQC, 56) X(EBADSLT, 57) X(EDEADLOCK, 35) X(EBFONT, 59)           \
  X(ENOSTR, 60) X(ENODATA, 61) X(ETIME, 62) X(ENOSR, 63) X(ENONET, 64) X(ENOPKG, 65)                 \
  X(EREMOTE, 66) X(ENOLINK, 67) X(EADV, 68) X(ESRMNT, 69) X(ECOMM, 70) X(EPROTO, 71)                 \
  X(EMULTIHOP, 72) X(EDOTDOT, 73) X(EBADMSG, 74) X(EOVERFLOW, 75) X(ENOTUNIQ, 76) X(EBADFD, 77)      \
  X(EREMCHG, 78) X(ELIBACC, 79) X(ELIBBAD, 80) X(ELIBSCN, 81) X(ELIBMAX, 82) X(ELIBEXEC, 83)         \
  X(EILSEQ, 84) X(ERESTART, 85) X(ESTRPIPE, 86) X(EUSERS, 87) X(ENOTSOCK, 88) X(EDESTADDRREQ, 89)    \
  X(EMSGSIZE, 90) X(EPROTOTYPE, 91) X(ENOPROTOOPT, 92) X(EPROTONOSUPPORT, 93)                        \
  X(ESOCKTNOSUPPORT, 94) X(EOPNOTSUPP, 95) X(EPFNOSUPPORT, 96) X(EAFNOSUPPORT, 97)                   \
  X(EADDRINUSE, 98) X(EADDRNOTAVAIL, 99) X(ENETDOWN, 100) X(ENETUNREACH, 101) X(ENETRESET, 102)      \
  X(ECONNABORTED, 103) X(ECONNRESET, 104) X(ENOBUFS, 105) X(EISCONN, 106) X(ENOTCONN, 107)           \
  X(ESHUTDOWN, 108) X(ETOOMANYREFS, 109) X(ETIMEDOUT, 110) X(ECONNREFUSED, 111) X(EHOSTDOWN, 112)    \
  X(EHOSTUNREACH, 113) X(EALREADY, 114) X(EINPROGRESS, 115) X(ESTALE, 116) X(EUCLEAN, 117)           \
  X(ENOTNAM, 118) X(ENAVAIL, 119) X(EISNAM, 120) X(EREMOTEIO, 121) X(EDQUOT, 122)                    \
  X(ENOMEDIUM, 123) X(EMEDIUMTYPE, 124) X(ECANCELED, 125) X(ENOKEY, 126) X(EKEYEXPIRED, 127)         \
  X(EKEYREVOKED, 128) X(EKEYREJECTED, 129) X(EOWNERDEAD, 130) X(ENOTRECOVERABLE, 131)                \
  X(ERFKILL, 132) X(EHWPOISON, 133)
// clang-format on

#define A64RUN_CHECK_ERRNO(name, value) static_assert((name) == (value), #name " differs from arm64's");
A64RUN_ARM64_ERRNOS(A64RUN_CHECK_ERRNO)
#undef A64RUN_CHECK_ERRNO

// The largest errno the kernel returns: a raw syscall result in [-kMaxErrno, -1] is an error.
inline constexpr int64_t kMaxErrno = 4095;

// Kernel-internal restart codes (include/linux/errno.h). A handler interrupted by a signal returns one of
// these so the signal layer can decide between restarting the syscall and -EINTR; they never reach the guest.
inline constexpr int64_t kERESTARTSYS = 512;
inline constexpr int64_t kERESTARTNOINTR = 513;
inline constexpr int64_t kERESTARTNOHAND = 514;
inline constexpr int64_t kERESTART_RESTARTBLOCK = 516;

// -errno for the host's current errno. Only meaningful right after a host call that failed and set errno.
inline int64_t neg_errno() {
  return -static_cast<int64_t>(errno);
}

// Converts a host libc-style result (-1 with errno set; anything else is the value) into the kernel's
// convention: the value, or a negative errno. Every handler that calls the host returns through here.
// Not for calls where -1 is a valid result (getpriority); those are handled by their handler.
inline int64_t from_host(long ret) {
  return ret == -1 ? neg_errno() : static_cast<int64_t>(ret);
}

}  // namespace guest
