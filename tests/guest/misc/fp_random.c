// A generated corpus for the floating-point instructions: each instruction runs on operands from a fixed
// pseudo-random stream biased towards the hard cases (zeros, infinities, quiet and signalling NaNs with
// payloads, subnormals, the edges of the normal range, halves, near-cancelling sums and fused products,
// integers at the edges of the conversions), under all sixteen FPCR settings of RMode, FZ and DN, from an
// FPSR that is clear, has IXC set or has random cumulative bits. Each result (the whole 128-bit register,
// so a scalar's zeroed upper half counts, or the general register, or NZCV) and the FPSR after it go into
// one digest per instruction, which must equal the digest recorded under qemu-aarch64 (softfloat) below.
// The same digests hold under a64run with its host-FPU fast path on and off (A64RUN_SOFTFLOAT=1).
//
// usage: fp_random                 check every digest
//        fp_random --print         print the digests (the table below is this output under qemu-aarch64)
//        fp_random --dump NAME     print every case of one instruction, to diff two emulators
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "corpus.h"

typedef uint64_t v2u64 __attribute__((vector_size(16)));

enum { kFZ = 1 << 24, kDN = 1 << 25 };
enum { kCasesPerMode = 1000 };

// One instruction. in[0..1], in[2..3], in[4..5]: the three vector operands (low doubleword first); gin: the
// general-register operand. out[0..1] receives the result.
typedef void (*op_fn)(const uint64_t* in, uint64_t gin, uint64_t fpcr, uint64_t* fpsr, uint64_t* out);

static v2u64 vec(const uint64_t* p) {
  v2u64 v;
  memcpy(&v, p, sizeof v);
  return v;
}

#define FP_ENTER "msr fpcr, %[cr]\n\tmsr fpsr, %[s]\n\t"
#define FP_LEAVE "\n\tmrs %[s], fpsr\n\tmsr fpcr, xzr"

// r = op(a, b): INSN names its operands %[r], %[a], %[b] with the register-width modifier it needs.
#define OP_VV(NAME, INSN)                                                                            \
  static void NAME(const uint64_t* in, uint64_t gin, uint64_t fpcr, uint64_t* fpsr, uint64_t* out) { \
    (void)gin;                                                                                       \
    v2u64 a = vec(in), b = vec(in + 2), r;                                                           \
    uint64_t s = *fpsr;                                                                              \
    __asm__ volatile(FP_ENTER INSN FP_LEAVE                                                          \
                     : [r] "=&w"(r), [s] "+r"(s)                                                     \
                     : [a] "w"(a), [b] "w"(b), [cr] "r"(fpcr));                                      \
    *fpsr = s;                                                                                       \
    memcpy(out, &r, sizeof r);                                                                       \
  }
// r = op(a, b, c) where the instruction may also read r: r starts as c (FMLA's accumulator).
#define OP_VVV(NAME, INSN)                                                                           \
  static void NAME(const uint64_t* in, uint64_t gin, uint64_t fpcr, uint64_t* fpsr, uint64_t* out) { \
    (void)gin;                                                                                       \
    v2u64 a = vec(in), b = vec(in + 2), r = vec(in + 4);                                             \
    uint64_t s = *fpsr;                                                                              \
    __asm__ volatile(FP_ENTER INSN FP_LEAVE                                                          \
                     : [r] "+&w"(r), [s] "+r"(s)                                                     \
                     : [a] "w"(a), [b] "w"(b), [c] "w"(vec(in + 4)), [cr] "r"(fpcr));                \
    *fpsr = s;                                                                                       \
    memcpy(out, &r, sizeof r);                                                                       \
  }
// A general register from vector operands (conversions to integer); out[1] = 0.
#define OP_GV(NAME, INSN)                                                                              \
  static void NAME(const uint64_t* in, uint64_t gin, uint64_t fpcr, uint64_t* fpsr, uint64_t* out) {   \
    (void)gin;                                                                                         \
    v2u64 a = vec(in);                                                                                 \
    uint64_t r, s = *fpsr;                                                                             \
    __asm__ volatile(FP_ENTER INSN FP_LEAVE : [r] "=&r"(r), [s] "+r"(s) : [a] "w"(a), [cr] "r"(fpcr)); \
    *fpsr = s;                                                                                         \
    out[0] = r;                                                                                        \
    out[1] = 0;                                                                                        \
  }
