// mseal(2) (Linux 6.10) as Linux gives it: the argument checks in do_mseal's order, ENOMEM for a range with a
// hole (and nothing sealed then), a seal that splits VMAs and shows as "sl" in /proc/self/smaps; then a
// sealed VMA cannot be unmapped, re-protected (even to the same protection), moved, resized, mapped over
// (mmap MAP_FIXED, shmat SHM_REMAP), shrunk by brk, or discarded by madvise while it is private anonymous
// read-only memory; its data stays readable and writable, fork keeps the seal, and the pages around it are
// free to change.
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "mem_util.h"

#ifndef SYS_mseal
#define SYS_mseal 462
#endif
#ifndef MADV_DONTNEED_LOCKED
#define MADV_DONTNEED_LOCKED 24
#endif

static long page;

static long do_mseal(void* addr, size_t len, unsigned long flags) {
  return syscall(SYS_mseal, addr, len, flags);
}

// Whether the smaps entry that starts at addr has "sl" in its VmFlags (-1: no such entry).
static int smaps_sealed(void* addr) {
  FILE* f = fopen("/proc/self/smaps", "r");
  if (f == NULL) return -1;
  char line[512];
  int in = 0, result = -1;
  while (fgets(line, sizeof line, f)) {
    unsigned long a, b;
    if (sscanf(line, "%lx-%lx ", &a, &b) == 2)
      in = a == (unsigned long)(uintptr_t)addr;  // an entry's first line
    if (in && strncmp(line, "VmFlags:", 8) == 0) result = strstr(line, " sl") != NULL;
  }
  fclose(f);
  return result;
}

static void errors(void) {
  char* p = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(p != MAP_FAILED);
  CHECK_ERRNO(do_mseal(p, page, 1), EINVAL);
  CHECK_ERRNO(do_mseal(p + 1, page, 0), EINVAL);
  CHECK_ERRNO(do_mseal(p, (size_t)-1, 0), EINVAL);               // rounds up to 0
  CHECK_ERRNO(do_mseal(p, (size_t) - (uintptr_t)p, 0), EINVAL);  // wraps to 0 exactly: end < start
  CHECK_EQ(do_mseal(p, 0, 0), 0);                                // an empty range
  CHECK_EQ(do_mseal((void*)(uintptr_t)page, 0, 0), 0);
  // A hole in the range: ENOMEM, and nothing of it is sealed.
  CHECK_SYS(munmap(p + 2 * page, page));
  CHECK_ERRNO(do_mseal(p, 4 * page, 0), ENOMEM);
  CHECK_ERRNO(do_mseal(p + 2 * page, page, 0), ENOMEM);
  CHECK_EQ(munmap(p, 2 * page), 0);
  CHECK_EQ(munmap(p + 3 * page, page), 0);
  CHECK_ERRNO(do_mseal((void*)0x7ffffffff000ul, page, 0), ENOMEM);  // unmapped user address
}

