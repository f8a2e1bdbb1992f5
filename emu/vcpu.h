// Vcpu owns one Unicorn arm64 instance: its setup (CPU model, virtual TLB, hooks), register access, and the
// stop requests other threads use to reach it at its next safe point (DESIGN.md sections 1 and 3).
#pragma once

#include <unicorn/unicorn.h>

#include <signal.h>
#include <ucontext.h>

#include <atomic>
#include <cstdint>
#include <utility>
#include <vector>

#include "emu/address_space.h"
#include "emu/direct_memory.h"

namespace emu {

class Process;
class Task;

// Why uc_emu_start returned, as seen by the vCPU's own hooks.
enum class StopKind {
  kNone,
  kSyscallStop,
  kThreadExit,
  kRequest,
  kFault,
  kUndefined,
  kBreakpoint,
  kOtherException
};

struct StopInfo {
  StopKind kind = StopKind::kNone;
  uint64_t fault_addr = 0;  // for kFault: the refused address
  int access = 0;           // for kFault: PROT_READ, PROT_WRITE or PROT_EXEC
  bool mapped = false;      // for kFault: the page exists but lacks the permission (SEGV_ACCERR)
  bool past_eof = false;    // for kFault: a file mapping's page past the end of the file (SIGBUS)
  bool exact = false;       // for kFault: fault_addr is the accessed byte itself (a host fault), not a page
  int host_signal = 0;      // for kFault: SIGSEGV or SIGBUS when a direct access faulted in the host
  uint32_t intno = 0;       // for exceptions
  bool watched = false;     // for kFault: refused because the debugger watches the page (gdb/watch.cpp)
};

class Vcpu {
 public:
  enum Request : uint32_t {
    kRequestYield = 1u << 0,   // the run lock wants the vCPU back
    kRequestExit = 1u << 1,    // exit_group or execve: leave guest code now
    kRequestSignal = 1u << 2,  // a signal may be deliverable
    kRequestFlush = 1u << 3,   // grow the TLB (section 1) or resync mappings
    kRequestSync = 1u << 4,    // the code gate is closing (CodeGate): leave guest code
    kRequestDebug = 1u << 5,   // the debugger stops every thread (gdb/debugger.h): leave guest code
  };
  static constexpr uint64_t kUntil = 0xfffffffffffffffcull;  // never reached; 0 would hide a jump to NULL

  Vcpu(AddressSpace& as, Task* task);
  ~Vcpu();
  Vcpu(const Vcpu&) = delete;
  Vcpu& operator=(const Vcpu&) = delete;

  uc_engine* uc() const { return uc_; }
  // True when other threads stop this vCPU by a kick (docs/vcpu.md), false when the block hook polls.
  bool stops_by_kick() const { return kicks_; }
  // Atomic: other threads read it to find a vCPU's process (kicks, the run lock) while the pool hands the
  // vCPU on.
  Task* task() const { return task_.load(std::memory_order_acquire); }
  // The host process that runs this vCPU (0 when idle). Other threads ask it of vCPUs whose thread may be
  // exiting (CodeGate::close, kicks, the run lock): it reads the process, never the task.
  int host_pid() const;
  const Process* process() const { return proc_.load(std::memory_order_acquire); }
  // A task of `t`'s process runs the vCPU from now on.
  void set_task(Task* t);
  // The vCPU goes idle into `pool`'s pool of vCPUs (Process::recycle_vcpu).
  void set_idle(const Process* pool);

