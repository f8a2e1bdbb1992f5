// Tests guest::siginfo: its arm64 byte offsets, siginfo_layout(), and conversions of real host siginfos.
#include "syscalls/abi/siginfo.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <csignal>
#include <cstring>

namespace {

// The guest's view of a siginfo: its 128 bytes.
std::array<unsigned char, sizeof(guest::siginfo)> bytes_of(const guest::siginfo& si) {
  std::array<unsigned char, sizeof(guest::siginfo)> b{};
  std::memcpy(b.data(), &si, sizeof(si));
  return b;
}

template <typename T>
T read_at(const guest::siginfo& si, size_t offset) {
  T v{};
  std::memcpy(&v, reinterpret_cast<const unsigned char*>(&si) + offset, sizeof(T));
  return v;
}

TEST(SiginfoAbiTest, HeaderAndUnionOffsets) {
  guest::siginfo si{};
  si.si_signo = guest::kSIGSEGV;
  si.si_errno = 5;
  si.si_code = guest::kSEGV_ACCERR;
  si.fields.sigfault.addr = 0x0000ffff12345678;
  EXPECT_EQ(read_at<int32_t>(si, 0), guest::kSIGSEGV);
  EXPECT_EQ(read_at<int32_t>(si, 4), 5);
  EXPECT_EQ(read_at<int32_t>(si, 8), guest::kSEGV_ACCERR);
  EXPECT_EQ(read_at<uint64_t>(si, 16), 0x0000ffff12345678u);
  EXPECT_EQ(sizeof(si), 128u);
}

TEST(SiginfoAbiTest, SigchldAndRtOffsets) {
  guest::siginfo si{};
  si.fields.sigchld.pid = 1234;
  si.fields.sigchld.uid = 1000;
  si.fields.sigchld.status = 7;
  si.fields.sigchld.utime = 11;
  si.fields.sigchld.stime = 22;
  EXPECT_EQ(read_at<int32_t>(si, 16), 1234);
  EXPECT_EQ(read_at<uint32_t>(si, 20), 1000u);
  EXPECT_EQ(read_at<int32_t>(si, 24), 7);
  EXPECT_EQ(read_at<int64_t>(si, 32), 11);
  EXPECT_EQ(read_at<int64_t>(si, 40), 22);
  guest::siginfo rt{};
  rt.fields.rt.sigval = 0xabcdef;
  EXPECT_EQ(read_at<uint64_t>(rt, 24), 0xabcdefu);
  guest::siginfo sys{};
  sys.fields.sigsys.syscall = 435;
  sys.fields.sigsys.arch = 0xc00000b7;  // AUDIT_ARCH_AARCH64
  EXPECT_EQ(read_at<int32_t>(sys, 24), 435);
  EXPECT_EQ(read_at<uint32_t>(sys, 28), 0xc00000b7u);
}

TEST(SiginfoLayoutTest, FollowsTheKernelTable) {
  using guest::SiginfoLayout;
  EXPECT_EQ(guest::siginfo_layout(guest::kSIGUSR1, guest::kSI_USER), SiginfoLayout::kKill);
  EXPECT_EQ(guest::siginfo_layout(guest::kSIGSEGV, guest::kSI_KERNEL), SiginfoLayout::kKill);
  EXPECT_EQ(guest::siginfo_layout(guest::kSIGUSR1, guest::kSI_TKILL), SiginfoLayout::kRt);
  EXPECT_EQ(guest::siginfo_layout(guest::kSIGRTMIN, guest::kSI_QUEUE), SiginfoLayout::kRt);
  EXPECT_EQ(guest::siginfo_layout(guest::kSIGALRM, guest::kSI_TIMER), SiginfoLayout::kTimer);
  EXPECT_EQ(guest::siginfo_layout(guest::kSIGIO, guest::kSI_SIGIO), SiginfoLayout::kPoll);
  EXPECT_EQ(guest::siginfo_layout(guest::kSIGIO, guest::kPOLL_IN), SiginfoLayout::kPoll);
  EXPECT_EQ(guest::siginfo_layout(guest::kSIGSEGV, guest::kSEGV_MAPERR), SiginfoLayout::kFault);
  EXPECT_EQ(guest::siginfo_layout(guest::kSIGSEGV, guest::kSEGV_BNDERR), SiginfoLayout::kFaultBndErr);
  EXPECT_EQ(guest::siginfo_layout(guest::kSIGSEGV, guest::kSEGV_PKUERR), SiginfoLayout::kFaultPkuErr);
  EXPECT_EQ(guest::siginfo_layout(guest::kSIGSEGV, guest::kSEGV_MTESERR), SiginfoLayout::kFault);
  EXPECT_EQ(guest::siginfo_layout(guest::kSIGSEGV, guest::kNSIGSEGV + 1), SiginfoLayout::kKill);
  EXPECT_EQ(guest::siginfo_layout(guest::kSIGBUS, guest::kBUS_MCEERR_AR), SiginfoLayout::kFaultMceErr);
  EXPECT_EQ(guest::siginfo_layout(guest::kSIGTRAP, guest::kTRAP_PERF), SiginfoLayout::kFaultPerfEvent);
  EXPECT_EQ(guest::siginfo_layout(guest::kSIGILL, guest::kILL_ILLOPC), SiginfoLayout::kFault);
  EXPECT_EQ(guest::siginfo_layout(guest::kSIGCHLD, guest::kCLD_EXITED), SiginfoLayout::kChld);
  EXPECT_EQ(guest::siginfo_layout(guest::kSIGSYS, guest::kSYS_SECCOMP), SiginfoLayout::kSys);
  // A positive code on a signal with no specific codes is read as a SIGPOLL band up to NSIGPOLL.
  EXPECT_EQ(guest::siginfo_layout(guest::kSIGUSR1, 3), SiginfoLayout::kPoll);
  EXPECT_EQ(guest::siginfo_layout(guest::kSIGUSR1, 7), SiginfoLayout::kKill);
}

TEST(SiginfoConversionTest, QueuedSignalFromTheHost) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  sigset_t old;
  ASSERT_EQ(::pthread_sigmask(SIG_BLOCK, &set, &old), 0);
  sigval value{};
  value.sival_ptr = reinterpret_cast<void*>(0x5566778899);
  ASSERT_EQ(::sigqueue(::getpid(), SIGUSR1, value), 0);
  siginfo_t h;
  const timespec timeout{5, 0};
  ASSERT_EQ(::sigtimedwait(&set, &h, &timeout), SIGUSR1);
  ASSERT_EQ(::pthread_sigmask(SIG_SETMASK, &old, nullptr), 0);

