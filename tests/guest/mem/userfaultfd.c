// userfaultfd: a thread's access to a registered missing page waits until a handler thread, having read the
// fault's (guest) address from the descriptor, fills the page with UFFDIO_COPY or UFFDIO_ZEROPAGE; the
// ioctls' addresses and counts, and their errors, are the guest's.
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

#define PAGE 4096ul

static int uffd;
static char* area;
static volatile char seen[2];

static void* toucher(void* arg) {
  (void)arg;
  seen[0] = area[10];         // the first page: filled by UFFDIO_COPY
  seen[1] = area[PAGE + 20];  // the second: UFFDIO_ZEROPAGE
  return NULL;
}

int main(void) {
  uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
  if (uffd < 0 && errno == ENOSYS) {
    CHECK(on_reference_qemu());  // qemu-aarch64 7.2 has no userfaultfd
    return check_done();
  }
  if (uffd < 0 && errno == EPERM) {
    NOTE("userfaultfd needs privilege here (vm.unprivileged_userfaultfd): skipped");
    return check_done();
  }
  REQUIRE(uffd >= 0);
  struct uffdio_api api = {.api = UFFD_API};
  CHECK_SYS(ioctl(uffd, UFFDIO_API, &api));
  CHECK(api.ioctls & (1ull << _UFFDIO_REGISTER));
  area = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(area != MAP_FAILED);
  struct uffdio_register reg = {.range = {(uint64_t)area, 2 * PAGE}, .mode = UFFDIO_REGISTER_MODE_MISSING};
  CHECK_SYS(ioctl(uffd, UFFDIO_REGISTER, &reg));
  CHECK_EQ(reg.range.start, (uint64_t)area);  // given back as it was
  CHECK(reg.ioctls & (1ull << _UFFDIO_COPY));

  pthread_t th;
  pthread_create(&th, NULL, toucher, NULL);
  static char source[PAGE] __attribute__((aligned(4096)));
  memset(source, 'c', sizeof source);
  for (int served = 0; served < 2;) {
    struct pollfd p = {uffd, POLLIN, 0};
    if (!CHECK_EQ(poll(&p, 1, 5000), 1)) break;
    struct uffd_msg msg;
    if (!CHECK_EQ(read(uffd, &msg, sizeof msg), (long)sizeof msg)) break;
    CHECK_EQ(msg.event, UFFD_EVENT_PAGEFAULT);
    const uint64_t page = msg.arg.pagefault.address & ~(PAGE - 1);
    if (page == (uint64_t)area) {
      struct uffdio_copy copy = {.dst = page, .src = (uint64_t)source, .len = PAGE};
      CHECK_SYS(ioctl(uffd, UFFDIO_COPY, &copy));
      CHECK_EQ(copy.copy, (long)PAGE);
      CHECK_EQ(copy.dst, page);
    } else {
      CHECK_EQ(page, (uint64_t)area + PAGE);  // the fault's address is the guest's
      struct uffdio_zeropage zero = {.range = {page, PAGE}};
      CHECK_SYS(ioctl(uffd, UFFDIO_ZEROPAGE, &zero));
      CHECK_EQ(zero.zeropage, (long)PAGE);
    }
    served++;
  }
  pthread_join(th, NULL);
  CHECK_EQ(seen[0], 'c');
  CHECK_EQ(seen[1], 0);

  // The pages are there now: copying again is EEXIST; outside the registered range EINVAL/ENOENT.
  struct uffdio_copy again = {.dst = (uint64_t)area, .src = (uint64_t)source, .len = PAGE};
  CHECK_ERRNO(ioctl(uffd, UFFDIO_COPY, &again), EEXIST);
  struct uffdio_range unreg = {(uint64_t)area, 2 * PAGE};
  CHECK_SYS(ioctl(uffd, UFFDIO_UNREGISTER, &unreg));
  CHECK_ERRNO(ioctl(uffd, UFFDIO_REGISTER, (void*)8), EFAULT);
  struct uffd_msg none;
  CHECK_ERRNO(read(uffd, &none, 1), EINVAL);  // room for one message at least
  close(uffd);
  return check_done();
}
