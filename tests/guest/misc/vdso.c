// Tests the vDSO a64run maps (AT_SYSINFO_EHDR): an ELF image whose dynamic symbols carry version
// LINUX_2.6.39, as glibc and Go look them up; __kernel_clock_gettime agrees with the system call for every
// clock it is asked (CLOCK_MONOTONIC from the counter, interleaved with the system call, never goes back),
// and returns -EINVAL for a bad clock; __kernel_gettimeofday and __kernel_clock_getres answer as the
// system calls do; a handler installed without SA_RESTORER returns through __kernel_rt_sigreturn.
// qemu-aarch64 7.2 maps no vDSO: the reference lane only checks that AT_SYSINFO_EHDR is absent there.
#define _GNU_SOURCE
#include <elf.h>
#include <signal.h>
#include <stdint.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static const uint8_t* base;

// Looks a symbol up the way Go's runtime does (vdso_linux.go): DT_HASH, then the version through
// DT_VERSYM and DT_VERDEF.
static void* lookup(const char* name, const char* version) {
  const Elf64_Ehdr* eh = (const Elf64_Ehdr*)base;
  const Elf64_Phdr* ph = (const Elf64_Phdr*)(base + eh->e_phoff);
  uint64_t load_offset = 0;
  const Elf64_Dyn* dyn = NULL;
  for (int i = 0; i < eh->e_phnum; i++) {
    if (ph[i].p_type == PT_LOAD && load_offset == 0)
      load_offset = (uint64_t)base + ph[i].p_offset - ph[i].p_vaddr;
    if (ph[i].p_type == PT_DYNAMIC) dyn = (const Elf64_Dyn*)(base + ph[i].p_offset);
  }
  if (!dyn) return NULL;
  const Elf64_Sym* syms = NULL;
  const char* strs = NULL;
  const uint32_t* hash = NULL;
  const uint16_t* versym = NULL;
  const Elf64_Verdef* verdef = NULL;
  for (; dyn->d_tag != DT_NULL; dyn++) {
    const void* p = (const void*)(load_offset + dyn->d_un.d_ptr);
    if (dyn->d_tag == DT_SYMTAB) syms = p;
    if (dyn->d_tag == DT_STRTAB) strs = p;
    if (dyn->d_tag == DT_HASH) hash = p;
    if (dyn->d_tag == DT_VERSYM) versym = p;
    if (dyn->d_tag == DT_VERDEF) verdef = p;
  }
  if (!syms || !strs || !hash || !versym || !verdef) return NULL;
  for (uint32_t i = 1; i < hash[1]; i++) {
    if (strcmp(strs + syms[i].st_name, name) != 0 || ELF64_ST_TYPE(syms[i].st_info) != STT_FUNC) continue;
    for (const Elf64_Verdef* d = verdef;; d = (const Elf64_Verdef*)((const char*)d + d->vd_next)) {
      const Elf64_Verdaux* aux = (const Elf64_Verdaux*)((const char*)d + d->vd_aux);
      if (d->vd_ndx == (versym[i] & 0x7fff) && strcmp(strs + aux->vda_name, version) == 0)
        return (void*)(load_offset + syms[i].st_value);
      if (d->vd_next == 0) break;
    }
  }
  return NULL;
}

static int64_t ns_of(struct timespec t) {
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

typedef int (*clock_gettime_fn)(clockid_t, struct timespec*);

static void test_clock_gettime(clock_gettime_fn vgettime) {
  // Interleaved with the system call, CLOCK_MONOTONIC never goes back.
  struct timespec a, b;
  int backwards = 0;
  int64_t last = 0;
  for (int i = 0; i < 20000; i++) {
    CHECK_EQ(vgettime(CLOCK_MONOTONIC, &a), 0);
    syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &b);
    if (ns_of(a) < last || ns_of(b) < ns_of(a)) backwards++;
    last = ns_of(b);
    if (check_failures) break;
  }
  CHECK_EQ(backwards, 0);
  CHECK(a.tv_nsec >= 0 && a.tv_nsec < 1000000000);

  // Every clock agrees with the system call (within 50 ms: the host may be busy).
  const clockid_t clocks[] = {CLOCK_REALTIME, CLOCK_MONOTONIC,       CLOCK_MONOTONIC_RAW,
                              CLOCK_BOOTTIME, CLOCK_REALTIME_COARSE, CLOCK_MONOTONIC_COARSE};
  for (size_t i = 0; i < sizeof clocks / sizeof clocks[0]; i++) {
    struct timespec v, s;
    CHECK_EQ(vgettime(clocks[i], &v), 0);
    CHECK_EQ(syscall(SYS_clock_gettime, clocks[i], &s), 0);
    const int64_t d = ns_of(s) - ns_of(v);
    if (!CHECK(d > -50000000 && d < 50000000))
      NOTE("clock %d: vDSO %lld, syscall %lld\n", clocks[i], (long long)ns_of(v), (long long)ns_of(s));
  }
  // The raw return value of the system call: -EINVAL, not -1 and errno.
  CHECK_EQ(vgettime(12345, &a), -EINVAL);

  // CLOCK_MONOTONIC advances with a sleep.
  CHECK_EQ(vgettime(CLOCK_MONOTONIC, &a), 0);
  usleep(20000);
  CHECK_EQ(vgettime(CLOCK_MONOTONIC, &b), 0);
  CHECK_GE(ns_of(b) - ns_of(a), 20000000);
  CHECK_LT(ns_of(b) - ns_of(a), 5000000000);
}

