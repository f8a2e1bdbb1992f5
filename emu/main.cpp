// a64run's command line: options in qemu-aarch64's conventions, then load the program and run its first
// thread.
#include <fmt/format.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cinttypes>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "emu/binfmt.h"
#include "emu/config.h"
#include "emu/loader.h"
#include "emu/sysroot.h"
#include "emu/task.h"
#include "emu/version.h"
#include "gdb/hooks.h"
#include "signals/host_signals.h"
#include "signals/safe_syscall.h"
#include "signals/signals.h"
#include "signals/slow_core.h"
#include "signals/stats.h"
#include "syscalls/proc_mem.h"
#include "syscalls/seccomp.h"

extern char** environ;

namespace {

bool g_as_limit_from_exec = false;  // --exec-rlimit-as gave the guest's RLIMIT_AS

constexpr const char* kDefaultSysroot = "/usr/aarch64-linux-gnu";

// Every option and every variable a64run reads (tests/packaging/help_test.sh holds the code to it).
void usage(FILE* out) {
  fmt::print(
      out,
      "usage: a64run [options] PROGRAM [ARGS...]\n"
      "       a64run --binfmt install [--persistent] | uninstall | status\n"
      "Runs an arm64 (aarch64) Linux program on this x86-64 Linux host.\n\n"
      "Options:\n"
      "  -L DIR          sysroot: the loader, libraries and absolute paths come from DIR when it has them\n"
      "                  (default: A64RUN_LD_PREFIX, then `sysroot` in the configuration file, then {}\n"
      "                  when it exists)\n"
      "  -E VAR=VALUE    set VAR in the guest's environment\n"
      "  -U VAR          remove VAR from the guest's environment\n"
      "  -0 ARGV0        pass ARGV0 as the guest's argv[0]\n"
      "  -g PORT         wait for gdb on PORT (TCP, loopback; or HOST:PORT, or a Unix socket path) before\n"
      "                  the first instruction, and serve it (gdb-multiarch: target remote :PORT)\n"
      "  --strace        print one line per syscall to stderr\n"
      "  --signal-stats[=FILE]  at exit, print per-signal delivery latency (queue to handler entry,\n"
      "                  handler entry to sigreturn: count, p50, p99, max), or write it to FILE as JSON\n"
      "  --signal-delay-pre-ack-us=N   slow-core model: busy-wait N us in the thread before each signal\n"
      "                  handler runs\n"
      "  --signal-delay-post-ack-us=N  slow-core model: busy-wait N us in the thread at each rt_sigreturn,\n"
      "                  after the handler ran\n"
      "  --binfmt install [--persistent]   register a64run with binfmt_misc for arm64 ELF programs (flags\n"
      "                  F and P), so that the kernel runs them; --persistent also writes\n"
      "                  /etc/binfmt.d/a64run.conf for the next boots\n"
      "  --binfmt uninstall   remove the registration (and the /etc/binfmt.d file)\n"
      "  --binfmt status      show the registration and other handlers of arm64 programs\n"
      "  --exec-signal-state=BLOCKED:IGNORED[:SIGPENDING:MAX]   internal: what a guest execve keeps (signal\n"
      "                  mask, ignored signals, RLIMIT_SIGPENDING), from a64run to itself\n"
      "  --exec-rlimit-as=CUR:MAX   internal: the guest's RLIMIT_AS (hexadecimal), which a64run keeps\n"
      "                  instead of the host, from a64run to itself\n"
      "  --exec-seccomp=FD   internal: the seccomp filters a guest execve keeps, in the file FD (read and\n"
      "                  closed at start), from a64run to itself\n"
      "  --exec-pending=FD   internal: the pending signals a guest execve keeps, in the file FD (read\n"
      "                  and closed at start), from a64run to itself\n"
      "  --exec-host-cwd internal: the exec'ing program entered its working directory, a directory of\n"
      "                  the sysroot, by its host path (getcwd reads that path), from a64run to itself\n"
      "  -h, --help      show this help\n"
      "  --version       show the version, the Unicorn and Capstone versions, and the fast paths this\n"
      "                  build takes\n\n"
      "Environment:\n"
      "  A64RUN_LD_PREFIX=DIR    the sysroot, as -L\n"
      "  A64RUN_GDB=PORT         as -g (a64run removes it from the program's environment)\n"
      "  A64RUN_CONFIG=FILE      the configuration file (default {}; `sysroot = DIR`)\n"
      "  A64RUN_BINFMT_D=DIR     where --binfmt install --persistent writes (default /etc/binfmt.d)\n"
      "  A64RUN_FAULT_REPORT=1   print registers and disassembly when the program dies of a fault\n"
      "  A64RUN_FUTEX_SPIN_US=N  how long a futex wait watches for a wake before it sleeps (default 5;\n"
      "                          0 never)\n"
      "  A64RUN_SERIAL=1         run guest code one thread at a time (diagnostics)\n"
      "  A64RUN_BLOCK_HOOK=1     stop vCPUs with a block hook instead of kicks (diagnostics)\n"
      "  A64RUN_NO_BLOCK_EXIT_TEST=1  kicks without the block-start exit_request test, which can lose\n"
      "                          one (diagnostics: docs/vcpu.md)\n"
      "  A64RUN_SOFTMMU=1        guest loads and stores through the softmmu TLB, not straight to the\n"
      "                          guest window (diagnostics)\n"
      "  A64RUN_SOFTFLOAT=1      scalar floating point in softfloat only, not on the host FPU (diagnostics)\n"
      "  A64RUN_EAGER_FLAGS=1    every flag-setting instruction computes NZCV in full, none is left lazy\n"
      "                          (diagnostics: docs/lazy_flags.md)\n"
      "  A64RUN_NO_FORWARD=1     V register values are loaded back from the CPU state, never forwarded\n"
      "                          within a block (diagnostics: docs/helper_calls.md)\n"
      "  A64RUN_NO_FP_PAIRS=1    an FMUL and the FADD or FSUB of its product stay two helper calls\n"
      "                          (diagnostics: docs/helper_calls.md)\n"
      "  A64RUN_SLOW_LOOKUP=1    indirect branches through Unicorn's own block lookup (diagnostics)\n"
      "  A64RUN_NO_SHARED_TB=1   each thread translates the code it runs itself, none runs another's\n"
      "                          translation (diagnostics)\n"
      "  A64RUN_FULL_TLBS=1      every MMU mode keeps a full-size softmmu TLB, not only the one guest code\n"
      "                          runs in (diagnostics: docs/memory.md)\n"
      "  A64RUN_TAKEN_CHAIN_SLOTS=1  a block's jump to the next one is a jump taken to its exit until it\n"
      "                          is chained, as in QEMU (diagnostics: emu/block_chain.cpp)\n"
      "  A64RUN_HUGE_PAGES=1     transparent huge pages for the program's large private mappings\n\n"
      "The exit status is the program's; a program killed by a signal kills a64run with that signal.\n",
      kDefaultSysroot, emu::kConfigPath);
}

void set_env(std::vector<std::string>& env, const std::string& assignment) {
  const std::string key = assignment.substr(0, assignment.find('=') + 1);
  for (auto& e : env) {
    if (e.compare(0, key.size(), key) == 0) {
      e = assignment;
      return;
    }
  }
  env.push_back(assignment);
}

void unset_env(std::vector<std::string>& env, const std::string& name) {
  std::erase_if(env, [&](const std::string& e) {
    return e.size() > name.size() && e[name.size()] == '=' && e.compare(0, name.size(), name) == 0;
  });
}

// The host path of the program named on the command line, by the sysroot rule (docs/sysroot.md), as a
// guest's execve of the same name would find it: an absolute path is the tree's when the tree has it (so
// `a64run -L ROOT /usr/bin/python3` runs ROOT's), a relative one the host's; a bare name is looked up in
// PATH as a shell would, each candidate by the same rule. Without a sysroot, the name as given.
std::string find_program(const std::string& name, const emu::Sysroot& root) {
  if (name.find('/') != std::string::npos) return root.host_path(name);
  const char* path = getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    const size_t end = std::min(dirs.find(':', start), dirs.size());
    std::string cand = root.host_path((end > start ? dirs.substr(start, end - start) : ".") + "/" + name);
    if (::access(cand.c_str(), F_OK) == 0) return cand;
    start = end + 1;
  }
  return name;
}

