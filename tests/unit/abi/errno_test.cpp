// Tests from_host(), the one conversion of host errno into the kernel's negative-errno convention.
#include "syscalls/abi/errno.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

namespace {

TEST(ErrnoAbiTest, FailureBecomesNegativeErrno) {
  EXPECT_EQ(guest::from_host(::close(-1)), -EBADF);
  EXPECT_EQ(guest::from_host(::open("/nonexistent/a64run", O_RDONLY)), -ENOENT);
}

TEST(ErrnoAbiTest, SuccessPassesTheValueThrough) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  EXPECT_EQ(guest::from_host(::write(fds[1], "abc", 3)), 3);
  char buf[4];
  EXPECT_EQ(guest::from_host(::read(fds[0], buf, sizeof(buf))), 3);
  EXPECT_EQ(guest::from_host(::close(fds[0])), 0);
  EXPECT_EQ(guest::from_host(::close(fds[1])), 0);
}

TEST(ErrnoAbiTest, NegErrnoReadsCurrentErrno) {
  errno = EAGAIN;
  EXPECT_EQ(guest::neg_errno(), -11);
}

TEST(ErrnoAbiTest, RestartCodesLieOutsideTheGuestRange) {
  EXPECT_GT(guest::kERESTARTSYS, 133);
  EXPECT_LT(guest::kERESTART_RESTARTBLOCK, guest::kMaxErrno);
}

}  // namespace
