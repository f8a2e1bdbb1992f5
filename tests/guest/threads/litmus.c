// Litmus tests of arm64's memory model: store buffering (SB), message passing (MP), load buffering (LB),
// independent reads of independent writes (IRIW), 2+2W, R and S, each with the barriers, acquire/release
// accesses and dependencies arm64 programs use. Every test runs a fixed number of rounds (or for a fixed
// time), each round with fresh locations and threads started together; the outcomes are counted, and an
// outcome the architecture forbids fails the test. Outcomes it allows are printed, never required (they
// need the threads to overlap, which a loaded host may not give).
//
// On an x86-64 host only outcomes that need a store to pass a later load can appear at all (SB and R):
// those are the tests that show an emulator's fences (emu/memory_order.cpp). The others guard the
// translation of barriers and dependencies.
//
// usage: litmus [ROUNDS [SECONDS [PREFIX]]]   (per test; defaults 200000 and 1.5; only the tests whose
// name starts with PREFIX)
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

#define MAX_THREADS 4

// The two locations, a cache line each, and what each thread read.
struct locs {
  _Alignas(64) volatile uint32_t x;
  _Alignas(64) volatile uint32_t y;
};
static struct locs g_loc;
static uint32_t g_reg[MAX_THREADS][2];  // r0, r1 of each thread in this round

typedef void (*part_fn)(volatile uint32_t* x, volatile uint32_t* y, uint32_t* r);

// ---- Thread parts. Each gets x, y and its two result registers. ----
#define PART(name, body, ...)                                                 \
  static void name(volatile uint32_t* x, volatile uint32_t* y, uint32_t* r) { \
    uint32_t r0 = 0, r1 = 0;                                                  \
    __asm__ volatile(body                                                     \
                     : [r0] "=&r"(r0), [r1] "=&r"(r1)                         \
                     : [x] "r"(x), [y] "r"(y), [one] "r"(1u), [two] "r"(2u)   \
                     : "memory", "x16", "x17" __VA_ARGS__);                   \
    r[0] = r0;                                                                \
    r[1] = r1;                                                                \
  }

// SB: write one location, read the other.
PART(sb_plain_0, "str %w[one], [%[x]]\n ldr %w[r0], [%[y]]")
PART(sb_plain_1, "str %w[one], [%[y]]\n ldr %w[r0], [%[x]]")
PART(sb_dmb_0, "str %w[one], [%[x]]\n dmb ish\n ldr %w[r0], [%[y]]")
PART(sb_dmb_1, "str %w[one], [%[y]]\n dmb ish\n ldr %w[r0], [%[x]]")
PART(sb_dmbsy_0, "str %w[one], [%[x]]\n dsb sy\n ldr %w[r0], [%[y]]")
PART(sb_dmbsy_1, "str %w[one], [%[y]]\n dsb sy\n ldr %w[r0], [%[x]]")
PART(sb_dmbst_0, "str %w[one], [%[x]]\n dmb ishst\n ldr %w[r0], [%[y]]")
PART(sb_dmbst_1, "str %w[one], [%[y]]\n dmb ishst\n ldr %w[r0], [%[x]]")
PART(sb_dmbld_0, "str %w[one], [%[x]]\n dmb ishld\n ldr %w[r0], [%[y]]")
PART(sb_dmbld_1, "str %w[one], [%[y]]\n dmb ishld\n ldr %w[r0], [%[x]]")
PART(sb_relacq_0, "stlr %w[one], [%[x]]\n ldar %w[r0], [%[y]]")
PART(sb_relacq_1, "stlr %w[one], [%[y]]\n ldar %w[r0], [%[x]]")
PART(sb_relacqpc_0, ".arch_extension rcpc\n stlr %w[one], [%[x]]\n ldapr %w[r0], [%[y]]")
PART(sb_relacqpc_1, ".arch_extension rcpc\n stlr %w[one], [%[y]]\n ldapr %w[r0], [%[x]]")
// The store is a seq_cst exchange (LDAXR/STLXR loop), the load an LDAR.
PART(sb_xchg_0,
     "1: ldaxr w16, [%[x]]\n stlxr w17, %w[one], [%[x]]\n cbnz w17, 1b\n"
     " ldar %w[r0], [%[y]]")
