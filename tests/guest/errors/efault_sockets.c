// Tests socket calls whose pointers fault: every one fails with EFAULT (or the error Linux checks before it),
// and the emulator survives. a64run hands such a pointer to the host kernel as a faulting address; the
// sanitizer builds intercept the libc socket wrappers and would dereference it (getsockopt read its optlen
// and died of SIGSEGV under ASan), so these run in check-asan and check-ubsan too.
#define _GNU_SOURCE
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "check.h"

static long err_of(long r) {
  return r < 0 ? errno : 0;
}

int main(void) {
  char* bad = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(bad != MAP_FAILED);
  REQUIRE_SYS(munmap(bad, 4096));
  void* kernel = (void*)0xffff800000001000UL;
  const int tcp = socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE_SYS(tcp);
  int value = 0;
  socklen_t len = sizeof value;
  // An unreadable optlen, an unwritable optval (with a readable optlen), both.
  CHECK_EQ(err_of(syscall(SYS_getsockopt, tcp, IPPROTO_TCP, TCP_NODELAY, &value, bad)), EFAULT);
  CHECK_EQ(err_of(syscall(SYS_getsockopt, tcp, SOL_SOCKET, SO_TYPE, &value, kernel)), EFAULT);
  CHECK_EQ(err_of(syscall(SYS_getsockopt, tcp, SOL_SOCKET, SO_TYPE, bad, &len)), EFAULT);
  len = 1 << 20;  // more than the bounce buffer: the host writes the guest's memory itself
  CHECK_EQ(err_of(syscall(SYS_getsockopt, tcp, SOL_SOCKET, SO_TYPE, bad, &len)), EFAULT);
  CHECK_EQ(err_of(syscall(SYS_getsockopt, tcp, SOL_SOCKET, SO_TYPE, bad, bad)), EFAULT);
  CHECK_EQ(err_of(syscall(SYS_setsockopt, tcp, SOL_SOCKET, SO_REUSEADDR, bad, 4)), EFAULT);
  CHECK_EQ(err_of(syscall(SYS_bind, tcp, bad, 16)), EFAULT);
  CHECK_EQ(err_of(syscall(SYS_connect, tcp, bad, 16)), EFAULT);
  // A message whose name and buffer fault.
  int sv[2];
  REQUIRE_SYS(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv));
  struct iovec iov = {bad, 16};
  struct msghdr m = {0};
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  CHECK_EQ(err_of(syscall(SYS_sendmsg, sv[0], &m, MSG_DONTWAIT)), EFAULT);
  m.msg_name = bad;
  m.msg_namelen = 16;
  iov.iov_base = &value;
  iov.iov_len = sizeof value;
  CHECK_EQ(err_of(syscall(SYS_sendmsg, sv[0], &m, MSG_DONTWAIT)), EFAULT);
  CHECK_EQ(err_of(syscall(SYS_sendto, sv[0], &value, sizeof value, MSG_DONTWAIT, bad, 16)), EFAULT);
  CHECK_EQ(send(sv[1], "x", 1, 0), 1);
  CHECK_EQ(err_of(syscall(SYS_recvfrom, sv[0], bad, 16, MSG_DONTWAIT, NULL, NULL)), EFAULT);
  // The emulator is still there, and the sockets still work.
  CHECK_EQ(getsockopt(tcp, SOL_SOCKET, SO_TYPE, &value, &len), 0);
  CHECK_EQ(value, SOCK_STREAM);
  close(tcp);
  close(sv[0]);
  close(sv[1]);
  return check_done();
}