// A vector register from a general one (conversions from integer).
#define OP_VG(NAME, INSN)                                                                                \
  static void NAME(const uint64_t* in, uint64_t gin, uint64_t fpcr, uint64_t* fpsr, uint64_t* out) {     \
    (void)in;                                                                                            \
    v2u64 r;                                                                                             \
    uint64_t s = *fpsr;                                                                                  \
    __asm__ volatile(FP_ENTER INSN FP_LEAVE : [r] "=&w"(r), [s] "+r"(s) : [g] "r"(gin), [cr] "r"(fpcr)); \
    *fpsr = s;                                                                                           \
    memcpy(out, &r, sizeof r);                                                                           \
  }
// NZCV after a compare of a and b; NZCV starts as the low four bits of gin, so a flag left alone shows.
#define OP_CMP(NAME, INSN)                                                                           \
  static void NAME(const uint64_t* in, uint64_t gin, uint64_t fpcr, uint64_t* fpsr, uint64_t* out) { \
    v2u64 a = vec(in), b = vec(in + 2);                                                              \
    uint64_t n = (gin & 15) << 28, s = *fpsr;                                                        \
    __asm__ volatile("msr nzcv, %[n]\n\t" FP_ENTER INSN FP_LEAVE "\n\tmrs %[n], nzcv"                \
                     : [n] "+r"(n), [s] "+r"(s)                                                      \
                     : [a] "w"(a), [b] "w"(b), [cr] "r"(fpcr)                                        \
                     : "cc");                                                                        \
    *fpsr = s;                                                                                       \
    out[0] = n;                                                                                      \
    out[1] = 0;                                                                                      \
  }

#define S3(OP) #OP " %s[r], %s[a], %s[b]"
#define D3(OP) #OP " %d[r], %d[a], %d[b]"
#define S2(OP) #OP " %s[r], %s[a]"
#define D2(OP) #OP " %d[r], %d[a]"
#define S4(OP) #OP " %s[r], %s[a], %s[b], %s[c]"
#define D4(OP) #OP " %d[r], %d[a], %d[b], %d[c]"

