// This file runs one fuzzer child in its sandbox: a process cloned into fresh pid, mount, network, IPC and
// UTS namespaces (and a user namespace when the runner is not root) becomes that pid namespace's init; it
// mounts its own /proc and empty tmpfs over the world-writable directories, then forks the child, which
// takes resource limits, drops to the nobody user (or, in a user namespace, every capability), and execs
// the emulator. A signal the child sends to every process (kill -1) reaches only its namespace, files it
// makes land in its scratch directory or a tmpfs that vanishes with it, and when init exits the kernel
// kills whatever the child left behind.
#include "tests/sysfuzz/sandbox.h"

#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <dirent.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace sysfuzz {
namespace {

constexpr uid_t kNobody = 65534;
constexpr gid_t kNogroup = 65534;

// World-writable places a child could otherwise leave files in: each gets an empty tmpfs of its own.
const char* const kPrivateDirs[] = {"/tmp", "/var/tmp", "/dev/shm", "/run/lock"};

double now_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

[[noreturn]] void die(const char* what) {
  dprintf(2, "sysfuzz sandbox: %s: %s\n", what, strerror(errno));
  _exit(127);
}

// Lowers a limit (soft and hard, so the child cannot raise it again); never raises one.
void set_limit(int resource, rlim_t v) {
  rlimit rl{};
  if (getrlimit(resource, &rl) != 0) die("getrlimit");
  if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < v) v = rl.rlim_max;
  rl = {v, v};
  if (setrlimit(resource, &rl) != 0) die(("setrlimit " + std::to_string(resource)).c_str());
}

void redirect(const std::string& path, int to, int flags) {
  const int fd = open(path.c_str(), flags | O_CLOEXEC, 0644);
  if (fd < 0 || dup2(fd, to) < 0) die(path.c_str());
  close(fd);
}

// Drops every privilege: nobody when started as root; in a user namespace (where this process is root of
// nothing outside), every capability, for good (the securebits keep an exec from giving them back).
void drop_privileges(bool root) {
  if (root) {
    if (setgroups(0, nullptr) != 0 || setresgid(kNogroup, kNogroup, kNogroup) != 0 ||
        setresuid(kNobody, kNobody, kNobody) != 0)
      die("dropping to nobody");
  } else {
    const int bits = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
                     SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED;
    if (prctl(PR_SET_SECUREBITS, bits) != 0) die("securebits");
    for (int cap = 0; cap <= 63; ++cap) prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
    __user_cap_header_struct hdr{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2] = {};
    if (syscall(SYS_capset, &hdr, data) != 0) die("capset");
  }
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die("no_new_privs");
}

[[noreturn]] void child_main(const Launch& l, int ring_fd, bool root) {
  setsid();
  set_limit(RLIMIT_CORE, 0);
  set_limit(RLIMIT_NPROC, 512);
  set_limit(RLIMIT_NOFILE, 1024);
  set_limit(RLIMIT_FSIZE, rlim_t{64} << 20);
  set_limit(RLIMIT_MEMLOCK, rlim_t{1} << 20);
  set_limit(RLIMIT_MSGQUEUE, rlim_t{1} << 20);
  set_limit(RLIMIT_SIGPENDING, 1024);
  set_limit(RLIMIT_CPU, static_cast<rlim_t>(l.total_seconds) + 30);
  // The guest window (1 TiB) plus room: a release a64run's own memory stays bounded. (A sanitizer's shadow
  // memory is terabytes; there the sanitizer's own limits apply.)
  if (l.limit_address_space) set_limit(RLIMIT_AS, (rlim_t{1} << 40) + (rlim_t{16} << 30));
  const std::string scratch = l.run_dir + "/scratch";
  if (chdir(scratch.c_str()) != 0) die("chdir scratch");
  redirect("/dev/null", 0, O_RDONLY);
  redirect(l.run_dir + "/stdout", 1, O_WRONLY | O_CREAT | O_TRUNC);
  redirect(l.run_dir + "/stderr", 2, O_WRONLY | O_CREAT | O_TRUNC);
  if (dup2(ring_fd, 3) < 0) die("dup2 ring");
  syscall(SYS_close_range, 4, ~0U, 0);
  drop_privileges(root);
  prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  std::vector<std::string> args = l.argv;
  for (const char* a : {"--ring-fd", "3", "--scratch"}) args.emplace_back(a);
  args.push_back(scratch);
  args.insert(args.end(),
              {"--seed", std::to_string(l.seed), "--calls", std::to_string(l.calls), "--mode", l.mode});
  std::vector<char*> av;
  for (std::string& a : args) av.push_back(a.data());
  av.push_back(nullptr);
  const std::string logs = l.run_dir + "/sanitizer";
  std::string asan =
      "ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:max_allocation_size_mb=2048:"
      "hard_rss_limit_mb=6144:log_path=" +
      logs;
  std::string ubsan = "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:log_path=" + logs;
  std::string path = "PATH=/usr/bin:/bin";
  // a64run's report of a guest fault (registers, disassembly): what a death by SIGSEGV was.
  std::string fault_report = "A64RUN_FAULT_REPORT=1";
  char* env[] = {asan.data(), ubsan.data(), path.data(), fault_report.data(), nullptr};
  execve(av[0], av.data(), env);
  die(av[0]);
}

