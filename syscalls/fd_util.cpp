// This file implements the emulator's reserved descriptor set and fd helpers.
#include "syscalls/fd_util.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>

namespace syscalls {
namespace {

constexpr int kMaxReserved = 16;
std::atomic<int> g_reserved[kMaxReserved];
std::atomic<int> g_reserved_count{0};

}  // namespace

void reserve_fd(int fd) {
  const int i = g_reserved_count.fetch_add(1);
  if (i < kMaxReserved) g_reserved[i].store(fd);
}

bool is_reserved_fd(int fd) {
  const int n = g_reserved_count.load();
  for (int i = 0; i < n && i < kMaxReserved; ++i) {
    if (g_reserved[i].load() == fd) return true;
  }
  return false;
}

int make_reserved_fd(int fd) {
  rlimit rl{};
  int floor = 900;
  if (::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < 1024)
    floor = static_cast<int>(rl.rlim_cur) / 2;
  const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, floor);
  if (moved >= 0) {
    ::close(fd);
    fd = moved;
  }
  reserve_fd(fd);
  return fd;
}

namespace {
std::atomic<int> g_reserved_tid{0};
}  // namespace

void reserve_tid(int tid) {
  g_reserved_tid.store(tid);
}
bool is_reserved_tid(int tid) {
  return tid != 0 && g_reserved_tid.load() == tid;
}
int reserved_tid_count() {
  return g_reserved_tid.load() != 0 ? 1 : 0;
}

std::string fd_path(int fd) {
  char link[64];
  char buf[PATH_MAX];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t n = ::readlink(link, buf, sizeof buf - 1);
  if (n <= 0) return {};
  return {buf, static_cast<size_t>(n)};
}

}  // namespace syscalls