static void* volatile handler_lr;  // written by the handler: volatile, as C requires
static void on_usr1(int sig, siginfo_t* si, void* uc) {
  (void)sig;
  (void)si;
  (void)uc;
  handler_lr = __builtin_return_address(0);
}

// The kernel's struct sigaction for rt_sigaction: no SA_RESTORER, so the kernel (or a64run) picks the
// return path.
struct kernel_sigaction {
  void (*handler)(int, siginfo_t*, void*);
  unsigned long flags;
  void (*restorer)(void);
  uint64_t mask;
};

static void test_sigreturn(void* vsigreturn) {
  struct kernel_sigaction ka = {on_usr1, SA_SIGINFO, NULL, 0};
  REQUIRE(syscall(SYS_rt_sigaction, SIGUSR1, &ka, NULL, 8) == 0);
  handler_lr = NULL;
  raise(SIGUSR1);
  if (!CHECK(handler_lr == vsigreturn)) NOTE("lr %p, __kernel_rt_sigreturn %p\n", handler_lr, vsigreturn);
  signal(SIGUSR1, SIG_DFL);
}

int main(void) {
  base = (const uint8_t*)getauxval(AT_SYSINFO_EHDR);
  if (on_reference_qemu()) {
    NOTE("skipped under qemu: qemu-aarch64 7.2 maps no vDSO\n");
    CHECK(base == NULL);
    return check_done();
  }
  REQUIRE(base != NULL);
  CHECK_MEMEQ(base, ELFMAG, SELFMAG);
  clock_gettime_fn vgettime = (clock_gettime_fn)lookup("__kernel_clock_gettime", "LINUX_2.6.39");
  int (*vgettimeofday)(struct timeval*, void*) = lookup("__kernel_gettimeofday", "LINUX_2.6.39");
  int (*vgetres)(clockid_t, struct timespec*) = lookup("__kernel_clock_getres", "LINUX_2.6.39");
  void* vsigreturn = lookup("__kernel_rt_sigreturn", "LINUX_2.6.39");
  REQUIRE(vgettime && vgettimeofday && vgetres && vsigreturn);
  CHECK(lookup("__kernel_clock_gettime", "LINUX_2.6") == NULL);  // the version is checked

  test_clock_gettime(vgettime);

  struct timeval tv;
  struct timespec now;
  CHECK_EQ(vgettimeofday(&tv, NULL), 0);
  clock_gettime(CLOCK_REALTIME, &now);
  CHECK_LT(llabs((long long)now.tv_sec - (long long)tv.tv_sec), 2);
  struct timespec res = {-1, -1}, sres = {-2, -2};
  CHECK_EQ(vgetres(CLOCK_MONOTONIC, &res), 0);
  syscall(SYS_clock_getres, CLOCK_MONOTONIC, &sres);
  CHECK_EQ(res.tv_sec, sres.tv_sec);
  CHECK_EQ(res.tv_nsec, sres.tv_nsec);

  test_sigreturn(vsigreturn);

  // /proc/self/maps names it.
  FILE* maps = fopen("/proc/self/maps", "r");
  REQUIRE(maps != NULL);
  char line[512];
  int named = 0;
  while (fgets(line, sizeof line, maps)) {
    unsigned long lo, hi;
    if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo == (unsigned long)base)
      named = 1;
  }
  fclose(maps);
  CHECK(named);
  return check_done();
}