PART(sb_xchg_1,
     "1: ldaxr w16, [%[y]]\n stlxr w17, %w[one], [%[y]]\n cbnz w17, 1b\n"
     " ldar %w[r0], [%[x]]")
PART(sb_swpal_0, ".arch_extension lse\n swpal %w[one], w16, [%[x]]\n ldar %w[r0], [%[y]]")
PART(sb_swpal_1, ".arch_extension lse\n swpal %w[one], w16, [%[y]]\n ldar %w[r0], [%[x]]")

// MP: thread 0 writes data (x) then flag (y); thread 1 reads flag then data.
PART(mp_w_plain, "str %w[one], [%[x]]\n str %w[one], [%[y]]")
PART(mp_w_dmb, "str %w[one], [%[x]]\n dmb ish\n str %w[one], [%[y]]")
PART(mp_w_dmbst, "str %w[one], [%[x]]\n dmb ishst\n str %w[one], [%[y]]")
PART(mp_w_rel, "str %w[one], [%[x]]\n stlr %w[one], [%[y]]")
PART(mp_r_plain, "ldr %w[r0], [%[y]]\n ldr %w[r1], [%[x]]")
PART(mp_r_dmb, "ldr %w[r0], [%[y]]\n dmb ish\n ldr %w[r1], [%[x]]")
PART(mp_r_dmbld, "ldr %w[r0], [%[y]]\n dmb ishld\n ldr %w[r1], [%[x]]")
PART(mp_r_acq, "ldar %w[r0], [%[y]]\n ldr %w[r1], [%[x]]")
PART(mp_r_acqpc, ".arch_extension rcpc\n ldapr %w[r0], [%[y]]\n ldr %w[r1], [%[x]]")
PART(mp_r_addr, "ldr %w[r0], [%[y]]\n eor x16, %x[r0], %x[r0]\n ldr %w[r1], [%[x], x16]")

// LB: read one location, then write the other.
PART(lb_plain_0, "ldr %w[r0], [%[x]]\n str %w[one], [%[y]]")
PART(lb_plain_1, "ldr %w[r0], [%[y]]\n str %w[one], [%[x]]")
PART(lb_dmb_0, "ldr %w[r0], [%[x]]\n dmb ish\n str %w[one], [%[y]]")
PART(lb_dmb_1, "ldr %w[r0], [%[y]]\n dmb ish\n str %w[one], [%[x]]")
PART(lb_acq_0, "ldar %w[r0], [%[x]]\n str %w[one], [%[y]]")
PART(lb_acq_1, "ldar %w[r0], [%[y]]\n str %w[one], [%[x]]")
PART(lb_rel_0, "ldr %w[r0], [%[x]]\n stlr %w[one], [%[y]]")
PART(lb_rel_1, "ldr %w[r0], [%[y]]\n stlr %w[one], [%[x]]")
PART(lb_data_0, "ldr %w[r0], [%[x]]\n eor w16, %w[r0], %w[r0]\n add w16, w16, #1\n str w16, [%[y]]")
PART(lb_data_1, "ldr %w[r0], [%[y]]\n eor w16, %w[r0], %w[r0]\n add w16, w16, #1\n str w16, [%[x]]")

// IRIW: two writers, two readers reading in opposite orders.
PART(iriw_wx, "str %w[one], [%[x]]")
PART(iriw_wy, "str %w[one], [%[y]]")
PART(iriw_acq_xy, "ldar %w[r0], [%[x]]\n ldar %w[r1], [%[y]]")
PART(iriw_acq_yx, "ldar %w[r0], [%[y]]\n ldar %w[r1], [%[x]]")
PART(iriw_dmb_xy, "ldr %w[r0], [%[x]]\n dmb ish\n ldr %w[r1], [%[y]]")
PART(iriw_dmb_yx, "ldr %w[r0], [%[y]]\n dmb ish\n ldr %w[r1], [%[x]]")
PART(iriw_addr_xy, "ldr %w[r0], [%[x]]\n eor x16, %x[r0], %x[r0]\n ldr %w[r1], [%[y], x16]")
PART(iriw_addr_yx, "ldr %w[r0], [%[y]]\n eor x16, %x[r0], %x[r0]\n ldr %w[r1], [%[x], x16]")

