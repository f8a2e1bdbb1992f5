// This file owns the jump slots through which translated blocks chain to each other.
//
// QEMU's x86 backend ends a block's direct branch with a jump slot (goto_tb): `jmp rel32` whose target is
// first the next instruction, the block's exit to the CPU loop. When the CPU loop has found the next block
// it chains the two (tb_add_jump, then tb_set_jmp_target: one aligned 4-byte store of the displacement),
// and from then on the slot jumps straight to the next block. So every chained slot was first executed as
// a taken jump to its exit, and then given another target while the host CPU's branch predictor still
// remembers the old one.
//
// Why that matters. On this machine's host CPU (AMD EPYC, Zen 4, in a virtual machine) a loop whose
// back edge is such a re-targeted jump often runs in a slow mode that lasts until the process is next
// switched out: the xorshift kernel's one-block loop took 2.0-2.3 s in most processes and 0.8 s in a few,
// under a64run and qemu-aarch64 alike. The block's host code copied into a native program shows the cause:
// run with the slot's jump taken once to its exit and then patched to the loop's start, 11 of 16 processes
// ran the loop at 1.55 s; with the patch made before the jump ever ran, or with the slot a non-branch until
// it was patched, 16 of 16 ran it at 0.56 s.
//
// What. A new block's slots are made non-branches: the jump's opcode byte (0xe9) becomes 0xa9, `test
// $imm32,%eax`, whose immediate is the displacement, so the unchained slot falls through to the same exit
// it jumped to, touching only the host flags (dead there: TCG keeps no value in them between ops). a64run
// replaces tb_set_jmp_target (the link uses a copy of libunicorn.a in which Unicorn's definition is weak,
// because cpu_exec calls it inside its own object file, where --wrap cannot reach): it stores the
// displacement as Unicorn does, and when it chains a slot that is still a `test` it then stores the jump's
// opcode byte. A reset (the slot pointed back at the exit when a block is invalidated) leaves the opcode.
//
// Why it is safe. A slot's five bytes are in one of four states, each of them a correct instruction for a
// thread running the block while another patches it: `test` with the old or the new displacement (falls
// through to the exit), `jmp` to the next instruction (the exit, QEMU's own unchained form) or `jmp` to the
// chained block. The displacement is stored before the opcode (x86 keeps stores in order), so a thread that
// fetches the new opcode with a displacement from before the patch jumps to the exit. A block's slots are
// rewritten only in tcg_tb_insert's wrapper, before tb_gen_code returns the block to the one thread that
// made it (emu/tb_share.cpp hands it to other threads only after that), and only where the bytes are QEMU's
// unchained slot: the 0xe9 opcode before an aligned displacement of 0 that leads to the block's reset
// offset. Anything else is left as QEMU made it, and the replacement then stores only the displacement.
// A64RUN_TAKEN_CHAIN_SLOTS=1 leaves every slot as QEMU made it (to compare).
#include "emu/block_chain.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>

#include "emu/unicorn_layout.h"

#if A64RUN_WRAP_TRANSLATOR

namespace emu {
namespace {

using unicorn::field;

// TranslationBlock (include/exec/exec-all.h), read off tb_gen_code and tb_set_jmp_target in Debian's build:
// tb_gen_code tests jmp_reset_offset[0] and [1] against 0xffff at 0x58 and 0x5a, and tb_set_jmp_target
// adds jmp_target_arg[n] (0x60 + 8n) to tc.ptr (0x20).
constexpr size_t kTbCode = 0x20;
constexpr size_t kTbJmpResetOffset = 0x58;
constexpr size_t kTbJmpTargetArg = 0x60;
constexpr uint16_t kResetInvalid = 0xffff;  // TB_JMP_RESET_OFFSET_INVALID: the block has no such slot
constexpr unsigned char kJmpRel32 = 0xe9;
constexpr unsigned char kTestEaxImm32 = 0xa9;

unsigned char* slot_of(void* tb, int n) {
  return field<unsigned char*>(tb, kTbCode) +
         field<uintptr_t>(tb, kTbJmpTargetArg + 8 * static_cast<size_t>(n));
}

std::atomic<uint64_t> g_chained{0};

bool slots_on() {
  static const bool on = std::getenv("A64RUN_TAKEN_CHAIN_SLOTS") == nullptr;
  return on;
}

}  // namespace

uint64_t chained_slots() {
  return g_chained.load(std::memory_order_relaxed);
}

void prepare_chain_slots(void* tb) {
  if (!slots_on()) return;
  for (int n = 0; n < 2; ++n) {
    const uint16_t reset = field<uint16_t>(tb, kTbJmpResetOffset + 2 * static_cast<size_t>(n));
    if (reset == kResetInvalid) continue;
    unsigned char* disp = slot_of(tb, n);
    int32_t d;
    __builtin_memcpy(&d, disp, sizeof d);
    if (reinterpret_cast<uintptr_t>(disp) % 4 != 0 || disp[-1] != kJmpRel32 || d != 0 ||
        disp + 4 != field<unsigned char*>(tb, kTbCode) + reset) {
      continue;
    }
    disp[-1] = kTestEaxImm32;  // the block is not yet visible to any other thread
  }
}

}  // namespace emu

extern "C" {

// Replaces Unicorn's (weak in the copy of libunicorn.a the link uses; see CMakeLists.txt).
void tb_set_jmp_target_aarch64(void* tb, int n, uintptr_t addr) {
  unsigned char* disp = emu::slot_of(tb, n);
  const auto d = static_cast<int32_t>(addr - (reinterpret_cast<uintptr_t>(disp) + 4));
  __atomic_store_n(reinterpret_cast<int32_t*>(disp), d, __ATOMIC_RELAXED);  // Unicorn's qatomic_set
  if (d != 0 && __atomic_load_n(disp - 1, __ATOMIC_RELAXED) == emu::kTestEaxImm32) {
    __atomic_store_n(disp - 1, emu::kJmpRel32, __ATOMIC_RELEASE);
    emu::g_chained.fetch_add(1, std::memory_order_relaxed);
  }
}

}  // extern "C"

#else

namespace emu {

void prepare_chain_slots(void*) {}

uint64_t chained_slots() {
  return 0;
}

}  // namespace emu

#endif  // A64RUN_WRAP_TRANSLATOR
