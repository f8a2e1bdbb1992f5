// Stress test for code that changes under running threads: mapper threads keep replacing the code in a few
// executable pages (munmap then mmap of new file pages, MAP_FIXED straight over the live code, mprotect RW,
// rewrite, mprotect RX and cache maintenance) while caller threads call into those pages and return through
// them: each page holds a leaf function returning its version and a trampoline that calls another page's
// leaf and adds its own version, so a call's return lands in a page that may have been replaced meanwhile.
// Every call must return versions from the window its page can be in (at least the one published before the
// call, at most the one begun before it returned); a fault is allowed only on a page whose change began
// after the caller read its version. An emulator must drop every translation of the old code, in every
// thread, before the change returns, and never run or chain to a translation that is gone.
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define kPage 4096L
enum {
  kSlots = 4,  // executable pages; mapper m owns slots m and m + kMappers
  kMappers = 2,
  kCallers = 3,
  kChanges = 30,     // per mapper: each stops every thread, and each flush clears a translation buffer
  kTrampoline = 16,  // instruction index of the trampoline in a page
  kMethods = 3,
  kCodeBytes = (kTrampoline + 7) * 4,  // what emit() writes: cache maintenance covers that
};

typedef uint32_t (*LeafFn)(void);
typedef uint32_t (*TrampolineFn)(uint64_t unused, LeafFn leaf);

static char* slots;                    // kSlots pages
static atomic_uint begun[kSlots];      // version whose installation has started
static atomic_uint published[kSlots];  // version installed and visible to every thread
static atomic_int mappers_done;
static int memfds[kMappers];
static atomic_long file_pages[kMappers];

static inline void isb(void) {
  __asm__ volatile("isb" ::: "memory");
}

static char* slot_addr(int s) {
  return slots + s * kPage;
}

// Leaf (several chained blocks): movz w0, #v; a loop adding 3; minus 3; b .+4; ret. Trampoline: a frame,
// w9 = v, blr x1, w0 += w9 << 16, return.
static void emit(uint32_t* code, unsigned v) {
  static const uint32_t kLeafTail[] = {0x52800061u, 0x11000400u, 0x71000421u, 0x54ffffc1u,
                                       0x51000c00u, 0x14000001u, 0xd65f03c0u};
  code[0] = 0x52800000u | (v & 0xffff) << 5;
  memcpy(code + 1, kLeafTail, sizeof kLeafTail);
  code[kTrampoline + 0] = 0xa9bf7bfdu;  // stp x29, x30, [sp, #-16]!
  code[kTrampoline + 1] = 0x910003fdu;  // mov x29, sp
  code[kTrampoline + 2] = 0x52800009u | (v & 0xffff) << 5;
  code[kTrampoline + 3] = 0xd63f0020u;  // blr x1
  code[kTrampoline + 4] = 0x0b094000u;  // add w0, w0, w9, lsl #16
  code[kTrampoline + 5] = 0xa8c17bfdu;  // ldp x29, x30, [sp], #16
  code[kTrampoline + 6] = 0xd65f03c0u;  // ret
}

// A new page of the mapper's file with version v (never a page an older mapping still shows: MAP_PRIVATE
// pages not yet copied follow the file).
static off_t file_page_with(int m, unsigned v) {
  uint32_t code[kPage / 4] = {0};
  emit(code, v);
  const off_t off = atomic_fetch_add(&file_pages[m], 1) * kPage;
  REQUIRE(pwrite(memfds[m], code, sizeof code, off) == (ssize_t)sizeof code);
  return off;
}

static void install(int m, int s, unsigned v, int method) {
  char* at = slot_addr(s);
  if (method == 0) {  // unmap, then map a new file page
    const off_t off = file_page_with(m, v);
    REQUIRE(munmap(at, kPage) == 0);
    REQUIRE(mmap(at, kPage, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, memfds[m], off) == at);
  } else if (method == 1) {  // a new file page straight over the live one
    const off_t off = file_page_with(m, v);
    REQUIRE(mmap(at, kPage, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, memfds[m], off) == at);
  } else {  // rewrite in place behind mprotect
    REQUIRE(mprotect(at, kPage, PROT_READ | PROT_WRITE) == 0);
    emit((uint32_t*)at, v);
    REQUIRE(mprotect(at, kPage, PROT_READ | PROT_EXEC) == 0);
    __builtin___clear_cache(at, at + kCodeBytes);
  }
}

static void* mapper(void* arg) {
  const int m = (int)(intptr_t)arg;
  long wrong = 0;
  for (int i = 0; i < kChanges; i++) {
    const int s = m + (i % 2) * kMappers;
    const unsigned v = atomic_load(&begun[s]) + 1;
    atomic_store(&begun[s], v);
    install(m, s, v, (i / 2) % kMethods);
    isb();
    if (((LeafFn)slot_addr(s))() != v) wrong++;  // the thread that made the change sees it at once
    atomic_store(&published[s], v);
    sched_yield();
  }
  return (void*)wrong;
}