// 2+2W: each thread writes both locations, in opposite orders, 1 then 2.
PART(w22_dmb_0, "str %w[one], [%[x]]\n dmb ish\n str %w[two], [%[y]]")
PART(w22_dmb_1, "str %w[one], [%[y]]\n dmb ish\n str %w[two], [%[x]]")
PART(w22_dmbst_0, "str %w[one], [%[x]]\n dmb ishst\n str %w[two], [%[y]]")
PART(w22_dmbst_1, "str %w[one], [%[y]]\n dmb ishst\n str %w[two], [%[x]]")
PART(w22_rel_0, "str %w[one], [%[x]]\n stlr %w[two], [%[y]]")
PART(w22_rel_1, "str %w[one], [%[y]]\n stlr %w[two], [%[x]]")

// R: thread 0 writes x then y = 1; thread 1 writes y = 2, then reads x.
PART(r_w_dmb, "str %w[one], [%[x]]\n dmb ish\n str %w[one], [%[y]]")
PART(r_w_rel, "str %w[one], [%[x]]\n stlr %w[one], [%[y]]")
PART(r_r_dmb, "str %w[two], [%[y]]\n dmb ish\n ldr %w[r0], [%[x]]")
PART(r_r_relacq, "stlr %w[two], [%[y]]\n ldar %w[r0], [%[x]]")
PART(r_r_relacqpc, ".arch_extension rcpc\n stlr %w[two], [%[y]]\n ldapr %w[r0], [%[x]]")

// S: thread 0 writes x = 2 then y = 1; thread 1 reads y, then writes x = 1.
PART(s_w_dmb, "str %w[two], [%[x]]\n dmb ish\n str %w[one], [%[y]]")
PART(s_w_rel, "str %w[two], [%[x]]\n stlr %w[one], [%[y]]")
PART(s_r_dmb, "ldr %w[r0], [%[y]]\n dmb ish\n str %w[one], [%[x]]")
PART(s_r_data, "ldr %w[r0], [%[y]]\n eor w16, %w[r0], %w[r0]\n add w16, w16, #1\n str w16, [%[x]]")
PART(s_r_acq, "ldar %w[r0], [%[y]]\n str %w[one], [%[x]]")

// ---- Outcomes. ----
struct outcome {
  uint32_t r[MAX_THREADS][2];
  uint32_t x, y;  // final values
};
typedef int (*forbid_fn)(const struct outcome* o);  // 1 if the outcome is forbidden

static int sb_forbidden(const struct outcome* o) {
  return o->r[0][0] == 0 && o->r[1][0] == 0;
}
static int mp_forbidden(const struct outcome* o) {
  return o->r[1][0] == 1 && o->r[1][1] == 0;
}
static int lb_forbidden(const struct outcome* o) {
  return o->r[0][0] == 1 && o->r[1][0] == 1;
}
static int iriw_forbidden(const struct outcome* o) {
  return o->r[2][0] == 1 && o->r[2][1] == 0 && o->r[3][0] == 1 && o->r[3][1] == 0;
}
static int w22_forbidden(const struct outcome* o) {
  return o->x == 1 && o->y == 1;
}
static int r_forbidden(const struct outcome* o) {
  return o->y == 2 && o->r[1][0] == 0;
}
static int s_forbidden(const struct outcome* o) {
  return o->x == 2 && o->r[1][0] == 1;
}
static int nothing_forbidden(const struct outcome* o) {
  (void)o;
  return 0;
}

// The relaxed outcome a test would show if its barriers were missing: counted to show the test ran threads
// that overlapped (on an x86 host it appears only for the SB and R shapes).
struct test {
  const char* name;
  int nthreads;
  part_fn part[MAX_THREADS];
  forbid_fn forbidden;  // arm64 forbids the outcome
  forbid_fn relaxed;    // the shape's interesting outcome, printed with its count
  int qemu_bug;         // qemu-aarch64 (7.2) shows the forbidden outcome: its STLR/LDAR fences (see main)
};

