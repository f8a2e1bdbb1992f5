// This file implements the guest's view of paths: sysroot resolution of path arguments and the /proc files
// a64run synthesizes so that the guest sees itself, not the emulator. Synthesized files are served as
// read-only memfds holding a snapshot taken at open time (as the kernel's seq_files are per open).
//
// /proc/<self>/stat and status are the host's files with what differs fixed: the command name (the host
// thread's comm is "a64run" until the guest renames itself with prctl(PR_SET_NAME), which reaches the host)
// and the virtual size (the host's counts a64run's whole guest window reservation). Their other fields
// (RSS, start_code/end_code/start_stack, arg and env addresses, CPU times) are the host process's.
#include "syscalls/procfs.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <climits>

#include <algorithm>
#include <charconv>
#include <utility>
#include <vector>

#include "signals/signals.h"
#include "syscalls/abi/errno.h"
#include "syscalls/abi/fcntl.h"
#include "syscalls/fd_util.h"
#include "syscalls/seccomp.h"

namespace syscalls {
namespace {

constexpr size_t kCommLen = 15;  // TASK_COMM_LEN - 1
constexpr uint64_t kAT_HWCAP = 16;
constexpr uint64_t kAT_HWCAP2 = 26;

bool parse_int(std::string_view s, int* out) {
  if (s.empty() || s[0] == '+' || s[0] == '-') return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size();
}

// The components of an absolute path without empty and "." ones; false when it has "..", which the host
// must resolve.
bool split_path(std::string_view path, std::vector<std::string_view>* out) {
  if (path.empty() || path[0] != '/') return false;
  size_t i = 0;
  while (i < path.size()) {
    const size_t j = std::min(path.find('/', i), path.size());
    const std::string_view c = path.substr(i, j - i);
    if (c == "..") return false;
    if (!c.empty() && c != ".") out->push_back(c);
    i = j + 1;
  }
  return true;
}

ProcNode leaf_node(std::string_view leaf) {
  if (leaf == "exe") return ProcNode::kExe;
  if (leaf == "cmdline") return ProcNode::kCmdline;
  if (leaf == "environ") return ProcNode::kEnviron;
  if (leaf == "auxv") return ProcNode::kAuxv;
  if (leaf == "maps") return ProcNode::kMaps;
  if (leaf == "smaps") return ProcNode::kSmaps;
  if (leaf == "stat") return ProcNode::kStat;
  if (leaf == "status") return ProcNode::kStatus;
  if (leaf == "comm") return ProcNode::kComm;
  if (leaf == "limits") return ProcNode::kLimits;
  return ProcNode::kNone;
}

std::string basename_of(std::string_view path) {
  const size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

int64_t read_host_file(const std::string& path, std::string* out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return guest::neg_errno();
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) out->append(buf, static_cast<size_t>(n));
  const int64_t r = n < 0 ? guest::neg_errno() : 0;
  ::close(fd);
  return r;
}

// a64run's own command name, which the host shows until the guest renames itself.
const std::string& emulator_comm() {
  static const std::string comm = [] {
    char buf[PATH_MAX];
    const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf);
    return n > 0 ? basename_of(std::string_view(buf, static_cast<size_t>(n))).substr(0, kCommLen)
                 : std::string("a64run");
  }();
  return comm;
}

std::string comm_of(Task& t, std::string_view host_comm) {
  return guest_comm(host_comm, emulator_comm(), t.proc().opts().program);
}

uint64_t guest_vsize(Task& t) {
  uint64_t total = 0;
  for (const emu::Vma& v : t.as().snapshot()) total += v.end - v.start;
  return total;
}

// Where the loader left argc (/proc/<pid>/stat's startstack). The process does not record it, so it is
// found again: the auxv copy sits on the [stack] just above envp and argv, and the walk down from it
// must end at a word equal to argc. Returns 0 when that does not work out (the host's value is kept then).
uint64_t guest_start_stack(Task& t) {
  const std::vector<uint8_t>& auxv = t.proc().auxv;
  const uint64_t argc =
      static_cast<uint64_t>(std::count(t.proc().cmdline.begin(), t.proc().cmdline.end(), '\0'));
  for (const emu::Vma& v : t.as().snapshot()) {
    if (!((v.flags & emu::kVmaStack) || v.name == "[stack]") || auxv.size() < 16) continue;
    const uint64_t len = std::min<uint64_t>(v.end - v.start, 4 << 20);
    std::vector<uint8_t> top(len);
    if (emu::copy_in(t.as(), top.data(), v.end - len, len) < 0) return 0;
    auto word = [&](uint64_t off) {
      uint64_t w;
      memcpy(&w, top.data() + off, 8);
      return w;
    };
    for (uint64_t off = (len - auxv.size()) & ~7ull; off >= 8; off -= 8) {
      if (memcmp(top.data() + off, auxv.data(), auxv.size()) != 0) continue;
      uint64_t pos = off - 8;  // envp's NULL
      if (word(pos) != 0) return 0;
      while (pos >= 8 && word(pos - 8) != 0) pos -= 8;  // envp entries
      if (pos < 8 * (argc + 2)) return 0;
      pos -= 8 * (argc + 2);  // argv's NULL, argv[], argc
      return word(pos) == argc ? v.end - len + pos : 0;
    }
  }
  return 0;
}

// Resident pages of guest [start, end) from the host's page tables.
// A page of results at a time: a guest mapping may span the whole window (2^28 pages).
uint64_t resident_bytes(Task& t, uint64_t start, uint64_t end) {
  unsigned char vec[emu::kPageSize];
  uint64_t pages = 0;
  for (uint64_t at = start; at < end;) {
    const uint64_t n = std::min<uint64_t>((end - at) / emu::kPageSize, sizeof vec);
    if (n == 0 || ::mincore(t.as().host(at), n * emu::kPageSize, vec) != 0) break;
    for (uint64_t i = 0; i < n; ++i) pages += vec[i] & 1;
    at += n * emu::kPageSize;
  }
  return pages * emu::kPageSize;
}

// smaps: each maps line (render_maps_line, so the two never disagree) followed by its sizes. Locked: is the
// resident size of an mlocked VMA, as Linux's for private memory.
std::string render_smaps(Task& t) {
  std::string out;
  for (const emu::Vma& v : t.as().snapshot()) {
    const std::string line = emu::AddressSpace::render_maps_line(v);
    const bool anon = line.size() < 73 || line[72] == '[';
    const uint64_t size_kb = (v.end - v.start) / 1024;
    const uint64_t rss_kb = resident_bytes(t, v.start, v.end) / 1024;
    const bool locked = v.flags & emu::kVmaLocked;
    out += fmt::format(
        "{}\nSize:           {:8} kB\nKernelPageSize: {:8} kB\nMMUPageSize:    {:8} kB\nRss:            {:8} "
        "kB\n"
        "Pss:            {:8} kB\nShared_Clean:          0 kB\nShared_Dirty:          0 kB\n"
        "Private_Clean:         0 kB\nPrivate_Dirty:  {:8} kB\nReferenced:     {:8} kB\n"
        "Anonymous:      {:8} kB\nSwap:                  0 kB\nSwapPss:               0 kB\n"
        "Locked:         {:8} kB\nVmFlags:{}{}{}{}{}{}{}{}\n",
        line, size_kb, 4, 4, rss_kb, rss_kb, rss_kb, rss_kb, anon ? rss_kb : 0, locked ? rss_kb : 0,
        (v.prot & PROT_READ) ? " rd" : "", (v.prot & PROT_WRITE) ? " wr" : "",
        (v.prot & PROT_EXEC) ? " ex" : "", (v.flags & emu::kVmaShared) ? " sh" : "", locked ? " lo" : "",
        (v.flags & emu::kVmaHugePage) ? " hg" : "", (v.flags & emu::kVmaNoHugePage) ? " nh" : "",
        (v.flags & emu::kVmaSealed) ? " sl" : "");
  }
  return out;
}

uint64_t auxv_value(const std::vector<uint8_t>& auxv, uint64_t type) {
  for (size_t i = 0; i + 16 <= auxv.size(); i += 16) {
    uint64_t pair[2];
    memcpy(pair, auxv.data() + i, sizeof pair);
    if (pair[0] == type) return pair[1];
  }
  return 0;
}

uint64_t guest_midr(Task& t) {
  uc_arm64_cp_reg reg{};
  reg.op0 = 3;  // MIDR_EL1: op0 3, op1 0, CRn 0, CRm 0, op2 0
  if (uc_reg_read(t.cpu().uc(), UC_ARM64_REG_CP_REG, &reg) != UC_ERR_OK || reg.val == 0) return 0x410fd083;
  return reg.val;
}

// The guest thread a status file of the guest's own describes: /proc/<pid>/task/<tid>, thread-self, the
// thread /proc/<tid> names, or the main thread (whose id is the process's).
int status_tid(Task& t, std::string_view host_dir) {
  int n = 0;
  const size_t task = host_dir.find("/task/");
  if (task != host_dir.npos && parse_int(host_dir.substr(task + 6), &n)) return n;
  if (host_dir == "/proc/thread-self") return t.tid();
  if (host_dir.starts_with("/proc/") && parse_int(host_dir.substr(6), &n)) return n;
  return t.proc().host_pid();
}

// The signals of guest thread `tid` of t's process as its status and stat files show them (ProcSignals);
// false when it has no such thread. Under sig_lock, then the thread registry's lock (seccomp::status_of's
// order).
bool guest_signals(Task& t, int tid, ProcSignals* out) {
  signals::ProcessSignals& ps = t.proc().signals();
  std::lock_guard lk(ps.sig_lock);
  bool found = false;
  t.proc().for_each_thread([&](Task& other) {
    if (found || other.tid() != tid) return;
    found = true;
    out->pending = other.sig().pending.set();
    out->blocked = other.sig().blocked;
  });
  if (!found) return false;
  out->shared_pending = ps.shared.set();
  for (int sig = 1; sig <= signals::kNumSignals; ++sig) {
    const uint64_t handler = ps.actions[sig - 1].handler;
    if (handler == guest::kSIG_IGN) out->ignored |= guest::sig_bit(sig);
    if (handler != guest::kSIG_IGN && handler != guest::kSIG_DFL) out->caught |= guest::sig_bit(sig);
  }
  out->queued = ps.queued;
  if (rlimit limit{}; signals::guest_sigpending_limit(&limit)) out->queue_limit = limit.rlim_cur;
  return true;
}

// The host's file for the same process or thread, with what describes a64run replaced.
int64_t fixed_host_file(Task& t, const ProcPath& proc, std::string* out) {
  const std::string leaf = proc.node == ProcNode::kStat     ? "/stat"
                           : proc.node == ProcNode::kStatus ? "/status"
                           : proc.node == ProcNode::kComm   ? "/comm"
                           : proc.node == ProcNode::kLimits ? "/limits"
                                                            : fmt::format("/fdinfo/{}", proc.fd);
  std::string host;
  if (const int64_t r = read_host_file(proc.host_dir + leaf, &host); r < 0) return r;
  const std::string_view h = host;
  switch (proc.node) {
    case ProcNode::kFdInfo:
      *out = fix_proc_fdinfo(h);
      return 0;
    case ProcNode::kComm:
      *out = comm_of(t, h.substr(0, h.find('\n'))) + "\n";
      return 0;
    case ProcNode::kLimits: {
      *out = host;
      if (proc.peer != 0) return 0;
      uint64_t cur = 0, max = 0;
      emu::guest_as_rlimit(&cur, &max);
      *out = fix_proc_limits(*out, "Max address space", cur, max);
      if (rlimit pending{}; signals::guest_sigpending_limit(&pending))
        *out = fix_proc_limits(*out, "Max pending signals", pending.rlim_cur, pending.rlim_max);
      return 0;
    }
    case ProcNode::kStat: {
      if (proc.peer != 0) {
        *out = fix_proc_stat(h, "", 0, 0, emulator_thread_count(proc.peer));
        return 0;
      }
      const size_t open = h.find('('), close = h.rfind(')');
      const std::string_view comm =
          open < close && close != h.npos ? h.substr(open + 1, close - open - 1) : "";
      ProcSignals sigs;
      const bool have_sigs = guest_signals(t, status_tid(t, proc.host_dir), &sigs);
      *out = fix_proc_stat(h, comm_of(t, comm), guest_vsize(t), guest_start_stack(t), reserved_tid_count(),
                           have_sigs ? &sigs : nullptr);
      return 0;
    }
    default: {
      if (proc.peer != 0) {
        *out = fix_proc_status(h, "", 0, emulator_thread_count(proc.peer));
        return 0;
      }
      const size_t name = h.starts_with("Name:\t") ? 6 : h.npos;
      const std::string_view comm = name != h.npos ? h.substr(name, h.find('\n') - name) : "";
      int mode = -1, filters = 0;
      const int tid = status_tid(t, proc.host_dir);
      (void)seccomp::status_of(t, tid, &mode, &filters);
      ProcSignals sigs;
      const bool have_sigs = guest_signals(t, tid, &sigs);
      *out = fix_proc_status(h, comm_of(t, comm), guest_vsize(t), reserved_tid_count(), mode, filters,
                             have_sigs ? &sigs : nullptr);
      return 0;
    }
  }
}

// maps and smaps name the files a VMA maps by their host paths: those of the sysroot read as the guest's.
std::string without_sysroot(std::string text, const emu::Sysroot& sysroot) {
  if (sysroot.empty()) return text;
  const std::string prefix = " " + sysroot.root() + "/";
  for (size_t at = text.find(prefix); at != std::string::npos; at = text.find(prefix, at + 1))
    text.replace(at, prefix.size(), " /");
  return text;
}

int64_t proc_content(Task& t, const ProcPath& proc, std::string* out) {
  switch (proc.node) {
    case ProcNode::kCmdline:
      *out = t.proc().cmdline;
      return 0;
    case ProcNode::kEnviron:
      out->clear();
      for (const std::string& e : t.proc().opts().envp) out->append(e.c_str(), e.size() + 1);
      return 0;
    case ProcNode::kAuxv:
      out->assign(t.proc().auxv.begin(), t.proc().auxv.end());
      return 0;
    case ProcNode::kMaps:
      *out = without_sysroot(t.as().render_maps(), t.proc().sysroot());
      return 0;
    case ProcNode::kSmaps:
      *out = without_sysroot(render_smaps(t), t.proc().sysroot());
      return 0;
    case ProcNode::kCpuinfo: {
      const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
      const auto& auxv = t.proc().auxv;
      *out = render_cpuinfo(n > 0 ? static_cast<int>(n) : 1, auxv_value(auxv, kAT_HWCAP),
                            auxv_value(auxv, kAT_HWCAP2), guest_midr(t));
      return 0;
    }
    default:
      return fixed_host_file(t, proc, out);
  }
}

// A read-only descriptor holding `content`: a memfd written, then reopened read-only through /proc so the
// guest's descriptor cannot change it.
// The memfd names: a /proc/<self>/maps file has a name of its own, which PROCMAP_QUERY looks for.
constexpr char kProcMemfd[] = "a64run-proc";
constexpr char kMapsMemfd[] = "a64run-proc-maps";

int64_t serve_memfd(const std::string& content, int host_flags, const char* name) {
  const int mfd = ::memfd_create(name, MFD_CLOEXEC);
  if (mfd < 0) return guest::neg_errno();
  if (const int64_t err = write_all(mfd, content); err < 0) {
    ::close(mfd);
    return err;
  }
  const std::string self = fmt::format("/proc/self/fd/{}", mfd);
  const int fd = ::open(self.c_str(), O_RDONLY | (host_flags & (O_CLOEXEC | O_NONBLOCK)));
  if (fd < 0) {
    // No /proc on the host: hand out the memfd itself, at offset 0.
    ::lseek(mfd, 0, SEEK_SET);
    if (!(host_flags & O_CLOEXEC)) ::fcntl(mfd, F_SETFD, 0);
    return mfd;
  }
  ::close(mfd);
  return fd;
}

// Rebuilds text line by line: each line (with its newline) goes through `fix`, which appends its
// replacement to out and returns true, or returns false to keep the line as it is.
template <typename Fix>
std::string rewrite_lines(std::string_view text, Fix&& fix) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    const size_t nl = text.find('\n', i);
    const size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    const std::string_view line = text.substr(i, end - i);
    if (!fix(line.substr(0, line.size() - (nl == std::string_view::npos ? 0 : 1)), &out)) {
      out.append(line);
    } else if (nl != std::string_view::npos) {
      out += '\n';
    }
    i = end;
  }
  return out;
}

}  // namespace

