// ioctl requests beyond terminals and files: network interfaces (SIOCGIFCONF, SIOCGIFINDEX, SIOCGIFNAME,
// SIOCGIFFLAGS, SIOCGIFMTU on the loopback interface), /dev/random's RNDGETENTCNT, TUN's TUNGETFEATURES,
// the old termio of a pseudo-terminal (TCGETA/TCSETA), FS_IOC_FIEMAP, the namespace file requests, and
// their bad-argument answers.
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/if_tun.h>
#include <linux/random.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <termio.h>
#include <unistd.h>

#include "check.h"

static void test_interfaces(void) {
  int s = CHECK_SYS(socket(AF_INET, SOCK_DGRAM, 0));
  // SIOCGIFCONF: the length needed, then the list, which names the loopback interface.
  struct ifconf ifc = {.ifc_len = 0, .ifc_buf = NULL};
  CHECK_SYS(ioctl(s, SIOCGIFCONF, &ifc));
  CHECK_GT(ifc.ifc_len, 0);
  CHECK_EQ(ifc.ifc_len % (int)sizeof(struct ifreq), 0);
  struct ifreq reqs[32];
  ifc.ifc_len = sizeof reqs;
  ifc.ifc_req = reqs;
  CHECK_SYS(ioctl(s, SIOCGIFCONF, &ifc));
  int found_lo = 0;
  for (int i = 0; i < ifc.ifc_len / (int)sizeof(struct ifreq); i++)
    found_lo |= strcmp(reqs[i].ifr_name, "lo") == 0;
  CHECK(found_lo);

  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  strcpy(ifr.ifr_name, "lo");
  CHECK_SYS(ioctl(s, SIOCGIFINDEX, &ifr));
  const int index = ifr.ifr_ifindex;
  CHECK_GT(index, 0);
  CHECK_EQ((int)if_nametoindex("lo"), index);
  memset(&ifr, 0, sizeof ifr);
  ifr.ifr_ifindex = index;
  CHECK_SYS(ioctl(s, SIOCGIFNAME, &ifr));
  CHECK_STREQ(ifr.ifr_name, "lo");
  CHECK_SYS(ioctl(s, SIOCGIFFLAGS, &ifr));
  CHECK(ifr.ifr_flags & IFF_LOOPBACK);
  CHECK_SYS(ioctl(s, SIOCGIFMTU, &ifr));
  CHECK_GT(ifr.ifr_mtu, 0);
  // if_nameindex is SIOCGIFCONF and SIOCGIFINDEX (or netlink) underneath.
  struct if_nameindex* ni = if_nameindex();
  CHECK(ni != NULL);
  int listed = 0;
  for (struct if_nameindex* p = ni; p && p->if_index; p++) listed |= p->if_index == (unsigned)index;
  CHECK(listed);
  if (ni) if_freenameindex(ni);

  strcpy(ifr.ifr_name, "no-such-if0");
  CHECK_ERRNO(ioctl(s, SIOCGIFINDEX, &ifr), ENODEV);
  CHECK_ERRNO(ioctl(s, SIOCGIFFLAGS, (void*)8), EFAULT);
  CHECK_ERRNO(ioctl(s, SIOCGIFCONF, (void*)8), EFAULT);
  close(s);
}

static void test_devices(void) {
  int fd = open("/dev/random", O_RDONLY);
  if (fd >= 0) {
    int count = -1;
    CHECK_SYS(ioctl(fd, RNDGETENTCNT, &count));
    CHECK_GE(count, 0);
    CHECK_ERRNO(ioctl(fd, RNDGETENTCNT, (void*)8), EFAULT);
    close(fd);
  }
  fd = open("/dev/net/tun", O_RDWR);
  if (fd >= 0) {
    unsigned features = 0;
    CHECK_SYS(ioctl(fd, TUNGETFEATURES, &features));
    CHECK(features & IFF_TUN);
    CHECK(features & IFF_TAP);
    close(fd);
  }
}

static void test_termio(void) {
  int m = posix_openpt(O_RDWR | O_NOCTTY);
  REQUIRE(m >= 0);
  REQUIRE_SYS(grantpt(m));
  REQUIRE_SYS(unlockpt(m));
  int s = CHECK_SYS(open(ptsname(m), O_RDWR | O_NOCTTY));
  struct termio t;
  CHECK_SYS(ioctl(s, TCGETA, &t));
  t.c_lflag &= (unsigned short)~ECHO;
  CHECK_SYS(ioctl(s, TCSETA, &t));
  struct termio back;
  CHECK_SYS(ioctl(s, TCGETA, &back));
  CHECK_EQ(back.c_lflag & ECHO, 0);
  CHECK_ERRNO(ioctl(s, TCGETA, (void*)8), EFAULT);
  close(s);
  close(m);
}

static void test_fiemap(void) {
  int fd = CHECK_SYS(open("mapped", O_CREAT | O_RDWR | O_TRUNC, 0600));
  char buf[8192];
  memset(buf, 1, sizeof buf);
  CHECK_EQ(write(fd, buf, sizeof buf), (long)sizeof buf);
  CHECK_SYS(fsync(fd));
  struct {
    struct fiemap fm;
    struct fiemap_extent ext[8];
  } q;
  memset(&q, 0, sizeof q);
  q.fm.fm_length = ~0ull;
  q.fm.fm_extent_count = 8;
  int r = ioctl(fd, FS_IOC_FIEMAP, &q);
  if (r != 0 && errno == EOPNOTSUPP) {
    NOTE("the file system has no FIEMAP; skipped");
  } else {
    CHECK_EQ(r, 0);
    CHECK_GE(q.fm.fm_mapped_extents, 1);
    CHECK(q.ext[q.fm.fm_mapped_extents - 1].fe_flags & FIEMAP_EXTENT_LAST);
    // Counting only: fm_extent_count 0.
    memset(&q, 0, sizeof q);
    q.fm.fm_length = ~0ull;
    CHECK_SYS(ioctl(fd, FS_IOC_FIEMAP, &q));
    CHECK_GE(q.fm.fm_mapped_extents, 1);
    CHECK_ERRNO(ioctl(fd, FS_IOC_FIEMAP, (void*)8), EFAULT);
  }
  close(fd);
}

// Namespace files: NS_GET_NSTYPE names the kind, NS_GET_USERNS is a descriptor of the owning user namespace.
// (qemu-aarch64 7.2 does not pass these requests on: ENOTTY there.)
static void test_nsfs(void) {
  int fd = open("/proc/self/ns/uts", O_RDONLY);
  if (fd < 0 || on_reference_qemu()) {
    if (fd >= 0) close(fd);
    return;
  }
  CHECK_EQ(ioctl(fd, _IO(0xb7, 0x3)), CLONE_NEWUTS);
  int user = ioctl(fd, _IO(0xb7, 0x1));
  if (user >= 0) {
    CHECK_EQ(ioctl(user, _IO(0xb7, 0x3)), CLONE_NEWUSER);
    close(user);
  } else {
    CHECK_EQ(errno, EPERM);  // the owner is outside this process's user namespace
  }
  close(fd);
}

int main(void) {
  test_nsfs();
  test_interfaces();
  test_devices();
  test_termio();
  test_fiemap();
  return check_done();
}