static const struct test kTests[] = {
    {"SB", 2, {sb_plain_0, sb_plain_1}, nothing_forbidden, sb_forbidden, 0},
    {"SB+dmb.ish", 2, {sb_dmb_0, sb_dmb_1}, sb_forbidden, sb_forbidden, 0},
    {"SB+dsb.sy", 2, {sb_dmbsy_0, sb_dmbsy_1}, sb_forbidden, sb_forbidden, 0},
    {"SB+dmb.ishst", 2, {sb_dmbst_0, sb_dmbst_1}, nothing_forbidden, sb_forbidden, 0},
    {"SB+dmb.ishld", 2, {sb_dmbld_0, sb_dmbld_1}, nothing_forbidden, sb_forbidden, 0},
    {"SB+stlr+ldar", 2, {sb_relacq_0, sb_relacq_1}, sb_forbidden, sb_forbidden, 1},
    {"SB+stlr+ldapr", 2, {sb_relacqpc_0, sb_relacqpc_1}, nothing_forbidden, sb_forbidden, 0},
    {"SB+ldaxr/stlxr+ldar", 2, {sb_xchg_0, sb_xchg_1}, sb_forbidden, sb_forbidden, 0},
    {"SB+swpal+ldar", 2, {sb_swpal_0, sb_swpal_1}, sb_forbidden, sb_forbidden, 0},
    {"SB+stlr+ldar/dmb.ish", 2, {sb_relacq_0, sb_dmb_1}, sb_forbidden, sb_forbidden, 1},
    {"MP", 2, {mp_w_plain, mp_r_plain}, nothing_forbidden, mp_forbidden, 0},
    {"MP+dmb.ish+dmb.ish", 2, {mp_w_dmb, mp_r_dmb}, mp_forbidden, mp_forbidden, 0},
    {"MP+dmb.ishst+dmb.ishld", 2, {mp_w_dmbst, mp_r_dmbld}, mp_forbidden, mp_forbidden, 0},
    {"MP+stlr+ldar", 2, {mp_w_rel, mp_r_acq}, mp_forbidden, mp_forbidden, 0},
    {"MP+stlr+ldapr", 2, {mp_w_rel, mp_r_acqpc}, mp_forbidden, mp_forbidden, 0},
    {"MP+stlr+addr", 2, {mp_w_rel, mp_r_addr}, mp_forbidden, mp_forbidden, 0},
    {"LB", 2, {lb_plain_0, lb_plain_1}, nothing_forbidden, lb_forbidden, 0},
    {"LB+dmb.ish", 2, {lb_dmb_0, lb_dmb_1}, lb_forbidden, lb_forbidden, 0},
    {"LB+ldar", 2, {lb_acq_0, lb_acq_1}, lb_forbidden, lb_forbidden, 0},
    {"LB+stlr", 2, {lb_rel_0, lb_rel_1}, lb_forbidden, lb_forbidden, 0},
    {"LB+data", 2, {lb_data_0, lb_data_1}, lb_forbidden, lb_forbidden, 0},
    {"IRIW+ldar", 4, {iriw_wx, iriw_wy, iriw_acq_xy, iriw_acq_yx}, iriw_forbidden, iriw_forbidden, 0},
    {"IRIW+dmb.ish", 4, {iriw_wx, iriw_wy, iriw_dmb_xy, iriw_dmb_yx}, iriw_forbidden, iriw_forbidden, 0},
    {"IRIW+addr", 4, {iriw_wx, iriw_wy, iriw_addr_xy, iriw_addr_yx}, iriw_forbidden, iriw_forbidden, 0},
    {"2+2W+dmb.ish", 2, {w22_dmb_0, w22_dmb_1}, w22_forbidden, w22_forbidden, 0},
    {"2+2W+dmb.ishst", 2, {w22_dmbst_0, w22_dmbst_1}, w22_forbidden, w22_forbidden, 0},
    {"2+2W+stlr", 2, {w22_rel_0, w22_rel_1}, w22_forbidden, w22_forbidden, 0},
    {"R+dmb.ish+dmb.ish", 2, {r_w_dmb, r_r_dmb}, r_forbidden, r_forbidden, 0},
    {"R+stlr+stlr.ldar", 2, {r_w_rel, r_r_relacq}, r_forbidden, r_forbidden, 1},
    {"R+stlr+stlr.ldapr", 2, {r_w_rel, r_r_relacqpc}, nothing_forbidden, r_forbidden, 0},
    {"S+dmb.ish+dmb.ish", 2, {s_w_dmb, s_r_dmb}, s_forbidden, s_forbidden, 0},
    {"S+stlr+data", 2, {s_w_rel, s_r_data}, s_forbidden, s_forbidden, 0},
    {"S+stlr+ldar", 2, {s_w_rel, s_r_acq}, s_forbidden, s_forbidden, 0},
};