ProcPath classify_proc_path(std::string_view path, int pid, int tid, bool (*reserved)(int)) {
  ProcPath out;
  std::vector<std::string_view> c;
  if (!split_path(path, &c) || c.size() < 2 || c[0] != "proc") return out;
  if (c.size() == 2 && c[1] == "cpuinfo") {
    out.node = ProcNode::kCpuinfo;
    return out;
  }
  int n = 0;
  const bool own = c[1] == "self" || c[1] == "thread-self" || (parse_int(c[1], &n) && (n == pid || n == tid));
  if (!own) {
    if (n > 0 && c.size() == 3 && (c[2] == "stat" || c[2] == "status")) {
      out.node = leaf_node(c[2]);
      out.peer = n;
      out.host_dir = fmt::format("/proc/{}", n);
    }
    return out;
  }
  out.host_dir = fmt::format("/proc/{}", c[1]);
  size_t i = 2;
  if (c.size() >= 4 && c[2] == "task" && c[1] != "thread-self" && parse_int(c[3], &n)) {
    out.host_dir += fmt::format("/task/{}", c[3]);
    i = 4;
  }
  if (c.size() == i + 1) {
    out.node = leaf_node(c[i]);
  } else if (c.size() == i + 2 && (c[i] == "fd" || c[i] == "fdinfo") && parse_int(c[i + 1], &n)) {
    out.fd = n;
    if (reserved != nullptr && reserved(n)) {
      out.node = ProcNode::kHiddenFd;
    } else if (c[i] == "fdinfo") {
      out.node = ProcNode::kFdInfo;
    }
  }
  return out;
}

