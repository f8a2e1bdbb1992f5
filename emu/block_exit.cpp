// This file owns the block-start exit test: the test of the CPU's exit_request that replaces QEMU's own test
// at the start of every translated block, which makes a kick impossible to lose.
//
// The race it closes. A kick (Vcpu::kick) is uc_emu_stop from another thread; its cpu_exit stores
// exit_request = 1 and then icount_decr.u16.high = -1, and the test QEMU puts at every block start reads only
// icount_decr. Each time the vCPU's thread comes back to cpu_exec's loop (a block that ends without a chained
// jump, a helper's exit), cpu_handle_interrupt stores icount_decr.u16.high = 0 and then loads exit_request.
// Upstream QEMU has a full barrier between the two (atomic_mb_set); Unicorn 2.1.1 has a plain store, and on
// x86 a load may pass an earlier store (store buffering): the vCPU reads exit_request = 0 while its store of
// 0 is still buffered, the kick's two stores land, and then the buffered 0 overwrites the kick's -1. The vCPU
// enters its chained loop with exit_request = 1 and a clear counter flag, and never comes back to the loop
// that would look at exit_request: a thread spinning in guest code keeps its signal pending forever
// (tests/guest/signals/kick_storm, 1 lost kick in a few thousand).
//
// The invariant. exit_request is set by every kick and cleared only by the vCPU's own thread in three places:
// cpu_handle_interrupt when it has read it set (and then leaves cpu_exec), the end of tcg_cpu_exec (leaving
// uc_emu_start), and the start of resume_all_vcpus (before the cpu_exec wrapper looks at the requests,
// Vcpu::engine_starting). So a kick's exit_request stays set until the vCPU leaves the engine; a test of it
// at every block start, where the PC is exact, sees it within one block, whatever happened to the counter
// flag. A chained jump enters the next block at its start, so chained loops are covered too.
//
// Why QEMU's test can go. In Unicorn 2.1.1 the counter flag (icount_decr.u16.high) is set to -1 only by
// cpu_exit (hw/core/cpu.c), which stores exit_request = 1 first: cpu_interrupt only sets interrupt_request
// (tcg_handle_interrupt in accel/tcg/tcg-all.c), and the counter's low half stays 0 without icount
// (CF_USE_ICOUNT is never set). So QEMU's test is taken only when exit_request is or was set, and a set flag
// whose exit_request was cleared again is a request the vCPU has taken already (the three places above).
// One test of exit_request does the work of both.
//
// How. The translator emits QEMU's test in gen_tb_start (inlined into translator_loop, another object file
// of libunicorn.a than tcg_gen_brcondi_i32): `ld_i32 t, env, icount_decr; brcondi_i32 lt t, 0,
// exitreq_label`. The link wraps tcg_gen_brcondi_i32; the first call of a translation armed by
// arm_block_exit_test() is that one, and the wrapper emits `ld8u_i32 t, env, exit_request; brcondi_i32 ne t,
// 0, exitreq_label` in its place (the load of icount_decr, now unused, is dropped by TCG's liveness pass).
// exitreq_label leads to QEMU's own block exit (TB_EXIT_REQUESTED, the PC set back to the block's start).
// Cost: three host instructions per block (a byte load, a test, a branch not taken), as QEMU's own test.
// A64RUN_NO_BLOCK_EXIT_TEST=1 keeps QEMU's test alone (diagnostics: it shows the race).
#include "emu/block_exit.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "emu/unicorn_layout.h"

namespace emu {
namespace {

using unicorn::code_has;
using unicorn::kTcgTypeI32;
using unicorn::kUcCpu;

// Debian's build of Unicorn 2.1.1, read off translator_loop_aarch64 and cpu_exec_aarch64 (objdump), and
// checked against their machine code by block_exit_test_available().
constexpr size_t kCtxExitreqLabel = 0x100;  // TCGContext.exitreq_label
constexpr size_t kCtxCpuEnv = 0xa8f0;       // TCGContext.cpu_env (a TCGv_ptr: an offset from the context)
constexpr intptr_t kEnvFromCpu = 0xa350;    // ARMCPU.env; icount_decr (neg) sits just below it
constexpr intptr_t kExitRequestFromCpu = 0x15;
constexpr intptr_t kExitRequestFromEnv = kExitRequestFromCpu - kEnvFromCpu;
constexpr size_t kUcStopRequest = 0x555;  // uc_struct.stop_request (also in emu/vcpu.cpp)
constexpr int kOpLd8uI32 = 9;             // INDEX_op_ld8u_i32 (tcg-opc.h: ld_i32 is 13, checked below)
constexpr int kCondLt = 2;                // TCG_COND_LT
constexpr int kCondNe = 9;                // TCG_COND_NE

thread_local bool t_armed = false;

}  // namespace
}  // namespace emu

#if A64RUN_WRAP_TRANSLATOR

