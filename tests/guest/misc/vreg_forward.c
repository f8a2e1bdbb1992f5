// Tests that a V register reads what was last written to it when the write and the read are in one
// straight run of code (one translated block under an emulator), whatever comes between: FP arithmetic on
// the value, a write of the general register it came from, a write of part of the register (a lane, a
// byte, the upper half), a vector instruction, a helper that writes the register (AESE), a load into a
// lane, more registers than an emulator may
// track at once, and a fault whose handler changes the register. Each case is one asm statement with no
// branch, and its results are checked against bit patterns worked out by hand (exact FP values). Each
// starts with an FADD of its own (FP_CALL): a64run walks only the blocks that call an FP helper.
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/ucontext.h>

#include "check.h"
#include "sigframe_util.h"

#define D1 0x3ff0000000000000ull  // 1.0
#define D2 0x4000000000000000ull  // 2.0
#define D3 0x4008000000000000ull  // 3.0
#define D6 0x4018000000000000ull  // 6.0
#define D7 0x401c000000000000ull  // 7.0

// An FP helper call under an emulator, on a register no case uses (v29 is in each case's clobbers).
#define FP_CALL "fadd d29, d29, d29\n\t"

// fmul d1, d2, d1; fadd d0, d0, d1 with the operands loaded in the same block, as a matrix multiply's
// inner loop does; then d1 and d0 read back, and their upper halves.
static void chain(void) {
  const uint64_t in[3] = {D3, D1, D2};  // d1 = 3.0, d0 = 1.0, d2 = 2.0
  uint64_t out[2] = {0, 0};
  uint64_t prod, sum, hi1, hi0;
  __asm__ volatile(FP_CALL
                   "ldr d1, [%[in]]\n\t"
                   "ldr d0, [%[in], #8]\n\t"
                   "ldr d2, [%[in], #16]\n\t"
                   "fmul d1, d2, d1\n\t"
                   "fadd d0, d0, d1\n\t"
                   "str d0, [%[out]]\n\t"
                   "fmov %[prod], d1\n\t"
                   "fmov %[sum], d0\n\t"
                   "mov %[hi1], v1.d[1]\n\t"
                   "mov %[hi0], v0.d[1]\n\t"
                   : [prod] "=&r"(prod), [sum] "=&r"(sum), [hi1] "=&r"(hi1), [hi0] "=&r"(hi0)
                   : [in] "r"(in), [out] "r"(out)
                   : "v0", "v1", "v2", "v29", "memory");
  CHECK_EQ(prod, D6);
  CHECK_EQ(sum, D7);
  CHECK_EQ(out[0], D7);
  CHECK_EQ(hi1, 0);
  CHECK_EQ(hi0, 0);
}

// A V register written from a general register that changes right after: the V register keeps the old value.
static void source_changes(void) {
  uint64_t x = 5, old, now, fsum;
  __asm__ volatile(FP_CALL
                   "fmov d0, %[x]\n\t"
                   "add %[x], %[x], #1\n\t"
                   "fmov d3, %[x]\n\t"
                   "fmov %[old], d0\n\t"
                   "fmov %[now], d3\n\t"
                   "fmov d4, %[d1]\n\t"
                   "fmov d5, %[d2]\n\t"
                   "fadd d4, d4, d5\n\t"  // 3.0 in d4, and d4's source register written after
                   "mov %[d1], #0\n\t"
                   "fmov %[fsum], d4\n\t"
                   : [x] "+r"(x), [old] "=&r"(old), [now] "=&r"(now), [fsum] "=&r"(fsum)
                   : [d1] "r"(D1), [d2] "r"(D2)
                   : "v0", "v3", "v4", "v5", "v29");
  CHECK_EQ(old, 5);
  CHECK_EQ(now, 6);
  CHECK_EQ(fsum, D3);
}