int64_t read_guest_path(Task& t, int dirfd, GuestCStr p, GuestPath* out) {
  std::string path;
  if (const int64_t r = emu::read_cstring(t.as(), p.addr, PATH_MAX - 1, &path); r < 0) return r;
  if (path.empty() || path[0] != '/') {
    if (dirfd != guest::kAT_FDCWD && is_reserved_fd(dirfd)) return -EBADF;
    out->host = out->host_nofollow = std::move(path);
    return 0;
  }
  out->proc = classify_proc_path(path, ::getpid(), t.tid(), &is_reserved_fd);
  if (out->proc.peer != 0 && !is_a64run_process(out->proc.peer)) out->proc = ProcPath{};
  switch (out->proc.node) {
    case ProcNode::kNone: {
      emu::Sysroot::Resolved r = t.proc().sysroot().resolve(path);
      if (r.error != 0) return -r.error;
      // A final symlink loop of the sysroot (follow_error) leaves `host` at the link itself: the host
      // kernel follows it from there.
      out->host = std::move(r.follow);
      out->host_nofollow = std::move(r.nofollow);
      out->hosts = r.follow_hosts;
      break;
    }
    case ProcNode::kHiddenFd:
      return -ENOENT;
    case ProcNode::kExe:
      out->host = out->host_nofollow = t.proc().exe_path;
      out->link = std::move(path);
      break;
    default:
      out->host = out->host_nofollow = std::move(path);
      break;
  }
  return 0;
}