extern "C" {
void translator_loop_aarch64(const void* ops, void* db, void* cpu, void* tb, int max_insns);
int __real_cpu_exec_aarch64(void* uc, void* cpu);
void* tcg_temp_new_internal_aarch64(void* s, int type, bool local);
void tcg_temp_free_internal_aarch64(void* s, void* temp);
void tcg_gen_op3_aarch64(void* s, int opc, uintptr_t a1, uintptr_t a2, uintptr_t a3);
void __real_tcg_gen_brcondi_i32_aarch64(void* s, int cond, uintptr_t arg1, int32_t arg2, void* label);

void __wrap_tcg_gen_brcondi_i32_aarch64(void* s, int cond, uintptr_t arg1, int32_t arg2, void* label) {
  if (!emu::t_armed) {
    __real_tcg_gen_brcondi_i32_aarch64(s, cond, arg1, arg2, label);
    return;
  }
  emu::t_armed = false;
  auto* ctx = static_cast<char*>(s);
  if (cond != emu::kCondLt || arg2 != 0 || label == nullptr ||
      label != *reinterpret_cast<void**>(ctx + emu::kCtxExitreqLabel)) {
    std::fputs("a64run: internal error: a translation began without the block-start test\n", stderr);
    std::abort();
  }
  void* t = tcg_temp_new_internal_aarch64(s, emu::kTcgTypeI32, false);
  const uintptr_t env =
      reinterpret_cast<uintptr_t>(ctx) + *reinterpret_cast<uintptr_t*>(ctx + emu::kCtxCpuEnv);
  tcg_gen_op3_aarch64(s, emu::kOpLd8uI32, reinterpret_cast<uintptr_t>(t), env,
                      static_cast<uintptr_t>(emu::kExitRequestFromEnv));
  // A TCGv_i32 is the temp's offset from the context.
  __real_tcg_gen_brcondi_i32_aarch64(
      s, emu::kCondNe, reinterpret_cast<uintptr_t>(t) - reinterpret_cast<uintptr_t>(s), 0, label);
  tcg_temp_free_internal_aarch64(s, t);
}
}  // extern "C"

namespace emu {

bool block_exit_test_available() {
  static const bool available = [] {
    if (std::getenv("A64RUN_NO_BLOCK_EXIT_TEST") != nullptr) return false;  // diagnostics: show the race
    // gen_tb_start in translator_loop: mov %rax,0x100(%rbp) (exitreq_label); mov 0xa8f0(%rbp),%rcx (cpu_env);
    // mov $0xd,%esi (INDEX_op_ld_i32); mov $-0x10,%r8 (icount_decr from env); mov $0x2,%esi; mov
    // 0x100(%rbp),%r8 (brcondi LT to exitreq_label).
    static const unsigned char kLabel[] = {0x48, 0x89, 0x85, 0x00, 0x01, 0x00, 0x00};
    static const unsigned char kLoad[] = {0x48, 0x8b, 0x8d, 0xf0, 0xa8, 0x00,
                                          0x00, 0xbe, 0x0d, 0x00, 0x00, 0x00};
    static const unsigned char kIcount[] = {0x49, 0xc7, 0xc0, 0xf0, 0xff, 0xff, 0xff};
    static const unsigned char kBranch[] = {0xbe, 0x02, 0x00, 0x00, 0x00, 0x4c,
                                            0x8b, 0x85, 0x00, 0x01, 0x00, 0x00};
    // cpu_handle_interrupt in cpu_exec: mov %ax,0xa342(%r15) (icount_decr.u16.high, so env at 0xa350);
    // mov 0x1c(%r15),%eax; test; jne (interrupt_request); cmpb $0x0,0x15(%r15) (exit_request).
    static const unsigned char kClear[] = {0x66, 0x41, 0x89, 0x87, 0x42, 0xa3,
                                           0x00, 0x00, 0x41, 0x8b, 0x47, 0x1c};
    static const unsigned char kExitReq[] = {0x41, 0x80, 0x7f, 0x15, 0x00};
    const void* loop = reinterpret_cast<const void*>(&translator_loop_aarch64);
    const void* exec = reinterpret_cast<const void*>(&__real_cpu_exec_aarch64);
    return code_has(loop, 0x400, kLabel, sizeof kLabel) && code_has(loop, 0x400, kLoad, sizeof kLoad) &&
           code_has(loop, 0x400, kIcount, sizeof kIcount) && code_has(loop, 0x400, kBranch, sizeof kBranch) &&
           code_has(exec, 0x600, kClear, sizeof kClear) && code_has(exec, 0x600, kExitReq, sizeof kExitReq);
  }();
  return available;
}

void arm_block_exit_test() {
  t_armed = true;
}

void check_block_exit_test_done() {
  if (!t_armed) return;
  std::fputs("a64run: internal error: a translation made no block-start test\n", stderr);
  std::abort();
}

void set_exit_request_only(uc_engine* uc) {
  auto* bytes = reinterpret_cast<volatile uint8_t*>(uc);
  auto* cpu = *reinterpret_cast<volatile uint8_t* const*>(reinterpret_cast<char*>(uc) + kUcCpu);
  bytes[kUcStopRequest] = 1;
  cpu[kExitRequestFromCpu] = 1;
}

}  // namespace emu

#else

namespace emu {
bool block_exit_test_available() {
  return false;  // Unicorn linked as a shared library: the translator cannot be wrapped
}
void arm_block_exit_test() {}
void check_block_exit_test_done() {}
void set_exit_request_only(uc_engine*) {}
}  // namespace emu

#endif  // A64RUN_WRAP_TRANSLATOR
