// seccomp(2): strict mode and classic BPF filters over the guest's system calls (docs/seccomp.md).
//
// Invariant: a thread's chain (Task::seccomp_filter) changes only under the process's sig_lock, by the
// thread itself or by another thread's TSYNC, and a new thread copies its creator's chain under that lock
// as it registers (sys_thread.cpp), so a TSYNC either finds it registered or it copies the synced chain.
// Task::seccomp_mode is stored after the chain, and the dispatcher reads the chain only once it sees a
// mode, under the lock. Filters are immutable once attached.
#include "syscalls/seccomp.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <mutex>

#include "emu/guest_mem.h"
#include "signals/signals.h"
#include "syscalls/abi/siginfo.h"
#include "syscalls/abi/signal.h"
#include "syscalls/fd_util.h"

namespace syscalls::seccomp {
namespace {

using guest::sock_filter;
namespace bpf = guest::bpf;

constexpr uint32_t kMaxInsnsPerPath = 32768;  // MAX_INSNS_PER_PATH: each older filter counts 4 more
constexpr int32_t kMaxErrno = 4095;
// Strict mode's calls on arm64 (__NR_seccomp_read and friends): read, write, exit, rt_sigreturn.
constexpr int kStrictAllowed[] = {63, 64, 93, 139};

constexpr uint16_t op(uint16_t a, uint16_t b = 0, uint16_t c = 0) {
  return static_cast<uint16_t>(a | b | c);
}

bool cond_jump(uint16_t code) {
  switch (code) {
    case op(bpf::kJMP, bpf::kJEQ, bpf::kK):
    case op(bpf::kJMP, bpf::kJEQ, bpf::kX):
    case op(bpf::kJMP, bpf::kJGE, bpf::kK):
    case op(bpf::kJMP, bpf::kJGE, bpf::kX):
    case op(bpf::kJMP, bpf::kJGT, bpf::kK):
    case op(bpf::kJMP, bpf::kJGT, bpf::kX):
    case op(bpf::kJMP, bpf::kJSET, bpf::kK):
    case op(bpf::kJMP, bpf::kJSET, bpf::kX):
      return true;
    default:
      return false;
  }
}

// seccomp_check_filter's list: what a seccomp program may hold (a subset of classic BPF's, with the
// seccomp_data loads and the LEN loads).
bool seccomp_allowed(const sock_filter& f) {
  switch (f.code) {
    case op(bpf::kLD, bpf::kW, bpf::kABS):
      return f.k < sizeof(guest::seccomp_data) && (f.k & 3) == 0;
    case op(bpf::kLD, bpf::kW, bpf::kLEN):
    case op(bpf::kLDX, bpf::kW, bpf::kLEN):
    case op(bpf::kRET, bpf::kK):
    case op(bpf::kRET, bpf::kA):
    case op(bpf::kALU, bpf::kNEG):
    case op(bpf::kLD, bpf::kIMM):
    case op(bpf::kLDX, bpf::kIMM):
    case op(bpf::kMISC, bpf::kTAX):
    case op(bpf::kMISC, bpf::kTXA):
    case op(bpf::kLD, bpf::kMEM):
    case op(bpf::kLDX, bpf::kMEM):
    case op(bpf::kST):
    case op(bpf::kSTX):
    case op(bpf::kJMP, bpf::kJA):
      return true;
    default:
      break;
  }
  if (cond_jump(f.code)) return true;
  if ((f.code & 0x07) != bpf::kALU || (f.code & ~uint16_t{0xff}) != 0) return false;
  switch (f.code & 0xf0) {
    case bpf::kADD:
    case bpf::kSUB:
    case bpf::kMUL:
    case bpf::kDIV:
    case bpf::kAND:
    case bpf::kOR:
    case bpf::kXOR:
    case bpf::kLSH:
    case bpf::kRSH:
      return true;
    default:
      return false;  // BPF_MOD is classic BPF's, not seccomp's
  }
}

// check_load_and_stores: no scratch word is read before every path to the read has written it.
bool loads_after_stores(std::span<const sock_filter> prog) {
  std::vector<uint16_t> masks(prog.size(), 0xffff);
  uint16_t valid = 0;
  for (size_t pc = 0; pc < prog.size(); ++pc) {
    valid &= masks[pc];
    const sock_filter& f = prog[pc];
    if (f.code == op(bpf::kST) || f.code == op(bpf::kSTX)) {
      valid |= static_cast<uint16_t>(1u << f.k);
    } else if (f.code == op(bpf::kLD, bpf::kMEM) || f.code == op(bpf::kLDX, bpf::kMEM)) {
      if (!(valid & (1u << f.k))) return false;
    } else if (f.code == op(bpf::kJMP, bpf::kJA)) {
      masks[pc + 1 + f.k] &= valid;
      valid = 0xffff;
    } else if (cond_jump(f.code)) {
      masks[pc + 1 + f.jt] &= valid;
      masks[pc + 1 + f.jf] &= valid;
      valid = 0xffff;
    }
  }
  return true;
}

uint32_t load_word(const guest::seccomp_data& d, uint32_t k) {
  uint32_t w;
  memcpy(&w, reinterpret_cast<const uint8_t*>(&d) + k, sizeof w);
  return w;
}

// The classic BPF machine over checked instructions.
struct Machine {
  uint32_t a = 0, x = 0;
  uint32_t mem[bpf::kMEMWORDS] = {};