OP_VV(fadd_s, S3(fadd))
OP_VV(fadd_d, D3(fadd))
OP_VV(fsub_s, S3(fsub))
OP_VV(fsub_d, D3(fsub))
OP_VV(fmul_s, S3(fmul))
OP_VV(fmul_d, D3(fmul))
OP_VV(fnmul_s, S3(fnmul))
OP_VV(fnmul_d, D3(fnmul))
OP_VV(fdiv_s, S3(fdiv))
OP_VV(fdiv_d, D3(fdiv))
OP_VV(fabd_s, S3(fabd))
OP_VV(fabd_d, D3(fabd))
OP_VV(fmulx_d, D3(fmulx))
OP_VV(fmax_s, S3(fmax))
OP_VV(fmax_d, D3(fmax))
OP_VV(fmin_s, S3(fmin))
OP_VV(fmin_d, D3(fmin))
OP_VV(fmaxnm_s, S3(fmaxnm))
OP_VV(fmaxnm_d, D3(fmaxnm))
OP_VV(fminnm_s, S3(fminnm))
OP_VV(fminnm_d, D3(fminnm))
OP_VV(frecps_d, D3(frecps))
OP_VV(frsqrts_s, S3(frsqrts))
OP_VV(fsqrt_s, S2(fsqrt))
OP_VV(fsqrt_d, D2(fsqrt))
OP_VV(frecpe_d, D2(frecpe))
OP_VV(frsqrte_s, S2(frsqrte))
OP_VV(frintn_s, S2(frintn))
OP_VV(frintn_d, D2(frintn))
OP_VV(frintp_s, S2(frintp))
OP_VV(frintp_d, D2(frintp))
OP_VV(frintm_s, S2(frintm))
OP_VV(frintm_d, D2(frintm))
OP_VV(frintz_s, S2(frintz))
OP_VV(frintz_d, D2(frintz))
OP_VV(frinta_s, S2(frinta))
OP_VV(frinta_d, D2(frinta))
OP_VV(frintx_s, S2(frintx))
OP_VV(frintx_d, D2(frintx))
OP_VV(frinti_s, S2(frinti))
OP_VV(frinti_d, D2(frinti))
OP_VV(fcvt_ds, "fcvt %d[r], %s[a]")
OP_VV(fcvt_sd, "fcvt %s[r], %d[a]")
OP_VV(fcvt_hs, "fcvt %h[r], %s[a]")
OP_VV(fcvt_sh, "fcvt %s[r], %h[a]")
OP_VV(fcvt_hd, "fcvt %h[r], %d[a]")
OP_VV(fcvt_dh, "fcvt %d[r], %h[a]")
OP_VVV(fmadd_s, S4(fmadd))
OP_VVV(fmadd_d, D4(fmadd))
OP_VVV(fmsub_s, S4(fmsub))
OP_VVV(fmsub_d, D4(fmsub))
OP_VVV(fnmadd_s, S4(fnmadd))
OP_VVV(fnmadd_d, D4(fnmadd))
OP_VVV(fnmsub_s, S4(fnmsub))
OP_VVV(fnmsub_d, D4(fnmsub))
OP_CMP(fcmp_s, "fcmp %s[a], %s[b]")
OP_CMP(fcmp_d, "fcmp %d[a], %d[b]")
OP_CMP(fcmpe_s, "fcmpe %s[a], %s[b]")
OP_CMP(fcmpe_d, "fcmpe %d[a], %d[b]")
OP_CMP(fcmp_d0, "fcmp %d[a], #0.0")
OP_CMP(fccmp_d, "fccmp %d[a], %d[b], #6, ne")
OP_GV(fcvtzs_ws, "fcvtzs %w[r], %s[a]")
OP_GV(fcvtzs_wd, "fcvtzs %w[r], %d[a]")
OP_GV(fcvtzs_xs, "fcvtzs %x[r], %s[a]")
OP_GV(fcvtzs_xd, "fcvtzs %x[r], %d[a]")
OP_GV(fcvtzu_ws, "fcvtzu %w[r], %s[a]")
OP_GV(fcvtzu_wd, "fcvtzu %w[r], %d[a]")
OP_GV(fcvtzu_xs, "fcvtzu %x[r], %s[a]")
OP_GV(fcvtzu_xd, "fcvtzu %x[r], %d[a]")
OP_GV(fcvtns_xd, "fcvtns %x[r], %d[a]")
OP_GV(fcvtas_wd, "fcvtas %w[r], %d[a]")
OP_GV(fcvtau_xs, "fcvtau %x[r], %s[a]")
OP_GV(fcvtms_xd, "fcvtms %x[r], %d[a]")
OP_GV(fcvtps_ws, "fcvtps %w[r], %s[a]")
OP_GV(fcvtmu_wd, "fcvtmu %w[r], %d[a]")
OP_GV(fcvtzs_xd_fix, "fcvtzs %x[r], %d[a], #12")
OP_GV(fcvtzu_ws_fix, "fcvtzu %w[r], %s[a], #3")
OP_VG(scvtf_sw, "scvtf %s[r], %w[g]")
OP_VG(scvtf_sx, "scvtf %s[r], %x[g]")
OP_VG(scvtf_dw, "scvtf %d[r], %w[g]")
OP_VG(scvtf_dx, "scvtf %d[r], %x[g]")
OP_VG(ucvtf_sw, "ucvtf %s[r], %w[g]")
OP_VG(ucvtf_sx, "ucvtf %s[r], %x[g]")
OP_VG(ucvtf_dw, "ucvtf %d[r], %w[g]")
OP_VG(ucvtf_dx, "ucvtf %d[r], %x[g]")
OP_VG(scvtf_dx_fix, "scvtf %d[r], %x[g], #20")
OP_VG(ucvtf_sw_fix, "ucvtf %s[r], %w[g], #7")
OP_VV(fadd_4s, "fadd %[r].4s, %[a].4s, %[b].4s")
OP_VV(fadd_2d, "fadd %[r].2d, %[a].2d, %[b].2d")
OP_VV(fmul_4s, "fmul %[r].4s, %[a].4s, %[b].4s")
OP_VV(fdiv_2d, "fdiv %[r].2d, %[a].2d, %[b].2d")
OP_VV(fmaxnm_4s, "fmaxnm %[r].4s, %[a].4s, %[b].4s")
OP_VV(fmin_2d, "fmin %[r].2d, %[a].2d, %[b].2d")
OP_VV(faddp_4s, "faddp %[r].4s, %[a].4s, %[b].4s")
OP_VV(fmul_elem_4s, "fmul %[r].4s, %[a].4s, %[b].s[3]")
OP_VV(fsqrt_4s, "fsqrt %[r].4s, %[a].4s")
OP_VV(frintm_2d, "frintm %[r].2d, %[a].2d")
OP_VV(frintx_4s, "frintx %[r].4s, %[a].4s")
OP_VV(fcvtzs_4s, "fcvtzs %[r].4s, %[a].4s")
OP_VV(fcvtzu_2d, "fcvtzu %[r].2d, %[a].2d")
OP_VV(scvtf_2d, "scvtf %[r].2d, %[a].2d")
OP_VV(ucvtf_4s, "ucvtf %[r].4s, %[a].4s")
OP_VV(fcvtn_4s, "fcvtn %[r].2s, %[a].2d")
OP_VV(fcvtl_2d, "fcvtl %[r].2d, %[a].2s")
OP_VV(fcvtxn_s, "fcvtxn %s[r], %d[a]")
OP_VV(fmaxnmv_4s, "fmaxnmv %s[r], %[a].4s")
OP_VV(fcmge_2d, "fcmge %[r].2d, %[a].2d, %[b].2d")
OP_VV(fcmgt_4s0, "fcmgt %[r].4s, %[a].4s, #0.0")
OP_VV(facgt_d, "facgt %d[r], %d[a], %d[b]")
OP_VVV(fmla_4s, "fmla %[r].4s, %[a].4s, %[b].4s")
OP_VVV(fmla_2d, "fmla %[r].2d, %[a].2d, %[b].2d")
OP_VVV(fmls_4s, "fmls %[r].4s, %[a].4s, %[b].4s")
OP_VVV(fmla_elem_2d, "fmla %[r].2d, %[a].2d, %[b].d[1]")

