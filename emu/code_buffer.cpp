// This file keeps Unicorn 2.1.1's translation buffer from being wiped without a flush.
//
// QEMU's rule for its code buffer: translations are dropped only by tb_flush, which empties the hash
// table, the vCPUs' jump caches and the pages' lists of blocks together with the buffer, and runs only where
// no vCPU holds a block pointer across it: as safe work with every vCPU out of its execution loop, or from
// the translator itself when the buffer is full (tb_gen_code: tb_flush, then cpu_loop_exit, which abandons
// cpu_exec's `last_tb`, the block the next one is about to be chained to).
//
// Unicorn 2.1.1 breaks that rule once per engine. The buffer is one TCG region, and the region allocator
// hands region 0 out when `region.current < region.n`. QEMU takes region 0 at init (tcg_region_init in user
// mode, tcg_register_thread in system mode); Unicorn dropped both calls, so a new engine starts with
// region.current 0. When its buffer fills for the first time, tcg_tb_alloc asks for the next region and gets
// region 0 again: tcg_region_assign memsets the whole buffer and the translator goes on writing at its start,
// with no tb_flush. The hash table, the jump cache and the pages' block lists still point at blocks that are
// now zeros (or new code), and cpu_exec chains its `last_tb`, a zeroed block, to the new one: tb_add_jump
// writes through the zeroed block's code pointer, a host SIGSEGV (CPython's test runner and any program
// that translated 32 MiB of code before its first code flush; tests/guest/mem/code_fill). Only the first
// fill: from the first tb_flush on (tcg_region_reset_all takes region 0 properly), a full buffer is flushed.
//
// The link wraps tcg_region_init_aarch64 (called from cpus.c, defined in tcg.c) to mark region 0 taken, as
// QEMU's initial allocation does, without its memset of a buffer that mmap has just zeroed: the first fill
// then finds no region left and takes tb_gen_code's flush path. The wrapper first checks the fields at the
// offsets of Debian's build (objdump of tcg_region_init_aarch64) against each other; an engine it does not
// recognise is flushed once by the caller instead (guard_code_buffer), which takes region 0 the public way.
#include "emu/code_buffer.h"

#include <atomic>
#include <cstddef>
#include <cstring>

#include "emu/unicorn_layout.h"

namespace emu {
namespace {

thread_local uint64_t t_guarded = 0;
std::atomic<bool> g_unrecognised{false};

}  // namespace

uint64_t code_buffers_guarded_here() {
  return t_guarded;
}

uc_err guard_code_buffer(uc_engine* uc, uint64_t guarded_before) {
  if (t_guarded != guarded_before) return UC_ERR_OK;
  return uc_ctl_flush_tb(uc);
}

bool code_buffer_wrapper_recognised_all() {
  return !g_unrecognised.load(std::memory_order_relaxed);
}

}  // namespace emu

#if A64RUN_WRAP_TRANSLATOR

namespace {

// TCGContext fields in Debian's build of Unicorn 2.1.1 (include/tcg/tcg.h; objdump of
// tcg_region_init_aarch64): the code buffer and its size, and struct tcg_region_state region.
constexpr size_t kCodeGenBuffer = emu::unicorn::kCtxCodeGenBuffer;
constexpr size_t kCodeGenBufferSize = emu::unicorn::kCtxCodeGenBufferSize;
constexpr size_t kRegionStart = 0xa8f8;
constexpr size_t kRegionStartAligned = 0xa900;
constexpr size_t kRegionEnd = 0xa908;
constexpr size_t kRegionN = 0xa910;
constexpr size_t kRegionSize = 0xa918;
constexpr size_t kRegionStride = 0xa920;
constexpr size_t kRegionCurrent = 0xa928;
constexpr size_t kRegionAggSizeFull = 0xa930;

template <typename T>
T field(const void* ctx, size_t offset) {
  T v;
  std::memcpy(&v, static_cast<const char*>(ctx) + offset, sizeof v);
  return v;
}

// What tcg_region_init leaves in a context it has just set up, as far as the fields can vouch for each other:
// one region covering the buffer (its start is the buffer's, its end inside it, a guard page between size
// and stride), none taken yet.
bool fresh_single_region(const void* ctx) {
  const auto buf = field<uintptr_t>(ctx, kCodeGenBuffer);
  const auto buf_size = field<size_t>(ctx, kCodeGenBufferSize);
  const auto start = field<uintptr_t>(ctx, kRegionStart);
  const auto start_aligned = field<uintptr_t>(ctx, kRegionStartAligned);
  const auto end = field<uintptr_t>(ctx, kRegionEnd);
  const auto size = field<size_t>(ctx, kRegionSize);
  const auto stride = field<size_t>(ctx, kRegionStride);
  const size_t guard = stride - size;
  return buf != 0 && start == buf && start_aligned >= start && end > start_aligned && end <= buf + buf_size &&
         field<size_t>(ctx, kRegionN) == 1 && field<size_t>(ctx, kRegionCurrent) == 0 &&
         field<size_t>(ctx, kRegionAggSizeFull) == 0 && stride > size && (guard & (guard - 1)) == 0 &&
         guard <= (size_t{64} << 10);
}

}  // namespace

extern "C" void __real_tcg_region_init_aarch64(void* ctx);

extern "C" void __wrap_tcg_region_init_aarch64(void* ctx) {
  __real_tcg_region_init_aarch64(ctx);
  if (!fresh_single_region(ctx)) {
    emu::g_unrecognised.store(true, std::memory_order_relaxed);
    return;
  }
  const size_t taken = 1;
  std::memcpy(static_cast<char*>(ctx) + kRegionCurrent, &taken, sizeof taken);
  ++emu::t_guarded;
}

#endif  // A64RUN_WRAP_TRANSLATOR