  // False for a division by a zero X, which ends the program with 0 (bpf_convert_filter's check).
  bool alu(const sock_filter& f) {
    const uint32_t src = (f.code & bpf::kX) ? x : f.k;
    switch (f.code & 0xf0) {
      case bpf::kADD:
        a += src;
        break;
      case bpf::kSUB:
        a -= src;
        break;
      case bpf::kMUL:
        a *= src;
        break;
      case bpf::kDIV:
        if (src == 0) return false;
        a /= src;
        break;
      case bpf::kAND:
        a &= src;
        break;
      case bpf::kOR:
        a |= src;
        break;
      case bpf::kXOR:
        a ^= src;
        break;
      case bpf::kLSH:
        a <<= (src & 31);
        break;
      case bpf::kRSH:
        a >>= (src & 31);
        break;
      default:
        a = 0u - a;
        break;  // BPF_NEG
    }
    return true;
  }
  // How many instructions the jump skips.
  uint32_t jump(const sock_filter& f) const {
    const uint32_t src = (f.code & bpf::kX) ? x : f.k;
    switch (f.code & 0xf0) {
      case bpf::kJA:
        return f.k;
      case bpf::kJEQ:
        return a == src ? f.jt : f.jf;
      case bpf::kJGT:
        return a > src ? f.jt : f.jf;
      case bpf::kJGE:
        return a >= src ? f.jt : f.jf;
      default:
        return (a & src) != 0 ? f.jt : f.jf;  // BPF_JSET
    }
  }
  void load_store(const sock_filter& f, const guest::seccomp_data& data) {
    switch (f.code) {
      case op(bpf::kLD, bpf::kW, bpf::kABS):
        a = load_word(data, f.k);
        break;
      case op(bpf::kLD, bpf::kW, bpf::kLEN):
        a = sizeof(guest::seccomp_data);
        break;
      case op(bpf::kLDX, bpf::kW, bpf::kLEN):
        x = sizeof(guest::seccomp_data);
        break;
      case op(bpf::kLD, bpf::kIMM):
        a = f.k;
        break;
      case op(bpf::kLDX, bpf::kIMM):
        x = f.k;
        break;
      case op(bpf::kLD, bpf::kMEM):
        a = mem[f.k];
        break;
      case op(bpf::kLDX, bpf::kMEM):
        x = mem[f.k];
        break;
      case op(bpf::kST):
        mem[f.k] = a;
        break;
      case op(bpf::kSTX):
        mem[f.k] = x;
        break;
      case op(bpf::kMISC, bpf::kTAX):
        x = a;
        break;
      default:
        a = x;
        break;  // BPF_MISC | BPF_TXA: check_program lets nothing else in
    }
  }
};

// CAP_SYS_ADMIN in the effective set of the calling host thread (which holds the guest's credentials).
bool has_sys_admin() {
  __user_cap_header_struct head{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  if (::syscall(SYS_capget, &head, data) != 0) return false;
  return (data[CAP_SYS_ADMIN / 32].effective >> (CAP_SYS_ADMIN % 32)) & 1;
}

bool no_new_privs() {
  return ::prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1;
}

// is_ancestor: `older` is `chain` or one of its older filters (or null).
bool is_ancestor(const Filter* older, const Filter* chain) {
  if (older == nullptr) return true;
  for (const Filter* f = chain; f != nullptr; f = f->prev.get()) {
    if (f == older) return true;
  }
  return false;
}

void log_once(std::once_flag& once, const char* msg) {
  std::call_once(once, [msg] { (void)!::write(STDERR_FILENO, msg, strlen(msg)); });
}

int64_t set_mode_strict(Task& t) {
  std::lock_guard lk(t.proc().signals().sig_lock);
  if (t.seccomp_mode.load(std::memory_order_relaxed) != guest::kSECCOMP_MODE_DISABLED) return -EINVAL;
  t.seccomp_mode.store(guest::kSECCOMP_MODE_STRICT, std::memory_order_release);
  return 0;
}

int64_t set_mode_filter(Task& t, uint32_t flags, uint64_t uargs) {
  if (flags & ~guest::kSECCOMP_FILTER_FLAG_MASK) return -EINVAL;
  const bool tsync = flags & guest::kSECCOMP_FILTER_FLAG_TSYNC;
  const bool listener = flags & guest::kSECCOMP_FILTER_FLAG_NEW_LISTENER;
  if (tsync && listener && !(flags & guest::kSECCOMP_FILTER_FLAG_TSYNC_ESRCH)) return -EINVAL;
  if ((flags & guest::kSECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV) && !listener) return -EINVAL;
  guest::sock_fprog fprog{};
  if (int64_t r = emu::copy_in(t.as(), &fprog, uargs, sizeof fprog); r < 0) return r;
  if (fprog.len == 0 || fprog.len > bpf::kMAXINSNS) return -EINVAL;
  if (!no_new_privs() && !has_sys_admin()) return -EACCES;
  if (fprog.filter == 0) return -EINVAL;  // bpf_check_basics
  auto filter = std::make_shared<Filter>();
  filter->prog.resize(fprog.len);
  if (int64_t r = emu::copy_in(t.as(), filter->prog.data(), fprog.filter, fprog.len * sizeof(sock_filter));
      r < 0) {
    return r;
  }
  if (int64_t r = check_program(filter->prog); r < 0) return r;
  if (listener) {
    // User notification (a listener descriptor that a supervisor answers) is not there: the flag is refused
    // as a kernel before 5.0 refuses it, and SECCOMP_GET_ACTION_AVAIL says so for its action.
    static std::once_flag once;
    log_once(once,
             "a64run: seccomp user notification (SECCOMP_FILTER_FLAG_NEW_LISTENER) is not supported, "
             "returning -EINVAL\n");
    return -EINVAL;
  }
  filter->log = flags & guest::kSECCOMP_FILTER_FLAG_LOG;

  std::lock_guard lk(t.proc().signals().sig_lock);
  const uint32_t mode = t.seccomp_mode.load(std::memory_order_relaxed);
  if (mode != guest::kSECCOMP_MODE_DISABLED && mode != guest::kSECCOMP_MODE_FILTER) return -EINVAL;
  uint64_t total = fprog.len;
  for (const Filter* f = t.seccomp_filter.get(); f != nullptr; f = f->prev.get()) total += f->prog.size() + 4;
  if (total > kMaxInsnsPerPath) return -ENOMEM;
  if (tsync) {
    int failed = 0;
    t.proc().for_each_thread([&](Task& other) {
      if (failed != 0 || &other == &t) return;
      const uint32_t m = other.seccomp_mode.load(std::memory_order_relaxed);
      if (m == guest::kSECCOMP_MODE_DISABLED ||
          (m == guest::kSECCOMP_MODE_FILTER &&
           is_ancestor(other.seccomp_filter.get(), t.seccomp_filter.get())))
        return;
      failed = other.tid();
    });
    if (failed != 0) return (flags & guest::kSECCOMP_FILTER_FLAG_TSYNC_ESRCH) ? -ESRCH : failed;
  }
  filter->prev = t.seccomp_filter;
  t.seccomp_filter = std::move(filter);
  t.seccomp_mode.store(guest::kSECCOMP_MODE_FILTER, std::memory_order_release);
  if (tsync) {
    const bool nnp = no_new_privs();
    t.proc().for_each_thread([&](Task& other) {
      if (&other == &t) return;
      other.seccomp_filter = t.seccomp_filter;
      if (nnp) other.seccomp_nnp_pending.store(true, std::memory_order_relaxed);
      other.seccomp_mode.store(guest::kSECCOMP_MODE_FILTER, std::memory_order_release);
    });
  }
  return 0;
}

int64_t get_action_avail(Task& t, uint64_t uargs) {
  uint32_t action = 0;
  if (int64_t r = emu::copy_in(t.as(), &action, uargs, sizeof action); r < 0) return r;
  switch (action) {
    case guest::kSECCOMP_RET_KILL_PROCESS:
    case guest::kSECCOMP_RET_KILL_THREAD:
    case guest::kSECCOMP_RET_TRAP:
    case guest::kSECCOMP_RET_ERRNO:
    case guest::kSECCOMP_RET_TRACE:
    case guest::kSECCOMP_RET_LOG:
    case guest::kSECCOMP_RET_ALLOW:
      return 0;
    default:  // SECCOMP_RET_USER_NOTIF too: no listener can be made (set_mode_filter)
      return -EOPNOTSUPP;
  }
}

// The thread is done: as do_exit(sig) for one of several threads, as the signal's default action (a core
// dump where RLIMIT_CORE allows) for the last or for the whole process.
SysResult end_thread(Task& t, bool whole_process, int sig) {
  if (whole_process) signals::die_with_signal(sig);
  t.exit_thread(0, sig);
  return kNoReturnValue;
}

}  // namespace

int64_t check_program(std::span<const sock_filter> prog) {
  if (prog.empty() || prog.size() > bpf::kMAXINSNS) return -EINVAL;
  const size_t n = prog.size();
  for (size_t pc = 0; pc < n; ++pc) {
    const sock_filter& f = prog[pc];
    if (!seccomp_allowed(f)) return -EINVAL;
    switch (f.code) {
      case op(bpf::kALU, bpf::kDIV, bpf::kK):
        if (f.k == 0) return -EINVAL;
        break;
      case op(bpf::kALU, bpf::kLSH, bpf::kK):
      case op(bpf::kALU, bpf::kRSH, bpf::kK):
        if (f.k >= 32) return -EINVAL;
        break;
      case op(bpf::kLD, bpf::kMEM):
      case op(bpf::kLDX, bpf::kMEM):
      case op(bpf::kST):
      case op(bpf::kSTX):
        if (f.k >= bpf::kMEMWORDS) return -EINVAL;
        break;
      case op(bpf::kJMP, bpf::kJA):
        if (f.k >= n - pc - 1) return -EINVAL;
        break;
      default:
        if (cond_jump(f.code) && (pc + f.jt + 1 >= n || pc + f.jf + 1 >= n)) return -EINVAL;
        break;
    }
  }
  const uint16_t last = prog[n - 1].code;
  if (last != op(bpf::kRET, bpf::kK) && last != op(bpf::kRET, bpf::kA)) return -EINVAL;
  return loads_after_stores(prog) ? 0 : -EINVAL;
}

uint32_t run_program(std::span<const sock_filter> prog, const guest::seccomp_data& data) {
  Machine m;
  for (size_t pc = 0; pc < prog.size(); ++pc) {
    const sock_filter& f = prog[pc];
    switch (f.code & 0x07) {
      case bpf::kALU:
        if (!m.alu(f)) return 0;  // a division by a zero X
        break;
      case bpf::kJMP:
        pc += m.jump(f);
        break;
      case bpf::kRET:
        return (f.code & 0x18) == bpf::kA ? m.a : f.k;
      default:
        m.load_store(f, data);
        break;
    }
  }
  return 0;  // not reached: a checked program ends in a return
}

uint32_t run_chain(const Filter* chain, const guest::seccomp_data& data) {
  if (chain == nullptr) return guest::kSECCOMP_RET_KILL_PROCESS;  // never fail open
  uint32_t ret = guest::kSECCOMP_RET_ALLOW;
  for (const Filter* f = chain; f != nullptr; f = f->prev.get()) {
    const uint32_t cur = run_program(f->prog, data);
    if (static_cast<int32_t>(cur & guest::kSECCOMP_RET_ACTION_FULL) <
        static_cast<int32_t>(ret & guest::kSECCOMP_RET_ACTION_FULL)) {
      ret = cur;
    }
  }
  return ret;
}

int chain_size(const Filter* chain) {
  int n = 0;
  for (const Filter* f = chain; f != nullptr; f = f->prev.get()) ++n;
  return n;
}

bool allows(Task& t, int nr, const uint64_t* regs, SysResult* result) {
  const uint32_t mode = t.seccomp_mode.load(std::memory_order_acquire);
  if (mode == guest::kSECCOMP_MODE_STRICT) {
    for (int allowed : kStrictAllowed) {
      if (nr == allowed) return true;
    }
    *result = end_thread(t, false, guest::kSIGKILL);  // __secure_computing_strict: do_exit(SIGKILL)
    return false;
  }
  if (t.seccomp_nnp_pending.exchange(false, std::memory_order_relaxed))
    (void)::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  Chain chain;
  {
    std::lock_guard lk(t.proc().signals().sig_lock);
    chain = t.seccomp_filter;
  }
  guest::seccomp_data data{};
  data.nr = nr;
  data.arch = guest::kAUDIT_ARCH_AARCH64;
  data.instruction_pointer = t.cpu().pc();  // the instruction after the svc, as Linux's regs->pc
  for (int i = 0; i < 6; ++i) data.args[i] = regs[i];
  const uint32_t ret = run_chain(chain.get(), data);
  const uint32_t action = ret & guest::kSECCOMP_RET_ACTION_FULL;
  uint32_t value = ret & guest::kSECCOMP_RET_DATA;
  switch (action) {
    case guest::kSECCOMP_RET_ALLOW:
    case guest::kSECCOMP_RET_LOG:
      return true;
    case guest::kSECCOMP_RET_ERRNO:
      if (value > kMaxErrno) value = kMaxErrno;
      *result = -static_cast<SysResult>(value);
      return false;
    case guest::kSECCOMP_RET_TRACE:       // no tracer can be attached: the call fails with ENOSYS
    case guest::kSECCOMP_RET_USER_NOTIF:  // no listener exists: the same
      *result = -ENOSYS;
      return false;
    case guest::kSECCOMP_RET_TRAP: {
      // force_sig_seccomp: SIGSYS, unblocked and its default restored if ignored, before the call returns;
      // x0 keeps the call's first argument (syscall_rollback).
      guest::siginfo si{};
      si.si_signo = guest::kSIGSYS;
      si.si_errno = static_cast<int32_t>(value);
      si.si_code = guest::kSYS_SECCOMP;
      si.fields.sigsys.call_addr = data.instruction_pointer;
      si.fields.sigsys.syscall = nr;
      si.fields.sigsys.arch = guest::kAUDIT_ARCH_AARCH64;
      signals::deliver_forced(t, si);
      *result = kNoReturnValue;
      return false;
    }
    default: {
      // SECCOMP_RET_KILL_THREAD, SECCOMP_RET_KILL_PROCESS and any unknown action: SIGSYS; the whole process
      // dies (with a core dump where allowed) unless a thread of several is killed.
      const bool whole = action != guest::kSECCOMP_RET_KILL_THREAD || t.proc().thread_count() == 1;
      *result = end_thread(t, whole, guest::kSIGSYS);
      return false;
    }
  }
}

SysResult prctl_get(Task& t) {
  return t.seccomp_mode.load(std::memory_order_acquire);
}

SysResult prctl_set(Task& t, uint64_t mode, uint64_t filter) {
  switch (mode) {
    case guest::kSECCOMP_MODE_STRICT:
      return set_mode_strict(t);  // the filter argument is ignored, as Linux ignores it
    case guest::kSECCOMP_MODE_FILTER:
      return set_mode_filter(t, 0, filter);
    default:
      return -EINVAL;
  }
}

bool status_of(Task& t, int tid, int* mode, int* filters) {
  bool found = false;
  std::lock_guard lk(t.proc().signals().sig_lock);
  t.proc().for_each_thread([&](Task& other) {
    if (found || other.tid() != tid) return;
    found = true;
    *mode = static_cast<int>(other.seccomp_mode.load(std::memory_order_acquire));
    *filters = chain_size(other.seccomp_filter.get());
  });
  return found;
}

// The serialized chain: "A64SECC1", the filter count, then each filter from the oldest: its length, its
// log flag, its instructions. All little-endian 32-bit words but the instructions.
std::string serialize(const Filter* chain) {
  std::vector<const Filter*> order;
  for (const Filter* f = chain; f != nullptr; f = f->prev.get()) order.insert(order.begin(), f);
  std::string out = "A64SECC1";
  auto word = [&](uint32_t w) { out.append(reinterpret_cast<const char*>(&w), sizeof w); };
  word(static_cast<uint32_t>(order.size()));
  for (const Filter* f : order) {
    word(static_cast<uint32_t>(f->prog.size()));
    word(f->log ? 1 : 0);
    out.append(reinterpret_cast<const char*>(f->prog.data()), f->prog.size() * sizeof(sock_filter));
  }
  return out;
}

bool deserialize(std::string_view bytes, Chain* out) {
  size_t pos = 8;
  auto word = [&](uint32_t* w) {
    if (bytes.size() - pos < sizeof *w) return false;
    memcpy(w, bytes.data() + pos, sizeof *w);
    pos += sizeof *w;
    return true;
  };
  uint32_t count = 0;
  if (!bytes.starts_with("A64SECC1") || !word(&count) || count == 0) return false;
  Chain chain;
  uint64_t total = 0;
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t len = 0, log = 0;
    if (!word(&len) || !word(&log) || len == 0 || len > bpf::kMAXINSNS || log > 1) return false;
    total += len + (i == 0 ? 0 : 4);
    if (total > kMaxInsnsPerPath || bytes.size() - pos < len * sizeof(sock_filter)) return false;
    auto f = std::make_shared<Filter>();
    f->prog.resize(len);
    memcpy(f->prog.data(), bytes.data() + pos, len * sizeof(sock_filter));
    pos += len * sizeof(sock_filter);
    if (check_program(f->prog) != 0) return false;
    f->log = log != 0;
    f->prev = std::move(chain);
    chain = std::move(f);
  }
  if (pos != bytes.size()) return false;
  *out = std::move(chain);
  return true;
}

int exec_fd(Task& t) {
  if (t.seccomp_mode.load(std::memory_order_acquire) != guest::kSECCOMP_MODE_FILTER) return -1;
  Chain chain;
  {
    std::lock_guard lk(t.proc().signals().sig_lock);
    chain = t.seccomp_filter;
  }
  return exec_memfd("a64run-seccomp", serialize(chain.get()));
}

bool read_exec_fd(int fd, Chain* out) {
  std::string bytes;
  // A longer file is not a chain (kMaxInsnsPerPath instructions in all, with the headers).
  if (!read_exec_memfd(fd, (kMaxInsnsPerPath + 1) * sizeof(sock_filter) * 2, &bytes)) return false;
  return deserialize(bytes, out);
}

void install_exec_chain(Task& t, Chain chain) {
  if (!chain) return;
  std::lock_guard lk(t.proc().signals().sig_lock);
  t.seccomp_filter = std::move(chain);
  t.seccomp_mode.store(guest::kSECCOMP_MODE_FILTER, std::memory_order_release);
}

}  // namespace syscalls::seccomp

namespace syscalls {

// seccomp(2).
SysResult sys_seccomp(Task& t, uint32_t op, uint32_t flags, uint64_t uargs) {
  switch (op) {
    case guest::kSECCOMP_SET_MODE_STRICT:
      if (flags != 0 || uargs != 0) return -EINVAL;
      return seccomp::set_mode_strict(t);
    case guest::kSECCOMP_SET_MODE_FILTER:
      return seccomp::set_mode_filter(t, flags, uargs);
    case guest::kSECCOMP_GET_ACTION_AVAIL:
      if (flags != 0) return -EINVAL;
      return seccomp::get_action_avail(t, uargs);
    case guest::kSECCOMP_GET_NOTIF_SIZES:
      if (flags != 0) return -EINVAL;
      return emu::copy_out(t.as(), uargs, &guest::kNotifSizes, sizeof guest::kNotifSizes);
    default:
      return -EINVAL;
  }
}

}  // namespace syscalls