  // Any thread: ask the vCPU to stop at its next translated block (a kick: see kick()).
  void request(uint32_t bits);
  uint32_t take_requests() { return requests_.exchange(0, std::memory_order_acq_rel); }
  // The run lock's hand-off word for this vCPU's thread: the releasing thread sets it and futex-wakes just
  // this thread (RunLock).
  std::atomic<uint32_t>& run_grant() { return run_grant_; }
  // Set by RunLock::evict when this vCPU's process dies; a recycled vCPU starts anew.
  std::atomic<bool>& run_evicted() { return run_evicted_; }
  // The end of a process that shares its memory (Process::stop_threads_for_death): the ender asks
  // (kDeathRequested) and the vCPU's thread answers at its next safe point, a place where it holds no lock
  // of the shared memory (the top of Task::run's loop, a wait for the run lock): it stores kDeathParked and
  // waits there for the host to end it. A recycled vCPU starts anew.
  enum DeathState : uint8_t { kDeathNone, kDeathRequested, kDeathParked };
  std::atomic<uint8_t>& death() { return death_; }
  bool death_requested() const { return death_.load(std::memory_order_acquire) == kDeathRequested; }
  // At a safe point: parks for good if the process is ending, else returns at once.
  void park_if_dying() {
    if (death_requested()) park_for_death();
  }
  // Answers kDeathParked and waits for the host to end this thread.
  [[noreturn]] void park_for_death();
  bool has_request(uint32_t bits) const { return requests_.load(std::memory_order_acquire) & bits; }
  // True while the vCPU executes translated code (CodeGate waits for it to be false).
  bool in_code() const { return in_code_.load(std::memory_order_seq_cst); }

  AddressSpace& as() const { return as_; }
  uint64_t x(int n) const;  // x0..x30
  void set_x(int n, uint64_t v);
  uint64_t reg(int uc_reg) const;
  void set_reg(int uc_reg, uint64_t v);
  uint64_t pc() const { return reg(UC_ARM64_REG_PC); }
  void set_pc(uint64_t v) { set_reg(UC_ARM64_REG_PC, v); }
  uint64_t sp() const { return reg(UC_ARM64_REG_SP); }
  void set_sp(uint64_t v) { set_reg(UC_ARM64_REG_SP, v); }

  // Runs guest code from the current PC until a hook stops it, in parallel with the other vCPUs. The caller
  // does not hold the run lock; system calls take it inside (on_interrupt).
  StopInfo run();
  // Called from inside a hook: leave uc_emu_start after the current instruction with the given reason.
  void stop(StopKind kind);
  // Applies address-space changes (TLB flush, code invalidation) made since this vCPU last ran.
  void sync_memory();
  // Unicorn is about to run guest code for the vCPU this thread runs, if `uc` is its engine: from the
  // wrapper of cpu_exec (emu/parallel_atomics.cpp), after uc_emu_start has cleared earlier stops.
  static void engine_starting(const void* uc);
  // The engine of the vCPU the calling thread runs (the translator's wrapper checks the engine it is given
  // against it), or nullptr.
  static const void* running_engine();
  // The translator of `uc` is about to read the block at `pc` (emu/code_pages.cpp).
  static void note_translation(const void* uc, uint64_t pc);
  // True if `uc` is the engine of the vCPU this thread runs and that vCPU stops by kick.
  static bool running_stops_by_kick(const void* uc);
  // Block sharing (emu/tb_share.cpp), for the translator's wrappers: when `uc` is the engine of the vCPU this
  // thread runs and that vCPU is a member of its address space's TbShare, fills `s` (the table, the
  // member's slot, the code generation its translations belong to) and returns true.
  struct Sharing {
    TbShare* share = nullptr;
    int slot = -1;
    uint64_t code_gen = 0;
  };
  static bool running_sharing(const void* uc, Sharing* s);
  // The code buffer of `ctx`, the running vCPU's engine, is full and tb_gen_code is about to flush it: if
  // the vCPU is a member, every vCPU of the address space leaves guest code and the code generation moves
  // (tb_share.cpp, invariant 1), and this vCPU leaves uc_emu_start.
  static void share_buffer_full(const void* ctx);
  // The member slot of this vCPU's engine, or -1.
  int share_slot() const { return share_slot_; }
  // True if `pc` lies in translated code this vCPU may run: its engine's buffer or a member's.
  bool in_translated_code(uintptr_t pc) const;

