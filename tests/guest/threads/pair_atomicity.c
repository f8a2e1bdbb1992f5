// Tests that 16-byte values shared between threads never tear where the architecture says they cannot, and
// that AT_HWCAP promises no more than that. A writer thread keeps storing (v, v) to a 16-byte aligned pair
// while the main thread reads it; a read whose halves differ is torn.
// - Always: the pair read with LDXP/STXP (writing back what it read) and with CASPAL (compare with 0, swap
//   in 0), against a writer using STXP and CASPAL: single-copy atomic on every arm64 (the paths a program
//   without FEAT_LSE2, libatomic's __atomic_load_16 among them, takes).
// - When AT_HWCAP has USCAT (FEAT_LSE2): a plain LDP of two 64-bit registers at a 16-byte aligned address,
//   against a plain STP, is single-copy atomic too (Arm ARM B2.2.1.1), and a program may rely on it (GCC 13's
//   libatomic and Rust's portable-atomic read 16-byte atomics with one LDP then). a64run's LDP and STP are
//   two 8-byte accesses, so it must not claim USCAT; qemu-aarch64 7.2 does not either.
// - /proc/cpuinfo's Features line names uscat exactly when AT_HWCAP has the bit (not under qemu-aarch64).
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>

#include "check.h"

#ifndef HWCAP_USCAT
#define HWCAP_USCAT (1 << 25)
#endif

enum { kReads = 400000, kStores = 20000 };

typedef enum { kPlain, kExclusive, kCasp } Form;

static _Alignas(16) uint64_t cell[2];
static atomic_int stop;
static atomic_uint_fast64_t stores;  // the writer's stores so far
static Form writer_form;

static void store_plain(uint64_t v) {
  __asm__ volatile("stp %0, %0, [%1]" : : "r"(v), "r"(cell) : "memory");
}

static void store_exclusive(uint64_t v) {
  uint64_t a, b;
  uint32_t fail;
  do {
    __asm__ volatile(
        "ldxp %0, %1, [%3]\n"
        "stxp %w2, %4, %4, [%3]"
        : "=&r"(a), "=&r"(b), "=&r"(fail)
        : "r"(cell), "r"(v)
        : "memory");
  } while (fail);
}

// CASP wants even/odd register pairs, hence the fixed registers.
static void casp(uint64_t* lo, uint64_t* hi, uint64_t new_lo, uint64_t new_hi) {
  register uint64_t x0 __asm__("x0") = *lo;
  register uint64_t x1 __asm__("x1") = *hi;
  register uint64_t x2 __asm__("x2") = new_lo;
  register uint64_t x3 __asm__("x3") = new_hi;
  __asm__ volatile(".arch_extension lse\n caspal x0, x1, x2, x3, [%2]"
                   : "+r"(x0), "+r"(x1)
                   : "r"(cell), "r"(x2), "r"(x3)
                   : "memory");
  *lo = x0;
  *hi = x1;
}

static void store_casp(uint64_t v) {
  uint64_t lo = cell[0], hi = cell[1];
  for (;;) {
    const uint64_t want_lo = lo, want_hi = hi;
    casp(&lo, &hi, v, v);
    if (lo == want_lo && hi == want_hi) return;
  }
}

static void load_plain(uint64_t* a, uint64_t* b) {
  __asm__ volatile("ldp %0, %1, [%2]" : "=&r"(*a), "=&r"(*b) : "r"(cell) : "memory");
}

static void load_exclusive(uint64_t* a, uint64_t* b) {
  uint32_t fail;
  do {
    __asm__ volatile(
        "ldxp %0, %1, [%3]\n"
        "stxp %w2, %0, %1, [%3]"
        : "=&r"(*a), "=&r"(*b), "=&r"(fail)
        : "r"(cell)
        : "memory");
  } while (fail);
}

// Compares with (0, 0) and swaps in (0, 0): the pair is unchanged either way, and CASP returns it whole.
static void load_casp(uint64_t* a, uint64_t* b) {
  *a = 0;
  *b = 0;
  casp(a, b, 0, 0);
}

static void* writer(void* arg) {
  (void)arg;
  uint64_t v = 0;
  while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
    ++v;
    switch (writer_form) {
      case kPlain:
        store_plain(v);
        break;
      case kExclusive:
        store_exclusive(v);
        break;
      case kCasp:
        store_casp(v);
        break;
    }
    atomic_store_explicit(&stores, v, memory_order_relaxed);
  }
  return NULL;
}

// Reads the pair with `form` while a writer stores with the same form; returns the torn reads.
static long race(Form form, const char* name) {
  cell[0] = cell[1] = 0;
  writer_form = form;
  atomic_store(&stop, 0);
  atomic_store(&stores, 0);
  pthread_t t;
  CHECK_EQ(pthread_create(&t, NULL, writer, NULL), 0);
  while (atomic_load(&stores) < 1000) {
  }
  // At least kReads reads, and on until the writer has stored kStores times meanwhile (a loaded host may
  // keep it off a CPU for a while).
  const uint64_t before = atomic_load(&stores);
  long torn = 0, reads = 0;
  while (reads < kReads || atomic_load_explicit(&stores, memory_order_relaxed) - before < kStores) {
    uint64_t a, b;
    switch (form) {
      case kPlain:
        load_plain(&a, &b);
        break;
      case kExclusive:
        load_exclusive(&a, &b);
        break;
      case kCasp:
        load_casp(&a, &b);
        break;
    }
    if (a != b) ++torn;
    ++reads;
  }
  const uint64_t during = atomic_load(&stores) - before;
  atomic_store(&stop, 1);
  CHECK_EQ(pthread_join(t, NULL), 0);
  printf("%s: %ld torn of %ld reads, %llu stores meanwhile\n", name, torn, reads, (unsigned long long)during);
  return torn;
}

// Whether /proc/cpuinfo's first Features line names `flag` (a whole word).
static int cpuinfo_has(const char* flag) {
  FILE* f = fopen("/proc/cpuinfo", "r");
  CHECK(f != NULL);
  if (f == NULL) return -1;
  char line[4096];
  int found = -1;
  while (found < 0 && fgets(line, sizeof line, f)) {
    if (strncmp(line, "Features", 8) != 0) continue;
    found = 0;
    for (char* w = strtok(strchr(line, ':') + 1, " \t\n"); w != NULL; w = strtok(NULL, " \t\n"))
      if (strcmp(w, flag) == 0) found = 1;
  }
  fclose(f);
  CHECK_GE(found, 0);  // a Features line
  return found;
}

int main(void) {
  const int uscat = (getauxval(AT_HWCAP) & HWCAP_USCAT) != 0;
  // qemu-aarch64 7.2 shows the host's own /proc/cpuinfo (an x86-64 one: no Features line).
  if (!on_reference_qemu()) CHECK_EQ(cpuinfo_has("uscat"), uscat);
  CHECK_EQ(race(kExclusive, "LDXP/STXP"), 0);
  CHECK_EQ(race(kCasp, "CASPAL"), 0);
  if (uscat) {
    CHECK_EQ(race(kPlain, "LDP/STP, USCAT claimed"), 0);
  } else {
    // Not single-copy atomic without FEAT_LSE2: it may tear, and the count says nothing.
    (void)race(kPlain, "LDP/STP, no USCAT");
  }
  return check_done();
}
