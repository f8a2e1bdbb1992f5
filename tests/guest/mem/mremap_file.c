// mremap(MREMAP_MAYMOVE) growing a MAP_SHARED file mapping that cannot grow in place (what CPython's
// mmap.resize does): the mapping moves, the old pages keep their contents, the new ones show the file's next
// part, and writes through either reach the file.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"

int main(void) {
  const size_t page = 4096;
  int fd = CHECK_SYS(open("grow", O_CREAT | O_RDWR | O_TRUNC, 0600));
  char buf[3 * 4096];
  for (size_t i = 0; i < sizeof buf; i++) buf[i] = (char)('a' + i / page);
  CHECK_EQ(write(fd, buf, page), (long)page);
  char* m = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  REQUIRE(m != MAP_FAILED);
  // Something right after it, so the mapping cannot grow where it is.
  char* block = mmap(m + page, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (block == MAP_FAILED) {
    NOTE("the page after the mapping was taken already; the move is still forced by the check below");
  }
  // The file grows first, as mmap.resize does.
  CHECK_EQ(pwrite(fd, buf + page, 2 * page, page), (long)(2 * page));
  CHECK(mremap(m, page, 3 * page, 0) == MAP_FAILED && errno == ENOMEM);  // no room, no MAYMOVE
  char* g = mremap(m, page, 3 * page, MREMAP_MAYMOVE);
  REQUIRE(g != MAP_FAILED);
  CHECK(g != m);
  CHECK_MEMEQ(g, buf, 3 * page);
  g[0] = 'X';
  g[2 * page + 1] = 'Y';
  char back[2];
  CHECK_EQ(pread(fd, back, 1, 0), 1);
  CHECK_EQ(back[0], 'X');
  CHECK_EQ(pread(fd, back, 1, 2 * page + 1), 1);
  CHECK_EQ(back[0], 'Y');
  CHECK_SYS(munmap(g, 3 * page));
  if (block != MAP_FAILED) munmap(block, page);
  close(fd);
  return check_done();
}
