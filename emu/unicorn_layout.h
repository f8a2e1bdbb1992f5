// Debian's build of Unicorn 2.1.1 as the translator-side wrappers read it (emu/direct_memory.cpp,
// emu/lazy_flags.cpp, emu/block_exit.cpp): the offsets read off its machine code, which each user checks
// against that code (code_has) or its data before it relies on them, and TCG's op definition.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace emu::unicorn {

constexpr size_t kCpuUc = 0x81a8;           // CPUState.uc
constexpr size_t kUcCpu = 0x1a0;            // uc_struct.cpu
constexpr size_t kUcTcgCtx = 0x2e8;         // uc_struct.tcg_ctx
constexpr size_t kCtxOpDefs = 0xa968;       // TCGContext.tcg_op_defs (each engine's copy of tcg_op_defs_org)
constexpr size_t kOpLinkNext = 0x8;         // TCGOp.link.tqe_next (the opcode is the op's first byte)
constexpr size_t kOpArgs = 0x18;            // TCGOp.args[]
constexpr uint8_t kOpfBbExit = 0x01;        // TCG_OPF_BB_EXIT (exits only)
constexpr uint8_t kOpfBbEnd = 0x02;         // TCG_OPF_BB_END
constexpr uint8_t kOpfCallClobber = 0x04;   // TCG_OPF_CALL_CLOBBER
constexpr uint8_t kOpfSideEffects = 0x08;   // TCG_OPF_SIDE_EFFECTS
constexpr size_t kCtxOpsFirst = 0x7388;     // TCGContext.ops.tqh_first
constexpr size_t kCtxNbTemps = 0x30;        // TCGContext.nb_temps
constexpr size_t kCtxCodeGenBuffer = 0xa0;  // TCGContext.code_gen_buffer
constexpr size_t kCtxCodeGenBufferSize = 0xb8;  // TCGContext.code_gen_buffer_size
constexpr size_t kCtxFreeTemps = 0x108;         // TCGContext.free_temps[TCG_TYPE_COUNT * 2], 64 bytes each
constexpr size_t kFreeTempsSize = size_t{10} * 64;
constexpr int kMaxTemps = 512;       // TCG_MAX_TEMPS
constexpr size_t kCtxTemps = 0x388;  // TCGContext.temps[], 56 bytes each (temps[0] is env)
constexpr size_t kTempSize = 56;
constexpr size_t kTempFlags = 0x4;             // TCGTemp's byte of bits: fixed_reg 0x01, temp_global 0x20
constexpr size_t kTempMemBase = 0x10;          // TCGTemp.mem_base
constexpr size_t kCpuEnvPtr = 0x128;           // CPUState.env_ptr
constexpr int kTcgTypeI32 = 0;                 // TCG_TYPE_I32
constexpr int kTcgTypeI64 = 1;                 // TCG_TYPE_I64
constexpr uintptr_t kCallNoReadGlobals = 0x1;  // TCG_CALL_NO_READ_GLOBALS (TCG_CALL_NO_RWG): implies no write

// TCGOpDef (include/tcg/tcg.h), 32 bytes each.
struct OpDef {
  const char* name;
  uint8_t nb_oargs, nb_iargs, nb_cargs, nb_args;
  uint8_t flags;
  void* args_ct;
  int* sorted_args;
};
static_assert(sizeof(OpDef) == 32, "TCGOpDef is 32 bytes on x86-64");

// The field of type T at byte offset `off` in the structure at `p`.
template <typename T>
T& field(void* p, size_t off) {
  return *reinterpret_cast<T*>(static_cast<char*>(p) + off);
}

// A TCG op's arguments, and the op after it in the context's list (null after the last).
inline uintptr_t* args(char* op) {
  return reinterpret_cast<uintptr_t*>(op + kOpArgs);
}
inline char* next_op(char* op) {
  return field<char*>(op, kOpLinkNext);
}

// True if `want` occurs within the first `span` bytes of the function at `fn`: how the wrappers check
// Unicorn's machine code before they rely on an offset read off it.
inline bool code_has(const void* fn, size_t span, const unsigned char* want, size_t n) {
  const auto* code = static_cast<const unsigned char*>(fn);
  for (size_t i = 0; i + n <= span; ++i) {
    if (std::memcmp(code + i, want, n) == 0) return true;
  }
  return false;
}

}  // namespace emu::unicorn