// Writes of part of a register after a whole one: a 32-bit lane, a byte, the upper half, a lane loaded
// from memory.
static void partial_writes(void) {
  const uint64_t a = 0x1111111122222222ull;
  uint64_t lane, byte, low, high, cleared, loaded;
  const uint32_t mem = 0xabcdef01u;
  __asm__ volatile(FP_CALL
                   "fmov d1, %[a]\n\t"
                   "ins v1.s[1], %w[b]\n\t"
                   "fmov %[lane], d1\n\t"
                   "fmov d2, %[a]\n\t"
                   "ins v2.b[0], %w[b]\n\t"
                   "fmov %[byte], d2\n\t"
                   "fmov d3, %[a]\n\t"
                   "mov v3.d[1], %[a]\n\t"
                   "fmov %[low], d3\n\t"
                   "mov %[high], v3.d[1]\n\t"
                   "fmov d3, %[a]\n\t"  // clears the upper half again: that write must stay
                   "mov %[cleared], v3.d[1]\n\t"
                   "fmov d4, %[a]\n\t"
                   "ld1 {v4.s}[0], [%[mem]]\n\t"
                   "fmov %[loaded], d4\n\t"
                   : [lane] "=&r"(lane), [byte] "=&r"(byte), [low] "=&r"(low), [high] "=&r"(high),
                     [cleared] "=&r"(cleared), [loaded] "=&r"(loaded)
                   : [a] "r"(a), [b] "r"(0x33u), [mem] "r"(&mem)
                   : "v1", "v2", "v3", "v4", "v29", "memory");
  CHECK_EQ(lane, 0x0000003322222222ull);
  CHECK_EQ(byte, 0x1111111122222233ull);
  CHECK_EQ(low, a);
  CHECK_EQ(high, a);
  CHECK_EQ(cleared, 0);
  CHECK_EQ(loaded, 0x11111111abcdef01ull);
}

// A vector instruction (inline or through a helper under an emulator) after scalar writes of its registers.
static void vector_between(void) {
  uint64_t isum, fsum, fhi, q0, q1;
  const uint64_t pair[2] = {0x0102030405060708ull, 0x1112131415161718ull};
  __asm__ volatile(FP_CALL
                   "fmov d1, %[x]\n\t"
                   "fmov d2, %[y]\n\t"
                   "add v1.2d, v1.2d, v2.2d\n\t"
                   "fmov %[isum], d1\n\t"
                   "fmov d5, %[d1]\n\t"
                   "fmov d6, %[d2]\n\t"
                   "fadd v5.2d, v5.2d, v6.2d\n\t"
                   "fmov %[fsum], d5\n\t"
                   "mov %[fhi], v5.d[1]\n\t"
                   "fmov d7, %[x]\n\t"
                   "ldr q7, [%[pair]]\n\t"
                   "fmov %[q0], d7\n\t"
                   "mov %[q1], v7.d[1]\n\t"
                   : [isum] "=&r"(isum), [fsum] "=&r"(fsum), [fhi] "=&r"(fhi), [q0] "=&r"(q0), [q1] "=&r"(q1)
                   : [x] "r"(40ull), [y] "r"(2ull), [d1] "r"(D1), [d2] "r"(D2), [pair] "r"(pair)
                   : "v1", "v2", "v5", "v6", "v7", "v29", "memory");
  CHECK_EQ(isum, 42);
  CHECK_EQ(fsum, D3);
  CHECK_EQ(fhi, 0);
  CHECK_EQ(q0, pair[0]);
  CHECK_EQ(q1, pair[1]);
}

// A helper that writes a register through a pointer (AESE under an emulator) after a scalar write of it:
// AESE of a zero state with a zero key is SubBytes(0), 0x63 in every byte.
static void helper_writes(void) {
  uint64_t low, high;
  __asm__ volatile(
      FP_CALL
      "fmov d1, %[zero]\n\t"
      "fmov d2, %[zero]\n\t"
      ".inst 0x4e284841\n\t"  // aese v1.16b, v2.16b (the cross compiler's default -march has no AES)
      "fmov %[low], d1\n\t"
      "mov %[high], v1.d[1]\n\t"
      : [low] "=&r"(low), [high] "=&r"(high)
      : [zero] "r"(0ull)
      : "v1", "v2", "v29");
  CHECK_EQ(low, 0x6363636363636363ull);
  CHECK_EQ(high, 0x6363636363636363ull);
}

// All 32 registers written from one general register that is incremented between the writes, then read
// back and summed: more registers and more changed sources than an emulator may track in one block.
static void many_registers(void) {
  uint64_t x = 1000, sum = 0, t;
#define W(n) "fmov d" #n ", %[x]\n\tadd %[x], %[x], #1\n\t"
#define R(n) "fmov %[t], d" #n "\n\tadd %[sum], %[sum], %[t]\n\t"
  __asm__ volatile(FP_CALL W(0) W(1) W(2) W(3) W(4) W(5) W(6) W(7) W(8) W(9) W(10) W(11) W(12) W(13) W(14)
                       W(15) W(16) W(17) W(18) W(19) W(20) W(21) W(22) W(23) W(24) W(25) W(26) W(27) W(28)
                           W(29) W(30) W(31) R(0) R(1) R(2) R(3) R(4) R(5) R(6) R(7) R(8) R(9) R(10) R(11)
                               R(12) R(13) R(14) R(15) R(16) R(17) R(18) R(19) R(20) R(21) R(22) R(23) R(24)
                                   R(25) R(26) R(27) R(28) R(29) R(30) R(31)
                   : [x] "+r"(x), [sum] "+r"(sum), [t] "=&r"(t)
                   :
                   : "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13",
                     "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25",
                     "v26", "v27", "v28", "v29", "v30", "v31");
#undef W
#undef R
  CHECK_EQ(x, 1032);
  CHECK_EQ(sum, 32 * 1000 + 31 * 32 / 2);
}

