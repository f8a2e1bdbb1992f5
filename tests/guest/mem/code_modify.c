// Tests running generated code and changing it, as JIT compilers do: mprotect W^X flips, an RWX page
// rewritten in place, and a memfd mapped twice (write through one view, run through the other); each change
// is followed by __builtin___clear_cache (dc cvau / ic ivau) as the architecture requires.
#define _GNU_SOURCE
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"

#define kPage 4096L

typedef int (*IntFn)(void);

// Writes `mov w0, #value; ret` at code (through the writable view `write_view`).
static void emit_return(uint32_t* write_view, const uint32_t* code, unsigned value) {
  write_view[0] = 0x52800000u | (value & 0xffff) << 5;  // movz w0, #value
  write_view[1] = 0xd65f03c0u;                          // ret
  __builtin___clear_cache((char*)write_view, (char*)(write_view + 2));
  if (code != write_view) __builtin___clear_cache((char*)code, (char*)(code + 2));
}

// A function of many blocks, so that a stale translation of the start would show.
static void emit_sum_loop(uint32_t* w, const uint32_t* code, unsigned add) {
  w[0] = 0x52800000u;                        // movz w0, #0
  w[1] = 0x52800141u;                        // movz w1, #10
  w[2] = 0x11000000u | (add & 0xfff) << 10;  // add w0, w0, #add
  w[3] = 0x71000421u;                        // subs w1, w1, #1
  w[4] = 0x54ffffc1u;                        // b.ne -8 (back to the add)
  w[5] = 0xd65f03c0u;                        // ret
  __builtin___clear_cache((char*)w, (char*)(w + 6));
  if (code != w) __builtin___clear_cache((char*)code, (char*)(code + 6));
}

static void test_mprotect_flip(void) {
  uint32_t* code = mmap(NULL, kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(code != MAP_FAILED);
  for (unsigned v = 40; v < 45; v++) {
    CHECK_SYS(mprotect(code, kPage, PROT_READ | PROT_WRITE));
    emit_return(code, code, v);
    CHECK_SYS(mprotect(code, kPage, PROT_READ | PROT_EXEC));
    CHECK_EQ(((IntFn)code)(), v);
  }
  // munmap and a new mapping at the same address: the old translation must not survive.
  CHECK_SYS(munmap(code, kPage));
  uint32_t* again =
      mmap(code, kPage, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  REQUIRE(again == code);
  emit_return(again, again, 7);
  CHECK_EQ(((IntFn)again)(), 7);
  CHECK_SYS(munmap(again, kPage));
}

static void test_rwx_in_place(void) {
  uint32_t* code = mmap(NULL, kPage, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(code != MAP_FAILED);
  for (unsigned v = 1; v <= 5; v++) {
    emit_return(code, code, v);
    CHECK_EQ(((IntFn)code)(), v);
  }
  for (unsigned add = 1; add <= 3; add++) {
    emit_sum_loop(code + 64, code + 64, add);
    CHECK_EQ(((IntFn)(code + 64))(), 10 * add);
  }
  CHECK_SYS(munmap(code, kPage));
}

static void test_dual_mapping(void) {
  int fd = REQUIRE_SYS(memfd_create("jit", MFD_CLOEXEC));
  REQUIRE_SYS(ftruncate(fd, kPage));
  uint32_t* rw = mmap(NULL, kPage, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const uint32_t* rx = mmap(NULL, kPage, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
  REQUIRE(rw != MAP_FAILED && rx != MAP_FAILED);
  emit_return(rw, rx, 99);
  CHECK_EQ(((IntFn)rx)(), 99);
  // qemu-aarch64 7.2 keeps running the first translation: it treats `ic ivau` as a no-op and only notices
  // stores to code made through the address it translated from (it write-protects those host pages), not
  // through another mapping of the same memory. a64run must invalidate on ic ivau (DESIGN.md section 1).
  if (on_reference_qemu()) {
    NOTE("skipping code rewritten through a second mapping: qemu-aarch64 7.2 runs stale translations");
  } else {
    for (unsigned v = 100; v < 105; v++) {
      emit_return(rw, rx, v);
      CHECK_EQ(((IntFn)rx)(), v);
    }
    for (unsigned add = 1; add <= 3; add++) {
      emit_sum_loop(rw + 64, rx + 64, add);
      CHECK_EQ(((IntFn)(rx + 64))(), 10 * add);
    }
  }
  CHECK_SYS(munmap(rw, kPage));
  CHECK_SYS(munmap((void*)rx, kPage));
  CHECK_SYS(close(fd));
}

int main(void) {
  test_mprotect_flip();
  test_rwx_in_place();
  test_dual_mapping();
  return check_done();
}
