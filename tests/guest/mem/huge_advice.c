// Transparent huge page advice is part of a VMA's flags, as in Linux 6.7+: MAP_STACK makes a mapping
// VM_NOHUGEPAGE ("nh" in /proc/self/smaps, and the host gives it no 2 MiB pages, so a thread's stack costs
// 4 KiB at its first touch); madvise(MADV_HUGEPAGE) and MADV_NOHUGEPAGE set "hg" or "nh" on the range,
// splitting its VMAs and joining them with neighbours whose flags then agree; past a hole the VMAs are
// advised too and the answer is ENOMEM. The main thread's stack has neither flag. qemu-aarch64 7.2 ignores
// both advices (no split) and renders smaps without them: the flags and the line counts are checked only
// under a64run, the answers everywhere.
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "mem_util.h"

#define PAGE 4096ul

// Whether the VmFlags line of the smaps entry that contains addr names `flag` (1, 0; -1 when not found).
static int has_flag(const void* addr, const char* flag) {
  FILE* f = fopen("/proc/self/smaps", "r");
  if (!f) return -1;
  char line[512];
  int in = 0;
  int found = -1;
  while (fgets(line, sizeof line, f)) {
    unsigned long s, e;
    if (!isupper((unsigned char)line[0]) && sscanf(line, "%lx-%lx ", &s, &e) == 2) {  // a maps line
      in = s <= (unsigned long)addr && (unsigned long)addr < e;
      continue;
    }
    if (in && strncmp(line, "VmFlags:", 8) == 0) {
      char want[8];
      snprintf(want, sizeof want, " %s", flag);
      found = 0;
      for (const char* at = line + 8; (at = strstr(at, want)) != NULL; at += strlen(want)) {
        const char after = at[strlen(want)];
        if (after == ' ' || after == '\n' || after == '\0') found = 1;
      }
    }
  }
  fclose(f);
  return found;
}

int main(void) {
  const int exact = !on_reference_qemu();
  const size_t len = 12 * PAGE;
  char* p = free_range(len);
  // Six pages of MAP_STACK, then six plain ones: two VMAs (different flags never merge).
  REQUIRE(mmap(p, 6 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_STACK, -1,
               0) == p);
  char* q = p + 6 * PAGE;
  REQUIRE(mmap(q, 6 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == q);
  if (exact) {
    CHECK_EQ(has_flag(p, "nh"), 1);
    CHECK_EQ(has_flag(p, "hg"), 0);
    CHECK_EQ(has_flag(q, "nh"), 0);
    CHECK_EQ(has_flag(q, "hg"), 0);
    CHECK_EQ(maps_lines((uintptr_t)p, (uintptr_t)(p + len)), 2);
  }

  // MADV_HUGEPAGE in the middle of the plain VMA: three pieces, the middle one "hg".
  CHECK_EQ(madvise(q + 2 * PAGE, 2 * PAGE, MADV_HUGEPAGE), 0);
  if (exact) {
    CHECK_EQ(maps_lines((uintptr_t)q, (uintptr_t)(q + 6 * PAGE)), 3);
    CHECK_EQ(has_flag(q + 2 * PAGE, "hg"), 1);
    CHECK_EQ(has_flag(q + 2 * PAGE, "nh"), 0);
    CHECK_EQ(has_flag(q + 4 * PAGE, "hg"), 0);
  }
  // MADV_NOHUGEPAGE over it swaps the flag; the pieces stay (nh differs from none).
  CHECK_EQ(madvise(q + 2 * PAGE, 2 * PAGE, MADV_NOHUGEPAGE), 0);
  if (exact) {
    CHECK_EQ(has_flag(q + 2 * PAGE, "hg"), 0);
    CHECK_EQ(has_flag(q + 2 * PAGE, "nh"), 1);
    CHECK_EQ(maps_lines((uintptr_t)q, (uintptr_t)(q + 6 * PAGE)), 3);
  }
  // The rest of the plain VMA too: now all twelve pages are "nh", one VMA with the MAP_STACK part (untouched
  // memory: Linux joins no two VMAs that each have anonymous pages of their own).
  CHECK_EQ(madvise(q, 6 * PAGE, MADV_NOHUGEPAGE), 0);
  if (exact) {
    CHECK_EQ(maps_lines((uintptr_t)p, (uintptr_t)(p + len)), 1);
    CHECK_EQ(has_flag(q + 5 * PAGE, "nh"), 1);
  }
  memset(p, 7, len);

  // A hole: ENOMEM, and the VMAs on both sides of it take the advice.
  REQUIRE_SYS(munmap(p + 5 * PAGE, PAGE));
  // (qemu-aarch64 7.2 answers 0 to every madvise of a hole: target_madvise ignores the advice.)
  if (exact) {
    errno = 0;
    CHECK_EQ(madvise(p, len, MADV_HUGEPAGE), -1);
    CHECK_EQ(errno, ENOMEM);
    CHECK_EQ(has_flag(p, "hg"), 1);
    CHECK_EQ(has_flag(p + 6 * PAGE, "hg"), 1);
    CHECK_EQ(has_flag(p + 11 * PAGE, "nh"), 0);
    CHECK_EQ(maps_lines((uintptr_t)p, (uintptr_t)(p + len)), 2);
  }
  // The memory kept its contents through the splits and joins.
  for (size_t i = 0; i < len; i += PAGE) {
    if (i != 5 * PAGE) CHECK_EQ(p[i], 7);
  }
  // Bad advice arguments: an unaligned start, and a range of nothing mapped.
  errno = 0;
  CHECK_EQ(madvise(p + 1, PAGE, MADV_NOHUGEPAGE), -1);
  CHECK_EQ(errno, EINVAL);
  if (exact) {
    errno = 0;
    CHECK_EQ(madvise(p + 5 * PAGE, PAGE, MADV_NOHUGEPAGE), -1);
    CHECK_EQ(errno, ENOMEM);
  }
  REQUIRE_SYS(munmap(p, len));

  // The main thread's stack: no advice of either kind.
  int local = 1;
  if (exact) {
    CHECK_EQ(has_flag(&local, "nh"), 0);
    CHECK_EQ(has_flag(&local, "hg"), 0);
  }
  return check_done();
}