int64_t open_proc_file(Task& t, const ProcPath& proc, int host_flags) {
  if (host_flags & O_DIRECTORY) return -ENOTDIR;
  if ((host_flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL)) return -EEXIST;
  if ((host_flags & O_ACCMODE) != O_RDONLY) return -EACCES;
  std::string content;
  if (const int64_t r = proc_content(t, proc, &content); r < 0) return r;
  return serve_memfd(content, host_flags, proc.node == ProcNode::kMaps ? kMapsMemfd : kProcMemfd);
}

std::string fix_proc_limits(std::string_view host_limits, std::string_view name, uint64_t cur, uint64_t max) {
  constexpr size_t kValues = 26, kUnit = kValues + 21 + 21;  // where the soft limit and the unit start
  const auto value = [](uint64_t v) {
    return v == UINT64_MAX ? fmt::format("{:<20} ", "unlimited") : fmt::format("{:<20} ", v);
  };
  return rewrite_lines(host_limits, [&](std::string_view line, std::string* out) {
    if (!line.starts_with(name) || line.size() < kUnit) return false;
    out->append(line.substr(0, kValues)).append(value(cur)).append(value(max)).append(line.substr(kUnit));
    return true;
  });
}

std::string calling_thread_comm(Task& t) {
  char name[kCommLen + 1] = {};
  if (::prctl(PR_GET_NAME, name, 0, 0, 0) != 0) return {};
  return comm_of(t, name);
}

