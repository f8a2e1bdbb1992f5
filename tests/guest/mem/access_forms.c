// A generated corpus for the load and store forms: every addressing mode (immediate, unscaled, register
// with LSL, UXTW and SXTW, pre- and post-index), every size and sign extension into W and X registers,
// FP/SIMD registers from B to Q, LD1-LD4 and ST1-ST4 of whole registers, lanes and replicas, pairs,
// acquire/release, exclusives and the LSE atomics, each at pseudo-random addresses of any alignment
// (naturally aligned where the architecture requires it), often across a page boundary. Each case's result
// registers, written-back base and the bytes around the access go into one digest per form, and the
// buffer's final contents into one more; each must equal the digest recorded under qemu-aarch64 below.
// a64run gives the same with its direct memory access and through the softmmu TLB (A64RUN_SOFTMMU=1).
//
// usage: access_forms                 check every digest
//        access_forms --print         print the digests (the table below is this output under qemu-aarch64)
//        access_forms --dump NAME     print every case of one form, to diff two emulators
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "corpus.h"

enum { kPage = 4096, kCases = 20000 };

// io[0..3]: x2..x5 in (x3 a small signed index, x4 the same index in its low 32 bits under random upper
// bits); io[4..11]: q0..q3 in; io[12..15]: x6..x9 out (they start as x2..x5); io[16..23]: q0..q3 out.
// x0 is the address; the function returns it as the form left it.
typedef uint8_t* (*form_fn)(uint8_t* p, uint64_t* io);