// --signal-delay-pre-ack-us=N / --signal-delay-post-ack-us=N (signals/slow_core.h). Returns false when `a`
// is not one of them; *bad is set when it is but N is not a number of microseconds up to 10 s.
bool parse_signal_delay(const std::string& a, bool* bad) {
  static uint32_t pre_us = 0, post_us = 0;
  constexpr std::string_view kPre = "--signal-delay-pre-ack-us=", kPost = "--signal-delay-post-ack-us=";
  const bool pre = a.starts_with(kPre);
  if (!pre && !a.starts_with(kPost)) return false;
  const std::string v = a.substr(pre ? kPre.size() : kPost.size());
  char* end = nullptr;
  const unsigned long us = std::strtoul(v.c_str(), &end, 10);
  *bad = v.empty() || *end != '\0' || us > 10'000'000;
  if (*bad) {
    fmt::print(stderr, "a64run: {}: want a number of microseconds (0 to 10000000)\n", a);
    return true;
  }
  (pre ? pre_us : post_us) = static_cast<uint32_t>(us);
  signals::set_signal_delays(pre_us, post_us);
  return true;
}

// What every start shares, options or not: the environment, the configuration file, the variables that
// stand for options. Returns false (with the message printed) for a bad configuration file.
bool base_options(emu::Options* opts) {
  signals::host_signal_state(&opts->exec_blocked, &opts->exec_ignored);
  for (char** e = environ; *e; ++e) opts->envp.emplace_back(*e);
  emu::Config cfg;
  std::string error;
  if (!emu::read_config(&cfg, &error)) {
    fmt::print(stderr, "a64run: {}\n", error);
    return false;
  }
  opts->sysroot = cfg.sysroot;
  if (const char* p = getenv("A64RUN_LD_PREFIX")) opts->sysroot = p;
  if (const char* p = getenv("A64RUN_GDB")) opts->gdb = p;
  // The debugger port is this a64run's alone: the program's children (a guest execve re-executes a64run)
  // must not wait for a debugger too.
  unset_env(opts->envp, "A64RUN_GDB");
  return true;
}

