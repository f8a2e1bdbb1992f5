// This file tests select's translation between fd_set triples and poll sets (syscalls/sys_poll.h): which fds
// are polled for what, that bits at or past nfds are ignored, which revents count for which set (fs/select.c
// POLLIN_SET, POLLOUT_SET, POLLEX_SET), that a hang-up alone never marks a write or exception set, and
// POLLNVAL as EBADF; and that a timeout becomes a deadline that saturates instead of overflowing.
#include "syscalls/sys_poll.h"

#include <gtest/gtest.h>
#include <poll.h>

#include <cerrno>
#include <climits>

namespace syscalls {
namespace {

SelectSets sets_of(uint32_t words) {
  return {std::vector<uint64_t>(words), std::vector<uint64_t>(words), std::vector<uint64_t>(words)};
}

void set(std::vector<uint64_t>& s, int fd) {
  s[static_cast<size_t>(fd) / 64] |= uint64_t{1} << (fd % 64);
}

bool has(const std::vector<uint64_t>& s, int fd) {
  return s[static_cast<size_t>(fd) / 64] >> (fd % 64) & 1;
}

TEST(SelectTranslationTest, PollsEachFdOnceWithTheUnionOfItsSets) {
  SelectSets s = sets_of(2);
  set(s.in, 3);
  set(s.out, 3);
  set(s.ex, 70);
  set(s.in, 127);
  const std::vector<::pollfd> fds = select_to_pollfds(s, 128);
  ASSERT_EQ(fds.size(), 3u);
  EXPECT_EQ(fds[0].fd, 3);
  EXPECT_EQ(fds[0].events, POLLIN | POLLRDNORM | POLLRDBAND | POLLOUT | POLLWRNORM | POLLWRBAND);
  EXPECT_EQ(fds[1].fd, 70);
  EXPECT_EQ(fds[1].events, POLLPRI);
  EXPECT_EQ(fds[2].fd, 127);
}

TEST(SelectTranslationTest, BitsAtOrPastNfdsAreIgnored) {
  SelectSets s = sets_of(1);
  set(s.in, 4);
  set(s.in, 5);
  set(s.out, 63);
  const std::vector<::pollfd> fds = select_to_pollfds(s, 5);
  ASSERT_EQ(fds.size(), 1u);
  EXPECT_EQ(fds[0].fd, 4);
}

TEST(SelectTranslationTest, NullSetsAreEmpty) {
  SelectSets s;
  s.in.assign(1, 0);
  set(s.in, 2);
  const std::vector<::pollfd> fds = select_to_pollfds(s, 64);
  ASSERT_EQ(fds.size(), 1u);
  SelectSets r{std::vector<uint64_t>(1), {}, {}};
  const ::pollfd ready[] = {{2, POLLIN, POLLIN | POLLOUT}};
  EXPECT_EQ(pollfds_to_select(ready, s, &r), 1);
  EXPECT_TRUE(has(r.in, 2));
}

TEST(SelectTranslationTest, ReventsCountPerSet) {
  SelectSets s = sets_of(1);
  for (int fd : {1, 2, 3}) {
    set(s.in, fd);
    set(s.out, fd);
    set(s.ex, fd);
  }
  SelectSets r = sets_of(1);
  r.in[0] = ~uint64_t{0};  // cleared by the call
  const ::pollfd res[] = {{1, 0, POLLHUP}, {2, 0, POLLERR}, {3, 0, POLLPRI | POLLOUT}};
  EXPECT_EQ(pollfds_to_select(res, s, &r), 5);
  EXPECT_TRUE(has(r.in, 1));  // hang-up: readable only
  EXPECT_FALSE(has(r.out, 1));
  EXPECT_FALSE(has(r.ex, 1));
  EXPECT_TRUE(has(r.in, 2));  // error: readable and writable
  EXPECT_TRUE(has(r.out, 2));
  EXPECT_FALSE(has(r.ex, 2));
  EXPECT_FALSE(has(r.in, 3));
  EXPECT_TRUE(has(r.out, 3));
  EXPECT_TRUE(has(r.ex, 3));
  EXPECT_EQ(r.in[0], (uint64_t{1} << 1) | (uint64_t{1} << 2));
}

TEST(SelectTranslationTest, HangupOnAWriteOnlyFdMatchesNothing) {
  SelectSets s = sets_of(1);
  set(s.out, 9);
  SelectSets r = sets_of(1);
  const ::pollfd res[] = {{9, POLLOUT, POLLHUP}};
  EXPECT_EQ(pollfds_to_select(res, s, &r), 0);
}

TEST(SelectTranslationTest, NvalIsEbadf) {
  SelectSets s = sets_of(1);
  set(s.in, 7);
  SelectSets r = sets_of(1);
  const ::pollfd res[] = {{7, POLLIN, POLLNVAL}};
  EXPECT_EQ(pollfds_to_select(res, s, &r), -EBADF);
}

TEST(TimeoutTest, FromMilliseconds) {
  EXPECT_TRUE(Timeout::from_ms(-1).infinite);
  EXPECT_EQ(Timeout::from_ms(-1).deadline_ptr(), nullptr);
  const Timeout zero = Timeout::from_ms(0);
  EXPECT_FALSE(zero.infinite);
  EXPECT_TRUE(zero.zero);
  const Timeout t = Timeout::from_ms(1500);
  EXPECT_FALSE(t.zero);
  ASSERT_NE(t.deadline_ptr(), nullptr);
  EXPECT_LT(t.deadline.tv_nsec, 1'000'000'000);
}

TEST(TimeoutTest, HugeTimeoutSaturates) {
  const Timeout t = Timeout::after(timespec{LONG_MAX, 999'999'999});
  EXPECT_GT(t.deadline.tv_sec, LONG_MAX / 4);
  EXPECT_LT(t.deadline.tv_nsec, 1'000'000'000);
}

}  // namespace
}  // namespace syscalls
