// Tests FMUL followed by an FADD or FSUB of its product in one straight run of code (one translated block
// under an emulator; a64run makes such a pair one helper call), against the same instructions with a branch
// between them (two blocks), and against values worked out by hand:
//   - every order (x + a*b, a*b + x, x - a*b, a*b - x), single and double precision, on operands of every
//     class (zeros, denormals, normals, values whose product overflows or underflows, infinities, quiet and
//     signalling NaNs with payloads), under each rounding mode with FZ and DN off and on, from FPSR clear,
//     inexact set and every flag set: the sum, the product's register (both halves) and FPSR must agree;
//   - pairs whose product is read again after the FADD, whose product and addend are one register, whose
//     FADD writes the product's register, and four pairs in a row;
//   - a fault between the FMUL and the FADD: the handler sees the product in V1 and FPSR with the FMUL's
//     flags only.
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/ucontext.h>

#include "check.h"
#include "sigframe_util.h"

#define FPCR_DN (1u << 25)
#define FPCR_FZ (1u << 24)
#define FPCR_RMODE_SHIFT 22
#define FPSR_IXC 0x10u
#define FPSR_ALL 0x9fu  // IDC, IXC, UFC, OFC, DZC, IOC

struct result {
  uint64_t sum;
  uint64_t product_lo, product_hi;  // V1
  uint64_t fpsr;
};

// One pair: FPCR and FPSR set, then d2 = a, d3 = b, d0 = x (or s2, s3, s0), `mul` and `op` with `between`
// between them, then the results stored. `between` is "" (one block) or a branch to the next instruction.
#define PAIR(NAME, LOAD, MUL, OP, BETWEEN, STORE)                                          \
  static void NAME(const uint64_t in[3], uint64_t fpcr, uint64_t fpsr, struct result* r) { \
    __asm__ volatile(                                                                      \
        "msr fpcr, %[fpcr]\n\t"                                                            \
        "msr fpsr, %[fpsr]\n\t" LOAD "2, [%[in]]\n\t" LOAD "3, [%[in], #8]\n\t" LOAD       \
        "0, [%[in], #16]\n\t" MUL "\n\t" BETWEEN OP "\n\t" STORE                           \
        "0, [%[out]]\n\t"                                                                  \
        "str q1, [%[out], #8]\n\t"                                                         \
        "mrs x9, fpsr\n\t"                                                                 \
        "str x9, [%[out], #24]\n\t"                                                        \
        "msr fpcr, xzr\n\t"                                                                \
        :                                                                                  \
        : [in] "r"(in), [out] "r"(r), [fpcr] "r"(fpcr), [fpsr] "r"(fpsr)                   \
        : "x9", "v0", "v1", "v2", "v3", "memory");                                         \
  }