struct CallerStats {
  long calls, faults, wrong, bad_faults, saw_new;
};

static __thread sigjmp_buf fault_jump;
static __thread volatile int in_call;

static void on_segv(int sig, siginfo_t* si, void* uc) {
  (void)sig;
  (void)uc;
  const char* a = si->si_addr;
  if (!in_call || a < slots || a >= slots + kSlots * kPage) _exit(3);  // a fault outside the code pages
  siglongjmp(fault_jump, 1);
}

static void* caller(void* arg) {
  struct CallerStats* st = arg;
  unsigned seed = (unsigned)(uintptr_t)arg;
  while (!atomic_load(&mappers_done)) {
    seed = seed * 1103515245u + 12345u;
    const int a = (int)(seed >> 16) % kSlots;  // trampoline
    const int b = (int)(seed >> 20) % kSlots;  // leaf
    const unsigned pa = atomic_load(&published[a]), pb = atomic_load(&published[b]);
    isb();
    uint32_t r = 0;
    in_call = 1;
    const int faulted = sigsetjmp(fault_jump, 1);
    if (!faulted) r = ((TrampolineFn)(slot_addr(a) + kTrampoline * 4))(0, (LeafFn)slot_addr(b));
    in_call = 0;
    const unsigned qa = atomic_load(&begun[a]), qb = atomic_load(&begun[b]);
    if (faulted) {
      st->faults++;
      if (qa == pa && qb == pb) st->bad_faults++;  // neither page was being changed
      continue;
    }
    st->calls++;
    const unsigned ra = r >> 16, rb = r & 0xffff;
    if (ra < pa || ra > qa || rb < pb || rb > qb) {
      if (st->wrong++ == 0)
        NOTE("call through slot %d to slot %d returned versions %u, %u; windows [%u, %u], [%u, %u]", a, b, ra,
             rb, pa, qa, pb, qb);
    }
    if (rb > 1) st->saw_new++;
  }
  return NULL;
}

int main(void) {
  slots = mmap(NULL, kSlots * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(slots != MAP_FAILED);
  for (int s = 0; s < kSlots; s++) {
    emit((uint32_t*)slot_addr(s), 1);
    atomic_store(&begun[s], 1);
    atomic_store(&published[s], 1);
  }
  REQUIRE(mprotect(slots, kSlots * kPage, PROT_READ | PROT_EXEC) == 0);
  __builtin___clear_cache(slots, slots + kSlots * kPage);
  for (int m = 0; m < kMappers; m++) REQUIRE((memfds[m] = memfd_create("code_churn", MFD_CLOEXEC)) >= 0);
  struct sigaction sa = {0};
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  REQUIRE(sigaction(SIGSEGV, &sa, NULL) == 0);

  static struct CallerStats stats[kCallers];
  pthread_t callers[kCallers], mappers[kMappers];
  for (int c = 0; c < kCallers; c++) REQUIRE(pthread_create(&callers[c], NULL, caller, &stats[c]) == 0);
  for (int m = 0; m < kMappers; m++)
    REQUIRE(pthread_create(&mappers[m], NULL, mapper, (void*)(intptr_t)m) == 0);
  long mapper_wrong = 0;
  for (int m = 0; m < kMappers; m++) {
    void* w = NULL;
    REQUIRE(pthread_join(mappers[m], &w) == 0);
    mapper_wrong += (long)w;
  }
  atomic_store(&mappers_done, 1);
  struct CallerStats total = {0};
  for (int c = 0; c < kCallers; c++) {
    REQUIRE(pthread_join(callers[c], NULL) == 0);
    total.calls += stats[c].calls;
    total.faults += stats[c].faults;
    total.wrong += stats[c].wrong;
    total.bad_faults += stats[c].bad_faults;
    total.saw_new += stats[c].saw_new;
  }
  NOTE("%d changes; %ld calls (%ld saw a replaced leaf), %ld faults during changes", kMappers * kChanges,
       total.calls, total.saw_new, total.faults);
  CHECK_EQ(mapper_wrong, 0);
  CHECK_EQ(total.wrong, 0);
  CHECK_EQ(total.bad_faults, 0);
  // The callers ran all along and ran replaced code: the test exercised what it claims.
  CHECK(total.calls >= 100);
  CHECK(total.saw_new > 0);
  for (int s = 0; s < kSlots; s++) {
    isb();
    CHECK_EQ(((LeafFn)slot_addr(s))(), atomic_load(&published[s]));
  }
  return check_done();
}