std::string guest_comm(std::string_view host_comm, std::string_view emulator, std::string_view program) {
  if (host_comm != emulator) return std::string(host_comm.substr(0, kCommLen));
  return basename_of(program).substr(0, kCommLen);
}

std::string fix_proc_stat(std::string_view host_stat, std::string_view comm, uint64_t vsize,
                          uint64_t start_stack, int hidden_threads, const ProcSignals* sigs) {
  const size_t open = host_stat.find('(');
  const size_t close = host_stat.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return std::string(host_stat);
  }
  std::string out(host_stat.substr(0, close + 1));
  if (!comm.empty()) out = fmt::format("{}({})", host_stat.substr(0, open), comm);
  // Fields 3.. follow ") ", separated by single spaces: num_threads is field 20, vsize 23, startstack 28,
  // then signal, blocked, sigignore and sigcatch 31 to 34.
  const auto signal_field = [sigs](int field) {
    const uint64_t set = field == 31   ? sigs->pending
                         : field == 32 ? sigs->blocked
                         : field == 33 ? sigs->ignored
                                       : sigs->caught;
    return set & 0x7fffffffu;
  };
  std::string_view rest = host_stat.substr(close + 1);
  int field = 2;
  size_t i = 0;
  while (i < rest.size()) {
    if (rest[i] != ' ') {
      out += rest[i++];
      continue;
    }
    out += ' ';
    ++i;
    ++field;
    const size_t end = std::min(rest.find_first_of(" \n", i), rest.size());
    if (field == 20) {
      const long n = strtol(std::string(rest.substr(i, end - i)).c_str(), nullptr, 10);
      out += fmt::format("{}", std::max<long>(1, n - hidden_threads));
    } else if ((field == 23 && vsize != 0) || (field == 28 && start_stack != 0)) {
      out += fmt::format("{}", field == 23 ? vsize : start_stack);
    } else if (field >= 31 && field <= 34 && sigs != nullptr) {
      out += fmt::format("{}", signal_field(field));
    } else {
      continue;
    }
    i = end;
  }
  return out;
}

