// This file implements execve: the new program is checked here (so failures return an errno to the caller,
// with its threads intact), then a64run execs itself with the same options on it, or, for a program of the
// host's architecture, the host execs that program. The host's execve ends every other thread and keeps
// close-on-exec semantics for the guest's descriptors.
#include "syscalls/sys_exec.h"

#include <elf.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <limits.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "signals/safe_syscall.h"
#include "signals/signals.h"
#include "signals/slow_core.h"
#include "syscalls/fd_util.h"
#include "syscalls/procfs.h"
#include "syscalls/seccomp.h"

namespace syscalls {
namespace {

constexpr int kMaxScriptDepth = 4;

// The room execve gives argv and envp together (fs/exec.c's bprm_stack_limits): a quarter of RLIMIT_STACK,
// at most 3/4 of _STK_LIM (6 MiB), at least ARG_MAX (128 KiB); every string counts with its NUL and its
// pointer. Beyond it the call is E2BIG, so the strings a64run copies are bounded as the kernel's are.
uint64_t exec_strings_limit() {
  constexpr uint64_t kStkLim = 8ull << 20;
  constexpr uint64_t kArgMax = uint64_t{32} * 4096;
  rlimit rl{};
  const uint64_t stack = ::getrlimit(RLIMIT_STACK, &rl) == 0 ? rl.rlim_cur : kStkLim;
  return std::max(std::min(kStkLim / 4 * 3, stack / 4), kArgMax);
}

int64_t read_string_array(Task& t, uint64_t addr, std::vector<std::string>* out, uint64_t* budget) {
  constexpr size_t kMaxArgStrlen = size_t{32} * 4096;  // MAX_ARG_STRLEN
  out->clear();
  if (addr == 0) return 0;
  for (size_t i = 0;; ++i) {
    uint64_t p = 0;
    if (emu::copy_in(t.as(), &p, addr + i * 8, 8) != 0) return -EFAULT;
    if (p == 0) return 0;
    std::string s;
    if (int64_t r = emu::read_cstring(t.as(), p, std::min<uint64_t>(kMaxArgStrlen, *budget), &s); r < 0)
      return r == -ENAMETOOLONG ? -E2BIG : r;
    const uint64_t cost = s.size() + 1 + sizeof(uint64_t);
    if (cost > *budget) return -E2BIG;
    *budget -= cost;
    out->push_back(std::move(s));
  }
}

// The host file a guest path names for exec: /proc/self/exe is the guest's program (busybox re-executes
// itself that way); other paths go through the sysroot rule with the final symlink followed.
int64_t exec_host_path(Task& t, const std::string& program, std::string* host) {
  const ProcPath pp = classify_proc_path(program, ::getpid(), t.tid(), &is_reserved_fd);
  if (pp.node == ProcNode::kExe) {
    *host = t.proc().exe_path;
    return 0;
  }
  emu::Sysroot::Resolved r = t.proc().sysroot().resolve(program);
  if (r.follow_error != 0) return -r.follow_error;
  *host = std::move(r.follow);
  return 0;
}

// resolve_program's answer for a program of the host's own architecture.
constexpr int64_t kHostProgram = 1;
#if defined(__x86_64__)
constexpr uint16_t kHostMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr uint16_t kHostMachine = EM_AARCH64;
#else
#error "a64run: name this host's ELF machine"
#endif

// deny_write_access: Linux will not execute a file that something has open for writing (ETXTBSY). The
// host's kernel answers the same question when asked for a read lease, which it grants only on a file
// nobody has open for writing; the lease is dropped at once. Where leases are not a64run's to take (not the
// file's owner, no CAP_LEASE) there is no answer, and the exec goes on.
bool open_for_writing(int fd) {
  if (::fcntl(fd, F_SETLEASE, F_RDLCK) == 0) {
    ::fcntl(fd, F_SETLEASE, F_UNLCK);
    return false;
  }
  return errno == EAGAIN;
}

// Checks that *program names something this a64run can run, and sets *host to its host file. For a #!
// script, rewrites *program and *args to run its interpreter, as binfmt_script does (the interpreter goes
// through the sysroot rule too). Returns 0 for an arm64 program, kHostProgram for one of the host's
// architecture, or -errno.
int64_t resolve_program(Task& t, std::string* program, std::vector<std::string>* args, int depth,
                        std::string* host_file) {
  if (const int64_t r = exec_host_path(t, *program, host_file); r < 0) return r;
  const std::string& host = *host_file;
  const int fd = ::open(host.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -errno;
  struct stat st {};
  char head[256] = {};
  const bool ok = ::fstat(fd, &st) == 0;
  const ssize_t n = ok ? ::pread(fd, head, sizeof head - 1, 0) : -1;
  const bool busy = ok && S_ISREG(st.st_mode) && open_for_writing(fd);
  ::close(fd);
  if (!ok || S_ISDIR(st.st_mode) || !S_ISREG(st.st_mode)) return -EACCES;
  if (::access(host.c_str(), X_OK) != 0) return -EACCES;
  if (busy) return -ETXTBSY;
  if (n >= 20 && memcmp(head, ELFMAG, SELFMAG) == 0) {
    uint16_t machine;
    memcpy(&machine, head + 18, 2);
    if (head[EI_CLASS] != ELFCLASS64) return -ENOEXEC;
    if (machine == EM_AARCH64) return 0;
    return machine == kHostMachine ? kHostProgram : -ENOEXEC;
  }
  if (n < 2 || head[0] != '#' || head[1] != '!' || depth >= kMaxScriptDepth) return -ENOEXEC;
  std::string line(head + 2, static_cast<size_t>(n - 2));
  line = line.substr(0, line.find('\n'));
  const size_t b = line.find_first_not_of(" \t");
  if (b == std::string::npos) return -ENOEXEC;
  const size_t e = line.find_first_of(" \t", b);
  const std::string interp = line.substr(b, e == std::string::npos ? std::string::npos : e - b);
  std::string arg;
  if (e != std::string::npos) {
    const size_t ab = line.find_first_not_of(" \t", e);
    const size_t ae = line.find_last_not_of(" \t\r");
    if (ab != std::string::npos) arg = line.substr(ab, ae - ab + 1);
  }
  std::vector<std::string> next = {interp};
  if (!arg.empty()) next.push_back(arg);
  next.push_back(*program);
  next.insert(next.end(), args->begin() + (args->empty() ? 0 : 1), args->end());
  *args = std::move(next);
  *program = interp;
  return resolve_program(t, program, args, depth + 1, host_file);
}

std::vector<char*> c_strings(std::vector<std::string>& v) {
  std::vector<char*> out;
  out.reserve(v.size() + 1);
  for (auto& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// The host's execve of `path` from this thread, with the run lock released; returns -errno if it fails.
// A program of the host's architecture (`host_program`) runs on the host, as it does under qemu-user, and
// inherits the guest's signal mask and ignored signals: a guest's shell tools, popen and system reach the
// host's /bin/sh that way when the sysroot has none. Otherwise `path` is a64run itself, which starts with
// the wake signal's default action (terminate) until it installs the handler: one still on its way to this
// thread would end it, so the exec keeps it blocked.
int64_t host_execve(Task& t, const std::string& path, std::vector<std::string>& args,
                    std::vector<std::string>& env, bool host_program) {
  const std::vector<char*> av = c_strings(args);
  const std::vector<char*> ev = c_strings(env);
  emu::RunLockReleaser unlocked(t.proc().run_lock(), &t.cpu());
  fflush(nullptr);
  t.proc().execing.store(true, std::memory_order_release);
  int err;
  if (host_program) {
    const signals::HostExecSignals inherited(t);
    // The guest's RLIMIT_AS soft limit becomes the host program's (its hard one stays the host's: lowered,
    // a64run could not take it back should the exec fail).
    rlimit host_as{};
    uint64_t cur = 0, max = 0;
    emu::guest_as_rlimit(&cur, &max);
    const bool lower = ::getrlimit(RLIMIT_AS, &host_as) == 0 && cur < host_as.rlim_cur;
    if (lower) {
      const rlimit as{cur, host_as.rlim_max};
      (void)::setrlimit(RLIMIT_AS, &as);
    }
    ::execve(path.c_str(), av.data(), ev.data());
    err = errno;
    if (lower) (void)::setrlimit(RLIMIT_AS, &host_as);
  } else {
    signals::set_wake_signal_blocked(true);
    ::execve(path.c_str(), av.data(), ev.data());
    err = errno;
    signals::set_wake_signal_blocked(false);
  }
  t.proc().execing.store(false, std::memory_order_release);
  return -err;
}

int64_t do_exec(Task& t, std::string program, std::vector<std::string> args, std::vector<std::string> env) {
  std::string host;
  const int64_t kind = resolve_program(t, &program, &args, 0, &host);
  if (kind < 0) return kind;
  if (kind == kHostProgram) {
    if (t.seccomp_mode.load(std::memory_order_acquire) != 0) {
      // The host runs it: a64run's filters cannot follow an x86-64 program.
      static std::once_flag once;
      std::call_once(once, [] {
        const char msg[] = "a64run: a host program exec'd under seccomp runs without the guest's filters\n";
        (void)!::write(STDERR_FILENO, msg, sizeof msg - 1);
      });
    }
    return host_execve(t, host, args, env, true);
  }
  const emu::Options& o = t.proc().opts();
  std::vector<std::string> host_args = {"a64run"};
  if (!o.sysroot.empty()) host_args.insert(host_args.end(), {"-L", o.sysroot});
  if (o.strace) host_args.emplace_back("--strace");
  for (std::string& a : signals::signal_delay_args()) host_args.push_back(std::move(a));
  host_args.push_back(signals::exec_state_arg(t));
  if (uint64_t cur = 0, max = 0; emu::guest_as_rlimit(&cur, &max), cur != UINT64_MAX || max != UINT64_MAX)
    host_args.push_back(fmt::format("--exec-rlimit-as={:x}:{:x}", cur, max));
  // The seccomp chain: a memory file the new a64run reads and closes before the program starts.
  const int seccomp_fd = seccomp::exec_fd(t);
  if (seccomp_fd < -1) return seccomp_fd;
  if (seccomp_fd >= 0) host_args.push_back(fmt::format("--exec-seccomp={}", seccomp_fd));
  if (t.proc().cwd_by_host_path.load(std::memory_order_relaxed)) host_args.emplace_back("--exec-host-cwd");
  // The pending signals, as late as can be: a memory file like the seccomp chain's.
  const int pending_fd = signals::exec_pending_fd(t);
  if (pending_fd < -1) {
    if (seccomp_fd >= 0) ::close(seccomp_fd);
    return pending_fd;
  }
  if (pending_fd >= 0) host_args.push_back(fmt::format("--exec-pending={}", pending_fd));
  host_args.insert(host_args.end(), {"-0", args.empty() ? std::string() : args[0], "--", host});
  if (args.size() > 1) host_args.insert(host_args.end(), args.begin() + 1, args.end());
  int64_t r = host_execve(t, emu::self_exe_path(), host_args, env, false);
  if (r == -ENOENT || r == -ENOTDIR || r == -EACCES || r == -ELOOP) {
    // a64run's own path does not reach it from here: a chroot (binfmt_misc's F flag ran a64run in one, or
    // the guest called chroot), or its file was moved. The kernel's link to the running a64run still does
    // while /proc is mounted.
    r = host_execve(t, "/proc/self/exe", host_args, env, false);
  }
  if (seccomp_fd >= 0) ::close(seccomp_fd);
  if (pending_fd >= 0) ::close(pending_fd);
  return r;
}

}  // namespace

// execve(2).
SysResult sys_execve(Task& t, GuestCStr path, uint64_t argv, uint64_t envp) {
  std::string program;
  if (int64_t r = emu::read_cstring(t.as(), path.addr, PATH_MAX - 1, &program); r < 0) return r;
  if (program.empty()) return -ENOENT;
  std::vector<std::string> args, env;
  uint64_t budget = exec_strings_limit();
  if (int64_t r = read_string_array(t, argv, &args, &budget); r < 0) return r;
  if (int64_t r = read_string_array(t, envp, &env, &budget); r < 0) return r;
  return do_exec(t, std::move(program), std::move(args), std::move(env));
}

// execveat(2): the path is resolved against dirfd (AT_EMPTY_PATH: dirfd itself).
SysResult sys_execveat(Task& t, int dirfd, GuestCStr path, uint64_t argv, uint64_t envp, int flags) {
  if (flags & ~(AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW)) return -EINVAL;
  std::string program;
  if (int64_t r = emu::read_cstring(t.as(), path.addr, PATH_MAX - 1, &program); r < 0) return r;
  if (program.empty() || program[0] != '/') {
    if (program.empty() && !(flags & AT_EMPTY_PATH)) return -ENOENT;
    if (dirfd != AT_FDCWD || program.empty()) {
      if (is_reserved_fd(dirfd)) return -EBADF;
      std::string dir = fd_path(dirfd);
      if (dir.empty()) return -EBADF;
      // The directory's host path read back as the guest's, which the sysroot rule maps to it again.
      program = t.proc().sysroot().to_guest(program.empty() ? dir : dir + "/" + program);
    }
  }
  if (flags & AT_SYMLINK_NOFOLLOW) {
    struct stat st {};
    const emu::Sysroot::Resolved r = t.proc().sysroot().resolve(program);
    if (r.error != 0) return -r.error;
    if (::lstat(r.nofollow.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) return -ELOOP;
  }
  std::vector<std::string> args, env;
  uint64_t budget = exec_strings_limit();
  if (int64_t r = read_string_array(t, argv, &args, &budget); r < 0) return r;
  if (int64_t r = read_string_array(t, envp, &env, &budget); r < 0) return r;
  return do_exec(t, std::move(program), std::move(args), std::move(env));
}

}  // namespace syscalls
