// This file keeps track of the guest's /proc/PID/mem and pagemap descriptors: the window this process
// publishes, whose memory each descriptor reaches (classify), and the registry the read and write paths
// look descriptors up in. The serving itself is proc_mem_io.cpp.
//
// A descriptor is told apart by its file (st_dev, st_ino): dup'd descriptors, fork's copies and ones passed
// over a socket find the same entry. Whose memory it holds is read through the descriptor itself: the stamp
// at `g_stamp`'s address (one address in every process of this a64run build, which is not position
// independent) in the memory the descriptor holds. A stamp equal to this process's is this process's
// memory; another stamp with the magic is another a64run of this build, with its window; anything else is
// some other program, whose own addresses the host file takes as they are, unless that program is an
// a64run of another build (its window cannot be found: refused).
//
// Invariant: the registry never forgets a descriptor's file (no collection: a CLONE_VM relative with a
// descriptor table of its own shares it, and dropping an entry would hand that relative's reads to the
// host), and an entry is rewritten each time a descriptor of its file is noted, so a /proc/PID/mem inode
// whose process has exec'd since is classified by its newest memory; descriptors of the older memory then
// read nothing on the host anyway (its mm is gone).
#include "syscalls/proc_mem.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <mutex>
#include <new>
#include <string>

#include "syscalls/fd_util.h"

namespace syscalls {
namespace {

// What another a64run process reads at this address through our /proc/PID/mem.
struct WindowStamp {
  char magic[16];
  uint64_t base;
  uint64_t size;
  uint64_t mm;  // this memory's identity: random, new in every fork child, shared by CLONE_VM relatives
};
constexpr char kStampMagic[16] = "a64run window 1";
WindowStamp g_stamp;

struct Entry {
  bool pagemap = false;
  MemTarget target;
};

std::atomic<bool> g_active{false};
std::mutex* g_mu = new std::mutex;                    // a fork child makes a new one
std::map<std::pair<dev_t, ino_t>, Entry>* g_entries;  // GUARDED_BY(*g_mu), made at the first note

uint64_t random_u64() {
  uint64_t v = 0;
  if (::getrandom(&v, sizeof v, GRND_NONBLOCK) != sizeof v)
    v = static_cast<uint64_t>(::getpid()) ^ ::time(nullptr);
  return v;
}

// The shape of /proc/PID/mem (0600) and pagemap (0400): regular, empty. Cheap to test on every open.
bool may_be_proc_mem(const struct stat& st) {
  const mode_t perm = st.st_mode & 07777;
  return S_ISREG(st.st_mode) && st.st_size == 0 && (perm == 0600 || perm == 0400);
}

// For a descriptor of a procfs file named mem or pagemap: its process directory and which one it is.
bool proc_mem_file(int fd, std::string* dir, bool* pagemap) {
  struct statfs sf {};
  if (::fstatfs(fd, &sf) != 0 || sf.f_type != PROC_SUPER_MAGIC) return false;
  std::string path = fd_path(fd);
  constexpr std::string_view kDeleted = " (deleted)";  // its process has died
  if (path.ends_with(kDeleted)) path.resize(path.size() - kDeleted.size());
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return false;
  const std::string_view leaf = std::string_view(path).substr(slash + 1);
  if (leaf != "mem" && leaf != "pagemap") return false;
  *pagemap = leaf == "pagemap";
  *dir = path.substr(0, slash);
  return true;
}

// The stamp in the memory `fd` holds: >0 read, 0 when that memory is gone, <0 when nothing is there.
int64_t read_stamp(int fd, WindowStamp* out) {
  const ssize_t n = ::pread(fd, out, sizeof *out, static_cast<off_t>(reinterpret_cast<uintptr_t>(&g_stamp)));
  if (n == 0) return 0;
  return n == sizeof *out ? 1 : -1;
}

// Classifies the memory behind a stamp read (r from read_stamp) of the process at `dir`.
MemTarget from_stamp(int64_t r, const WindowStamp& s, const std::string& dir) {
  MemTarget t;
  t.dir = dir;
  if (r == 0) return t;  // gone: the host reads nothing, whatever the offsets
  if (r > 0 && memcmp(s.magic, kStampMagic, sizeof s.magic) == 0) {
    if (s.mm == g_stamp.mm) {
      t.kind = MemTargetKind::kOwn;
    } else {
      t.kind = MemTargetKind::kWindow;
      t.base = s.base;
      t.size = s.size;
    }
    return t;
  }
  if (runs_a64run(dir)) t.kind = MemTargetKind::kRefused;
  return t;
}

// Whose memory the descriptor holds: read through it when it is a readable mem descriptor, else through a
// mem descriptor of the same process directory opened for the purpose.
MemTarget classify_fd(int fd, const std::string& dir, bool pagemap) {
  WindowStamp s{};
  const int fl = ::fcntl(fd, F_GETFL);
  if (!pagemap && fl >= 0 && (fl & O_ACCMODE) != O_WRONLY && !(fl & O_PATH))
    return from_stamp(read_stamp(fd, &s), s, dir);
  const int mfd = ::open((dir + "/mem").c_str(), O_RDONLY | O_CLOEXEC);
  const int64_t r = mfd >= 0 ? read_stamp(mfd, &s) : -1;
  if (mfd >= 0) ::close(mfd);
  return from_stamp(r, s, dir);
}

void store(const struct stat& st, const Entry& e) {
  std::lock_guard lk(*g_mu);
  if (g_entries == nullptr) g_entries = new std::map<std::pair<dev_t, ino_t>, Entry>;
  (*g_entries)[{st.st_dev, st.st_ino}] = e;
  g_active.store(true, std::memory_order_release);
}

// Notes fd when it is a mem or pagemap file (then true, with its entry in *out).
bool note(int fd, const struct stat& st, Entry* out) {
  Entry e;
  std::string dir;
  if (!proc_mem_file(fd, &dir, &e.pagemap)) return false;
  e.target = classify_fd(fd, dir, e.pagemap);
  store(st, e);
  *out = e;
  return true;
}

}  // namespace

void publish_window(const emu::AddressSpace& as) {
  memcpy(g_stamp.magic, kStampMagic, sizeof g_stamp.magic);
  g_stamp.base = reinterpret_cast<uint64_t>(as.base());
  g_stamp.size = as.size();
  g_stamp.mm = random_u64();
}

void proc_mem_after_fork() {
  g_stamp.mm = random_u64();
  new (g_mu) std::mutex();
}

void proc_mem_note_fd(int fd) {
  struct stat st {};
  Entry e;
  if (::fstat(fd, &st) == 0 && may_be_proc_mem(st)) (void)note(fd, st, &e);
}

void proc_mem_note_inherited() {
  DIR* d = ::opendir("/proc/self/fd");
  if (d == nullptr) return;
  while (const dirent* e = ::readdir(d)) {
    const int fd = atoi(e->d_name);
    if (e->d_name[0] != '.' && fd != ::dirfd(d) && !is_reserved_fd(fd)) proc_mem_note_fd(fd);
  }
  ::closedir(d);
}

void proc_mem_watch_all() {
  g_active.store(true, std::memory_order_release);
}

// The entry of fd's file when fd is a mem or pagemap descriptor; one a64run has not seen yet (fanotify's)
// is noted now.
bool proc_mem_lookup(int fd, MemTarget* target, bool* pagemap) {
  if (!g_active.load(std::memory_order_acquire)) return false;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !may_be_proc_mem(st)) return false;
  Entry e;
  bool found = false;
  {
    std::lock_guard lk(*g_mu);
    if (g_entries != nullptr) {
      if (auto it = g_entries->find({st.st_dev, st.st_ino}); it != g_entries->end()) {
        e = it->second;
        found = true;
      }
    }
  }
  if (!found && !note(fd, st, &e)) return false;
  *target = e.target;
  *pagemap = e.pagemap;
  return true;
}