// ---- The harness: rounds started together, the last thread to finish a round starts the next. ----
static const struct test* g_test;
static _Alignas(64) atomic_uint g_round;    // the round the threads may run
static _Alignas(64) atomic_uint g_arrived;  // threads done with the current round
static long g_rounds;
static int64_t g_deadline;
static long g_done_rounds, g_forbidden, g_relaxed;

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

// Called by the last thread of a round, alone: count the round's outcome, reset, open the next round.
static void close_round(unsigned round) {
  struct outcome o;
  memcpy(o.r, g_reg, sizeof o.r);
  o.x = g_loc.x;
  o.y = g_loc.y;
  g_done_rounds++;
  if (g_test->forbidden(&o)) g_forbidden++;
  if (g_test->relaxed(&o)) g_relaxed++;
  g_loc.x = 0;
  g_loc.y = 0;
  memset(g_reg, 0, sizeof g_reg);
  const int more = (long)round < g_rounds && ((round & 63) != 0 || now_ns() < g_deadline);
  atomic_store_explicit(&g_arrived, 0, memory_order_relaxed);
  atomic_store_explicit(&g_round, more ? round + 1 : 0, memory_order_release);
}

static void* thread_main(void* arg) {
  const int me = (int)(intptr_t)arg;
  uint32_t rnd = 0x9e3779b9u * (uint32_t)(me + 1);
  for (unsigned round = 1;; round++) {
    // Spin for the round to open; yield after a while, for a thread that waits for this CPU.
    unsigned seen;
    for (int spin = 0; (seen = atomic_load_explicit(&g_round, memory_order_acquire)) != round && seen != 0;) {
      if (++spin > 2000) sched_yield();
    }
    if (seen == 0) break;
    // A short random delay, so the threads' starts slide over each other from round to round.
    rnd ^= rnd << 13;
    rnd ^= rnd >> 17;
    rnd ^= rnd << 5;
    for (volatile unsigned spin = rnd & 63; spin != 0; spin--) {
    }
    g_test->part[me](&g_loc.x, &g_loc.y, g_reg[me]);
    if (atomic_fetch_add_explicit(&g_arrived, 1, memory_order_acq_rel) + 1 == (unsigned)g_test->nthreads)
      close_round(round);
  }
  return NULL;
}

int main(int argc, char** argv) {
  g_rounds = argc > 1 ? atol(argv[1]) : 200000;
  const double seconds = argc > 2 ? atof(argv[2]) : 1.5;
  const char* prefix = argc > 3 ? argv[3] : "";
  for (size_t t = 0; t < sizeof kTests / sizeof kTests[0]; t++) {
    g_test = &kTests[t];
    if (strncmp(g_test->name, prefix, strlen(prefix)) != 0) continue;
    g_done_rounds = g_forbidden = g_relaxed = 0;
    g_deadline = now_ns() + (int64_t)(seconds * 1e9);
    memset(g_reg, 0, sizeof g_reg);
    g_loc.x = g_loc.y = 0;
    atomic_store(&g_arrived, 0);
    atomic_store(&g_round, 1);
    pthread_t th[MAX_THREADS];
    for (int i = 0; i < g_test->nthreads; i++)
      CHECK_EQ(pthread_create(&th[i], NULL, thread_main, (void*)(intptr_t)i), 0);
    for (int i = 0; i < g_test->nthreads; i++) pthread_join(th[i], NULL);
    printf("%-24s %7ld rounds, relaxed outcome %6ld, forbidden %ld%s\n", g_test->name, g_done_rounds,
           g_relaxed, g_forbidden, g_test->forbidden == nothing_forbidden ? " (none forbidden)" : "");
    fflush(stdout);
    CHECK_GT(g_done_rounds, 0);
    // qemu-aarch64 7.2 emits a release store's fence before the store and an acquire load's after the load
    // (target/arm/translate-a64.c), so an STLR and a later LDAR can be reordered on an x86 host: its known
    // bug, the one a64run had too. The reference lane counts it but does not fail on it.
    if (g_test->qemu_bug && on_reference_qemu()) {
      if (g_forbidden)
        NOTE("%s: %ld forbidden outcomes (qemu-aarch64's STLR/LDAR bug)", g_test->name, g_forbidden);
      continue;
    }
    if (!CHECK_EQ(g_forbidden, 0)) fprintf(stderr, "  %s: arm64 forbids that outcome\n", g_test->name);
  }
  return check_done();
}