  const guest::siginfo g = guest::to_guest(h);
  EXPECT_EQ(g.si_signo, guest::kSIGUSR1);
  EXPECT_EQ(g.si_code, guest::kSI_QUEUE);
  EXPECT_EQ(g.fields.rt.pid, ::getpid());
  EXPECT_EQ(g.fields.rt.uid, ::getuid());
  EXPECT_EQ(g.fields.rt.sigval, 0x5566778899u);
  const siginfo_t back = guest::to_host(g);
  EXPECT_EQ(back.si_code, SI_QUEUE);
  EXPECT_EQ(back.si_pid, ::getpid());
  EXPECT_EQ(back.si_value.sival_ptr, value.sival_ptr);
}

TEST(SiginfoConversionTest, ChildExitFromWaitid) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ::_exit(7);
  siginfo_t h{};
  ASSERT_EQ(::waitid(P_PID, child, &h, WEXITED), 0);
  const guest::siginfo g = guest::to_guest(h);
  EXPECT_EQ(g.si_signo, guest::kSIGCHLD);
  EXPECT_EQ(g.si_code, guest::kCLD_EXITED);
  EXPECT_EQ(g.fields.sigchld.pid, child);
  EXPECT_EQ(g.fields.sigchld.status, 7);
  EXPECT_EQ(read_at<int32_t>(g, 24), 7);
}

TEST(SiginfoConversionTest, FaultKeepsOnlyTheLiveMember) {
  siginfo_t h;
  std::memset(&h, 0xff, sizeof(h));
  h.si_signo = SIGSEGV;
  h.si_errno = 0;
  h.si_code = SEGV_MAPERR;
  h.si_addr = reinterpret_cast<void*>(0x1000);
  const guest::siginfo g = guest::to_guest(h);
  EXPECT_EQ(g.fields.sigfault.addr, 0x1000u);
  // Bytes of other union members (stale 0xff on the host side) are not copied.
  EXPECT_EQ(read_at<uint64_t>(g, 24), 0u);
  EXPECT_EQ(read_at<uint64_t>(g, 120), 0u);
  EXPECT_EQ(g.pad0, 0);
}

TEST(SiginfoConversionTest, BoundsAndPkeyRoundTrip) {
  guest::siginfo g{};
  g.si_signo = guest::kSIGSEGV;
  g.si_code = guest::kSEGV_BNDERR;
  g.fields.sigfault.addr = 0x2000;
  g.fields.sigfault.u.addr_bnd.lower = 0x1000;
  g.fields.sigfault.u.addr_bnd.upper = 0x1fff;
  guest::siginfo back = guest::to_guest(guest::to_host(g));
  EXPECT_EQ(bytes_of(back), bytes_of(g));
  g = guest::siginfo{};
  g.si_signo = guest::kSIGSEGV;
  g.si_code = guest::kSEGV_PKUERR;
  g.fields.sigfault.addr = 0x3000;
  g.fields.sigfault.u.addr_pkey.pkey = 3;
  back = guest::to_guest(guest::to_host(g));
  EXPECT_EQ(bytes_of(back), bytes_of(g));
}

}  // namespace