int64_t classify_pid(int pid, bool write, MemTarget* out, int* memfd) {
  *memfd = -1;
  const std::string dir = "/proc/" + std::to_string(pid);
  if (pid == ::getpid() || ::syscall(SYS_tgkill, ::getpid(), pid, 0) == 0) {
    out->kind = MemTargetKind::kOwn;
    out->dir = dir;
    return 0;
  }
  if (pid <= 0) return -ESRCH;
  const int fd = ::open((dir + "/mem").c_str(), (write ? O_RDWR : O_RDONLY) | O_CLOEXEC);
  if (fd < 0) {
    if (errno == EACCES || errno == EPERM) return -EPERM;  // mm_access's EACCES is process_vm's EPERM
    return errno == ENOENT ? -ESRCH : -errno;
  }
  WindowStamp s{};
  const int64_t r = read_stamp(fd, &s);
  if (r == 0) {  // a zombie: no memory (process_vm_rw_core's mm_access finds none)
    ::close(fd);
    return -ESRCH;
  }
  *out = from_stamp(r, s, dir);
  if (out->kind == MemTargetKind::kWindow) {
    *memfd = fd;
  } else {
    ::close(fd);
  }
  return 0;
}

bool HostMaps::load(const std::string& proc_dir, uint64_t lo, uint64_t hi) {
  ranges_.clear();
  FILE* f = ::fopen((proc_dir + "/maps").c_str(), "re");
  if (f == nullptr) return false;
  char* line = nullptr;
  size_t cap = 0;
  while (::getline(&line, &cap, f) > 0) {
    unsigned long long s = 0, e = 0;
    char perms[8] = {};
    if (sscanf(line, "%llx-%llx %7s", &s, &e, perms) != 3 || e <= lo || s >= hi) continue;
    if (strncmp(perms, "---", 3) == 0) continue;
    s = std::max<uint64_t>(s, lo);
    e = std::min<uint64_t>(e, hi);
    if (!ranges_.empty() && ranges_.back().second == s) {
      ranges_.back().second = e;
    } else {
      ranges_.emplace_back(s, e);
    }
  }
  free(line);
  ::fclose(f);
  return true;
}

uint64_t HostMaps::prefix(uint64_t addr, uint64_t len) const {
  uint64_t cursor = addr;
  for (const auto& [s, e] : ranges_) {
    if (e <= cursor) continue;
    if (s > cursor) break;
    cursor = e;
  }
  return std::min(cursor - addr, len);
}

}  // namespace syscalls