  // Direct guest memory access (emu/direct_memory.cpp): this vCPU's translations load and store at the
  // window's base + address, not through the softmmu TLB and its fill hook. On when the engine's layout
  // checked out and A64RUN_SOFTMMU is not set. Turning it off (a debugger that watches pages through the
  // fill hook must) drops the vCPU's translations; call it from the vCPU's thread, or while it is out of
  // guest code.
  bool direct_memory() const { return direct_; }
  void set_direct_memory(bool on);
  // The engine's translation buffer lies within 2 GiB of a64run's code (emu/code_placement.cpp): its
  // translations call helpers directly.
  bool near_code() const { return near_code_; }
  // For the translator's wrappers: the window the translation on this thread may access directly, when the
  // thread runs a vCPU with direct access whose engine's TCG context is `tcg_ctx` (*w is set either way when
  // the vCPU has direct access).
  static bool running_direct_window(const void* tcg_ctx, DirectWindow* w);
  // The window of the vCPU this thread runs, when its accesses go straight to it (not under
  // A64RUN_SOFTMMU=1, nor while a page is watched): for the atomic helpers' direct path
  // (emu/helper_faults.cpp).
  static bool running_direct_atomics(DirectWindow* w);
  // From the host's SIGSEGV/SIGBUS handler (emu/host_fault.cpp): when the fault is a guest access in this
  // thread's translated code (its PC in the engine's code buffer, its address in the window or the guard
  // after it), records the guest fault and leaves the translated code (uc_emu_start returns the error, and
  // run() makes the stop). Returns only when the fault is not the guest's.
  static void take_host_fault(int sig, const siginfo_t& si, const ucontext_t& ctx);
  // For the same handler's report of a fault it does not take: true when host address `host` lies in the
  // window of the vCPU this thread runs; *guest is its guest address.
  static bool running_window_address(uintptr_t host, uint64_t* guest);

  // Debugger controls (emu/vcpu_debug.cpp), used by gdb/ from the thread that runs this vCPU, outside
  // uc_emu_start. Breakpoints are Unicorn exits: the vCPU stops before the instruction at each address.
  void set_breakpoints(std::vector<uint64_t> addrs);
  bool has_breakpoints() const { return !breakpoints_.empty(); }
  bool breakpoint_at(uint64_t addr) const;
  // The architecture's software step (MDSCR_EL1.SS, PSTATE.SS): run() executes one instruction and then
  // stops as kUndefined with the PC past it (a system call completes first).
  void set_single_step(bool on);
  bool single_stepping() const { return single_step_; }
  // Watched pages: the TLB fill hook takes `deny` (PROT_READ, PROT_WRITE) away from each, so an access
  // there stops as a kFault with `watched` set. `bypass` lets every access through (stepping over one
  // access that misses the watched bytes). Changing either flushes the TLB.
  void set_watched_pages(std::vector<std::pair<uint64_t, int>> pages);
  void set_watch_bypass(bool on);
  bool watch_bypass() const { return watch_bypass_; }
  // Which debugger state (gdb::Debugger's generation) this vCPU has applied.
  uint64_t debug_generation = 0;

  // Set when a system call of this vCPU's thread made a host call that may sleep (RunLockReleaser) or read
  // what another process made; taken on the way back to guest code (host_signals_in_flight). Only the
  // vCPU's own thread touches it.
  void mark_host_call() { host_call_mark_ = true; }
  bool take_host_call_mark() {
    const bool v = host_call_mark_;
    host_call_mark_ = false;
    return v;
  }