#define FORM(NAME, BODY)                                                                           \
  static uint8_t* NAME(uint8_t* p, uint64_t* io) {                                                 \
    register uint8_t* x0 __asm__("x0") = p;                                                        \
    register uint64_t* x1 __asm__("x1") = io;                                                      \
    __asm__ volatile(                                                                              \
        ".arch_extension lse\n\t.arch_extension rcpc\n\t"                                          \
        "ldp x2, x3, [x1]\n\tldp x4, x5, [x1, #16]\n\t"                                            \
        "ldp q0, q1, [x1, #32]\n\tldp q2, q3, [x1, #64]\n\t"                                       \
        "mov x6, x2\n\tmov x7, x3\n\tmov x8, x4\n\tmov x9, x5\n\t" BODY                            \
        "\n\tstp x6, x7, [x1, #96]\n\tstp x8, x9, [x1, #112]\n\t"                                  \
        "stp q0, q1, [x1, #128]\n\tstp q2, q3, [x1, #160]"                                         \
        : "+r"(x0)                                                                                 \
        : "r"(x1)                                                                                  \
        : "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "v0", "v1", "v2", "v3", "memory", "cc"); \
    return x0;                                                                                     \
  }

// Loads into general registers.
FORM(ldrb_w, "ldrb w6, [x0]")
FORM(ldrsb_w, "ldrsb w6, [x0]")
FORM(ldrsb_x, "ldrsb x6, [x0]")
FORM(ldrh_w, "ldrh w6, [x0]")
FORM(ldrsh_w, "ldrsh w6, [x0]")
FORM(ldrsh_x, "ldrsh x6, [x0, #6]")
FORM(ldr_w, "ldr w6, [x0]")
FORM(ldrsw_x, "ldrsw x6, [x0, #12]")
FORM(ldr_x, "ldr x6, [x0]")
FORM(ldur_x, "ldur x6, [x0, #-3]")
FORM(ldursh_w, "ldursh w6, [x0, #-1]")
FORM(ldr_x_lsl, "ldr x6, [x0, x3, lsl #3]")
FORM(ldr_w_sxtw, "ldr w6, [x0, w4, sxtw #2]")
FORM(ldrsb_x_sxtw, "ldrsb x6, [x0, w4, sxtw]")
FORM(ldrh_uxtw, "and w7, w4, #15\n\tldrh w6, [x0, w7, uxtw #1]")
FORM(ldrsw_reg, "ldrsw x6, [x0, x3]")
FORM(ldr_x_pre, "ldr x6, [x0, #8]!")
FORM(ldr_x_post, "ldr x6, [x0], #-8")
FORM(ldrb_pre, "ldrb w6, [x0, #-1]!")
FORM(ldrsh_post, "ldrsh x6, [x0], #2")
FORM(ldp_x, "ldp x6, x7, [x0]")
FORM(ldp_x_pre, "ldp x6, x7, [x0, #-16]!")
FORM(ldp_w_post, "ldp w6, w7, [x0], #8")
FORM(ldpsw, "ldpsw x6, x7, [x0, #-8]")
FORM(ldnp_x, "ldnp x6, x7, [x0]")
// Loads into FP/SIMD registers.
FORM(ldr_b, "ldr b0, [x0]")
FORM(ldr_h, "ldr h1, [x0, #2]")
FORM(ldr_s, "ldr s2, [x0]")
FORM(ldr_d_lsl, "ldr d3, [x0, x3, lsl #3]")
FORM(ldr_q, "ldr q0, [x0]")
FORM(ldur_q, "ldur q1, [x0, #-5]")
FORM(ldr_q_post, "ldr q2, [x0], #16")
FORM(ldp_q, "ldp q0, q1, [x0]")
FORM(ldp_d_pre, "ldp d0, d1, [x0, #8]!")
FORM(ldp_s_post, "ldp s2, s3, [x0], #-8")
FORM(ld1_16b, "ld1 {v0.16b}, [x0]")
FORM(ld1_2x2d, "ld1 {v0.2d, v1.2d}, [x0], #32")
FORM(ld1_4x4s, "ld1 {v0.4s-v3.4s}, [x0]")
FORM(ld1_3x8b, "ld1 {v1.8b-v3.8b}, [x0], x3")
FORM(ld2_8h, "ld2 {v0.8h, v1.8h}, [x0]")
FORM(ld3_16b, "ld3 {v0.16b-v2.16b}, [x0], x3")
FORM(ld3_4s, "ld3 {v1.4s-v3.4s}, [x0], #48")
FORM(ld4_8b, "ld4 {v0.8b-v3.8b}, [x0]")
FORM(ld4_2d, "ld4 {v0.2d-v3.2d}, [x0]")
FORM(ld1_lane_s, "ld1 {v1.s}[2], [x0]")
FORM(ld1_lane_h_post, "ld1 {v2.h}[5], [x0], #2")
FORM(ld4_lane_b, "ld4 {v0.b-v3.b}[9], [x0]")
FORM(ld2_lane_d, "ld2 {v2.d, v3.d}[1], [x0], #16")
FORM(ld1r_4s, "ld1r {v0.4s}, [x0]")
FORM(ld2r_8h, "ld2r {v0.8h, v1.8h}, [x0]")
FORM(ld3r_2d, "ld3r {v1.2d-v3.2d}, [x0], x3")
FORM(ld4r_16b, "ld4r {v0.16b-v3.16b}, [x0]")
// Stores.
FORM(strb, "strb w2, [x0]")
FORM(strh, "strh w2, [x0, #-1]")
FORM(str_w, "str w2, [x0]")
FORM(str_x, "str x2, [x0]")
FORM(str_x_lsl, "str x2, [x0, x3, lsl #3]")
FORM(str_w_sxtw, "str w5, [x0, w4, sxtw #2]")
FORM(stur_x, "stur x2, [x0, #-7]")
FORM(str_x_pre, "str x2, [x0, #8]!")
FORM(strh_post, "strh w5, [x0], #-2")
FORM(stp_x, "stp x2, x5, [x0]")
FORM(stp_w_pre, "stp w2, w5, [x0, #-8]!")
FORM(stnp_x, "stnp x2, x5, [x0]")
FORM(str_b, "str b0, [x0]")
FORM(str_h, "str h1, [x0]")
FORM(str_s, "str s2, [x0, #4]")
FORM(str_d, "str d3, [x0]")
FORM(str_q, "str q0, [x0]")
FORM(stur_q, "stur q1, [x0, #-9]")
FORM(stp_q_post, "stp q0, q1, [x0], #32")
FORM(st1_16b, "st1 {v0.16b}, [x0]")
FORM(st1_4x4s, "st1 {v0.4s-v3.4s}, [x0]")
FORM(st2_8h, "st2 {v0.8h, v1.8h}, [x0]")
FORM(st3_16b_post, "st3 {v0.16b-v2.16b}, [x0], #48")
FORM(st4_4s, "st4 {v0.4s-v3.4s}, [x0]")
FORM(st4_8b_reg, "st4 {v0.8b-v3.8b}, [x0], x3")
FORM(st1_lane_d, "st1 {v1.d}[1], [x0]")
FORM(st4_lane_h, "st4 {v0.h-v3.h}[3], [x0]")
FORM(st3_lane_s_post, "st3 {v1.s-v3.s}[1], [x0], #12")
// A store and overlapping loads in one block.
FORM(store_then_loads, "str x2, [x0]\n\tldrb w6, [x0, #3]\n\tldrsh x7, [x0, #5]\n\tldr w8, [x0, #-2]")
FORM(stp_then_ldr, "stp x2, x5, [x0]\n\tldr x6, [x0, #4]\n\tldur q3, [x0, #-1]")
FORM(st1_then_ld2, "st1 {v0.16b, v1.16b}, [x0]\n\tld2 {v2.4s, v3.4s}, [x0]")
// Acquire/release, exclusives and atomics: naturally aligned (kAligned below).
FORM(ldar_x, "ldar x6, [x0]")
FORM(ldarb, "ldarb w6, [x0]")
FORM(ldaprh, "ldaprh w6, [x0]")
FORM(stlr_x, "stlr x2, [x0]")
FORM(stlrh, "stlrh w2, [x0]")
FORM(ldxr_stxr, "ldxr x6, [x0]\n\tstxr w7, x2, [x0]")
FORM(ldaxrb_stlxrb, "ldaxrb w6, [x0]\n\tadd w8, w6, w2\n\tstlxrb w7, w8, [x0]")
FORM(ldaxp_stlxp, "ldaxp x6, x7, [x0]\n\tstlxp w8, x2, x5, [x0]")
FORM(ldadd_x, "ldadd x2, x6, [x0]")
FORM(ldaddalh, "ldaddalh w2, w6, [x0]")
FORM(ldsetb, "ldsetb w2, w6, [x0]")
FORM(ldclr_w, "ldclr w2, w6, [x0]")
FORM(ldeoral_x, "ldeoral x2, x6, [x0]")
FORM(ldsmax_x, "ldsmax x2, x6, [x0]")
FORM(lduminh, "lduminh w2, w6, [x0]")
FORM(swpal_w, "swpal w2, w6, [x0]")
FORM(cas_hit, "ldr x6, [x0]\n\tcas x6, x2, [x0]")
FORM(casal_miss, "ldr w6, [x0]\n\teor w6, w6, #1\n\tcasal w6, w2, [x0]")
FORM(casp_x, "ldp x6, x7, [x0]\n\tmov x8, x2\n\tmov x9, x5\n\tcaspal x6, x7, x8, x9, [x0]")
FORM(stadd_w, "stadd w2, [x0]")

struct form {
  const char* name;
  form_fn fn;
  int align;  // the alignment the architecture requires of the address, 1 if none
};

#define E(NAME, ALIGN) \
  { #NAME, NAME, ALIGN }
static const struct form kForms[] = {
    E(ldrb_w, 1),
    E(ldrsb_w, 1),
    E(ldrsb_x, 1),
    E(ldrh_w, 1),
    E(ldrsh_w, 1),
    E(ldrsh_x, 1),
    E(ldr_w, 1),
    E(ldrsw_x, 1),
    E(ldr_x, 1),
    E(ldur_x, 1),
    E(ldursh_w, 1),
    E(ldr_x_lsl, 1),
    E(ldr_w_sxtw, 1),
    E(ldrsb_x_sxtw, 1),
    E(ldrh_uxtw, 1),
    E(ldrsw_reg, 1),
    E(ldr_x_pre, 1),
    E(ldr_x_post, 1),
    E(ldrb_pre, 1),
    E(ldrsh_post, 1),
    E(ldp_x, 1),
    E(ldp_x_pre, 1),
    E(ldp_w_post, 1),
    E(ldpsw, 1),
    E(ldnp_x, 1),
    E(ldr_b, 1),
    E(ldr_h, 1),
    E(ldr_s, 1),
    E(ldr_d_lsl, 1),
    E(ldr_q, 1),
    E(ldur_q, 1),
    E(ldr_q_post, 1),
    E(ldp_q, 1),
    E(ldp_d_pre, 1),
    E(ldp_s_post, 1),
    E(ld1_16b, 1),
    E(ld1_2x2d, 1),
    E(ld1_4x4s, 1),
    E(ld1_3x8b, 1),
    E(ld2_8h, 1),
    E(ld3_16b, 1),
    E(ld3_4s, 1),
    E(ld4_8b, 1),
    E(ld4_2d, 1),
    E(ld1_lane_s, 1),
    E(ld1_lane_h_post, 1),
    E(ld4_lane_b, 1),
    E(ld2_lane_d, 1),
    E(ld1r_4s, 1),
    E(ld2r_8h, 1),
    E(ld3r_2d, 1),
    E(ld4r_16b, 1),
    E(strb, 1),
    E(strh, 1),
    E(str_w, 1),
    E(str_x, 1),
    E(str_x_lsl, 1),
    E(str_w_sxtw, 1),
    E(stur_x, 1),
    E(str_x_pre, 1),
    E(strh_post, 1),
    E(stp_x, 1),
    E(stp_w_pre, 1),
    E(stnp_x, 1),
    E(str_b, 1),
    E(str_h, 1),
    E(str_s, 1),
    E(str_d, 1),
    E(str_q, 1),
    E(stur_q, 1),
    E(stp_q_post, 1),
    E(st1_16b, 1),
    E(st1_4x4s, 1),
    E(st2_8h, 1),
    E(st3_16b_post, 1),
    E(st4_4s, 1),
    E(st4_8b_reg, 1),
    E(st1_lane_d, 1),
    E(st4_lane_h, 1),
    E(st3_lane_s_post, 1),
    E(store_then_loads, 1),
    E(stp_then_ldr, 1),
    E(st1_then_ld2, 1),
    E(ldar_x, 8),
    E(ldarb, 1),
    E(ldaprh, 2),
    E(stlr_x, 8),
    E(stlrh, 2),
    E(ldxr_stxr, 8),
    E(ldaxrb_stlxrb, 1),
    E(ldaxp_stlxp, 16),
    E(ldadd_x, 8),
    E(ldaddalh, 2),
    E(ldsetb, 1),
    E(ldclr_w, 4),
    E(ldeoral_x, 8),
    E(ldsmax_x, 8),
    E(lduminh, 2),
    E(swpal_w, 4),
    E(cas_hit, 8),
    E(casal_miss, 4),
    E(casp_x, 16),
    E(stadd_w, 4),
};
#undef E
#define NFORMS (sizeof kForms / sizeof kForms[0])

// Two pages of data, with a page of margin on each side that no access reaches.
static uint8_t* g_buf;

static void fill_buffer(uint64_t seed) {
  corpus_state = seed;
  for (int i = 0; i < 2 * kPage; i += 8) {
    const uint64_t v = corpus_rnd();
    memcpy(g_buf + i, &v, 8);
  }
}

// The digest of one form's cases; with `dump`, prints each.
static uint64_t run_form(const struct form* f, int dump) {
  uint64_t h = 0xcbf29ce484222325ull;
  fill_buffer(corpus_seed(f->name));
  for (int i = 0; i < kCases; i++) {
    // An offset in [256, 2 pages - 256), a quarter of them within 40 bytes of the page boundary.
    uint64_t off =
        corpus_rnd() % 4 == 0 ? kPage - 40 + corpus_rnd() % 48 : 256 + corpus_rnd() % (2 * kPage - 512);
    off &= ~(uint64_t)(f->align - 1);
    const int64_t idx = (int64_t)(corpus_rnd() % 33) - 16;
    uint64_t io[24];
    io[0] = corpus_rnd();
    io[1] = (uint64_t)idx;
    io[2] = (corpus_rnd() << 32) | (uint32_t)idx;
    io[3] = corpus_rnd() % 3 == 0 ? io[0] : corpus_rnd();
    for (int j = 4; j < 12; j++) io[j] = corpus_rnd();
    uint8_t* const p = g_buf + off;
    uint8_t* const q = f->fn(p, io);
    h = corpus_mix(h, (uint64_t)(q - p));
    for (int j = 12; j < 24; j++) h = corpus_mix(h, io[j]);
    uint64_t around[12];
    memcpy(around, p - 32, sizeof around);
    for (int j = 0; j < 12; j++) h = corpus_mix(h, around[j]);
    if (dump) {
      printf("%s off=%llu idx=%lld in=%016llx:%016llx -> wb=%lld", f->name, (unsigned long long)off,
             (long long)idx, (unsigned long long)io[0], (unsigned long long)io[3], (long long)(q - p));
      for (int j = 12; j < 24; j++) printf(" %016llx", (unsigned long long)io[j]);
      printf("\n");
    }
  }
  for (int i = 0; i < 2 * kPage; i += 8) {
    uint64_t v;
    memcpy(&v, g_buf + i, 8);
    h = corpus_mix(h, v);
  }
  return h;
}

// access_forms --print under qemu-aarch64 7.2. a64run gives the same with direct memory access and with
// A64RUN_SOFTMMU=1.
static const struct corpus_digest kExpected[] = {
#include "access_forms_digests.h"
};

static const char* form_name(size_t i) {
  return kForms[i].name;
}

static uint64_t form_run(size_t i, int dump) {
  return run_form(&kForms[i], dump);
}

int main(int argc, char** argv) {
  uint8_t* m = mmap(NULL, 4 * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(m != MAP_FAILED);
  g_buf = m + kPage;
  return corpus_main(argc, argv, "mem/access_forms", NFORMS, form_name, form_run, kExpected,
                     sizeof kExpected / sizeof kExpected[0]);
}
