// This file implements the emulator's reserved descriptor set and fd helpers.
#include "syscalls/fd_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>

#include "emu/task.h"

namespace syscalls {

int64_t write_all(int fd, std::string_view data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n <= 0) return n < 0 ? -errno : -EIO;
    done += static_cast<size_t>(n);
  }
  return 0;
}

int exec_memfd(const char* name, std::string_view data) {
  const int fd = static_cast<int>(::syscall(SYS_memfd_create, name, 0));
  if (fd < 0) return -errno;
  if (const int64_t err = write_all(fd, data); err < 0) {
    ::close(fd);
    return static_cast<int>(err);
  }
  return fd;
}

bool read_exec_memfd(int fd, size_t limit, std::string* out) {
  out->clear();
  char buf[65536];
  ssize_t n;
  while ((n = ::pread(fd, buf, sizeof buf, static_cast<off_t>(out->size()))) > 0 && out->size() <= limit)
    out->append(buf, static_cast<size_t>(n));
  ::close(fd);
  return n == 0 && out->size() <= limit;
}

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

namespace {
std::atomic<bool> g_files_shared{false};
}  // namespace

void note_files_shared() {
  g_files_shared.store(true, std::memory_order_relaxed);
}
bool files_maybe_shared() {
  return g_files_shared.load(std::memory_order_relaxed);
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
// The intake threads of this host process and their workers (one pair, or two in a fork child whose
// parent's stay listed until its own start), the helper threads of CLONE_VM children and the F_OWNER_TID
// proxies (signals/fasync_owner.h): none of them is a guest thread.
constexpr int kMaxReservedTids = 64;
std::atomic<int> g_reserved_tids[kMaxReservedTids];
}  // namespace

void reserve_tid(int tid) {
  for (auto& slot : g_reserved_tids) {
    int expected = 0;
    if (slot.compare_exchange_strong(expected, tid)) return;
  }
}
void unreserve_tid(int tid) {
  for (auto& slot : g_reserved_tids) {
    int expected = tid;
    if (slot.compare_exchange_strong(expected, 0)) return;
  }
}
void clear_reserved_tids() {
  for (auto& slot : g_reserved_tids) slot.store(0);
}
bool is_reserved_tid(int tid) {
  if (tid == 0) return false;
  for (const auto& slot : g_reserved_tids) {
    if (slot.load() == tid) return true;
  }
  return false;
}
int reserved_tid_count() {
  // The table is shared with CLONE_VM children, whose threads are not this process's.
  const pid_t pid = ::getpid();
  int n = 0;
  for (const auto& slot : g_reserved_tids) {
    const int tid = slot.load();
    if (tid != 0 && ::syscall(SYS_tgkill, pid, tid, 0) == 0) ++n;
  }
  return n;
}

namespace {
constexpr char kEmulatorThreadPrefix[] = "a64run:";
}  // namespace

void name_emulator_thread(const char* role) {
  char name[16];
  snprintf(name, sizeof name, "%s%s", kEmulatorThreadPrefix, role);
  ::prctl(PR_SET_NAME, name, 0, 0, 0);
}

bool is_a64run_process(int pid) {
  struct stat self {
  }, other{};
  const std::string exe = "/proc/" + std::to_string(pid) + "/exe";
  return ::stat(emu::self_exe_path().c_str(), &self) == 0 && ::stat(exe.c_str(), &other) == 0 &&
         self.st_dev == other.st_dev && self.st_ino == other.st_ino;
}

bool is_emulator_thread(int pid, int tid) {
  const std::string path = "/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/comm";
  char comm[32] = {};
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const ssize_t n = ::read(fd, comm, sizeof comm - 1);
  ::close(fd);
  return n > 0 && strncmp(comm, kEmulatorThreadPrefix, sizeof kEmulatorThreadPrefix - 1) == 0;
}

bool runs_a64run(const std::string& proc_dir) {
  struct stat self {
  }, other{};
  if (::stat(emu::self_exe_path().c_str(), &self) == 0 && ::stat((proc_dir + "/exe").c_str(), &other) == 0 &&
      self.st_dev == other.st_dev && self.st_ino == other.st_ino)
    return true;
  // A thread's directory (/proc/P/task/T) has no task/ of its own: its thread group's has.
  const size_t task = proc_dir.find("/task/");
  const std::string dir = (task == std::string::npos ? proc_dir : proc_dir.substr(0, task)) + "/task";
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return false;
  bool found = false;
  while (const dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;
    char comm[32] = {};
    const int fd = ::open((dir + "/" + e->d_name + "/comm").c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    const ssize_t n = ::read(fd, comm, sizeof comm - 1);
    ::close(fd);
    if (n > 0 && strncmp(comm, kEmulatorThreadPrefix, sizeof kEmulatorThreadPrefix - 1) == 0) {
      found = true;
      break;
    }
  }
  ::closedir(d);
  return found;
}

int emulator_thread_count(int pid) {
  const std::string dir = "/proc/" + std::to_string(pid) + "/task";
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return 0;
  int n = 0;
  while (const dirent* e = ::readdir(d)) {
    const int tid = atoi(e->d_name);
    if (tid > 0 && is_emulator_thread(pid, tid)) ++n;
  }
  ::closedir(d);
  return n;
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