// A fault between a write of d1 and its read: the handler sees the written value in the frame, writes
// another, and skips the faulting load; the read after it gets the handler's value.
static volatile uint64_t seen_in_frame;
static const uint64_t kFromHandler = 0x5eed5eed5eed5eedull;

static void on_segv(int sig, siginfo_t* si, void* ctx) {
  (void)sig, (void)si;
  ucontext_t* uc = ctx;
  struct fpsimd_context* fp = (struct fpsimd_context*)find_record(&uc->uc_mcontext, FPSIMD_MAGIC);
  if (fp == NULL) {
    seen_in_frame = 0xdead;
    uc->uc_mcontext.pc += 4;
    return;
  }
  uint64_t v[2];
  memcpy(v, &fp->vregs[1], sizeof v);
  seen_in_frame = v[0];
  v[0] = kFromHandler;
  memcpy(&fp->vregs[1], v, sizeof v);
  // A frame whose SVE record carries the registers is restored from them (Linux's restore_sve_fpsimd_context;
  // qemu-aarch64 always writes them): the low 128 bits of Z1 are V1.
  unsigned char* sve = (unsigned char*)find_record(&uc->uc_mcontext, SVE_MAGIC);
  if (sve != NULL) {
    const struct sve_context* sc = (const struct sve_context*)sve;
    if (sc->head.size >= SVE_SIG_CONTEXT_SIZE(sve_vq_from_vl(sc->vl)) && sc->head.size > sizeof *sc)
      memcpy(sve + SVE_SIG_ZREG_OFFSET(sve_vq_from_vl(sc->vl), 1), &kFromHandler, sizeof kFromHandler);
  }
  uc->uc_mcontext.pc += 4;
}

static void fault_between(void) {
  CHECK_EQ(set_siginfo_handler(SIGSEGV, on_segv), 0);
  uint64_t after, junk;
  __asm__ volatile(FP_CALL
                   "fmov d1, %[x]\n\t"
                   "ldr %[junk], [%[bad]]\n\t"
                   "fmov %[after], d1\n\t"
                   : [after] "=&r"(after), [junk] "=&r"(junk)
                   : [x] "r"(0x1234567890abcdefull), [bad] "r"(8ull)
                   : "v1", "v29", "memory");
  CHECK_EQ(seen_in_frame, 0x1234567890abcdefull);
  CHECK_EQ(after, kFromHandler);
  CHECK_EQ(set_siginfo_handler(SIGSEGV, NULL), 0);
}

// FCMP, FCVT and a conversion between a write and a read (helpers that write only the FP status).
static void helpers_between(void) {
  uint64_t back, nzcv, cvt, conv;
  __asm__ volatile(FP_CALL
                   "fmov d1, %[d2]\n\t"
                   "fmov d2, %[d1]\n\t"
                   "fcmp d1, d2\n\t"
                   "mrs %[nzcv], nzcv\n\t"
                   "fcvt s3, d1\n\t"
                   "fcvtzs %[conv], d1\n\t"
                   "fmov %[back], d1\n\t"
                   "fmov %w[cvt], s3\n\t"
                   : [back] "=&r"(back), [nzcv] "=&r"(nzcv), [cvt] "=&r"(cvt), [conv] "=&r"(conv)
                   : [d1] "r"(D1), [d2] "r"(D2)
                   : "v1", "v2", "v3", "v29", "cc");
  CHECK_EQ(back, D2);
  CHECK_EQ(nzcv, 0x20000000);  // greater: C
  CHECK_EQ(cvt, 0x40000000);   // 2.0f
  CHECK_EQ(conv, 2);
}

int main(void) {
  for (int round = 0; round < 3; ++round) {  // the second and later rounds run translated code again
    chain();
    source_changes();
    partial_writes();
    vector_between();
    helper_writes();
    many_registers();
    fault_between();
    helpers_between();
  }
  return check_done();
}