void default_sysroot(emu::Options* opts) {
  struct stat st {};
  if (opts->sysroot.empty() && ::stat(kDefaultSysroot, &st) == 0) opts->sysroot = kDefaultSysroot;
}

// Started by binfmt_misc with the P flag (emu/binfmt.h): {a64run, the program's path, its argv[0], its
// arguments...}, no options of ours, and the path as the kernel resolved it (no PATH search). True when
// the command line was taken that way.
bool parse_kernel_start(int argc, char** argv, emu::Options* opts) {
  const emu::KernelStart kernel = emu::kernel_start();
  opts->program_fd = kernel.exec_fd;
  if (!kernel.preserve_argv0 || argc < 2) return false;
  opts->program = argv[1];
  for (int j = 2; j < argc; ++j) opts->argv.emplace_back(argv[j]);
  if (opts->argv.empty()) opts->argv.emplace_back(argv[1]);
  default_sysroot(opts);
  return true;
}

// An option that takes a value (-L, -E, -U, -0, -g). Returns -1 to go on, or an exit status.
int value_option(const std::string& a, const char* v, emu::Options* opts, std::string* argv0) {
  if (a == "-L") opts->sysroot = v;
  if (a == "-E") set_env(opts->envp, v);
  if (a == "-U") unset_env(opts->envp, v);
  if (a == "-0") *argv0 = v;
  if (a == "-g" && *v == '\0') {
    fmt::print(stderr, "a64run: -g needs a PORT, HOST:PORT or socket path\n");
    return 2;
  }
  if (a == "-g") opts->gdb = v;
  return -1;
}

