// Tests system and process information: uname, sysinfo, getrandom, rlimits (getrlimit/setrlimit/prlimit64),
// getrusage, times, process and user ids, CPU affinity and getcpu, and the thread name (prctl).
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/times.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "check.h"

static void test_uname_sysinfo(void) {
  struct utsname u;
  memset(&u, 0xa5, sizeof(u));
  REQUIRE_SYS(uname(&u));
  CHECK_STREQ(u.sysname, "Linux");
  CHECK_STREQ(u.machine, "aarch64");
  CHECK_GT(strlen(u.release), 0);
  CHECK_GT(strlen(u.version), 0);
  CHECK_LT(strlen(u.nodename), sizeof(u.nodename));
  char host[256];
  CHECK_SYS(gethostname(host, sizeof(host)));
  CHECK_STREQ(host, u.nodename);

  struct sysinfo si;
  REQUIRE_SYS(sysinfo(&si));
  CHECK_GT(si.uptime, 0);
  CHECK_GE(si.mem_unit, 1);
  CHECK_GT(si.totalram, 0);
  CHECK_LE(si.freeram, si.totalram);
  CHECK_GE(si.procs, 1);
  CHECK_GT(get_nprocs(), 0);
  CHECK_GT(sysconf(_SC_NPROCESSORS_ONLN), 0);

  unsigned char buf[64] = {0};
  CHECK_EQ(getrandom(buf, sizeof(buf), 0), sizeof(buf));
  int nonzero = 0;
  for (size_t i = 0; i < sizeof(buf); i++) nonzero += buf[i] != 0;
  CHECK_GT(nonzero, 32);
  CHECK_EQ(getrandom(buf, 16, GRND_NONBLOCK), 16);
  CHECK_ERRNO(getrandom(buf, 16, 0x40000000), EINVAL);
}

static void test_rlimits(void) {
  struct rlimit lim, got;
  REQUIRE_SYS(getrlimit(RLIMIT_NOFILE, &lim));
  CHECK_GT(lim.rlim_cur, 2);
  CHECK_LE(lim.rlim_cur, lim.rlim_max);
  // Lower the soft limit and read it back three ways.
  struct rlimit lower = {lim.rlim_cur > 64 ? 64 : lim.rlim_cur - 1, lim.rlim_max};
  CHECK_SYS(setrlimit(RLIMIT_NOFILE, &lower));
  CHECK_SYS(getrlimit(RLIMIT_NOFILE, &got));
  CHECK_EQ(got.rlim_cur, lower.rlim_cur);
  CHECK_EQ(got.rlim_max, lower.rlim_max);
  CHECK_SYS(prlimit(0, RLIMIT_NOFILE, NULL, &got));
  CHECK_EQ(got.rlim_cur, lower.rlim_cur);
  CHECK_SYS(prlimit(getpid(), RLIMIT_NOFILE, &lim, &got));
  CHECK_EQ(got.rlim_cur, lower.rlim_cur);
  CHECK_SYS(getrlimit(RLIMIT_NOFILE, &got));
  CHECK_EQ(got.rlim_cur, lim.rlim_cur);
  // The lowered limit is enforced: a descriptor at or above it is EBADF/EINVAL territory.
  CHECK_SYS(setrlimit(RLIMIT_NOFILE, &lower));
  CHECK_ERRNO(dup2(0, (int)lower.rlim_cur), EBADF);
  CHECK_ERRNO(fcntl(0, F_DUPFD, (int)lower.rlim_cur), EINVAL);
  CHECK_SYS(setrlimit(RLIMIT_NOFILE, &lim));
  struct rlimit inverted = {10, 5};
  CHECK_ERRNO(setrlimit(RLIMIT_NOFILE, &inverted), EINVAL);

  // RLIM_INFINITY is all ones on both sides; RLIMIT_CORE round trip (the runner sets its soft limit to 0).
  CHECK_SYS(getrlimit(RLIMIT_CORE, &lim));
  struct rlimit core = {0, lim.rlim_max};
  CHECK_SYS(setrlimit(RLIMIT_CORE, &core));
  CHECK_SYS(getrlimit(RLIMIT_CORE, &got));
  CHECK_EQ(got.rlim_cur, 0);
  CHECK_EQ(got.rlim_max, lim.rlim_max);
  CHECK_SYS(getrlimit(RLIMIT_STACK, &got));
  CHECK_GE(got.rlim_cur, 128 * 1024);
  CHECK_SYS(getrlimit(RLIMIT_AS, &got));
  CHECK(got.rlim_cur == RLIM_INFINITY || got.rlim_cur > (1UL << 30));
  CHECK_ERRNO(getrlimit(100, &got), EINVAL);
}