// pid 1 of the new namespaces: makes the private mounts, runs the child, sends its wait status to the
// runner, and continues a stopped child (a SIGSTOP the fuzzer sent itself).
[[noreturn]] void init_main(const Launch& l, int ring_fd, int report_fd, int sync_fd, bool root) {
  prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  char go;
  if (sync_fd >= 0 && read(sync_fd, &go, 1) != 1) die("waiting for the id maps");
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) die("making mounts private");
  if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0) die("mounting /proc");
  for (const char* d : kPrivateDirs) {
    struct stat st {};
    if (stat(d, &st) == 0 && S_ISDIR(st.st_mode) &&
        mount("tmpfs", d, "tmpfs", MS_NOSUID | MS_NODEV, "size=256m,mode=1777") != 0)
      die(d);
  }
  sethostname("sysfuzz", 7);
  const pid_t child = fork();
  if (child < 0) die("fork");
  if (child == 0) child_main(l, ring_fd, root);
  close(ring_fd);
  while (true) {
    int st = 0;
    const pid_t r = waitpid(-1, &st, __WALL | WUNTRACED);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) _exit(1);
    if (r != child) continue;  // an orphan reparented to this init
    if (WIFSTOPPED(st)) {
      kill(child, SIGCONT);
      continue;
    }
    (void)!write(report_fd, &st, sizeof st);
    _exit(0);  // the kernel kills every process left in the namespace
  }
}

bool write_file(const std::string& path, const std::string& text) {
  const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  close(fd);
  return ok;
}

std::string read_file(const std::string& path, size_t max) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  if (s.size() > max) s = "[...]\n" + s.substr(s.size() - max);
  return s;
}

std::string read_sanitizer_logs(const std::string& dir) {
  std::string out;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return out;
  while (dirent* e = readdir(d)) {
    if (strncmp(e->d_name, "sanitizer", 9) == 0) out += read_file(dir + "/" + e->d_name, 16384);
  }
  closedir(d);
  return out;
}

void make_dir(const std::string& path, bool root) {
  mkdir(path.c_str(), 0755);
  if (root) (void)!chown(path.c_str(), kNobody, kNogroup);
}

}  // namespace

bool sandbox_available(std::string* why) {
  if (geteuid() == 0) return true;
  std::ifstream f("/proc/sys/user/max_user_namespaces");
  long n = 0;
  if (!(f >> n) || n == 0) {
    *why = "not root, and no user namespaces (/proc/sys/user/max_user_namespaces)";
    return false;
  }
  return true;
}

Outcome run_sandboxed(const Launch& l) {
  Outcome out;
  const bool root = geteuid() == 0;
  make_dir(l.run_dir, root);
  make_dir(l.run_dir + "/scratch", root);
  const size_t ring_size = sizeof(sysfuzz_ring) + l.calls * sizeof(sysfuzz_result);
  const int ring_fd = static_cast<int>(syscall(SYS_memfd_create, "sysfuzz-ring", 0));
  if (ring_fd < 0 || ftruncate(ring_fd, static_cast<off_t>(ring_size)) != 0) die("memfd");
  auto* ring =
      static_cast<sysfuzz_ring*>(mmap(nullptr, ring_size, PROT_READ | PROT_WRITE, MAP_SHARED, ring_fd, 0));
  if (ring == MAP_FAILED) die("mmap ring");
  ring->magic = SYSFUZZ_MAGIC;
  ring->results_capacity = l.calls;
  int report[2], sync[2] = {-1, -1};
  if (pipe2(report, O_CLOEXEC) != 0 || (!root && pipe2(sync, O_CLOEXEC) != 0)) die("pipe");
  uint64_t flags = CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | SIGCHLD;
  if (!root) flags |= CLONE_NEWUSER;
  const pid_t init = static_cast<pid_t>(syscall(SYS_clone, flags, 0, 0, 0, 0));
  if (init < 0) die("clone into new namespaces");
  if (init == 0) {
    close(report[0]);
    if (sync[1] >= 0) close(sync[1]);
    init_main(l, ring_fd, report[1], sync[0], root);
  }
  close(report[1]);
  if (!root) {
    const std::string p = "/proc/" + std::to_string(init);
    write_file(p + "/uid_map", "0 " + std::to_string(geteuid()) + " 1");
    write_file(p + "/setgroups", "deny");
    write_file(p + "/gid_map", "0 " + std::to_string(getegid()) + " 1");
    (void)!write(sync[1], "g", 1);
    close(sync[0]);
    close(sync[1]);
  }
  const double start = now_seconds();
  double last_progress = start;
  uint64_t last_started = 0;
  int status = 0;
  bool have_status = false;
  while (true) {
    pollfd p{report[0], POLLIN, 0};
    const int r = poll(&p, 1, 100);
    if (r > 0) {
      have_status = read(report[0], &status, sizeof status) == sizeof status;
      break;
    }
    const double now = now_seconds();
    const uint64_t started = ring->calls_started + ring->calls_done;
    if (started != last_started) {
      last_started = started;
      last_progress = now;
    }
    if (now - last_progress > l.stall_seconds || now - start > l.total_seconds) {
      out.timed_out = true;
      kill(init, SIGKILL);
      break;
    }
  }
  waitpid(init, nullptr, __WALL);
  close(report[0]);
  if (have_status) {
    out.exited = WIFEXITED(status);
    out.status = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
    out.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  }
  out.ring.assign(reinterpret_cast<const uint8_t*>(ring), reinterpret_cast<const uint8_t*>(ring) + ring_size);
  munmap(ring, ring_size);
  close(ring_fd);
  out.stderr_text = read_file(l.run_dir + "/stderr", 8192);
  out.sanitizer_text = read_sanitizer_logs(l.run_dir);
  return out;
}

}  // namespace sysfuzz