// An a64run that a guest's execve started (it always passes --exec-signal-state) may have been reached
// through /proc/self/exe (syscalls/sys_exec.cpp), which names the host thread "exe": it takes a64run's own
// file name back, the name the /proc views look for (syscalls/procfs.cpp, emulator_comm).
void take_back_command_name() {
  const std::string& self = emu::self_exe_path();
  const size_t slash = self.rfind('/');
  ::prctl(PR_SET_NAME, self.c_str() + (slash == std::string::npos ? 0 : slash + 1), 0, 0, 0);
}

// The options a64run gives itself for a guest's execve (not for users): -1 when `a` is one and was taken, 0
// when it is not one, or an exit status.
int parse_exec_option(const std::string& a, emu::Options* opts) {
  // What a guest execve keeps (Options::exec_blocked).
  if (a.starts_with("--exec-signal-state=")) {
    char* end = nullptr;
    opts->exec_blocked = std::strtoull(a.c_str() + 20, &end, 16);
    if (*end == ':') opts->exec_ignored = std::strtoull(end + 1, &end, 16);
    if (*end == ':') {  // the guest's RLIMIT_SIGPENDING (signals::set_guest_sigpending_limit)
      rlimit pending{};
      pending.rlim_cur = std::strtoull(end + 1, &end, 16);
      if (*end == ':') pending.rlim_max = std::strtoull(end + 1, &end, 16);
      signals::set_guest_sigpending_limit(pending);
    }
    if (*end != '\0') {
      fmt::print(stderr, "a64run: {}: want BLOCKED:IGNORED[:SIGPENDING:MAX] in hexadecimal\n", a);
      return 2;
    }
    take_back_command_name();
    return -1;
  }
  // The guest's RLIMIT_AS, which a64run keeps instead of the host (emu::guest_as_limit).
  if (a.starts_with("--exec-rlimit-as=")) {
    char* end = nullptr;
    const uint64_t cur = std::strtoull(a.c_str() + 17, &end, 16);
    const uint64_t max = *end == ':' ? std::strtoull(end + 1, &end, 16) : 0;
    if (*end != '\0' || cur > max) {
      fmt::print(stderr, "a64run: {}: want CUR:MAX in hexadecimal\n", a);
      return 2;
    }
    emu::set_guest_as_rlimit(cur, max);
    g_as_limit_from_exec = true;
    return -1;
  }
  // The seccomp filters a guest execve keeps (syscalls/seccomp.h). Past execve's point of no return: a file
  // that cannot be read kills the program, as Linux's SIGKILL.
  if (a.starts_with("--exec-seccomp=")) {
    char* end = nullptr;
    const long fd = std::strtol(a.c_str() + 15, &end, 10);
    syscalls::seccomp::Chain chain;
    if (*end != '\0' || fd < 0 || fd > INT_MAX ||
        !syscalls::seccomp::read_exec_fd(static_cast<int>(fd), &chain)) {
      fmt::print(stderr, "a64run: {}: not a seccomp filter chain\n", a);
      signals::die_with_signal(SIGKILL);
    }
    opts->exec_seccomp = std::move(chain);
    return -1;
  }
  // The pending signals a guest execve keeps (signals.h); past the point of no return, as above.
  if (a.starts_with("--exec-pending=")) {
    char* end = nullptr;
    const long fd = std::strtol(a.c_str() + 15, &end, 10);
    if (*end != '\0' || fd < 0 || fd > INT_MAX ||
        !signals::read_exec_pending(static_cast<int>(fd), &opts->exec_pending)) {
      fmt::print(stderr, "a64run: {}: not a list of pending signals\n", a);
      signals::die_with_signal(SIGKILL);
    }
    return -1;
  }
  // How the working directory was named (Process::cwd_by_host_path).
  if (a == "--exec-host-cwd") {
    opts->exec_host_cwd = true;
    return -1;
  }
  return 0;
}