#define SPLIT "b 1f\n1:\n\t"
#define PAIRS(NAME, LOAD, MUL, OP, STORE)    \
  PAIR(NAME##_one, LOAD, MUL, OP, "", STORE) \
  PAIR(NAME##_two, LOAD, MUL, OP, SPLIT, STORE)
PAIRS(d_xp_add, "ldr d", "fmul d1, d2, d3", "fadd d0, d0, d1", "str d")
PAIRS(d_px_add, "ldr d", "fmul d1, d2, d3", "fadd d0, d1, d0", "str d")
PAIRS(d_xp_sub, "ldr d", "fmul d1, d2, d3", "fsub d0, d0, d1", "str d")
PAIRS(d_px_sub, "ldr d", "fmul d1, d2, d3", "fsub d0, d1, d0", "str d")
PAIRS(s_xp_add, "ldr s", "fmul s1, s2, s3", "fadd s0, s0, s1", "str s")
PAIRS(s_px_add, "ldr s", "fmul s1, s2, s3", "fadd s0, s1, s0", "str s")
PAIRS(s_xp_sub, "ldr s", "fmul s1, s2, s3", "fsub s0, s0, s1", "str s")
PAIRS(s_px_sub, "ldr s", "fmul s1, s2, s3", "fsub s0, s1, s0", "str s")

typedef void (*pair_fn)(const uint64_t*, uint64_t, uint64_t, struct result*);
static const struct {
  const char* name;
  pair_fn one, two;
  int single;
} kPairs[] = {
    {"d x+p", d_xp_add_one, d_xp_add_two, 0}, {"d p+x", d_px_add_one, d_px_add_two, 0},
    {"d x-p", d_xp_sub_one, d_xp_sub_two, 0}, {"d p-x", d_px_sub_one, d_px_sub_two, 0},
    {"s x+p", s_xp_add_one, s_xp_add_two, 1}, {"s p+x", s_px_add_one, s_px_add_two, 1},
    {"s x-p", s_xp_sub_one, s_xp_sub_two, 1}, {"s p-x", s_px_sub_one, s_px_sub_two, 1},
};

static const uint64_t kDoubles[] = {
    0,                      // +0
    0x8000000000000000ull,  // -0
    0x3ff0000000000000ull,  // 1
    0xbff8000000000000ull,  // -1.5
    0x3fb999999999999aull,  // 0.1
    0x3fd5555555555555ull,  // 1/3
    0x0010000000000000ull,  // smallest normal
    0x0000000000000003ull,  // denormal
    0x7fefffffffffffffull,  // largest finite
    0x5fe0000000000000ull,  // 2^511: its square is near the top
    0x2000000000000000ull,  // 2^-511: its square is tiny
    0x7ff0000000000000ull,  // +inf
    0xfff0000000000000ull,  // -inf
    0x7ff8000000000123ull,  // quiet NaN with a payload
    0xfff0000000000456ull,  // signalling NaN with a payload, negative
    0x40091eb851eb851full,  // 3.14
};
static const uint32_t kSingles[] = {
    0,           0x80000000u, 0x3f800000u, 0xbfc00000u, 0x3dcccccdu, 0x3eaaaaabu, 0x00800000u, 0x00000003u,
    0x7f7fffffu, 0x5f000000u, 0x20000000u, 0x7f800000u, 0xff800000u, 0x7fc00123u, 0xff800456u, 0x4048f5c3u,
};
#define NVALUES (sizeof kDoubles / sizeof kDoubles[0])

static void compare_forms(void) {
  static const uint64_t kFpsr[] = {0, FPSR_IXC, FPSR_ALL};
  int mismatches = 0;
  long cases = 0;
  for (size_t p = 0; p < sizeof kPairs / sizeof kPairs[0]; ++p) {
    for (uint64_t rmode = 0; rmode < 4; ++rmode) {
      for (uint64_t modes = 0; modes < 4; ++modes) {
        const uint64_t fpcr =
            rmode << FPCR_RMODE_SHIFT | (modes & 1 ? FPCR_FZ : 0) | (modes & 2 ? FPCR_DN : 0);
        for (size_t f = 0; f < 3; ++f) {
          for (size_t i = 0; i < NVALUES; ++i) {
            for (size_t j = 0; j < NVALUES; ++j) {
              for (size_t k = 0; k < NVALUES; ++k) {
                uint64_t in[3];
                if (kPairs[p].single) {
                  in[0] = kSingles[i], in[1] = kSingles[j], in[2] = kSingles[k];
                } else {
                  in[0] = kDoubles[i], in[1] = kDoubles[j], in[2] = kDoubles[k];
                }
                struct result one, two;
                memset(&one, 0x55, sizeof one);
                memset(&two, 0xaa, sizeof two);
                kPairs[p].one(in, fpcr, kFpsr[f], &one);
                kPairs[p].two(in, fpcr, kFpsr[f], &two);
                if (kPairs[p].single) {
                  one.sum &= 0xffffffffu;
                  two.sum &= 0xffffffffu;
                }
                ++cases;
                if (memcmp(&one, &two, sizeof one) == 0) continue;
                if (++mismatches <= 10)
                  fprintf(stderr,
                          "%s (%#llx, %#llx, %#llx) fpcr %#llx fpsr %#llx: one block sum %#llx product "
                          "%#llx:%#llx "
                          "fpsr %#llx, two blocks %#llx %#llx:%#llx fpsr %#llx\n",
                          kPairs[p].name, (unsigned long long)in[0], (unsigned long long)in[1],
                          (unsigned long long)in[2], (unsigned long long)fpcr, (unsigned long long)kFpsr[f],
                          (unsigned long long)one.sum, (unsigned long long)one.product_lo,
                          (unsigned long long)one.product_hi, (unsigned long long)one.fpsr,
                          (unsigned long long)two.sum, (unsigned long long)two.product_lo,
                          (unsigned long long)two.product_hi, (unsigned long long)two.fpsr);
              }
            }
          }
        }
      }
    }
  }
  CHECK_EQ(mismatches, 0);
  CHECK_EQ(cases, 8L * 4 * 4 * 3 * NVALUES * NVALUES * NVALUES);
}

// Values worked out by hand, in one block (round to nearest, FZ and DN off, FPSR clear first).
static void known_values(void) {
  struct result r;
  // 2 * 3 + 1 = 7, exact: no flag; the product in d1, its upper half clear.
  const uint64_t exact[3] = {0x4000000000000000ull, 0x4008000000000000ull, 0x3ff0000000000000ull};
  d_xp_add_one(exact, 0, 0, &r);
  CHECK_EQ(r.sum, 0x401c000000000000ull);
  CHECK_EQ(r.product_lo, 0x4018000000000000ull);
  CHECK_EQ(r.product_hi, 0);
  CHECK_EQ(r.fpsr, 0);
  // 1 - 2*3 = -5 and 2*3 - 1 = 5.
  d_xp_sub_one(exact, 0, 0, &r);
  CHECK_EQ(r.sum, 0xc014000000000000ull);
  d_px_sub_one(exact, 0, 0, &r);
  CHECK_EQ(r.sum, 0x4014000000000000ull);
  // 0.1 * 3 + 0: inexact product (IXC), the sum is the product.
  const uint64_t tenth[3] = {0x3fb999999999999aull, 0x4008000000000000ull, 0};
  d_xp_add_one(tenth, 0, 0, &r);
  CHECK_EQ(r.product_lo, 0x3fd3333333333334ull);
  CHECK_EQ(r.sum, 0x3fd3333333333334ull);
  CHECK_EQ(r.fpsr, FPSR_IXC);
  // Two NaNs: the FADD's first operand's NaN wins when both are quiet. x + p: x's NaN; p + x: p's.
  const uint64_t nans[3] = {0x7ff8000000000111ull, 0x3ff0000000000000ull, 0x7ff8000000000222ull};
  d_xp_add_one(nans, 0, 0, &r);
  CHECK_EQ(r.product_lo, 0x7ff8000000000111ull);
  CHECK_EQ(r.sum, 0x7ff8000000000222ull);
  CHECK_EQ(r.fpsr, 0);
  d_px_add_one(nans, 0, 0, &r);
  CHECK_EQ(r.sum, 0x7ff8000000000111ull);
  // A signalling addend wins over a quiet product, quieted, with IOC.
  const uint64_t snan[3] = {0x7ff8000000000111ull, 0x3ff0000000000000ull, 0x7ff0000000000333ull};
  d_px_add_one(snan, 0, 0, &r);
  CHECK_EQ(r.sum, 0x7ff8000000000333ull);
  CHECK_EQ(r.fpsr, 1);
  // With DN, the default NaN.
  d_px_add_one(snan, FPCR_DN, 0, &r);
  CHECK_EQ(r.sum, 0x7ff8000000000000ull);
  // Single: 1.5 * 2 + 0.25 = 3.25; the product zero-extended in V1.
  const uint64_t single[3] = {0x3fc00000u, 0x40000000u, 0x3e800000u};
  s_xp_add_one(single, 0, 0, &r);
  CHECK_EQ(r.sum & 0xffffffffu, 0x40500000u);
  CHECK_EQ(r.product_lo, 0x40400000u);
  CHECK_EQ(r.product_hi, 0);
  CHECK_EQ(r.fpsr, 0);
  // 2^1023 * 2^1023 overflows to +inf (OFC, IXC); inf - 1 = inf.
  const uint64_t big[3] = {0x7fe0000000000000ull, 0x7fe0000000000000ull, 0x3ff0000000000000ull};
  d_px_sub_one(big, 0, 0, &r);
  CHECK_EQ(r.product_lo, 0x7ff0000000000000ull);
  CHECK_EQ(r.sum, 0x7ff0000000000000ull);
  CHECK_EQ(r.fpsr, 0x14);
}

// The product read again after the FADD, the product as both operands, the FADD writing the product's
// register, and four pairs in a row (a dot product), each against the split form's values.
static void around(void) {
  const uint64_t a = 0x3fb999999999999aull, b = 0x4008000000000000ull, x = 0x3ff8000000000000ull;
  uint64_t again, twice, into, dot, prod;
  __asm__ volatile(
      "msr fpsr, xzr\n\t"
      "fmov d2, %[a]\n\t"
      "fmov d3, %[b]\n\t"
      "fmov d0, %[x]\n\t"
      "fmul d1, d2, d3\n\t"
      "fadd d0, d0, d1\n\t"
      "fadd d4, d1, d1\n\t"  // the product again: 2 * 0.3
      "fmov %[again], d4\n\t"
      "fmul d1, d2, d3\n\t"
      "fadd d5, d1, d1\n\t"  // product and addend one register
      "fmov %[twice], d5\n\t"
      "fmul d1, d2, d3\n\t"
      "fadd d1, d1, d0\n\t"  // writes the product's register
      "fmov %[into], d1\n\t"
      "fmov d0, xzr\n\t"
      "fmul d1, d2, d3\n\t"
      "fadd d0, d0, d1\n\t"
      "fmul d1, d3, d3\n\t"
      "fadd d0, d0, d1\n\t"
      "fmul d1, d2, d2\n\t"
      "fadd d0, d0, d1\n\t"
      "fmul d1, d3, d2\n\t"
      "fadd d0, d0, d1\n\t"
      "fmov %[dot], d0\n\t"
      "fmov %[prod], d1\n\t"
      : [again] "=&r"(again), [twice] "=&r"(twice), [into] "=&r"(into), [dot] "=&r"(dot), [prod] "=&r"(prod)
      : [a] "r"(a), [b] "r"(b), [x] "r"(x)
      : "v0", "v1", "v2", "v3", "v4", "v5");
  CHECK_EQ(again, 0x3fe3333333333334ull);  // 0.30000000000000004 * 2
  CHECK_EQ(twice, 0x3fe3333333333334ull);
  CHECK_EQ(into, 0x4000cccccccccccdull);  // 0.3 + 1.8 = 2.1 (d0 = 1.5 + 0.3 = 1.8)
  CHECK_EQ(dot, 0x40233851eb851eb9ull);   // 0.3 + 9 + 0.01 + 0.3 = 9.61
  CHECK_EQ(prod, 0x3fd3333333333334ull);
}

// A fault between the FMUL and the FADD: the handler sees the product in V1 and FPSR with the FMUL's flags.
static volatile uint64_t seen_v1, seen_v1_hi, seen_fpsr;

static void on_segv(int sig, siginfo_t* si, void* ctx) {
  (void)sig, (void)si;
  ucontext_t* uc = ctx;
  const struct fpsimd_context* fp = (const struct fpsimd_context*)find_record(&uc->uc_mcontext, FPSIMD_MAGIC);
  if (fp != NULL) {
    uint64_t v[2];
    memcpy(v, &fp->vregs[1], sizeof v);
    seen_v1 = v[0];
    seen_v1_hi = v[1];
    seen_fpsr = fp->fpsr;
  }
  uc->uc_mcontext.pc += 4;
}

static void fault_between(void) {
  CHECK_EQ(set_siginfo_handler(SIGSEGV, on_segv), 0);
  uint64_t sum, junk, fpsr;
  // 0.1 * 3 (inexact: IXC), a faulting load, then 8 + the product. V1's upper half is set first: the FMUL
  // clears it.
  __asm__ volatile(
      "msr fpsr, xzr\n\t"
      "fmov d2, %[a]\n\t"
      "fmov d3, %[b]\n\t"
      "fmov d0, %[x]\n\t"
      "fmov d1, xzr\n\t"
      "mov v1.d[1], %[a]\n\t"
      "fmul d1, d2, d3\n\t"
      "ldr %[junk], [%[bad]]\n\t"
      "fadd d0, d0, d1\n\t"
      "fmov %[sum], d0\n\t"
      "mrs %[fpsr], fpsr\n\t"
      : [sum] "=&r"(sum), [junk] "=&r"(junk), [fpsr] "=&r"(fpsr)
      : [a] "r"(0x3fb999999999999aull), [b] "r"(0x4008000000000000ull), [x] "r"(0x4020000000000000ull),
        [bad] "r"(8ull)
      : "v0", "v1", "v2", "v3", "memory");
  CHECK_EQ(seen_v1, 0x3fd3333333333334ull);
  CHECK_EQ(seen_v1_hi, 0);
  CHECK_EQ(seen_fpsr, FPSR_IXC);
  CHECK_EQ(sum, 0x402099999999999aull);  // 8 + 0.30000000000000004 = 8.3
  CHECK_EQ(fpsr, FPSR_IXC);
  CHECK_EQ(set_siginfo_handler(SIGSEGV, NULL), 0);
}

int main(void) {
  for (int round = 0; round < 2; ++round) {  // the second round runs translated code again
    known_values();
    around();
    fault_between();
  }
  compare_forms();
  return check_done();
}
