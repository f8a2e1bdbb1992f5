// This file implements the vCPU: Unicorn setup, the TLB fill hook that enforces guest permissions, stop
// requests (kicks) from other threads, and exception dispatch (svc, undefined instruction, brk).
#include "emu/vcpu.h"

#include <fmt/format.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "emu/block_exit.h"
#include "emu/code_buffer.h"
#include "emu/code_gate.h"
#include "emu/code_placement.h"
#include "emu/crash_report.h"
#include "emu/direct_memory.h"
#include "emu/fp_fast.h"
#include "emu/helper_calls.h"
#include "emu/host_fault.h"
#include "emu/lazy_flags.h"
#include "emu/parallel_atomics.h"
#include "emu/run_lock.h"
#include "emu/task.h"
#include "emu/tb_lookup.h"
#include "emu/tlb_trim.h"
#include "emu/unicorn_layout.h"
#include "emu/vreg_forwarding.h"
#include "gdb/hooks.h"
#include "signals/host_signals.h"
#include "signals/park.h"
#include "signals/signals.h"
#include "syscalls/dispatch.h"

namespace emu {
namespace {

thread_local Vcpu* t_running = nullptr;  // the vCPU this thread runs (running_engine, engine_starting)

// QEMU's arm exception numbers as Unicorn reports them to UC_HOOK_INTR.
constexpr uint32_t kExcpUdef = 1;
constexpr uint32_t kExcpSwi = 2;
constexpr uint32_t kExcpBkpt = 7;

// Fills of 3/4 of the TLB's size within max(2 ms, 1 us per entry) grow it: a rate no program whose working
// set fits reaches, and one a large table can still be shown to need (a fill costs about 0.3 us).
constexpr uint64_t kTlbGrowWindowNs = 2'000'000;
constexpr uint64_t kTlbGrowNsPerEntry = 1000;
constexpr uint64_t kTlbInitialEntries = 256;       // QEMU's CPU_TLB_DYN_DEFAULT_BITS
constexpr uint64_t kTlbMaxEntries = 1u << 22;      // CPU_TLB_DYN_MAX_BITS
constexpr uint64_t kCodeCacheBytes = 32ull << 20;  // Unicorn clears all of it on every flush
// Host faults in a row at one address that the address space allows when they are looked at (another thread
// changed the page meanwhile, or a stack grew): the access runs again. More means the host pages disagree
// with the VMAs.
constexpr uint32_t kMaxHostRetries = 16;

// Two fields of Unicorn 2.1.1's private struct uc_struct (include/uc_priv.h), at the offsets Debian's build
// uses (objdump of uc_emu_stop and check_exit_request_aarch64 in libunicorn.a): stop_request, and
// no_exit_request, which when set keeps the translator from testing the CPU's exit flag after every guest
// load and store. That mid-block test is what makes a stop from another thread inexact: it leaves the
// block with the PC reset to the block's start, so the instructions before the access run twice. With it
// off, the only test is at the start of each block, where the PC is exact.
constexpr size_t kUcStopRequest = 0x555;
constexpr size_t kUcNoExitRequest = 0x7da;
constexpr size_t kUcInitDone = 0x7db;

// Sets no_exit_request after checking that the layout is the one above: init_done is set, the other two
// are clear, and uc_emu_stop on an idle engine sets exactly the byte we take for stop_request.
bool enable_exact_kicks(uc_engine* uc) {
  if (getenv("A64RUN_BLOCK_HOOK") != nullptr) return false;  // diagnostics: the portable safe point
  // Without the exit_request test at block starts a kick can be lost (emu/block_exit.cpp); only a build whose
  // translator was checked gets it. A64RUN_NO_BLOCK_EXIT_TEST=1 keeps kicks without it (to show the race).
  if (!block_exit_test_available() && getenv("A64RUN_NO_BLOCK_EXIT_TEST") == nullptr) return false;
  auto* bytes = reinterpret_cast<volatile uint8_t*>(uc);
  if (bytes[kUcInitDone] != 1 || bytes[kUcNoExitRequest] != 0 || bytes[kUcStopRequest] != 0) return false;
  uc_emu_stop(uc);
  if (bytes[kUcStopRequest] != 1) return false;
  bytes[kUcStopRequest] = 0;
  bytes[kUcNoExitRequest] = 1;
  return true;
}

int xreg_id(int n) {
  if (n == 29) return UC_ARM64_REG_X29;
  if (n == 30) return UC_ARM64_REG_X30;
  return UC_ARM64_REG_X0 + n;
}

}  // namespace

void Vcpu::check(uc_err err, const char* what) const {
  if (err == UC_ERR_OK) return;
  fmt::print(stderr, "a64run: internal error: {} failed: {}\n", what, uc_strerror(err));
  abort();
}

Vcpu::Vcpu(AddressSpace& as, Task* task) : as_(as), task_(task) {
  if (task != nullptr) proc_.store(&task->proc(), std::memory_order_release);
  const uint64_t guarded = code_buffers_guarded_here();
  check(uc_open(UC_ARCH_ARM64, UC_MODE_ARM, &uc_), "uc_open");
  check(uc_ctl_set_tcg_buffer_size(uc_, kCodeCacheBytes), "uc_ctl_set_tcg_buffer_size");
  check(uc_ctl_set_cpu_model(uc_, UC_CPU_ARM64_MAX), "uc_ctl_set_cpu_model");
  check(uc_ctl_tlb_mode(uc_, UC_TLB_VIRTUAL), "uc_ctl_tlb_mode");
  // The whole window is one region: the fill hook decides, page by page, what the guest may touch.
  check(uc_mem_map_ptr(uc_, 0, as_.size(), UC_PROT_ALL, as_.base()), "uc_mem_map_ptr");
  (void)trim_idle_tlbs(uc_);  // the engine is made: its MMU indexes but this vCPU's own get small TLBs
  // The first fill of the code buffer must flush it, not wipe it under chained blocks (emu/code_buffer.cpp).
  check(guard_code_buffer(uc_, guarded), "guard_code_buffer");
  near_code_ = code_buffer_near(uc_);
  uc_hook h;
  // Stops from other threads are kicks where the engine is the one we know; anywhere else a block hook
  // polls for them (the first design: exact everywhere, but it costs up to 25% of run time, docs/vcpu.md).
  kicks_ = enable_exact_kicks(uc_);
  host_faults_ok_ = prepare_direct_memory(uc_, &direct_ok_);
  direct_ = direct_ok_;
  (void)prepare_lazy_flags(uc_);  // before any translation: a block may then leave NZCV lazy
  (void)prepare_helper_calls(uc_);
  (void)prepare_vreg_forwarding(uc_);                 // after the FP helpers are found: it marks their calls
  if (host_faults_ok_) install_host_fault_handler();  // a guest access that faults in the host is the guest's
  (void)prepare_tb_lookup();
  (void)prepare_fp_fast();
  if (!kicks_)
    check(uc_hook_add(uc_, &h, UC_HOOK_BLOCK, reinterpret_cast<void*>(&Vcpu::on_block), this, 1, 0),
          "uc_hook_add(BLOCK)");
  check(uc_hook_add(uc_, &h, UC_HOOK_TLB_FILL, reinterpret_cast<void*>(&Vcpu::on_tlb_fill), this, 1, 0),
        "uc_hook_add(TLB_FILL)");
  check(uc_hook_add(uc_, &h, UC_HOOK_INTR, reinterpret_cast<void*>(&Vcpu::on_interrupt), this, 1, 0),
        "uc_hook_add(INTR)");
  check(uc_hook_add(uc_, &h, UC_HOOK_INSN, reinterpret_cast<void*>(&Vcpu::on_sys), this, 1, 0,
                    UC_ARM64_INS_SYS),
        "uc_hook_add(INSN SYS)");
  set_reg(UC_ARM64_REG_CPACR_EL1, 3ull << 20);
  // With the exits list enabled and empty, uc_emu_start ignores `until` and runs until a hook stops it.
  // Plain `until` makes Unicorn probe the until page at every stop, which overwrote the real fault address.
  check(uc_ctl_exits_enable(uc_), "uc_ctl_exits_enable");  // FPEN: FP/SIMD without traps
  synced_generation_ = as_.generation();
  synced_code_generation_ = as_.code_generation();
  // Block sharing needs every block free of engine constants and within a rel32 jump of every member's
  // buffer (emu/tb_share.cpp, invariant 4).
  if (TbShare::enabled() && kicks_ && host_faults_ok_ && near_code_ && !gdb::enabled()) {
    void* ctx = unicorn::field<void*>(uc_, unicorn::kUcTcgCtx);
    share_slot_ = as_.tb_share().join(uc_, unicorn::field<uintptr_t>(ctx, unicorn::kCtxCodeGenBuffer),
                                      unicorn::field<size_t>(ctx, unicorn::kCtxCodeGenBufferSize));
  }
  tlb_size_estimate_ = kTlbInitialEntries;
  window_start_ns_ = signals::now_ns();
  as_.gate().add(this);
}

Vcpu::~Vcpu() {
  as_.gate().remove(this);
  // An engine another member ran blocks of stays open (tb_share.cpp, invariant 2).
  if (uc_ && (share_slot_ < 0 || as_.tb_share().leave(share_slot_))) uc_close(uc_);
}

uint64_t Vcpu::reg(int uc_reg) const {
  uint64_t v = 0;
  check(uc_reg_read(uc_, uc_reg, &v), "uc_reg_read");
  return v;
}

void Vcpu::set_reg(int uc_reg, uint64_t v) {
  check(uc_reg_write(uc_, uc_reg, &v), "uc_reg_write");
}
uint64_t Vcpu::x(int n) const {
  return reg(xreg_id(n));
}
void Vcpu::set_x(int n, uint64_t v) {
  set_reg(xreg_id(n), v);
}

bool Vcpu::on_tlb_fill(uc_engine* uc, uint64_t addr, uc_mem_type type, uc_tlb_entry* e, void* opaque) {
  const HelperReturnSuspended own_code;  // a fault in a64run's code below is no guest access
  auto* self = static_cast<Vcpu*>(opaque);
  const int need = type == UC_MEM_WRITE ? PROT_WRITE : type == UC_MEM_FETCH ? PROT_EXEC : PROT_READ;
  bool past_eof = false;
  int prot = self->as_.page_prot(addr, &past_eof, type == UC_MEM_FETCH);
  bool watched = false;
  if (!self->watch_pages_.empty() && prot > 0 && !self->watch_bypass_) {  // the debugger's (vcpu_debug.cpp)
    const int deny = self->watch_deny(addr);
    watched = (prot & need & deny) != 0;
    prot &= ~deny;
  }
  if (prot < 0 || !(prot & need) || past_eof) {
    // Unicorn also probes pages it will not access (the `until` address when a stop is requested), so a
    // refusal is only recorded here; run() decides from uc_emu_start's result whether it was a fault.
    self->fault_.kind = StopKind::kFault;
    self->fault_.fault_addr = addr;
    self->fault_.access = need;
    // Past the end of the file is SIGBUS for an access the protection allows; any other is SIGSEGV.
    self->fault_.past_eof = prot >= 0 && (prot & need) && past_eof;
    self->fault_.mapped = prot >= 0 && !self->fault_.past_eof;
    self->fault_.watched = watched;
    return false;
  }
  e->paddr = addr;
  e->perms = static_cast<uc_prot>(prot & UC_PROT_ALL);
  if (++self->fills_ * 4 >= self->tlb_size_estimate_ * 3 && self->tlb_size_estimate_ < kTlbMaxEntries)
    self->grow_tlb(uc);
  return true;
}

void Vcpu::on_block(uc_engine* uc, uint64_t, uint32_t, void* opaque) {
  auto* self = static_cast<Vcpu*>(opaque);
  if (self->requests_.load(std::memory_order_relaxed) != 0) {
    if (self->stop_.kind == StopKind::kNone) self->stop_.kind = StopKind::kRequest;
    uc_emu_stop(uc);
  }
}

void Vcpu::grow_tlb(uc_engine* uc) {
  // QEMU resizes its softmmu TLB only on a flush (doubling it when more than 70% of it was used since the
  // last one), and Unicorn never flushes by itself. So flush when fills of 3/4 of the TLB's size within a
  // short window show it is too small for the working set, and stop once they come slower than that: a
  // program striding over megabytes grows the TLB in a few flushes, one that fits never pays for a flush.
  // (DESIGN.md section 1 flushed on a 20 ms clock instead; each of those flushes emptied a grown TLB.)
  if (has_request(kRequestFlush)) return;
  const uint64_t now = signals::now_ns();
  if (now - window_start_ns_ > std::max(kTlbGrowWindowNs, tlb_size_estimate_ * kTlbGrowNsPerEntry)) {
    window_start_ns_ = now;
    fills_ = 0;
    return;
  }
  tlb_size_estimate_ *= 2;
  requests_.fetch_or(kRequestFlush);
  if (!kicks_) return;  // the block hook stops at the next block; a stop from here would replay (above)
  if (stop_.kind == StopKind::kNone) stop_.kind = StopKind::kRequest;
  uc_emu_stop(uc);
}

void Vcpu::request(uint32_t bits) {
  requests_.fetch_or(bits, std::memory_order_seq_cst);
  kick(bits);
}

// A kick is uc_emu_stop from another thread: cpu_exit makes the vCPU leave at the start of its next
// translated block, where the PC is exact. (DESIGN.md section 3 stopped from a UC_HOOK_BLOCK hook instead;
// that hook cost up to 25% of run time, docs/vcpu.md.) Unicorn drops a stop that lands while uc_emu_start
// is starting up (it clears stop_request and the CPU's exit_request before running the first block), so the
// kicker repeats it until the vCPU has taken the request or left translated code. in_code_ and requests_
// are each stored then the other loaded, on both sides, sequentially consistent: one side sees the other.
// Once the engine runs, the stop's exit_request stays set until the vCPU leaves it, and every block start
// tests it (emu/block_exit.cpp; the invariant and why it holds: docs/vcpu.md, "Stopping a running vCPU").
//
// For a vCPU of another host process (a CLONE_VM relative's: they share the run lock) the repeating ends
// after kKickPatience: one that neither leaves nor takes the request for that long is not running at all
// (its process stopped, or killed in guest code). The request stays set, and whoever needs it asks again.
void Vcpu::kick(uint32_t bits) {
  if (!kicks_) return;  // the block hook sees the request
  constexpr uint64_t kKickPatienceNs = 20'000'000;
  uint64_t give_up = 0;  // 0: not decided; UINT64_MAX: a vCPU of this process, kicked until it answers
  for (int round = 0; in_code_.load(std::memory_order_seq_cst); ++round) {
    uc_emu_stop(uc_);
    // Once the engine runs, this stop stays set until the vCPU leaves at a block boundary, even while its
    // host thread waits for a CPU: no need to watch it go. (Repeating it until then made tgkill hold the
    // run lock for milliseconds while the target waited for the host scheduler.) Before that, the engine's
    // start may clear the stop, but then engine_starting sees the request.
    if (engine_started_.load(std::memory_order_seq_cst)) return;
    for (int spin = 0; spin < 256; ++spin) {
      if (!in_code_.load(std::memory_order_acquire) || !(requests_.load(std::memory_order_acquire) & bits))
        return;
      __builtin_ia32_pause();
    }
    if (round < 4) continue;
    sched_yield();  // the vCPU's host thread may be waiting for this core
    const uint64_t now = signals::now_ns();
    if (give_up == 0)
      give_up = host_pid() == static_cast<int>(::getpid()) ? UINT64_MAX : now + kKickPatienceNs;
    if (now > give_up) return;
  }
}

int Vcpu::host_pid() const {
  if (task() == nullptr) return 0;
  const Process* p = proc_.load(std::memory_order_acquire);
  return p == nullptr ? 0 : p->host_pid();
}

void Vcpu::set_task(Task* t) {
  if (t != nullptr) proc_.store(&t->proc(), std::memory_order_release);
  task_.store(t, std::memory_order_release);
  run_evicted_.store(false, std::memory_order_relaxed);
  death_.store(kDeathNone, std::memory_order_relaxed);
}

void Vcpu::park_for_death() {
  // Sequentially consistent: the ender reads it, then ends the host process; nothing of this thread runs
  // from here on but the wait.
  death_.store(kDeathParked, std::memory_order_seq_cst);
  while (true) ::pause();
}

void Vcpu::set_idle(const Process* pool) {
  task_.store(nullptr, std::memory_order_release);
  proc_.store(pool, std::memory_order_release);
  run_evicted_.store(false, std::memory_order_relaxed);
  death_.store(kDeathNone, std::memory_order_relaxed);
}

namespace {

// A system call that made a host call: a host signal on its way is queued before the call returns, with the
// run lock released while the intake thread works (signals/host_signals.h).
void settle_host_signals(RunLock& lock, Vcpu* self) {
  if (!signals::host_signals_in_flight()) return;
  if (lock.held_by(self)) {
    RunLockReleaser unlocked(lock, self);
    signals::sync_host_signals();
  } else {
    signals::sync_host_signals();
  }
  self->take_host_call_mark();  // the releaser's own mark
}

}  // namespace

void Vcpu::on_interrupt(uc_engine* uc, uint32_t intno, void* opaque) {
  auto* self = static_cast<Vcpu*>(opaque);
  self->leave_code_tail();  // out of translated code: the exception left it
  switch (intno) {
    case kExcpSwi: {
      settle_lazy_flags(uc);  // while no other thread may read this one's registers (in_code_ still set)
      Task& t = *self->task();
      const uint64_t pc = self->pc();
      self->in_code_.store(false, std::memory_order_release);  // requests are checked on the way out
      {
        // System calls and the signals they make deliverable run one at a time, under the run lock, while
        // guest code runs in parallel; taken with priority, as a thread in a system call is usually about
        // to wake or answer another. (Without parallel atomics the thread already holds it: Task::run.)
        // The first thread starts that way too, until its first translation has shown that parallel atomics
        // work: it gives the lock up at its first system call after that.
        RunLock& lock = t.proc().run_lock();
        if (!lock.held_by(self)) lock.acquire(self, true);
        syscalls::dispatch(t);
        // A host signal sent before what the call saw (data another process wrote after its kill) is the
        // guest's before the call returns (signals/host_signals.h).
        if (self->take_host_call_mark()) settle_host_signals(lock, self);
        // Syscall exit is a safe point: signals that became deliverable (or ended a wait) are handled here.
        // (A wait may have returned without the lock: RunLockReleaser::kLeaveReleased.)
        if (t.interrupted() || t.restart.code != 0) {
          if (!lock.held_by(self)) lock.acquire(self, true);
          signals::handle_signals(t, true);
        }
        if (parallel_guest_code() && lock.held_by(self)) lock.release(self);
      }
      t_running = self;  // a vfork child ran on this thread's TLS meanwhile and set its own
      self->enter_code();
      // A new PC (sigreturn, a handler, a restart) or a request: leave uc_emu_start and resume from run().
      if (self->stop_.kind == StopKind::kNone &&
          (self->pc() != pc || self->requests_.load(std::memory_order_seq_cst)))
        self->stop_.kind = StopKind::kRequest;
      if (self->stop_.kind != StopKind::kNone) uc_emu_stop(uc);
      return;
    }
    case kExcpUdef:
      self->stop_.kind = StopKind::kUndefined;
      break;
    case kExcpBkpt:
      self->stop_.kind = StopKind::kBreakpoint;
      break;
    default:
      self->stop_.kind = StopKind::kOtherException;
      break;
  }
  self->stop_.intno = intno;
  uc_emu_stop(uc);
}

// SYS instructions: `ic ivau` / `ic iallu(is)` announce new code. Stores into code by another vCPU or
// through another mapping are invisible to this vCPU's JIT, so every vCPU drops its translations, unless
// the line of an `ic ivau` lies in a page no engine has translated (emu/code_pages.cpp): a JIT's new code.
uint32_t Vcpu::on_sys(uc_engine* uc, uc_arm64_reg, const uc_arm64_cp_reg* cp, void* opaque) {
  // The vCPU this thread runs: a shared block carries the hook of the engine that translated it, whose
  // user data is that engine's vCPU (tb_share.cpp, invariant 4).
  Vcpu* self = t_running != nullptr && t_running->uc_ == uc ? t_running : static_cast<Vcpu*>(opaque);
  const bool ivau = cp->crn == 7 && cp->crm == 5 && cp->op1 == 3 && cp->op2 == 1;
  const bool ic = cp->crn == 7 && (cp->crm == 5 || cp->crm == 1) &&
                  ((cp->op1 == 3 && cp->op2 == 1) || (cp->op1 == 0 && cp->op2 == 0));
  if (!ic) return 0;
  if (ivau && !self->as_.code_pages().may_hold(untagged_addr(cp->val))) return 0;
  self->invalidate_code_from_code(true);
  return 0;
}

void Vcpu::invalidate_code_from_code(bool in_block) {
  // From a hook inside a block, this thread returns to the rest of that block (and to the block start its
  // chained jump leads to, whose exit test then stops it). Those may be another thread's translations
  // (emu/tb_share.cpp): until this thread has left them (leave_code_tail), no other vCPU flushes its
  // buffer (enter_code). Counted while this vCPU is still in code: any move of the code generation from
  // now on (this one, or another thread's that this one waits for at the gate) first waits for this
  // vCPU to leave code, so a vCPU that flushes after such a move sees the count.
  if (in_block && !tail_running_) {
    tail_running_ = true;
    as_.code_tail_runners().fetch_add(1, std::memory_order_seq_cst);
  }
  // Every other vCPU leaves guest code before its translations are declared stale (CodeGate): once this
  // thread goes on, none runs an old translation.
  in_code_.store(false, std::memory_order_seq_cst);
  {
    CodeGate::Closed closed(as_.gate());
    as_.invalidate_code();
    as_.code_pages().flushed();
  }
  if (stop_.kind == StopKind::kNone) stop_.kind = StopKind::kRequest;
  uc_emu_stop(uc_);
}

void Vcpu::leave_code_tail() {
  if (!tail_running_) return;
  tail_running_ = false;
  as_.code_tail_runners().fetch_sub(1, std::memory_order_seq_cst);
}

void Vcpu::stop(StopKind kind) {
  stop_.kind = kind;
  uc_emu_stop(uc_);
}

void Vcpu::sync_memory() {
  synced_generation_ = as_.generation();
  flush_tlb();
  // Unmapped or replaced code must not run from stale translations; host writes are never seen by the JIT.
  const uint64_t code_gen = as_.code_generation();
  if (code_gen != synced_code_generation_) {
    synced_code_generation_ = code_gen;
    check(uc_ctl_flush_tb(uc_), "uc_ctl_flush_tb");
  }
}

bool Vcpu::running_sharing(const void* uc, Sharing* s) {
  Vcpu* self = t_running;
  if (self == nullptr || self->uc_ != uc || self->share_slot_ < 0 || gdb::enabled() ||
      !self->as_.tb_share().on())
    return false;
  s->share = &self->as_.tb_share();
  s->slot = self->share_slot_;
  s->code_gen = self->synced_code_generation_;
  return true;
}

void Vcpu::share_buffer_full(const void* ctx) {
  Vcpu* self = t_running;
  if (self == nullptr || self->share_slot_ < 0 || engine_tcg_context(self->uc_) != ctx || gdb::enabled())
    return;
  self->invalidate_code_from_code(false);  // as for `ic ivau`; tb_gen_code flushes before it runs a block
}

bool Vcpu::in_translated_code(uintptr_t pc) const {
  return in_code_buffer(uc_, pc) || (share_slot_ >= 0 && as_.tb_share().slot_of(pc) >= 0);
}

void Vcpu::note_translation(const void* uc, uint64_t pc) {
  Vcpu* self = t_running;
  if (self == nullptr || self->uc_ != uc) {
    CodePages::lose_track();  // an engine this thread does not run: its pages are unknown
    return;
  }
  self->as_.code_pages().note_translation(pc);
}

const void* Vcpu::running_engine() {
  return t_running == nullptr ? nullptr : t_running->uc_;
}

bool Vcpu::running_stops_by_kick(const void* uc) {
  return t_running != nullptr && t_running->uc_ == uc && t_running->kicks_;
}

bool Vcpu::running_direct_window(const void* tcg_ctx, DirectWindow* w) {
  return running_direct_atomics(w) && engine_tcg_context(t_running->uc_) == tcg_ctx;
}

bool Vcpu::running_direct_atomics(DirectWindow* w) {
  const Vcpu* self = t_running;
  if (self == nullptr || !self->direct_) return false;
  w->base = self->as_.base();
  w->size = self->as_.size();
  return true;
}

void Vcpu::set_direct_memory(bool on) {
  on = on && direct_ok_;
  if (on == direct_) return;
  direct_ = on;
  check(uc_ctl_flush_tb(uc_), "uc_ctl_flush_tb");
}

// Runs in the signal handler, on the faulting thread: nothing here takes a lock or allocates. A fault is the
// guest's when the thread runs a vCPU whose engine's layout checked out (its translations touch only the CPU
// state, their stack frame and the window, straight or through softmmu TLB entries that point into it), the
// PC lies in that engine's code buffer (or in a load, store or atomic helper that translated code called,
// which marks the thread with its return address into that code: emu/helper_faults.cpp) and the address in
// the window or the guard page after it (case (b) of emu/host_fault.cpp's invariant). The fill hook refuses
// what the guest may not touch, so a host fault through a TLB entry comes from a page that changed under it
// (a file that shrank since the fill), and ends as the fault it would have been.
__attribute__((no_sanitize("thread", "address"))) void Vcpu::take_host_fault(int sig, const siginfo_t& si,
                                                                             const ucontext_t& ctx) {
  Vcpu* self = t_running;
  if (self == nullptr || !self->host_faults_ok_) return;
  const auto host = reinterpret_cast<uintptr_t>(si.si_addr);
  const auto base = reinterpret_cast<uintptr_t>(self->as_.base());
  if (host < base || host - base >= self->as_.size() + AddressSpace::kGuardSize) return;
  const auto pc = static_cast<uintptr_t>(ctx.uc_mcontext.gregs[REG_RIP]);
  const bool in_code = self->in_translated_code(pc);
  const uintptr_t helper_ra = in_code ? 0 : helper_return();
  if (!in_code && (helper_ra == 0 || !self->in_translated_code(helper_ra))) return;
  constexpr greg_t kPfWrite = 2;  // x86 page-fault error code: the access was a write
  self->fault_ = StopInfo{};
  self->fault_.kind = StopKind::kFault;
  self->fault_.fault_addr = host - base;
  // Inside an atomic helper the access is a write, whichever host access faulted (helper_atomic).
  self->fault_.access =
      ((ctx.uc_mcontext.gregs[REG_ERR] & kPfWrite) || (!in_code && helper_atomic())) ? PROT_WRITE : PROT_READ;
  self->fault_.host_signal = sig;
  if (in_code) leave_faulting_code(self->uc_, pc, &ctx.uc_sigmask);
  leave_faulting_helper(self->uc_, helper_ra, &ctx.uc_sigmask);
}

__attribute__((no_sanitize("thread", "address"))) bool Vcpu::running_window_address(uintptr_t host,
                                                                                    uint64_t* guest) {
  const Vcpu* self = t_running;
  if (self == nullptr) return false;
  const auto base = reinterpret_cast<uintptr_t>(self->as_.base());
  if (host < base || host - base >= self->as_.size()) return false;
  *guest = host - base;
  return true;
}

// The address the guest gets for a host fault, and its kind. In the window the host's address is exact
// (an access straddling into a refused page faults at that page's start, as on Linux); past the window's
// end the access was clamped to the guard page, and the address the instruction formed is decoded from it
// (Linux reports it without its tag byte). The permission is looked up now: if the address space allows the
// access by now (another thread mapped the page, a MAP_GROWSDOWN stack grew here), it runs again.
bool Vcpu::classify_host_fault() {
  StopInfo& f = fault_;
  f.exact = true;
  if (f.fault_addr >= as_.size()) {
    constexpr uint64_t kMaxAccess = 16;
    const uint64_t formed = exact_fault_address(*this, pc(), 0);
    const uint64_t untagged = untagged_addr(formed);
    const bool straddles = untagged < as_.size() && as_.size() - untagged <= kMaxAccess;
    f.fault_addr = straddles ? as_.size() : untagged;
    return true;
  }
  if (f.host_signal == SIGBUS) {  // a file page past the end of the file, now: Linux's SIGBUS too
    f.past_eof = true;
    return true;
  }
  bool past_eof = false;
  const int prot = as_.page_prot(f.fault_addr, &past_eof);
  const int allowed = host_prot(prot < 0 ? 0 : prot);
  if ((allowed & f.access) && !past_eof) {
    // A fault at a new address is progress (a MAP_GROWSDOWN stack grows a page per fault, for as long as
    // the recursion goes); the same address refused again and again is a64run's bug.
    if (f.fault_addr != retry_addr_) {
      retry_addr_ = f.fault_addr;
      host_retries_ = 0;
    }
    if (++host_retries_ > kMaxHostRetries) {
      fmt::print(stderr, "a64run: internal error: the host refuses a {} of {:#x} that the guest may make\n",
                 f.access == PROT_WRITE ? "write" : "read", f.fault_addr);
      abort();
    }
    return false;
  }
  host_retries_ = 0;
  f.past_eof = (allowed & f.access) && past_eof;
  f.mapped = prot >= 0 && !f.past_eof;
  return true;
}

void Vcpu::engine_starting(const void* uc) {
  Vcpu* self = t_running;
  if (self == nullptr || self->uc_ != uc) return;
  // A kicker that reads engine_started_ false keeps kicking; one that reads it true stopped the engine
  // after this store (so after the start cleared earlier stops), or set its request before the load below.
  self->engine_started_.store(true, std::memory_order_seq_cst);
  if (self->requests_.load(std::memory_order_seq_cst) != 0) uc_emu_stop(self->uc_);
}

void Vcpu::enter_code() {
  while (true) {
    in_code_.store(true, std::memory_order_seq_cst);
    if (as_.gate().open()) {
      // A flush of this engine's buffer waits for the vCPUs still in the tail of a block after their own
      // move of the code generation (invalidate_code_from_code): they may be running code in it. They
      // leave it within a block, and a move of theirs after this load waits for this vCPU (in code).
      if (as_.code_generation() == synced_code_generation_ ||
          as_.code_tail_runners().load(std::memory_order_seq_cst) == 0)
        break;
      in_code_.store(false, std::memory_order_seq_cst);
      while (as_.code_tail_runners().load(std::memory_order_seq_cst) != 0) sched_yield();
      continue;
    }
    in_code_.store(false, std::memory_order_seq_cst);
    as_.gate().wait_open();
  }
  if (as_.generation() != synced_generation_) sync_memory();
}

StopInfo Vcpu::run() {
  stop_ = StopInfo{};
  fault_ = StopInfo{};
  t_running = this;
  set_helper_return(0);
  engine_started_.store(false, std::memory_order_seq_cst);
  enter_code();
  if (requests_.load(std::memory_order_seq_cst) != 0) {
    in_code_.store(false, std::memory_order_release);
    stop_.kind = StopKind::kRequest;
    return finish_request_stop();
  }
  const uc_err err = uc_emu_start(uc_, pc(), kUntil, 0, 0);
  leave_code_tail();
  in_code_.store(false, std::memory_order_release);
  if (err == UC_ERR_OK && stop_.kind == StopKind::kNone) stop_.kind = StopKind::kRequest;  // a kick
  if (err != UC_ERR_OK && (stop_.kind == StopKind::kNone || stop_.kind == StopKind::kRequest)) {
    if (fault_.kind == StopKind::kFault) {
      if (fault_.host_signal != 0 && !classify_host_fault()) {
        stop_.kind = StopKind::kRequest;  // allowed now: the access runs again
        return finish_request_stop();
      }
      stop_ = fault_;
    } else {
      stop_.kind = StopKind::kFault;
      stop_.fault_addr = pc();
      stop_.access = PROT_EXEC;
    }
  }
  return finish_request_stop();
}

StopInfo Vcpu::finish_request_stop() {
  if (has_request(kRequestFlush)) {
    requests_.fetch_and(~kRequestFlush);
    flush_tlb();
  }
  return stop_;
}

// Empties the TLB (QEMU resizes it on the way) and starts counting fills afresh.
void Vcpu::flush_tlb() {
  check(uc_ctl_flush_tlb(uc_), "uc_ctl_flush_tlb");
  fills_ = 0;
  window_start_ns_ = signals::now_ns();
}

}  // namespace emu