// Parses the command line into opts; returns -1 to continue, or an exit status.
int parse_args(int argc, char** argv, emu::Options* opts) {
  if (!base_options(opts)) return 2;
  if (parse_kernel_start(argc, argv, opts)) return -1;
  std::string argv0;
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) {
        fmt::print(stderr, "a64run: option {} needs a value\n", a);
        return nullptr;
      }
      return argv[++i];
    };
    if (a == "--") {
      ++i;
      break;
    }
    if (a == "-h" || a == "--help") {
      usage(stdout);
      return 0;
    }
    if (a == "--version") {
      fmt::print("{}", emu::version_report());
      return 0;
    }
    if (a == "--strace") {
      opts->strace = true;
      continue;
    }
    if (a == "--signal-stats" || a.rfind("--signal-stats=", 0) == 0) {
      opts->signal_stats = a.size() > 15 ? a.substr(15) : "-";
      signals::enable_stats(a.size() > 15 ? a.substr(15) : "");
      continue;
    }
    if (int status = parse_exec_option(a, opts); status != 0) {
      if (status > 0) return status;
      continue;
    }
    if (bool bad = false; parse_signal_delay(a, &bad)) {
      if (bad) return 2;
      continue;
    }
    const bool takes_value = a == "-L" || a == "-E" || a == "-U" || a == "-0" || a == "-g";
    const char* v = takes_value ? value() : nullptr;
    if (v == nullptr) {
      if (!takes_value) fmt::print(stderr, "a64run: unknown option {}\n", a);
      usage(stderr);
      return 2;
    }
    if (int status = value_option(a, v, opts, &argv0); status >= 0) return status;
  }
  if (i >= argc) {
    usage(stderr);
    return 2;
  }
  default_sysroot(opts);
  opts->program = find_program(argv[i], emu::Sysroot(opts->sysroot));
  for (int j = i; j < argc; ++j) opts->argv.emplace_back(argv[j]);
  if (!argv0.empty()) opts->argv[0] = argv0;
  return -1;
}

// RLIMIT_AS: the guest's is a64run's to keep (emu::guest_as_limit), the host's as a64run started with it
// (or the exec'ing a64run's, --exec-rlimit-as). The host process's own soft limit goes up to its hard one:
// a64run reserves the whole guest window. Returns the bytes the window may take (all of a 1 TiB window when
// the hard limit is infinite): what the hard limit leaves, less a64run's own mappings so far and 160 MiB
// for those to come (its code buffer, threads' stacks, allocator arenas).
uint64_t adopt_as_limit() {
  rlimit as{};
  if (::getrlimit(RLIMIT_AS, &as) != 0) return UINT64_MAX;
  if (!g_as_limit_from_exec) emu::set_guest_as_rlimit(as.rlim_cur, as.rlim_max);
  if (as.rlim_cur != as.rlim_max) {
    as.rlim_cur = as.rlim_max;
    (void)::setrlimit(RLIMIT_AS, &as);
  }
  if (as.rlim_max == RLIM_INFINITY) return UINT64_MAX;
  uint64_t pages = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "re")) {
    if (std::fscanf(f, "%" SCNu64, &pages) != 1) pages = 0;
    std::fclose(f);
  }
  const uint64_t used = pages * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE)) + (uint64_t{160} << 20);
  return as.rlim_max > used ? as.rlim_max - used : 0;
}

