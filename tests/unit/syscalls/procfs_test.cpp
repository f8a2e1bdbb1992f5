// This file tests the pure parts of procfs: which /proc paths describe the guest, and how the host's stat,
// status and fdinfo files are fixed and cpuinfo rendered.
#include "syscalls/procfs.h"

#include <gtest/gtest.h>

namespace syscalls {
namespace {

bool reserved_900(int fd) {
  return fd == 900;
}

ProcPath classify(std::string_view path) {
  return classify_proc_path(path, 100, 101, &reserved_900);
}

TEST(ProcfsTest, ExeUnderEveryNameOfTheGuest) {
  for (const char* p : {"/proc/self/exe", "/proc/thread-self/exe", "/proc/100/exe", "/proc/101/exe",
                        "/proc/100/task/101/exe", "/proc/self/task/7/exe", "//proc/./self//exe"}) {
    EXPECT_EQ(classify(p).node, ProcNode::kExe) << p;
  }
  EXPECT_EQ(classify("/proc/self/exe").host_dir, "/proc/self");
  EXPECT_EQ(classify("/proc/100/task/101/exe").host_dir, "/proc/100/task/101");
}

TEST(ProcfsTest, OtherProcessesAndOtherPathsAreTheHosts) {
  for (const char* p : {"/proc/1/exe", "/proc/self", "/proc/self/exe/x", "/proc/self/../self/exe",
                        "proc/self/exe", "self/exe", "/proc/selfish/exe", "/proc/+100/exe", "/proc/self/fd",
                        "/tmp/proc/self/exe", "/proc/thread-self/task/101/exe", ""}) {
    EXPECT_EQ(classify(p).node, ProcNode::kNone) << p;
  }
}

TEST(ProcfsTest, SynthesizedLeaves) {
  EXPECT_EQ(classify("/proc/self/cmdline").node, ProcNode::kCmdline);
  EXPECT_EQ(classify("/proc/self/auxv").node, ProcNode::kAuxv);
  EXPECT_EQ(classify("/proc/self/environ").node, ProcNode::kEnviron);
  EXPECT_EQ(classify("/proc/self/maps").node, ProcNode::kMaps);
  EXPECT_EQ(classify("/proc/self/smaps").node, ProcNode::kSmaps);
  EXPECT_EQ(classify("/proc/100/stat").node, ProcNode::kStat);
  EXPECT_EQ(classify("/proc/thread-self/status").node, ProcNode::kStatus);
  EXPECT_EQ(classify("/proc/self/comm").node, ProcNode::kComm);
  EXPECT_EQ(classify("/proc/cpuinfo").node, ProcNode::kCpuinfo);
  EXPECT_EQ(classify("/proc/1/cpuinfo").node, ProcNode::kNone);
}

TEST(ProcfsTest, ReservedDescriptorsAreHidden) {
  const ProcPath fd = classify("/proc/self/fd/900");
  EXPECT_EQ(fd.node, ProcNode::kHiddenFd);
  EXPECT_EQ(fd.fd, 900);
  EXPECT_EQ(classify("/proc/self/fdinfo/900").node, ProcNode::kHiddenFd);
  EXPECT_EQ(classify("/proc/self/fd/3").node, ProcNode::kNone);
  const ProcPath info = classify("/proc/thread-self/fdinfo/3");
  EXPECT_EQ(info.node, ProcNode::kFdInfo);
  EXPECT_EQ(info.fd, 3);
  EXPECT_EQ(classify("/proc/self/fd/x3").node, ProcNode::kNone);
  EXPECT_EQ(classify("/proc/1/fd/900").node, ProcNode::kNone);
}

TEST(ProcfsTest, GuestCommIsTheHostsUnlessStillTheEmulators) {
  EXPECT_EQ(guest_comm("a64run", "a64run", "/bin/prog"), "prog");
  EXPECT_EQ(guest_comm("a64run", "a64run", "a_very_long_program_name"), "a_very_long_pro");
  EXPECT_EQ(guest_comm("renamed", "a64run", "/bin/prog"), "renamed");
  EXPECT_EQ(guest_comm("a64run", "a64run", "prog"), "prog");
}

TEST(ProcfsTest, StatGetsCommVsizeAndStartStack) {
  const std::string host =
      "42 (a64run) R 1 42 42 0 -1 4194304 10 0 0 0 1 2 0 0 20 0 1 0 123 1099511627776 300 "
      "18446744073709551615 1 2 140000000 0 0\n";
  const std::string fixed = fix_proc_stat(host, "my) prog", 8192, 0xfff0, 0);
  EXPECT_EQ(fixed,
            "42 (my) prog) R 1 42 42 0 -1 4194304 10 0 0 0 1 2 0 0 20 0 1 0 123 8192 300 "
            "18446744073709551615 1 2 65520 0 0\n");
  // startstack 0: the host's value stays.
  EXPECT_NE(fix_proc_stat(host, "p", 1, 0, 0).find(" 2 140000000 0 0\n"), std::string::npos);
  EXPECT_EQ(fix_proc_stat("garbage", "p", 1, 2, 0), "garbage");
}

TEST(ProcfsTest, StatLeavesOutTheEmulatorsThreads) {
  const std::string host =
      "42 (a64run) S 1 42 42 0 -1 4194304 10 0 0 0 1 2 0 0 20 0 3 0 123 1099511627776 300 "
      "18446744073709551615 1 2 140000000 0 0\n";
  // Field 20 (num_threads) 3 with one emulator thread: 2; an empty comm and zero vsize keep the host's.
  EXPECT_EQ(fix_proc_stat(host, "", 0, 0, 1),
            "42 (a64run) S 1 42 42 0 -1 4194304 10 0 0 0 1 2 0 0 20 0 2 0 123 1099511627776 300 "
            "18446744073709551615 1 2 140000000 0 0\n");
  // Never below one.
  EXPECT_NE(fix_proc_stat(host, "", 0, 0, 5).find(" 20 0 1 0 123 "), std::string::npos);
}

TEST(ProcfsTest, StatusGetsNameAndVmSize) {
  const std::string host =
      "Name:\ta64run\nUmask:\t0022\nVmPeak:\t  100 kB\nVmSize:\t1073741824 kB\nThreads:\t1\n";
  EXPECT_EQ(fix_proc_status(host, "prog", 8 << 20, 0),
            "Name:\tprog\nUmask:\t0022\nVmPeak:\t  100 kB\nVmSize:\t    8192 kB\nThreads:\t1\n");
  const std::string two = "Name:\ta64run\nVmSize:\t1073741824 kB\nThreads:\t2\n";
  EXPECT_EQ(fix_proc_status(two, "", 0, 1), "Name:\ta64run\nVmSize:\t1073741824 kB\nThreads:\t1\n");
}

TEST(ProcfsTest, StatusGetsTheGuestThreadsSeccompLines) {
  const std::string host =
      "Name:\ta64run\nNoNewPrivs:\t1\nSeccomp:\t0\nSeccomp_filters:\t0\nCpus_allowed:\t3\n";
  EXPECT_EQ(fix_proc_status(host, "prog", 0, 0, 2, 5),
            "Name:\tprog\nNoNewPrivs:\t1\nSeccomp:\t2\nSeccomp_filters:\t5\nCpus_allowed:\t3\n");
  EXPECT_EQ(fix_proc_status(host, "prog", 0, 0, 1, 0),
            "Name:\tprog\nNoNewPrivs:\t1\nSeccomp:\t1\nSeccomp_filters:\t0\nCpus_allowed:\t3\n");
  // Another process's file (no guest thread to ask) keeps the host's lines.
  EXPECT_EQ(fix_proc_status(host, "", 0, 0), host);
}

TEST(ProcfsTest, StatusAndStatGetTheGuestThreadsSignals) {
  const std::string host =
      "Threads:\t3\nSigQ:\t0/95000\nSigPnd:\t0000000000000000\nShdPnd:\t0000000000000000\n"
      "SigBlk:\t0000000000000000\nSigIgn:\t0000000000001000\nSigCgt:\t00000001c0000a00\nCapInh:\t0\n";
  ProcSignals sigs;
  sigs.pending = 1ull << 14;
  sigs.shared_pending = (1ull << 38) | 1;
  sigs.blocked = (1ull << 63) | (1ull << 14);
  sigs.ignored = 1ull << 11;
  sigs.caught = 1ull << 9;
  sigs.queued = 3;
  EXPECT_EQ(fix_proc_status(host, "", 0, 0, -1, 0, &sigs),
            "Threads:\t3\nSigQ:\t3/95000\nSigPnd:\t0000000000004000\nShdPnd:\t0000004000000001\n"
            "SigBlk:\t8000000000004000\nSigIgn:\t0000000000000800\nSigCgt:\t0000000000000200\nCapInh:\t0\n");
  sigs.queue_limit = 7;  // the guest's RLIMIT_SIGPENDING
  EXPECT_NE(fix_proc_status(host, "", 0, 0, -1, 0, &sigs).find("SigQ:\t3/7\n"), std::string::npos);
  // Without them (another process's file) the host's lines stay.
  EXPECT_EQ(fix_proc_status(host, "", 0, 0), host);

  // stat's fields 31 to 34: the low 31 bits of pending, blocked, ignored and caught, in decimal.
  const std::string stat =
      "42 (a64run) S 1 42 42 0 -1 4194304 10 0 0 0 1 2 0 0 20 0 3 0 123 1099511627776 300 "
      "18446744073709551615 1 2 140000000 0 0 0 0 4096 1234 0 0 0 17 1 0 0\n";
  EXPECT_EQ(fix_proc_stat(stat, "", 0, 0, 0, &sigs),
            "42 (a64run) S 1 42 42 0 -1 4194304 10 0 0 0 1 2 0 0 20 0 3 0 123 1099511627776 300 "
            "18446744073709551615 1 2 140000000 0 0 16384 16384 2048 512 0 0 0 17 1 0 0\n");
}

TEST(ProcfsTest, FdinfoFlagsInGuestValues) {
  // Host O_RDONLY | O_DIRECTORY (0200000) | O_LARGEFILE (0100000) | O_CLOEXEC.
  const std::string host = "pos:\t0\nflags:\t02300000\nmnt_id:\t25\nino:\t7\n";
  EXPECT_EQ(fix_proc_fdinfo(host), "pos:\t0\nflags:\t02440000\nmnt_id:\t25\nino:\t7\n");
}

TEST(ProcfsTest, CpuinfoListsFeaturesInKernelOrder) {
  const std::string s = render_cpuinfo(2, 0x3 | (1ull << 8), 1ull << 1, 0x410fd083);
  EXPECT_EQ(s.substr(0, s.find("\n\n") + 2),
            "processor\t: 0\nBogoMIPS\t: 125.00\nFeatures\t: fp asimd atomics sve2\nCPU implementer\t: 0x41\n"
            "CPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: 0xd08\nCPU revision\t: 3\n\n");
  EXPECT_NE(s.find("processor\t: 1\n"), std::string::npos);
}

}  // namespace
}  // namespace syscalls