// Operand kinds: what the generator puts in each lane.
enum kind { kS, kD, kH, kInt, kNone };

struct op {
  const char* name;
  op_fn fn;
  enum kind lanes;  // the vector operands' lanes (scalar ops use lane 0 and ignore the rest)
  int gint;         // the general-register operand is an integer to convert
};

#define E(NAME, LANES) \
  { #NAME, NAME, LANES, LANES == kNone }
static const struct op kOps[] = {
    E(fadd_s, kS),        E(fadd_d, kD),          E(fsub_s, kS),          E(fsub_d, kD),
    E(fmul_s, kS),        E(fmul_d, kD),          E(fnmul_s, kS),         E(fnmul_d, kD),
    E(fdiv_s, kS),        E(fdiv_d, kD),          E(fabd_s, kS),          E(fabd_d, kD),
    E(fmulx_d, kD),       E(fmax_s, kS),          E(fmax_d, kD),          E(fmin_s, kS),
    E(fmin_d, kD),        E(fmaxnm_s, kS),        E(fmaxnm_d, kD),        E(fminnm_s, kS),
    E(fminnm_d, kD),      E(frecps_d, kD),        E(frsqrts_s, kS),       E(fsqrt_s, kS),
    E(fsqrt_d, kD),       E(frecpe_d, kD),        E(frsqrte_s, kS),       E(frintn_s, kS),
    E(frintn_d, kD),      E(frintp_s, kS),        E(frintp_d, kD),        E(frintm_s, kS),
    E(frintm_d, kD),      E(frintz_s, kS),        E(frintz_d, kD),        E(frinta_s, kS),
    E(frinta_d, kD),      E(frintx_s, kS),        E(frintx_d, kD),        E(frinti_s, kS),
    E(frinti_d, kD),      E(fcvt_ds, kS),         E(fcvt_sd, kD),         E(fcvt_hs, kS),
    E(fcvt_sh, kH),       E(fcvt_hd, kD),         E(fcvt_dh, kH),         E(fmadd_s, kS),
    E(fmadd_d, kD),       E(fmsub_s, kS),         E(fmsub_d, kD),         E(fnmadd_s, kS),
    E(fnmadd_d, kD),      E(fnmsub_s, kS),        E(fnmsub_d, kD),        E(fcmp_s, kS),
    E(fcmp_d, kD),        E(fcmpe_s, kS),         E(fcmpe_d, kD),         E(fcmp_d0, kD),
    E(fccmp_d, kD),       E(fcvtzs_ws, kS),       E(fcvtzs_wd, kD),       E(fcvtzs_xs, kS),
    E(fcvtzs_xd, kD),     E(fcvtzu_ws, kS),       E(fcvtzu_wd, kD),       E(fcvtzu_xs, kS),
    E(fcvtzu_xd, kD),     E(fcvtns_xd, kD),       E(fcvtas_wd, kD),       E(fcvtau_xs, kS),
    E(fcvtms_xd, kD),     E(fcvtps_ws, kS),       E(fcvtmu_wd, kD),       E(fcvtzs_xd_fix, kD),
    E(fcvtzu_ws_fix, kS), E(scvtf_sw, kNone),     E(scvtf_sx, kNone),     E(scvtf_dw, kNone),
    E(scvtf_dx, kNone),   E(ucvtf_sw, kNone),     E(ucvtf_sx, kNone),     E(ucvtf_dw, kNone),
    E(ucvtf_dx, kNone),   E(scvtf_dx_fix, kNone), E(ucvtf_sw_fix, kNone), E(fadd_4s, kS),
    E(fadd_2d, kD),       E(fmul_4s, kS),         E(fdiv_2d, kD),         E(fmaxnm_4s, kS),
    E(fmin_2d, kD),       E(faddp_4s, kS),        E(fmul_elem_4s, kS),    E(fsqrt_4s, kS),
    E(frintm_2d, kD),     E(frintx_4s, kS),       E(fcvtzs_4s, kS),       E(fcvtzu_2d, kD),
    E(scvtf_2d, kInt),    E(ucvtf_4s, kInt),      E(fcvtn_4s, kD),        E(fcvtl_2d, kS),
    E(fcvtxn_s, kD),      E(fmaxnmv_4s, kS),      E(fcmge_2d, kD),        E(fcmgt_4s0, kS),
    E(facgt_d, kD),       E(fmla_4s, kS),         E(fmla_2d, kD),         E(fmls_4s, kS),
    E(fmla_elem_2d, kD),
};
#undef E
#define NOPS (sizeof kOps / sizeof kOps[0])

// A float of `ebits` exponent and `mbits` fraction bits, biased towards the cases that need care.
static uint64_t gen_fp(int ebits, int mbits) {
  const uint64_t emax = (1ull << ebits) - 1, bias = emax >> 1, fmask = (1ull << mbits) - 1;
  const uint64_t r = corpus_rnd(), sign = (r >> 63) << (ebits + mbits), frac = corpus_rnd() & fmask;
  uint64_t e;
  switch (r % 22) {
    case 0:
      return sign;  // zero
    case 1:
      return sign | emax << mbits;  // infinity
    case 2:
      return sign | emax << mbits | 1ull << (mbits - 1) | (frac & (corpus_rnd() & 1 ? 0 : fmask));  // qNaN
    case 3: {  // sNaN (a nonzero payload)
      uint64_t p = frac & (fmask >> 1);
      return sign | emax << mbits | (p ? p : 1);
    }
    case 4:
      return sign | (frac ? frac : 1);  // subnormal
    case 5:
      return sign | (frac >> (corpus_rnd() % mbits));  // small subnormal (or zero)
    case 6:
      e = 1 + corpus_rnd() % 3;
      break;  // the bottom of the normal range
    case 7:
      e = emax - 1 - corpus_rnd() % 3;
      break;  // the top of it
    case 8:
    case 9:
      e = 1 + corpus_rnd() % (emax - 1);
      break;    // any normal
    case 10: {  // an integer, a half or a quarter
      e = bias + corpus_rnd() % (mbits + 2);
      uint64_t keep = e - bias + 2 < (uint64_t)mbits ? e - bias + 2 : (uint64_t)mbits;
      return sign | e << mbits | (frac & ~(fmask >> keep));
    }
    case 11:
      return r & ((1ull << (ebits + mbits + 1)) - 1);  // any bits
    case 12: {  // around the integer formats' limits, 2^31, 2^32, 2^63 and 2^64
      static const int kPow[] = {31, 32, 63, 64};
      e = bias + kPow[corpus_rnd() % 4] - corpus_rnd() % 2;
      if (e >= emax) e = emax - 1;
      return sign | e << mbits | (corpus_rnd() & 1 ? frac : fmask & ~(frac >> (corpus_rnd() % mbits)));
    }
    case 13: {  // around the edges of the next narrower format (FCVT): its largest and smallest normals
                // and its smallest subnormal, often just below a rounding boundary
      const int nmbits = ebits == 11 ? 23 : 10, nbias = ebits == 11 ? 127 : 15;
      const int64_t target[] = {-nbias, nbias, -nbias + 1 - nmbits - 1, -nbias + 1 - nmbits};
      e = (uint64_t)((int64_t)bias + target[corpus_rnd() % 4]);
      const uint64_t low = (1ull << (mbits - nmbits)) - 1;
      return sign | e << mbits | (corpus_rnd() & 1 ? frac : ((fmask & ~low) | (frac & low)));
    }
    default:
      e = bias - 24 + corpus_rnd() % 49;
      break;  // ordinary magnitudes
  }
  return sign | e << mbits | frac;
}

// An integer for the conversions: any width, either sign, the edges of the formats.
static uint64_t gen_int(void) {
  const uint64_t r = corpus_rnd();
  switch (r % 12) {
    case 0:
      return 0;
    case 1:
      return 1ull << 63;
    case 2:
      return ~0ull >> 1;
    case 3:
      return ~0ull;
    case 4:
      return (1ull << (corpus_rnd() % 64)) + (corpus_rnd() % 5) - 2;  // around a power of two
    case 5:
      return 0x80000000ull + (corpus_rnd() % 5) - 2;
    case 6:
      return -((1ull << (corpus_rnd() % 64)) + (corpus_rnd() % 5) - 2);
    default:
      return corpus_rnd() >> (corpus_rnd() % 64);
  }
}

static uint64_t gen_lanes(enum kind k) {
  switch (k) {
    case kS:
      return gen_fp(8, 23) | gen_fp(8, 23) << 32;
    case kH:
      return gen_fp(5, 10) | gen_fp(5, 10) << 16 | gen_fp(5, 10) << 32 | gen_fp(5, 10) << 48;
    case kD:
      return gen_fp(11, 52);
    case kInt:
      return corpus_rnd() & 1 ? gen_int() : (gen_int() & 0xffffffff) | gen_int() << 32;
    default:
      return corpus_rnd();
  }
}

// Make the second operand of a sum nearly cancel the first, and the third of a fused product nearly cancel
// the product of the first two (its exact value cut to the format's width), in the low lane.
static void make_cancelling(enum kind k, uint64_t* in) {
  const int mbits = k == kS ? 23 : 52, ebits = k == kS ? 8 : 11;
  const uint64_t fmask = (1ull << mbits) - 1, emax = (1ull << ebits) - 1, bias = emax >> 1;
  const uint64_t lane = k == kS ? 0xffffffffull : ~0ull;
  const uint64_t a = in[0] & lane, b = in[2] & lane;
  const uint64_t ea = a >> mbits & emax, eb = b >> mbits & emax;
  const uint64_t signbit = 1ull << (ebits + mbits);
  const uint64_t choice = corpus_rnd() % 4;
  if (choice == 0) {  // b = -a, give or take a few units in the last place
    in[2] = (in[2] & ~lane) | ((a ^ signbit) + (corpus_rnd() % 7) - 3);
  } else if (choice == 1 && ea > 0 && ea < emax && eb > 0 && eb < emax) {
    __uint128_t p = (__uint128_t)((a & fmask) | (fmask + 1)) * ((b & fmask) | (fmask + 1));
    int64_t e = (int64_t)ea + (int64_t)eb - (int64_t)bias;
    int top = (int)(p >> (2 * mbits + 1)) & 1;  // the product's integer part is 2 or 3
    e += top;
    if (e <= 0 || e >= (int64_t)emax) return;
    uint64_t m = (uint64_t)(p >> (mbits + top)) & fmask;
    uint64_t c = ((a ^ b) & signbit) ^ signbit;
    c |= (uint64_t)e << mbits | m;
    in[4] = (in[4] & ~lane) | (c + (corpus_rnd() % 3) - 1);
  } else if (choice == 2) {  // a * b within a few units of the smallest normal, c tiny: Arm detects
                             // tininess before rounding, x86 after
    const uint64_t ma = (corpus_rnd() & fmask) | (fmask + 1);
    uint64_t y = (uint64_t)(((__uint128_t)1 << (2 * mbits + 1)) / ma), ey;
    const uint64_t ex = bias - 1 - corpus_rnd() % 20;
    ey = bias - ex;
    if (y >> (mbits + 1)) {
      y >>= 1;
      ey++;
    }
    y = (y & fmask) + (corpus_rnd() % 5) - 2;
    in[0] = (in[0] & ~lane) | (corpus_rnd() & 1 ? signbit : 0) | ex << mbits | (ma & fmask);
    in[2] = (in[2] & ~lane) | (corpus_rnd() & 1 ? signbit : 0) | ey << mbits | (y & fmask);
    in[4] = (in[4] & ~lane) | (corpus_rnd() & 1 ? signbit : 0) |
            (corpus_rnd() & 3 ? 0 : corpus_rnd() & (fmask >> 20));
  } else {  // a / b within a few units of the smallest normal
    const uint64_t ma = corpus_rnd() & fmask, ea2 = 1 + corpus_rnd() % 20;
    in[0] = (in[0] & ~lane) | (corpus_rnd() & 1 ? signbit : 0) | ea2 << mbits | ma;
    in[2] = (in[2] & ~lane) | (corpus_rnd() & 1 ? signbit : 0) |
            (((ea2 + bias - 1) << mbits | ma) + (corpus_rnd() % 5) - 2);
  }
}

static const uint64_t kFpcrModes[] = {0, 1 << 22, 2 << 22, 3 << 22};

// Runs every case of one instruction; with `dump`, prints each.
static uint64_t run_op(const struct op* op, int dump) {
  uint64_t h = 0xcbf29ce484222325ull;
  corpus_state = corpus_seed(op->name);
  for (int mode = 0; mode < 16; mode++) {
    const uint64_t fpcr = kFpcrModes[mode & 3] | (mode & 4 ? kFZ : 0) | (mode & 8 ? kDN : 0);
    for (int i = 0; i < kCasesPerMode; i++) {
      uint64_t in[6];
      const enum kind k = op->lanes == kNone ? kD : op->lanes;
      for (int j = 0; j < 6; j++) in[j] = gen_lanes(k);
      if ((k == kS || k == kD) && corpus_rnd() % 4 == 0) make_cancelling(k, in);
      const uint64_t gin = op->gint ? gen_int() : corpus_rnd();
      const uint64_t pick = corpus_rnd() % 4;
      uint64_t fpsr = pick == 0 ? 0x10 : pick == 1 ? (corpus_rnd() & 0x9f) : 0;
      const uint64_t fpsr_in = fpsr;
      uint64_t out[2];
      op->fn(in, gin, fpcr, &fpsr, out);
      h = corpus_mix(h, out[0]);
      h = corpus_mix(h, out[1]);
      h = corpus_mix(h, fpsr);
      if (dump)
        printf(
            "%s fpcr=%08llx fpsr=%02llx a=%016llx:%016llx b=%016llx:%016llx c=%016llx:%016llx g=%016llx"
            " -> %016llx:%016llx fpsr=%08llx\n",
            op->name, (unsigned long long)fpcr, (unsigned long long)fpsr_in, (unsigned long long)in[1],
            (unsigned long long)in[0], (unsigned long long)in[3], (unsigned long long)in[2],
            (unsigned long long)in[5], (unsigned long long)in[4], (unsigned long long)gin,
            (unsigned long long)out[1], (unsigned long long)out[0], (unsigned long long)fpsr);
    }
  }
  return h;
}

// fp_random --print under qemu-aarch64 7.2 (softfloat). a64run gives the same with and without
// A64RUN_SOFTFLOAT=1, and so did qemu-aarch64 when they were recorded.
static const struct corpus_digest kExpected[] = {
#include "fp_random_digests.h"
};

static const char* op_name(size_t i) {
  return kOps[i].name;
}

static uint64_t op_run(size_t i, int dump) {
  return run_op(&kOps[i], dump);
}

int main(int argc, char** argv) {
  return corpus_main(argc, argv, "misc/fp_random", NOPS, op_name, op_run, kExpected,
                     sizeof kExpected / sizeof kExpected[0]);
}