std::unique_ptr<emu::AddressSpace> reserve_address_space() {
  // A 1 TiB guest window (40-bit addresses); smaller where the host (or a sanitizer's layout) refuses, or
  // where a hard RLIMIT_AS leaves less (down to 256 MiB).
  const uint64_t room = adopt_as_limit();
  std::string error = "RLIMIT_AS leaves no room for a 256 MiB guest address space and a64run itself";
  for (int bits = 40; bits >= 28; --bits) {
    if ((uint64_t{1} << bits) > room) continue;
    if (auto as = emu::AddressSpace::create(1ull << bits, &error)) return as;
    if (bits <= 36 && room == UINT64_MAX) break;  // as before: no limit, and the host refuses 64 GiB
  }
  fmt::print(stderr, "a64run: {}\n", error);
  return nullptr;
}

int run(int argc, char** argv) {
  if (argc >= 2 && strcmp(argv[1], "--binfmt") == 0)
    return emu::binfmt_command(std::vector<std::string>(argv + 2, argv + argc));
  emu::Options opts;
  if (int status = parse_args(argc, argv, &opts); status >= 0) return status;
  auto as = reserve_address_space();
  if (!as) return 1;
  // Before any guest code: another a64run may look into this window, and the descriptors this image
  // inherited may be /proc/PID/mem files.
  syscalls::publish_window(*as);
  syscalls::proc_mem_note_inherited();
  // The process and its first thread live until exit_group: other threads may outlive main()'s frame.
  auto& proc = *new emu::Process(std::move(opts), std::move(as));
  // Before any other thread; its two threads come up while the program loads (open_host_signal_intake).
  signals::start_host_signal_intake(proc);

  emu::LoadedProgram prog;
  std::string error;
  int status = 0;
  const bool loaded = emu::load_program(proc, &prog, &error, &status);
  if (proc.opts().program_fd >= 0) ::close(proc.opts().program_fd);  // the kernel's, not the program's
  if (!loaded) {
    fmt::print(stderr, "a64run: {}\n", error);
    return status;
  }
  char resolved[PATH_MAX];
  proc.exe_path = ::realpath(proc.opts().program.c_str(), resolved) ? resolved : proc.opts().program;
  for (const std::string& a : proc.opts().argv) proc.cmdline.append(a.c_str(), a.size() + 1);

  (void)emu::self_exe_path();  // resolve it while /proc/self/exe still names us
  if (proc.sigreturn_trampoline == 0) proc.sigreturn_trampoline = signals::map_trampoline(proc);
  auto* main_task = new emu::Task(proc, static_cast<int>(::gettid()));
  proc.add_thread(main_task);
  signals::apply_exec_state(*main_task, proc.opts().exec_blocked, proc.opts().exec_ignored);
  syscalls::seccomp::install_exec_chain(*main_task, proc.opts().exec_seccomp);
  signals::apply_exec_pending(*main_task, proc.opts().exec_pending);
  // After the main thread is registered: a signal the intake thread takes at once (one sent while a64run
  // was starting) must find a thread to make it pending for, or it waits for a wake that never comes.
  signals::open_host_signal_intake(proc);
  signals::init_safe_syscalls();  // after the intake thread, which keeps the wake signal blocked
  main_task->cpu().set_sp(prog.sp);
  main_task->cpu().set_pc(prog.entry);
  if (!proc.opts().gdb.empty() && !gdb::start(proc, proc.opts().gdb, &error)) {
    fmt::print(stderr, "a64run: {}\n", error);
    return 1;
  }
  main_task->run();
  // The guest's main thread called exit(2) while others live on; the last one ends the process.
  pthread_exit(nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    // Only a64run's own bug gets here (a format string fmt refuses, an allocation that fails): a crash, with
    // what it was. (pthread_exit's unwinding is not a std::exception.)
    std::fprintf(stderr, "a64run: internal error: %s\n", e.what());
    std::abort();
  }
}
