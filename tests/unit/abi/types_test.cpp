// Tests the time, resource and system-information conversions in syscalls/abi/types.h.
#include "syscalls/abi/types.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>

#include <cstring>
#include <ctime>

namespace {

TEST(TypesAbiTest, TimespecAndTimevalRoundTrip) {
  const guest::timespec ts{1700000000, 999999999};
  const ::timespec h = guest::to_host(ts);
  EXPECT_EQ(h.tv_sec, 1700000000);
  EXPECT_EQ(h.tv_nsec, 999999999);
  const guest::timespec back = guest::to_guest(h);
  EXPECT_EQ(back.tv_sec, ts.tv_sec);
  EXPECT_EQ(back.tv_nsec, ts.tv_nsec);
  const guest::itimerval it{{1, 2}, {3, 4}};
  const guest::itimerval it_back = guest::to_guest(guest::to_host(it));
  EXPECT_EQ(it_back.it_interval.tv_usec, 2);
  EXPECT_EQ(it_back.it_value.tv_sec, 3);
  const guest::itimerspec its{{5, 6}, {7, 8}};
  const guest::itimerspec its_back = guest::to_guest(guest::to_host(its));
  EXPECT_EQ(its_back.it_interval.tv_nsec, 6);
  EXPECT_EQ(its_back.it_value.tv_nsec, 8);
}

TEST(TypesAbiTest, ClockReadingConverts) {
  ::timespec h{};
  ASSERT_EQ(::clock_gettime(guest::kCLOCK_MONOTONIC, &h), 0);
  const guest::timespec g = guest::to_guest(h);
  EXPECT_EQ(g.tv_sec, h.tv_sec);
  EXPECT_EQ(g.tv_nsec, h.tv_nsec);
}

TEST(TypesAbiTest, RlimitRoundTripsThroughTheHost) {
  ::rlimit h{};
  ASSERT_EQ(::getrlimit(guest::kRLIMIT_NOFILE, &h), 0);
  const guest::rlimit g = guest::to_guest(h);
  EXPECT_EQ(g.rlim_cur, h.rlim_cur);
  EXPECT_EQ(g.rlim_max, h.rlim_max);
  const ::rlimit again = guest::to_host(g);
  EXPECT_EQ(::setrlimit(guest::kRLIMIT_NOFILE, &again), 0);
  const guest::rlimit inf{guest::kRLIM_INFINITY, guest::kRLIM_INFINITY};
  EXPECT_EQ(guest::to_host(inf).rlim_max, RLIM_INFINITY);
}

TEST(TypesAbiTest, RusageConverts) {
  ::rusage h{};
  ASSERT_EQ(::getrusage(RUSAGE_SELF, &h), 0);
  const guest::rusage g = guest::to_guest(h);
  EXPECT_EQ(g.ru_utime.tv_sec, h.ru_utime.tv_sec);
  EXPECT_EQ(g.ru_utime.tv_usec, h.ru_utime.tv_usec);
  EXPECT_EQ(g.ru_maxrss, h.ru_maxrss);
  EXPECT_EQ(g.ru_minflt, h.ru_minflt);
  EXPECT_EQ(g.ru_nvcsw, h.ru_nvcsw);
  EXPECT_EQ(g.ru_nivcsw, h.ru_nivcsw);
  EXPECT_GT(g.ru_maxrss, 0);
}

TEST(TypesAbiTest, SysinfoConverts) {
  struct ::sysinfo h {};
  ASSERT_EQ(::sysinfo(&h), 0);
  const guest::sysinfo g = guest::to_guest(h);
  EXPECT_EQ(g.uptime, h.uptime);
  EXPECT_EQ(g.loads[2], h.loads[2]);
  EXPECT_EQ(g.totalram, h.totalram);
  EXPECT_EQ(g.freeswap, h.freeswap);
  EXPECT_EQ(g.procs, h.procs);
  EXPECT_EQ(g.mem_unit, h.mem_unit);
  EXPECT_GT(g.totalram, 0u);
}

TEST(TypesAbiTest, UtsnameCopiesAndTerminates) {
  ::utsname h{};
  ASSERT_EQ(::uname(&h), 0);
  guest::utsname g = guest::to_guest(h);
  EXPECT_STREQ(g.sysname, "Linux");
  EXPECT_STREQ(g.release, h.release);
  guest::copy_uts_field(g.machine, "aarch64");
  EXPECT_STREQ(g.machine, "aarch64");
  char long_name[100];
  std::memset(long_name, 'x', sizeof(long_name) - 1);
  long_name[sizeof(long_name) - 1] = '\0';
  guest::copy_uts_field(g.nodename, long_name);
  EXPECT_EQ(std::strlen(g.nodename), guest::kUtsLen - 1);
}

TEST(TypesAbiTest, PollfdAndTmsConvert) {
  const guest::pollfd p{3, guest::kPOLLIN | guest::kPOLLRDHUP, 0};
  const ::pollfd h = guest::to_host(p);
  EXPECT_EQ(h.fd, 3);
  EXPECT_EQ(h.events, POLLIN | POLLRDHUP);
  const guest::pollfd back = guest::to_guest(h);
  EXPECT_EQ(back.events, p.events);
  ::tms t{};
  ASSERT_NE(::times(&t), static_cast<clock_t>(-1));
  const guest::tms gt = guest::to_guest(t);
  EXPECT_EQ(gt.tms_utime, t.tms_utime);
  EXPECT_EQ(gt.tms_cstime, t.tms_cstime);
}

}  // namespace