static void test_usage(void) {
  // Burn a little CPU so that usage is visible.
  volatile unsigned long x = 0;
  for (unsigned long i = 0; i < 20 * 1000 * 1000; i++) x += i;
  struct rusage ru;
  REQUIRE_SYS(getrusage(RUSAGE_SELF, &ru));
  CHECK_GE(ru.ru_utime.tv_sec, 0);
  CHECK(ru.ru_utime.tv_usec >= 0 && ru.ru_utime.tv_usec < 1000000);
  CHECK_GT(
      ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec + ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec,
      0);
  CHECK_GT(ru.ru_maxrss, 0);
  CHECK_SYS(getrusage(RUSAGE_CHILDREN, &ru));
  CHECK_SYS(getrusage(RUSAGE_THREAD, &ru));
  CHECK_ERRNO(getrusage(42, &ru), EINVAL);
  struct tms t;
  clock_t now = times(&t);
  CHECK_NE(now, (clock_t)-1);
  CHECK_GE(t.tms_utime + t.tms_stime, 0);
  CHECK_EQ(t.tms_cutime, 0);
}

static void test_ids(void) {
  pid_t pid = getpid();
  CHECK_GT(pid, 0);
  CHECK_GT(getppid(), 0);
  CHECK_NE(getppid(), pid);
  CHECK_EQ(gettid(), pid);
  CHECK_EQ(syscall(SYS_gettid), pid);
  CHECK_EQ(getpgid(0), getpgrp());
  // 0 when the session leader lives outside our pid namespace (a container's init), so only >= 0.
  CHECK_GE(getsid(0), 0);
  CHECK_EQ(getsid(0), getsid(getpid()));
  uid_t r, e, s;
  CHECK_SYS(getresuid(&r, &e, &s));
  CHECK_EQ(r, getuid());
  CHECK_EQ(e, geteuid());
  gid_t gr, ge, gs;
  CHECK_SYS(getresgid(&gr, &ge, &gs));
  CHECK_EQ(gr, getgid());
  CHECK_EQ(ge, getegid());
  CHECK_SYS(setuid(getuid()));
  CHECK_SYS(setgid(getgid()));
  int n = CHECK_SYS(getgroups(0, NULL));
  if (n > 0) {
    gid_t groups[256];
    CHECK_EQ(getgroups(n < 256 ? n : 256, groups), n < 256 ? n : 256);
  }
}

static void test_cpu_and_name(void) {
  cpu_set_t set;
  CPU_ZERO(&set);
  REQUIRE_SYS(sched_getaffinity(0, sizeof(set), &set));
  CHECK_GE(CPU_COUNT(&set), 1);
  unsigned cpu = 9999, node = 9999;
  CHECK_SYS(syscall(SYS_getcpu, &cpu, &node, NULL));
  CHECK_LT(cpu, CPU_SETSIZE);
  CHECK(CPU_ISSET(cpu, &set));
  CHECK_LT(node, 1024);
  CHECK_GE(sched_getcpu(), 0);
  // Pinning to one allowed CPU and back.
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  CHECK_SYS(sched_setaffinity(0, sizeof(one), &one));
  cpu_set_t got;
  CHECK_SYS(sched_getaffinity(0, sizeof(got), &got));
  CHECK_EQ(CPU_COUNT(&got), 1);
  CHECK_SYS(sched_setaffinity(0, sizeof(set), &set));
  CHECK_EQ(sched_getscheduler(0), SCHED_OTHER);
  CHECK_SYS(sched_yield());

  // The thread name: at first the program's file name (qemu-aarch64 7.2 passes PR_GET_NAME to the host,
  // whose thread is named qemu-aarch64); at most 15 bytes, longer ones are cut; /proc/self/comm shows it too.
  char name[32] = {0};
  CHECK_SYS(prctl(PR_GET_NAME, name));
  if (!on_reference_qemu()) CHECK_STREQ(name, "uname_sysinfo");
  CHECK_SYS(prctl(PR_SET_NAME, "a64run-test"));
  CHECK_SYS(prctl(PR_GET_NAME, name));
  CHECK_STREQ(name, "a64run-test");
  CHECK_SYS(prctl(PR_SET_NAME, "a-name-longer-than-fifteen"));
  CHECK_SYS(prctl(PR_GET_NAME, name));
  CHECK_STREQ(name, "a-name-longer-t");
  int fd = CHECK_SYS(open("/proc/self/comm", O_RDONLY));
  char comm[32] = {0};
  CHECK_EQ(read(fd, comm, sizeof(comm) - 1), 16);
  CHECK_STREQ(comm, "a-name-longer-t\n");
  close(fd);
  CHECK_EQ(pthread_getname_np(pthread_self(), name, sizeof(name)), 0);
  CHECK_STREQ(name, "a-name-longer-t");
  CHECK_EQ(prctl(PR_GET_DUMPABLE), 1);
}

int main(void) {
  test_uname_sysinfo();
  test_rlimits();
  test_usage();
  test_ids();
  test_cpu_and_name();
  return check_done();
}
