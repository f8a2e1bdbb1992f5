// This file is the syscall dispatcher: table lookup, typed invocation, -ENOSYS for the unimplemented (logged
// once), and --strace output.
#include "syscalls/dispatch.h"

#include <fmt/format.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <mutex>
#include <span>

#include "signals/signals.h"
#include "syscalls/handlers.h"
#include "syscalls/seccomp.h"

namespace syscalls {
namespace {

constexpr int kMaxNr = 471;

#define SYSCALL(nr, name, fn, status, note) \
  SyscallInfo{nr, #name, Status::status, note, &invoke<fn>, &format_args<fn>},
#define UNIMPLEMENTED(nr, name) SyscallInfo{nr, #name, Status::kUnimplemented, "", nullptr, nullptr},
#define DECLINED(nr, name, why) SyscallInfo{nr, #name, Status::kDeclined, why, nullptr, nullptr},
const SyscallInfo kTable[] = {
#include "syscalls/table.inc"
};
#undef SYSCALL
#undef UNIMPLEMENTED
#undef DECLINED

struct Index {
  std::array<const SyscallInfo*, kMaxNr> by_nr{};
  Index() {
    for (const SyscallInfo& s : kTable) by_nr[static_cast<size_t>(s.nr)] = &s;
  }
};

const Index& index() {
  static const Index idx;
  return idx;
}

std::array<std::atomic<bool>, kMaxNr> g_logged_unimplemented{};

// Numbers arm64 Linux does not have are logged once each too, but a guest can make four billion of them:
// the first kLoggedUnknownMax are named, then one line says that the rest are not.
constexpr size_t kLoggedUnknownMax = 16;
std::mutex g_unknown_mu;
std::array<int, kLoggedUnknownMax> g_logged_unknown;  // GUARDED_BY(g_unknown_mu)
size_t g_logged_unknown_count = 0;                    // GUARDED_BY(g_unknown_mu)
bool g_unknown_silenced = false;                      // GUARDED_BY(g_unknown_mu)

void write_stderr(const std::string& line) {
  (void)!::write(STDERR_FILENO, line.data(), line.size());
}

void log_unimplemented(int nr, const char* name) {
  if (nr >= 0 && nr < kMaxNr) {
    if (g_logged_unimplemented[static_cast<size_t>(nr)].exchange(true)) return;
    write_stderr(fmt::format("a64run: unimplemented syscall {} ({}), returning -ENOSYS\n", name, nr));
    return;
  }
  std::lock_guard lk(g_unknown_mu);
  const auto logged = std::span(g_logged_unknown).first(g_logged_unknown_count);
  if (g_unknown_silenced || std::find(logged.begin(), logged.end(), nr) != logged.end()) return;
  if (g_logged_unknown_count == kLoggedUnknownMax) {
    g_unknown_silenced = true;
    write_stderr("a64run: more unknown syscall numbers, returning -ENOSYS without logging them\n");
    return;
  }
  g_logged_unknown[g_logged_unknown_count++] = nr;
  write_stderr(fmt::format("a64run: unimplemented syscall {} ({}), returning -ENOSYS\n", name, nr));
}

// Writes to a broken pipe or socket raise SIGPIPE (host SIGPIPE is ignored inside a64run, so the host
// call only returns EPIPE); MSG_NOSIGNAL on send calls suppresses it.
bool raises_sigpipe(int nr, const uint64_t* regs) {
  constexpr uint64_t kMsgNoSignal = 0x4000;
  switch (nr) {
    case 64:
    case 66:
    case 68:
    case 70:
    case 287:
    case 71:
    case 76:
    case 75:
    case 285:  // write family, splice
      return true;
    case 206:  // sendto
      return !(regs[3] & kMsgNoSignal);
    case 211:
    case 269:  // sendmsg, sendmmsg
      return !(regs[nr == 211 ? 2 : 3] & kMsgNoSignal);
    default:
      return false;
  }
}

std::string format_result(SysResult r) {
  if (r < 0 && r >= -4095) {
    const int e = static_cast<int>(-r);
    const char* name = strerrorname_np(e);
    return fmt::format("-1 {} ({})", name ? name : fmt::format("E{}", e), strerror(e));
  }
  if (r > 0xffff) return fmt::format("{:#x}", r);
  return fmt::format("{}", r);
}

}  // namespace

const SyscallInfo* lookup(int nr) {
  if (nr < 0 || nr >= kMaxNr) return nullptr;
  return index().by_nr[static_cast<size_t>(nr)];
}

namespace detail {

void format_arg(std::string& out, Task&, int64_t v) {
  out += fmt::format("{}", v);
}
void format_arg(std::string& out, Task&, uint64_t v) {
  out += v > 0xffff ? fmt::format("{:#x}", v) : fmt::format("{}", v);
}
void format_pointer(std::string& out, uint64_t v) {
  out += v ? fmt::format("{:#x}", v) : "NULL";
}
void format_cstr(std::string& out, Task& t, uint64_t v) {
  std::string s;
  if (emu::read_cstring(t.as(), v, 4096, &s) != 0) {
    format_pointer(out, v);
    return;
  }
  out += '"';
  for (char c : s.substr(0, 96)) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    } else {
      out += c;
    }
  }
  out += s.size() > 96 ? "\"..." : "\"";
}

}  // namespace detail

