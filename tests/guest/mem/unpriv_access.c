// The unprivileged loads and stores (LDTR, LDTRB, LDTRH, LDTRSB, LDTRSH, LDTRSW, STTR, STTRB, STTRH): at EL0
// they are ordinary loads and stores of their size, with the sign or zero extension of their form and a
// signed 9-bit offset. Over 600 pages (more than a small software TLB holds) each reads what a plain store
// wrote and writes what a plain load reads; into an unmapped page and a read-only page each faults with the
// signal Linux gives (SIGSEGV MAPERR, ACCERR) and the exact si_addr.
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"

#define kPage 4096UL
#define kPages 600

static uint64_t ldtr(const void* p) {
  uint64_t v;
  __asm__ volatile("ldtr %0, [%1]" : "=r"(v) : "r"(p) : "memory");
  return v;
}
static uint64_t ldtr_back8(const void* p) {  // the signed offset: [p - 8]
  uint64_t v;
  __asm__ volatile("ldtr %0, [%1, #-8]" : "=r"(v) : "r"(p) : "memory");
  return v;
}
static uint32_t ldtr_w(const void* p) {
  uint32_t v;
  __asm__ volatile("ldtr %w0, [%1]" : "=r"(v) : "r"(p) : "memory");
  return v;
}
static uint64_t ldtrb(const void* p) {
  uint64_t v;
  __asm__ volatile("ldtrb %w0, [%1]" : "=r"(v) : "r"(p) : "memory");
  return v;
}
static uint64_t ldtrh(const void* p) {
  uint64_t v;
  __asm__ volatile("ldtrh %w0, [%1]" : "=r"(v) : "r"(p) : "memory");
  return v;
}
static int64_t ldtrsb(const void* p) {
  int64_t v;
  __asm__ volatile("ldtrsb %0, [%1]" : "=r"(v) : "r"(p) : "memory");
  return v;
}
static int64_t ldtrsh(const void* p) {
  int64_t v;
  __asm__ volatile("ldtrsh %0, [%1]" : "=r"(v) : "r"(p) : "memory");
  return v;
}
static int64_t ldtrsw(const void* p) {
  int64_t v;
  __asm__ volatile("ldtrsw %0, [%1]" : "=r"(v) : "r"(p) : "memory");
  return v;
}
static void sttr(void* p, uint64_t v) {
  __asm__ volatile("sttr %1, [%0]" : : "r"(p), "r"(v) : "memory");
}
static void sttr_w(void* p, uint32_t v) {
  __asm__ volatile("sttr %w1, [%0]" : : "r"(p), "r"(v) : "memory");
}
static void sttrb(void* p, uint32_t v) {
  __asm__ volatile("sttrb %w1, [%0]" : : "r"(p), "r"(v) : "memory");
}
static void sttrh(void* p, uint32_t v) {
  __asm__ volatile("sttrh %w1, [%0]" : : "r"(p), "r"(v) : "memory");
}

static sigjmp_buf jump_back;
static siginfo_t last_info;
static volatile int faults;

static void on_segv(int sig, siginfo_t* info, void* ctx) {
  (void)sig;
  (void)ctx;
  last_info = *info;
  faults++;
  siglongjmp(jump_back, 1);
}

static void test_values(void) {
  char* base = mmap(NULL, kPages * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(base != MAP_FAILED);
  int bad = 0;
  for (int round = 0; round < 3; round++) {
    for (unsigned i = 0; i < kPages; i++) {
      char* p = base + i * kPage + 64 + (i % 7) * 8;
      const uint64_t v = 0x8091a2b3c4d5e6f7ULL ^ ((uint64_t)i << 20) ^ (uint64_t)round;
      memcpy(p, &v, 8);  // a plain store, read back by each form
      bad += ldtr(p) != v;
      bad += ldtr_back8(p + 8) != v;
      bad += ldtr_w(p) != (uint32_t)v;
      bad += ldtrb(p) != (v & 0xff);
      bad += ldtrh(p) != (v & 0xffff);
      bad += ldtrsb(p) != (int64_t)(int8_t)v;
      bad += ldtrsh(p) != (int64_t)(int16_t)v;
      bad += ldtrsw(p + 4) != (int64_t)(int32_t)(v >> 32);
      // Each store form, read back by a plain load.
      uint64_t got;
      sttr(p, ~v);
      memcpy(&got, p, 8);
      bad += got != ~v;
      sttr_w(p, 0x12345678u);
      memcpy(&got, p, 8);
      bad += got != ((~v & 0xffffffff00000000ULL) | 0x12345678u);
      sttrh(p + 2, 0xabcd);
      sttrb(p + 1, 0xee);
      memcpy(&got, p, 8);
      bad += got != ((~v & 0xffffffff00000000ULL) | 0xabcdee78u);
    }
  }
  CHECK_EQ(bad, 0);
  munmap(base, kPages * kPage);
}

static void test_faults(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  REQUIRE_SYS(sigaction(SIGSEGV, &sa, NULL));
  char* area = mmap(NULL, 2 * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(area != MAP_FAILED);
  area[0] = 5;
  REQUIRE_SYS(mprotect(area, kPage, PROT_READ));
  REQUIRE_SYS(munmap(area + kPage, kPage));
  char* volatile hole = area + kPage + 24;
  char* volatile ro = area + 16;

  faults = 0;
  if (sigsetjmp(jump_back, 1) == 0) (void)ldtr(hole);
  CHECK_EQ(faults, 1);
  CHECK_EQ(last_info.si_code, SEGV_MAPERR);
  CHECK_EQ(last_info.si_addr, (void*)hole);

  faults = 0;
  if (sigsetjmp(jump_back, 1) == 0) sttrb(ro, 1);
  CHECK_EQ(faults, 1);
  CHECK_EQ(last_info.si_code, SEGV_ACCERR);
  CHECK_EQ(last_info.si_addr, (void*)ro);
  CHECK_EQ(ldtrb(area), 5u);  // the read-only page reads

  faults = 0;
  if (sigsetjmp(jump_back, 1) == 0) sttr(hole, 1);
  CHECK_EQ(faults, 1);
  CHECK_EQ(last_info.si_code, SEGV_MAPERR);
  CHECK_EQ(last_info.si_addr, (void*)hole);
  munmap(area, kPage);
}

int main(void) {
  test_values();
  test_faults();
  return check_done();
}