static void sealed_rules(void) {
  char* p = mmap(NULL, 6 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(p != MAP_FAILED);
  memset(p, 'a', 6 * page);
  char* s = p + 2 * page;  // the sealed middle: two pages
  CHECK_EQ(maps_lines((uintptr_t)p, (uintptr_t)(p + 6 * page)), 1);
  CHECK_EQ(do_mseal(s, 2 * page, 0), 0);
  CHECK_EQ(do_mseal(s, 2 * page, 0), 0);  // again: nothing changes
  CHECK_EQ(maps_lines((uintptr_t)p, (uintptr_t)(p + 6 * page)), 3);
  CHECK_EQ(smaps_sealed(s), 1);
  CHECK_EQ(smaps_sealed(p), 0);
  // The data is still the program's.
  CHECK_EQ(s[0], 'a');
  s[page] = 'b';
  CHECK_EQ(s[page], 'b');
  // Unmap, protect, move, resize, map over: EPERM, whole or in part, and nothing changes.
  CHECK_ERRNO(munmap(s, page), EPERM);
  CHECK_ERRNO(munmap(p, 6 * page), EPERM);
  CHECK_ERRNO(munmap(p + page, 2 * page), EPERM);
  CHECK_ERRNO(mprotect(s, page, PROT_READ), EPERM);
  CHECK_ERRNO(mprotect(s, 2 * page, PROT_READ | PROT_WRITE), EPERM);  // the same protection too
  CHECK_ERRNO(mprotect(p, 6 * page, PROT_READ), EPERM);
  CHECK(mremap(s, page, 2 * page, MREMAP_MAYMOVE) == MAP_FAILED && errno == EPERM);
  CHECK(mremap(s, 2 * page, page, 0) == MAP_FAILED && errno == EPERM);
  char* dest = free_range(2 * page);
  CHECK(mremap(s, 2 * page, 2 * page, MREMAP_MAYMOVE | MREMAP_FIXED, dest) == MAP_FAILED && errno == EPERM);
  // The sealed range as a destination.
  CHECK(mremap(p, page, page, MREMAP_MAYMOVE | MREMAP_FIXED, s) == MAP_FAILED && errno == EPERM);
  CHECK(mmap(s, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED &&
        errno == EPERM);
  CHECK(mmap(p, 3 * page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED &&
        errno == EPERM);
  CHECK_EQ(p[0], 'a');  // the failed MAP_FIXED left the page before the seal alone
  int id = shmget(IPC_PRIVATE, page, IPC_CREAT | 0600);
  if (id >= 0) {
    CHECK(shmat(id, s, SHM_REMAP) == (void*)-1 && errno == EPERM);
    shmctl(id, IPC_RMID, NULL);
  }
  CHECK_EQ(s[page], 'b');
  CHECK_EQ(smaps_sealed(s), 1);
  // Writable private memory may still be discarded; the pages come back zero.
  CHECK_EQ(madvise(s, page, MADV_DONTNEED), 0);
  CHECK_EQ(s[0], 0);
  CHECK_EQ(madvise(s, 2 * page, MADV_WILLNEED), 0);
  // The unsealed pages around it are free to change.
  CHECK_EQ(mprotect(p, page, PROT_READ), 0);
  CHECK_EQ(munmap(p, 2 * page), 0);
  CHECK_EQ(munmap(s + 2 * page, 2 * page), 0);
  CHECK_EQ(maps_lines((uintptr_t)p, (uintptr_t)(p + 6 * page)), 1);

  // A fork child has the seal.
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) _exit(munmap(s, 2 * page) == -1 && errno == EPERM && s[page] == 'b' ? 0 : 1);
  int st = -1;
  CHECK_EQ(waitpid(pid, &st, 0), pid);
  CHECK_EQ(st, 0);
}

// Read-only private anonymous memory sealed: the discarding advice is EPERM, the others are allowed.
static void read_only_discard(void) {
  char* r = mmap(NULL, 2 * page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(r != MAP_FAILED);
  CHECK_EQ(do_mseal(r, 2 * page, 0), 0);
  const int discard[] = {MADV_DONTNEED, MADV_FREE, MADV_DONTFORK, MADV_WIPEONFORK};
  for (size_t i = 0; i < sizeof discard / sizeof discard[0]; i++)
    CHECK_ERRNO(madvise(r, page, discard[i]), EPERM);
  CHECK_EQ(madvise(r, page, MADV_WILLNEED), 0);
  CHECK_EQ(madvise(r, page, MADV_NORMAL), 0);
  // Read-only shared memory is not "anonymous private": its pages may go.
  char* sh = mmap(NULL, page, PROT_READ, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  REQUIRE(sh != MAP_FAILED);
  CHECK_EQ(do_mseal(sh, page, 0), 0);
  CHECK_EQ(madvise(sh, page, MADV_DONTNEED), 0);
  // A writable page, then a sealed read-only one: MADV_DONTNEED over both discards the first, then stops
  // with EPERM (madvise_walk_vmas, Linux 6.12+).
  char* w = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(w != MAP_FAILED);
  memset(w, 'w', 2 * page);
  CHECK_SYS(mprotect(w + page, page, PROT_READ));
  CHECK_EQ(do_mseal(w + page, page, 0), 0);
  CHECK_ERRNO(madvise(w, 2 * page, MADV_DONTNEED), EPERM);
  CHECK_EQ(w[0], 0);
  CHECK_EQ(w[page], 'w');
}

// A tagged address (top byte set, bit 55 clear) is the untagged one.
static void tagged(void) {
  char* p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(p != MAP_FAILED);
  CHECK_EQ(do_mseal((void*)((uintptr_t)p | (0x5aul << 56)), page, 0), 0);
  CHECK_ERRNO(munmap(p, page), EPERM);
}

// The break cannot shrink into a sealed heap page; it still grows.
static void heap(void) {
  char* base = sbrk(0);
  char* top = (char*)(((uintptr_t)base + 3 * page) & ~(uintptr_t)(page - 1));
  REQUIRE(brk(top) == 0);
  char* sealed = top - page;
  if (sealed < base) return;
  CHECK_EQ(do_mseal(sealed, page, 0), 0);
  CHECK_EQ(syscall(SYS_brk, sealed), (long)top);  // refused: the old break comes back
  CHECK_EQ(syscall(SYS_brk, top + page), (long)(top + page));
  CHECK_EQ(syscall(SYS_brk, top), (long)top);  // the unsealed page above may go
}

int main(void) {
  page = sysconf(_SC_PAGESIZE);
  if (do_mseal(NULL, 0, 0) != 0 && errno == ENOSYS && on_reference_qemu()) {
    NOTE("qemu-aarch64 7.2 has no mseal (ENOSYS): nothing to check");
    return check_done();
  }
  errors();
  sealed_rules();
  read_only_discard();
  tagged();
  heap();
  return check_done();
}