std::string fix_proc_status(std::string_view host_status, std::string_view comm, uint64_t vsize,
                            int hidden_threads, int seccomp_mode, int seccomp_filters,
                            const ProcSignals* sigs) {
  // render_sigset_t: 16 hex digits, signal 64's bit first.
  const auto sigset_line = [&](std::string_view line, std::string* out) {
    static constexpr std::pair<std::string_view, uint64_t ProcSignals::*> kSets[] = {
        {"SigPnd:", &ProcSignals::pending},
        {"ShdPnd:", &ProcSignals::shared_pending},
        {"SigBlk:", &ProcSignals::blocked},
        {"SigIgn:", &ProcSignals::ignored},
        {"SigCgt:", &ProcSignals::caught}};
    for (const auto& [name, field] : kSets) {
      if (!line.starts_with(name)) continue;
      *out += fmt::format("{}\t{:016x}", name, sigs->*field);
      return true;
    }
    if (!line.starts_with("SigQ:")) return false;
    const size_t slash = line.find('/');
    if (sigs->queue_limit) {
      *out += fmt::format("SigQ:\t{}/{}", sigs->queued, *sigs->queue_limit);
    } else {
      *out += fmt::format("SigQ:\t{}{}", sigs->queued, slash == line.npos ? "" : line.substr(slash));
    }
    return true;
  };
  return rewrite_lines(host_status, [&](std::string_view line, std::string* out) {
    if (line.starts_with("Name:") && !comm.empty()) {
      *out += fmt::format("Name:\t{}", comm);
    } else if (line.starts_with("VmSize:") && vsize != 0) {
      *out += fmt::format("VmSize:\t{:8} kB", vsize / 1024);
    } else if (line.starts_with("Threads:")) {
      // The emulator's own threads (intake, CLONE_VM helpers) are not the guest's.
      const long n = strtol(std::string(line.substr(8)).c_str(), nullptr, 10);
      *out += fmt::format("Threads:\t{}", std::max<long>(1, n - hidden_threads));
    } else if (line.starts_with("Seccomp:") && seccomp_mode >= 0) {
      *out += fmt::format("Seccomp:\t{}", seccomp_mode);  // the guest's filters, not the host's (none)
    } else if (line.starts_with("Seccomp_filters:") && seccomp_mode >= 0) {
      *out += fmt::format("Seccomp_filters:\t{}", seccomp_filters);
    } else {
      return sigs != nullptr && sigset_line(line, out);
    }
    return true;
  });
}

