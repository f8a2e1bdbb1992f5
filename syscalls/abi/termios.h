// Guest termios and winsize, the ioctl number encoding, and the tty and file ioctl numbers.
#pragma once

#include <sys/ioctl.h>

#include <cstddef>
#include <cstdint>

namespace guest {

// asm-generic/ioctl.h (arm64 and x86-64 both use it): nr 8 bits, type 8, size 14, dir 2.
inline constexpr uint32_t kIOC_NONE = 0;
inline constexpr uint32_t kIOC_WRITE = 1;
inline constexpr uint32_t kIOC_READ = 2;
constexpr uint32_t ioc(uint32_t dir, uint32_t type, uint32_t nr, uint32_t size) {
  return (dir << 30) | (size << 16) | (type << 8) | nr;
}
constexpr uint32_t ioc_dir(uint32_t cmd) {
  return cmd >> 30;
}
constexpr uint32_t ioc_size(uint32_t cmd) {
  return (cmd >> 16) & 0x3fff;
}
constexpr uint32_t ioc_type(uint32_t cmd) {
  return (cmd >> 8) & 0xff;
}
constexpr uint32_t ioc_nr(uint32_t cmd) {
  return cmd & 0xff;
}
static_assert(ioc(kIOC_READ, 'T', 0x30, 4) == TIOCGPTN && ioc(kIOC_WRITE, 'T', 0x31, 4) == TIOCSPTLCK);

// asm-generic/termbits.h: the kernel's struct termios for TCGETS/TCSETS* (not glibc's 60-byte one, which
// adds c_ispeed/c_ospeed and a 32-entry c_cc). x86-64's kernel uses the same asm-generic struct, so a guest
// termios buffer is already what the host's TCGETS/TCSETS take (pinned by the unit test against
// <asm/termbits.h>). Flag bits (c_iflag ...) are asm-generic on both and pass through.
inline constexpr size_t kNCCS = 19;
struct termios {
  uint32_t c_iflag;
  uint32_t c_oflag;
  uint32_t c_cflag;
  uint32_t c_lflag;
  uint8_t c_line;
  uint8_t c_cc[kNCCS];
};
static_assert(sizeof(termios) == 36 && offsetof(termios, c_oflag) == 4 && offsetof(termios, c_lflag) == 12 &&
              offsetof(termios, c_line) == 16 && offsetof(termios, c_cc) == 17);

// asm-generic/termbits.h: TCGETS2/TCSETS2* (arbitrary baud rates).
struct termios2 {
  uint32_t c_iflag;
  uint32_t c_oflag;
  uint32_t c_cflag;
  uint32_t c_lflag;
  uint8_t c_line;
  uint8_t c_cc[kNCCS];
  uint32_t c_ispeed;
  uint32_t c_ospeed;
};
static_assert(sizeof(termios2) == 44 && offsetof(termios2, c_ispeed) == 36 &&
              offsetof(termios2, c_ospeed) == 40);

// asm-generic/termios.h
struct winsize {
  uint16_t ws_row;
  uint16_t ws_col;
  uint16_t ws_xpixel;
  uint16_t ws_ypixel;
};
static_assert(sizeof(winsize) == 8 && offsetof(winsize, ws_col) == 2 && offsetof(winsize, ws_ypixel) == 6);

inline ::winsize to_host(const winsize& g) {
  ::winsize h{};
  h.ws_row = g.ws_row;
  h.ws_col = g.ws_col;
  h.ws_xpixel = g.ws_xpixel;
  h.ws_ypixel = g.ws_ypixel;
  return h;
}
inline winsize to_guest(const ::winsize& h) {
  return {h.ws_row, h.ws_col, h.ws_xpixel, h.ws_ypixel};
}

// asm-generic/ioctls.h (arm64's asm/ioctls.h includes it; so does x86-64's): equal on host and guest.
inline constexpr uint32_t kTCGETS = 0x5401;
inline constexpr uint32_t kTCSETS = 0x5402;
inline constexpr uint32_t kTCSETSW = 0x5403;
inline constexpr uint32_t kTCSETSF = 0x5404;
inline constexpr uint32_t kTCSBRK = 0x5409;
inline constexpr uint32_t kTCXONC = 0x540A;
inline constexpr uint32_t kTCFLSH = 0x540B;
inline constexpr uint32_t kTIOCEXCL = 0x540C;
inline constexpr uint32_t kTIOCNXCL = 0x540D;
inline constexpr uint32_t kTIOCSCTTY = 0x540E;
inline constexpr uint32_t kTIOCGPGRP = 0x540F;
inline constexpr uint32_t kTIOCSPGRP = 0x5410;
inline constexpr uint32_t kTIOCOUTQ = 0x5411;
inline constexpr uint32_t kTIOCSTI = 0x5412;
inline constexpr uint32_t kTIOCGWINSZ = 0x5413;
inline constexpr uint32_t kTIOCSWINSZ = 0x5414;
inline constexpr uint32_t kFIONREAD = 0x541B;
inline constexpr uint32_t kTIOCINQ = kFIONREAD;
inline constexpr uint32_t kTIOCPKT = 0x5420;
inline constexpr uint32_t kFIONBIO = 0x5421;
inline constexpr uint32_t kTIOCNOTTY = 0x5422;
inline constexpr uint32_t kTIOCSETD = 0x5423;
inline constexpr uint32_t kTIOCGETD = 0x5424;
inline constexpr uint32_t kTCSBRKP = 0x5425;
inline constexpr uint32_t kTIOCGSID = 0x5429;
inline constexpr uint32_t kTCGETS2 = ioc(kIOC_READ, 'T', 0x2A, sizeof(termios2));
inline constexpr uint32_t kTCSETS2 = ioc(kIOC_WRITE, 'T', 0x2B, sizeof(termios2));
inline constexpr uint32_t kTCSETSW2 = ioc(kIOC_WRITE, 'T', 0x2C, sizeof(termios2));
inline constexpr uint32_t kTCSETSF2 = ioc(kIOC_WRITE, 'T', 0x2D, sizeof(termios2));
inline constexpr uint32_t kTIOCGPTN = ioc(kIOC_READ, 'T', 0x30, 4);
inline constexpr uint32_t kTIOCSPTLCK = ioc(kIOC_WRITE, 'T', 0x31, 4);
inline constexpr uint32_t kTIOCGDEV = ioc(kIOC_READ, 'T', 0x32, 4);
inline constexpr uint32_t kTIOCSIG = ioc(kIOC_WRITE, 'T', 0x36, 4);
inline constexpr uint32_t kTIOCVHANGUP = 0x5437;
inline constexpr uint32_t kTIOCGPKT = ioc(kIOC_READ, 'T', 0x38, 4);
inline constexpr uint32_t kTIOCGPTLCK = ioc(kIOC_READ, 'T', 0x39, 4);
inline constexpr uint32_t kTIOCGEXCL = ioc(kIOC_READ, 'T', 0x40, 4);
inline constexpr uint32_t kTIOCGPTPEER = ioc(kIOC_NONE, 'T', 0x41, 0);
inline constexpr uint32_t kFIONCLEX = 0x5450;
inline constexpr uint32_t kFIOCLEX = 0x5451;
inline constexpr uint32_t kFIOASYNC = 0x5452;
inline constexpr uint32_t kFIOQSIZE = 0x5460;
static_assert(kTCGETS == TCGETS && kTCSETS == TCSETS && kTCSETSW == TCSETSW && kTCSETSF == TCSETSF &&
              kTCSBRK == TCSBRK && kTCXONC == TCXONC && kTCFLSH == TCFLSH && kTIOCEXCL == TIOCEXCL &&
              kTIOCNXCL == TIOCNXCL && kTIOCSCTTY == TIOCSCTTY && kTIOCGPGRP == TIOCGPGRP &&
              kTIOCSPGRP == TIOCSPGRP && kTIOCOUTQ == TIOCOUTQ && kTIOCSTI == TIOCSTI &&
              kTIOCGWINSZ == TIOCGWINSZ && kTIOCSWINSZ == TIOCSWINSZ && kFIONREAD == FIONREAD &&
              kTIOCINQ == TIOCINQ && kTIOCPKT == TIOCPKT && kFIONBIO == FIONBIO && kTIOCNOTTY == TIOCNOTTY &&
              kTIOCSETD == TIOCSETD && kTIOCGETD == TIOCGETD && kTCSBRKP == TCSBRKP && kTIOCGSID == TIOCGSID);
static_assert(kTCGETS2 == 0x802C542A && kTCSETS2 == 0x402C542B && kTCSETSW2 == 0x402C542C &&
              kTCSETSF2 == 0x402C542D);
static_assert(kTIOCGPTN == TIOCGPTN && kTIOCSPTLCK == TIOCSPTLCK && kTIOCGDEV == TIOCGDEV &&
              kTIOCSIG == TIOCSIG && kTIOCVHANGUP == TIOCVHANGUP && kTIOCGPKT == TIOCGPKT &&
              kTIOCGPTLCK == TIOCGPTLCK && kTIOCGEXCL == TIOCGEXCL && kTIOCGPTPEER == TIOCGPTPEER);
static_assert(kFIONCLEX == FIONCLEX && kFIOCLEX == FIOCLEX && kFIOASYNC == FIOASYNC && kFIOQSIZE == FIOQSIZE);

}  // namespace guest