namespace {

// The calls that return what another process may have made after it sent a signal without releasing the run
// lock (a read that finds data at once, a stat of a file), or what a host timer did: the way back to guest
// code settles host signals after them (signals/host_signals.h, host_signals_in_flight), as after every call
// that waited.
bool reads_others_work(int nr) {
  switch (nr) {
    case 17:   // getcwd
    case 22:   // epoll_pwait
    case 48:   // faccessat
    case 56:   // openat
    case 61:   // getdents64
    case 63:   // read
    case 65:   // readv
    case 67:   // pread64
    case 69:   // preadv
    case 72:   // pselect6
    case 73:   // ppoll
    case 78:   // readlinkat
    case 79:   // newfstatat
    case 80:   // fstat
    case 102:  // getitimer: an interval timer seen expired (or disarmed by setitimer) has its signal queued
    case 103:  // setitimer
    case 108:  // timer_gettime
    case 207:  // recvfrom
    case 212:  // recvmsg
    case 243:  // recvmmsg
    case 286:  // preadv2
    case 291:  // statx
    case 437:  // openat2
    case 439:  // faccessat2
    case 441:  // epoll_pwait2
      return true;
    default:
      return false;
  }
}

}  // namespace

void dispatch(Task& t) {
  emu::Vcpu& cpu = t.cpu();
  uint64_t regs[7];
  int ids[7] = {UC_ARM64_REG_X0, UC_ARM64_REG_X1, UC_ARM64_REG_X2, UC_ARM64_REG_X3,
                UC_ARM64_REG_X4, UC_ARM64_REG_X5, UC_ARM64_REG_X8};
  void* ptrs[7];
  for (int i = 0; i < 7; ++i) ptrs[i] = &regs[i];
  if (uc_reg_read_batch(cpu.uc(), ids, ptrs, 7) != UC_ERR_OK) abort();
  const int nr = static_cast<int>(regs[6]);
  const SyscallInfo* info = lookup(nr);
  const bool strace = t.proc().opts().strace;

  std::string line;
  const int entry_tid = t.tid();
  if (strace) {
    line = fmt::format("[{}] {}(", entry_tid, info ? info->name : fmt::format("syscall_{}", nr));
    if (info && info->format_args) {
      info->format_args(line, t, regs);
    } else {
      line += fmt::format("{:#x}, {:#x}, {:#x}, {:#x}, {:#x}, {:#x}", regs[0], regs[1], regs[2], regs[3],
                          regs[4], regs[5]);
    }
    line += ") = ";
  }
  if (strace && (nr == 93 || nr == 94)) {  // exit and exit_group do not come back to print a result
    line += "?\n";
    (void)!::write(STDERR_FILENO, line.data(), line.size());
    line.clear();
  }
  SysResult r;
  t.restart.orig_x0 = regs[0];
  // seccomp runs first (syscall_trace_enter): a call it decides is not made, and r is the filter's (an
  // errno, ENOSYS for a tracer or listener that is not there, or nothing: a SIGSYS handler, a killed thread).
  const bool decided =
      t.seccomp_mode.load(std::memory_order_relaxed) != 0 && !seccomp::allows(t, nr, regs, &r);
  if (!decided && (info == nullptr || info->invoke == nullptr)) {
    if (info == nullptr || info->status != Status::kDeclined)
      log_unimplemented(nr, info ? info->name : "unknown");
    r = -ENOSYS;
  } else if (!decided) {
    t.reset_safe_calls();
    const bool signal_first = t.interrupted();
    r = info->invoke(t, regs);
    if (reads_others_work(nr) || t.proc().self_signals_armed.load(std::memory_order_relaxed))
      cpu.mark_host_call();
    // A signal that came before the call (the thread was interrupted on its way in, in guest code) and
    // stopped it before any of its host calls began: the handler runs and the call is made afresh, whatever
    // SA_RESTART says (QEMU's QEMU_ERESTARTSYS), as if the signal had been taken before the svc. Not for a
    // call whose temporary mask (ppoll, pselect6, epoll_pwait) let the signal in: that signal ends it.
    if (signal_first && t.safe_calls_never_entered() && (r == -EINTR || signals::is_restart_code(r)) &&
        !t.sig().has_saved_mask) {
      r = signals::kERESTARTNOINTR;
    }
  }
  // A filter's errno is never a restart code, even when it is 512-516: the call did not run.
  if (!decided && signals::is_restart_code(r)) {
    t.restart.code = r;  // the signal layer decides at syscall exit: restart or -EINTR
    r = -EINTR;
  } else if (!decided && r == -EPIPE && raises_sigpipe(nr, regs)) {
    signals::send_to_thread(t, signals::user_siginfo(guest::kSIGPIPE, guest::kSI_USER));
  }
  if (r != kNoReturnValue) cpu.set_x(0, static_cast<uint64_t>(r));
  if (strace && !line.empty()) {
    // A fork child's clone or vfork comes back in the child: its line carries the child's id.
    if (t.tid() != entry_tid) line.replace(0, line.find(']') + 1, fmt::format("[{}]", t.tid()));
    line += r == kNoReturnValue ? "?" : format_result(r);
    line += '\n';
    (void)!::write(STDERR_FILENO, line.data(), line.size());
  }
}

}  // namespace syscalls