std::string fix_proc_fdinfo(std::string_view host_fdinfo) {
  return rewrite_lines(host_fdinfo, [](std::string_view line, std::string* out) {
    unsigned flags = 0;
    const size_t v = line.find_first_not_of(" \t", 6);
    if (!line.starts_with("flags:") || v == std::string_view::npos ||
        std::from_chars(line.data() + v, line.data() + line.size(), flags, 8).ec != std::errc()) {
      return false;
    }
    *out += fmt::format("flags:\t0{:o}", guest::guest_open_flags(static_cast<int>(flags)));
    return true;
  });
}

std::string render_cpuinfo(int ncpu, uint64_t hwcap, uint64_t hwcap2, uint64_t midr) {
  // arch/arm64/kernel/cpuinfo.c's hwcap_str, in AT_HWCAP then AT_HWCAP2 bit order.
  static constexpr const char* kHwcap[] = {
      "fp",      "asimd", "evtstrm", "aes",   "pmull",    "sha1",   "sha2", "crc32",
      "atomics", "fphp",  "asimdhp", "cpuid", "asimdrdm", "jscvt",  "fcma", "lrcpc",
      "dcpop",   "sha3",  "sm3",     "sm4",   "asimddp",  "sha512", "sve",  "asimdfhm",
      "dit",     "uscat", "ilrcpc",  "flagm", "ssbs",     "sb",     "paca", "pacg"};
  static constexpr const char* kHwcap2[] = {
      "dcpodp",     "sve2",      "sveaes",    "svepmull",  "svebitperm", "svesha3",   "svesm4",  "flagm2",
      "frint",      "svei8mm",   "svef32mm",  "svef64mm",  "svebf16",    "i8mm",      "bf16",    "dgh",
      "rng",        "bti",       "mte",       "ecv",       "afp",        "rpres",     "mte3",    "sme",
      "smei16i64",  "smef64f64", "smei8i32",  "smef16f32", "smeb16f32",  "smef32f32", "smefa64", "wfxt",
      "ebf16",      "sveebf16",  "cssc",      "rprfm",     "sve2p1",     "sme2",      "sme2p1",  "smei16i32",
      "smebi32i32", "smeb16b16", "smef16f16", "mops",      "hbc"};
  std::string features;
  for (size_t b = 0; b < std::size(kHwcap); ++b) {
    if (hwcap & (1ull << b)) features += fmt::format(" {}", kHwcap[b]);
  }
  for (size_t b = 0; b < std::size(kHwcap2); ++b) {
    if (hwcap2 & (1ull << b)) features += fmt::format(" {}", kHwcap2[b]);
  }
  std::string out;
  for (int i = 0; i < ncpu; ++i) {
    out += fmt::format(
        "processor\t: {}\nBogoMIPS\t: 125.00\nFeatures\t:{}\nCPU implementer\t: {:#04x}\nCPU architecture: "
        "8\n"
        "CPU variant\t: {:#x}\nCPU part\t: {:#05x}\nCPU revision\t: {}\n\n",
        i, features, (midr >> 24) & 0xff, (midr >> 20) & 0xf, (midr >> 4) & 0xfff, midr & 0xf);
  }
  return out;
}

}  // namespace syscalls