 private:
  bool host_call_mark_ = false;
  static void on_block(uc_engine* uc, uint64_t addr, uint32_t size, void* self);
  static bool on_tlb_fill(uc_engine* uc, uint64_t addr, uc_mem_type type, uc_tlb_entry* e, void* self);
  static void on_interrupt(uc_engine* uc, uint32_t intno, void* self);
  static uint32_t on_sys(uc_engine* uc, uc_arm64_reg reg, const uc_arm64_cp_reg* cp, void* self);
  void check(uc_err err, const char* what) const;
  void grow_tlb(uc_engine* uc);
  void kick(uint32_t bits);
  StopInfo finish_request_stop();
  // Marks the vCPU in code once the code gate lets it in, then applies address-space changes made while it
  // was out. From run() and from the syscall hook on the way back to guest code.
  void enter_code();
  void flush_tlb();
  // fault_ came from the host: decides what the guest gets (false: the access is allowed now, run again).
  bool classify_host_fault();
  // From a hook inside uc_emu_start (on_sys, share_buffer_full): this vCPU leaves guest code, every other
  // one is stopped while the code generation moves, and this one leaves uc_emu_start to resync. in_block:
  // called from inside a translated block, to which the hook returns (counted in code_tail_runners).
  void invalidate_code_from_code(bool in_block);
  // The end of that block's tail: uc_emu_start returned, or an exception left translated code.
  void leave_code_tail();

  AddressSpace& as_;
  std::atomic<Task*> task_;
  // The process whose thread runs this vCPU, or whose idle pool holds it. Lifetime: a process frees its
  // pool (and so these vCPUs) before anything else of it, and a vCPU handed to another process's pool
  // names that process from then on (set_idle), so proc_ never names a freed process. (It named the
  // process of its last task: a vfork child's vCPU back in its parent's pool named the deleted child.)
  std::atomic<const Process*> proc_{nullptr};
  uc_engine* uc_ = nullptr;
  std::atomic<uint32_t> requests_{0};
  std::atomic<uint32_t> run_grant_{0};
  std::atomic<bool> run_evicted_{false};
  std::atomic<uint8_t> death_{kDeathNone};
  // True while this vCPU executes translated code and notices requests only through a kick: inside
  // uc_emu_start, outside the syscall hook.
  std::atomic<bool> in_code_{false};
  bool tail_running_ = false;  // this thread's: counted in the address space's code_tail_runners
  // True once the engine runs (engine_starting) in this uc_emu_start: a kick from then on cannot be lost.
  std::atomic<bool> engine_started_{false};
  bool kicks_ = false;           // stops by kick (exact on this Unicorn build), else by the block hook
  bool host_faults_ok_ = false;  // the engine's layout lets a host fault in its code become the guest's
  bool direct_ok_ = false;       // ... and direct access is wanted (prepare_direct_memory)
  bool direct_ = false;          // translations access the window directly
  bool near_code_ = false;       // the translation buffer is within a rel32 call of every helper
  int share_slot_ = -1;          // the engine's slot in as_.tb_share(), -1 when not a member
  uint32_t host_retries_ = 0;    // host faults in a row at retry_addr_ that the address space then allowed
  uint64_t retry_addr_ = 0;      // the guest address of the last such fault
  StopInfo stop_;
  StopInfo fault_;  // the last refused TLB fill; the stop reason only when uc_emu_start reports an error
  uint64_t synced_generation_ = 0;
  uint64_t synced_code_generation_ = 0;
  uint64_t fills_ = 0;              // successful TLB fills since the last flush or rate window start
  uint64_t window_start_ns_ = 0;    // when fills_ started counting
  uint64_t tlb_size_estimate_ = 0;  // what QEMU's dynamic TLB has grown to, as far as we can tell
  // Debugger state (emu/vcpu_debug.cpp); touched only by the thread that runs this vCPU.
  std::vector<uint64_t> breakpoints_;                  // sorted
  std::vector<std::pair<uint64_t, int>> watch_pages_;  // (page, permissions denied)
  bool watch_bypass_ = false;
  bool single_step_ = false;
  uint64_t saved_pstate_ = 0;
  int watch_deny(uint64_t page) const;
};

}  // namespace emu
