// The syscall fuzzer (a guest program): a seeded sequence of system calls with arguments drawn from pools of
// interesting values (tests/sysfuzz/gen.c), each made with every register set to a pattern and checked
// afterwards, with canaries in the program's data, bss, heap and stack checked too. Every call is recorded in
// a ring in memory shared with the runner (ring.h) before it starts and when it returns. The same seed makes
// the same calls: a failing seed replays exactly.
//
// usage: sysfuzz --ring-fd FD --scratch DIR [--seed N] [--calls N] [--mode fuzz|qemu|native]
// It uses no libc after its setup (no malloc, no stdio): the heap canary and the break stay its own.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "sysfuzz.h"

// --- canaries: the fuzzer's own memory, which no call it makes may change ---
#define CANARY_WORDS 128
#define CANARY(i) (0x5ca1ab1e00000000ULL ^ ((uint64_t)(i)*0x9e3779b97f4a7c15ULL))
static uint64_t data_canary[CANARY_WORDS] = {[0 ... CANARY_WORDS - 1] = 0x0123456789abcdefULL};
static uint64_t bss_canary[CANARY_WORDS];
static uint64_t* heap_canary;  // in the break area, above the program's own
#define HEAP_CANARY_BYTES (2 * PAGE)
static uint64_t* stack_canary;
static uint64_t stack_canary_seed;

static struct fuzz g_fuzz;
static volatile uint64_t g_signals_handled;

uint64_t rng_next(struct rng* r) {
  const uint64_t result = ((r->s[1] * 5) << 7 | (r->s[1] * 5) >> 57) * 9;
  const uint64_t t = r->s[1] << 17;
  r->s[2] ^= r->s[0];
  r->s[3] ^= r->s[1];
  r->s[1] ^= r->s[2];
  r->s[0] ^= r->s[3];
  r->s[2] ^= t;
  r->s[3] = r->s[3] << 45 | r->s[3] >> 19;
  return result;
}

void rng_seed(struct rng* r, uint64_t seed) {
  for (int i = 0; i < 4; i++) {  // splitmix64
    seed += 0x9e3779b97f4a7c15ULL;
    uint64_t z = seed;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    r->s[i] = z ^ (z >> 31);
  }
}

void fill_random(struct rng* r, void* p, size_t n) {
  uint8_t* b = p;
  while (n >= 8) {
    const uint64_t v = rng_next(r);
    memcpy(b, &v, 8);
    b += 8;
    n -= 8;
  }
  if (n) {
    const uint64_t v = rng_next(r);
    memcpy(b, &v, n);
  }
}

// A system call without libc: no errno (child threads share this thread's TLS), the result or -errno.
int64_t raw6(long nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5) {
#if defined(__aarch64__)
  register uint64_t x8 __asm__("x8") = (uint64_t)nr;
  register uint64_t x0 __asm__("x0") = a0;
  register uint64_t x1 __asm__("x1") = a1;
  register uint64_t x2 __asm__("x2") = a2;
  register uint64_t x3 __asm__("x3") = a3;
  register uint64_t x4 __asm__("x4") = a4;
  register uint64_t x5 __asm__("x5") = a5;
  __asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5) : "memory");
  return (int64_t)x0;
#elif defined(__x86_64__)
  register uint64_t r10 __asm__("r10") = a3;
  register uint64_t r8 __asm__("r8") = a4;
  register uint64_t r9 __asm__("r9") = a5;
  uint64_t ret;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"(nr), "D"(a0), "S"(a1), "d"(a2), "r"(r10), "r"(r8), "r"(r9)
                   : "rcx", "r11", "memory");
  return (int64_t)ret;
#endif
}

uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void say(const char* s) {
  raw3(SYS_write, 2, s, strlen(s));
}

static void append(char* out, size_t cap, const char* s) {
  const size_t n = strlen(out);
  if (n + 1 < cap) strncat(out, s, cap - n - 1);
}

// A self check failed: the message goes to the ring and stderr, and the fuzzer exits with
// SYSFUZZ_EXIT_CORRUPT (the runner counts that as an emulator failure).
void fuzz_fail(struct fuzz* f, const char* what) {
  if (f->ring) {
    f->ring->corrupt = 1;
    strncpy(f->ring->message, what, SYSFUZZ_MESSAGE_LEN - 1);
  }
  say("sysfuzz: self check failed: ");
  say(what);
  say("\n");
  raw1(SYS_exit_group, SYSFUZZ_EXIT_CORRUPT);
}

void record_fatal_signal(struct fuzz* f, int sig) {
  if (f->ring && sig > 0 && sig <= 64) f->ring->fatal_signals_sent |= 1ULL << (sig - 1);
}

static void check_canaries(struct fuzz* f, int full) {
  char msg[160] = "";
  for (int i = 0; i < CANARY_WORDS; i++) {
    if (data_canary[i] != 0x0123456789abcdefULL) append(msg, sizeof msg, "data canary changed; ");
    if (bss_canary[i] != CANARY(i)) append(msg, sizeof msg, "bss canary changed; ");
    if (stack_canary[i % 64] != (stack_canary_seed ^ CANARY(i % 64)))
      append(msg, sizeof msg, "stack canary changed; ");
    if (msg[0]) break;
  }
  const int heap_words = full ? (int)(HEAP_CANARY_BYTES / 8) : 64;
  for (int i = 0; i < heap_words && !msg[0]; i++) {
    if (heap_canary[i] != CANARY(i + 1000)) append(msg, sizeof msg, "heap canary changed; ");
  }
  if (msg[0]) fuzz_fail(f, msg);
}

// --- signals ---

static void on_signal(int sig) {
  (void)sig;
  g_signals_handled++;
}

#if defined(__x86_64__)
// x86-64 handlers need a restorer (glibc always passes one; these calls are raw).
extern void sysfuzz_restorer(void);
__asm__(".text\n.global sysfuzz_restorer\nsysfuzz_restorer:\n mov $15, %eax\n syscall\n hlt\n");
#define SA_RESTORER_FLAG 0x04000000UL
#else
#define SA_RESTORER_FLAG 0UL
#endif

struct ksigaction {  // the kernel's struct sigaction: the same layout on arm64 and x86-64
  uint64_t handler;
  uint64_t flags;
  uint64_t restorer;
  uint64_t mask;
};

static void set_handler(int sig, uint64_t handler, uint64_t flags) {
  struct ksigaction act = {handler, flags, 0, 0};
#if defined(__x86_64__)
  act.flags |= SA_RESTORER_FLAG;
  act.restorer = (uint64_t)sysfuzz_restorer;
#endif
  raw4(SYS_rt_sigaction, sig, &act, 0, 8);
}

// Every signal a call can send itself is caught, except the faults (SIGSEGV, SIGBUS, SIGILL, SIGFPE,
// SIGTRAP: a fault in the fuzzer is a real one) and SIGKILL and SIGSTOP; SIGXFSZ is ignored.
static int fuzz_safe_default(int sig) {
  return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE || sig == SIGTRAP ||
         sig == SIGKILL || sig == SIGSTOP || sig == SIGCHLD;
}

static void install_handlers(void) {
  for (int sig = 1; sig <= 64; sig++) {
    if (fuzz_safe_default(sig)) continue;
    set_handler(sig, sig == SIGXFSZ ? (uint64_t)SIG_IGN : (uint64_t)on_signal, SA_ONSTACK);
  }
}

static void start_watchdog(struct fuzz* f) {
  if (f->mode != MODE_FUZZ) return;
  struct itimerval it = {{0, 50000}, {0, 50000}};
  raw3(SYS_setitimer, ITIMER_REAL, &it, 0);
}

// --- the arena and the descriptors ---

static void map_fixed(uint64_t at, uint64_t len, int prot, int flags, int fd) {
  const int64_t r = raw6(SYS_mmap, at, len, prot, flags | MAP_FIXED, fd, 0);
  if (r == (int64_t)at) return;
  char msg[96] = "cannot map the arena at offset ";
  char num[24];
  int k = 0;
  uint64_t v = at - ARENA_BASE;
  do num[k++] = (char)('0' + v % 10);
  while ((v /= 10) != 0);
  size_t n = strlen(msg);
  while (k) msg[n++] = num[--k];
  memcpy(msg + n, ": errno ", 9);
  n += 8;
  v = (uint64_t)-r;
  do num[k++] = (char)('0' + v % 10);
  while ((v /= 10) != 0);
  while (k) msg[n++] = num[--k];
  msg[n] = 0;
  fuzz_fail(&g_fuzz, msg);
}

static void reset_arena(struct fuzz* f) {
  raw2(SYS_munmap, ARENA_BASE, ARENA_END - ARENA_BASE);
  const int anon = MAP_PRIVATE | MAP_ANONYMOUS;
  map_fixed(BUF_ZONE, BUF_SIZE, PROT_READ | PROT_WRITE, anon, -1);
  fill_random(&f->rng, (void*)BUF_ZONE, 64 * 1024);  // the rest stays zero: cheaper to reset
  map_fixed(RO_PAGE, PAGE, PROT_READ | PROT_WRITE, anon, -1);
  fill_random(&f->rng, (void*)RO_PAGE, PAGE);
  raw3(SYS_mprotect, RO_PAGE, PAGE, PROT_READ);
  map_fixed(NONE_PAGE, PAGE, PROT_NONE, anon, -1);
  map_fixed(TAIL_PAGE, PAGE, PROT_READ | PROT_WRITE, anon, -1);
  fill_random(&f->rng, (void*)TAIL_PAGE, PAGE);
  map_fixed(STRUCT_ZONE, STRUCT_SIZE, PROT_READ | PROT_WRITE, anon, -1);
  map_fixed(ALT_STACK, ALT_SIZE, PROT_READ | PROT_WRITE, anon, -1);
  // The memory zone: anonymous read-write, read-only and PROT_NONE pieces, a shared file page, holes.
  map_fixed(MM_ZONE, 4 << 20, PROT_READ | PROT_WRITE, anon, -1);
  map_fixed(MM_ZONE + (5 << 20), 1 << 20, PROT_READ, anon, -1);
  map_fixed(MM_ZONE + (7 << 20), 64 * PAGE, PROT_NONE, anon, -1);
  if (raw3(SYS_fcntl, FD_FILE, F_GETFD, 0) >= 0)
    map_fixed(MM_ZONE + (8 << 20), 16 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, FD_FILE);
  map_fixed(MM_ZONE + (10 << 20), 2 << 20, PROT_READ | PROT_WRITE, anon | MAP_NORESERVE, -1);
  struct {
    uint64_t sp;
    int32_t flags;
    int32_t pad;
    uint64_t size;
  } ss = {ALT_STACK, 0, 0, ALT_SIZE};
  raw2(SYS_sigaltstack, &ss, 0);
}

static void put_fd(int fd, int want) {
  if (fd < 0) return;
  if (fd != want) {
    raw3(SYS_dup3, fd, want, 0);
    raw1(SYS_close, fd);
  }
}

static void make_fds(struct fuzz* f) {
  int p[2];
  if (raw2(SYS_pipe2, p, O_NONBLOCK) == 0) {
    put_fd(p[0], 100);
    put_fd(p[1], 101);
    put_fd(100, FD_PIPE_R);
    put_fd(101, FD_PIPE_W);
  }
  int sv[2];
  if (raw4(SYS_socketpair, 1 /* AF_UNIX */, 1 | O_NONBLOCK, 0, sv) == 0) {
    put_fd(sv[0], 102);
    put_fd(sv[1], 103);
    put_fd(102, FD_SOCK_A);
    put_fd(103, FD_SOCK_B);
  }
  put_fd((int)raw3(SYS_socket, 1, 2 /* SOCK_DGRAM */, 0), FD_UNIX_DGRAM);
  put_fd((int)raw3(SYS_socket, 2 /* AF_INET */, 1, 0), FD_INET_STREAM);
  put_fd((int)raw3(SYS_socket, 10 /* AF_INET6 */, 2, 0), FD_INET6_DGRAM);
  put_fd((int)raw2(SYS_eventfd2, 0, O_NONBLOCK), FD_EVENT);
  put_fd((int)raw1(SYS_epoll_create1, 0), FD_EPOLL);
  put_fd((int)raw2(SYS_timerfd_create, CLOCK_MONOTONIC, O_NONBLOCK), FD_TIMER);
  uint64_t usr2 = 1ULL << (SIGUSR2 - 1);
  put_fd((int)raw4(SYS_signalfd4, -1, &usr2, 8, O_NONBLOCK), FD_SIGNAL);
  put_fd((int)raw4(SYS_openat, AT_FDCWD, "data", O_RDWR | O_CREAT, 0644), FD_FILE);
  raw2(SYS_ftruncate, FD_FILE, 64 * 1024);
  put_fd((int)raw4(SYS_openat, AT_FDCWD, ".", O_RDONLY | O_DIRECTORY, 0), FD_DIR);
  put_fd((int)raw4(SYS_openat, AT_FDCWD, "/dev/null", O_RDWR, 0), FD_NULL);
  put_fd((int)raw4(SYS_openat, AT_FDCWD, "/dev/zero", O_RDWR, 0), FD_ZERO);
  put_fd((int)raw2(SYS_memfd_create, "sysfuzz", 0), FD_MEMFD);
  raw2(SYS_ftruncate, FD_MEMFD, 64 * 1024);
  put_fd((int)raw1(SYS_inotify_init1, O_NONBLOCK), FD_INOTIFY);
  put_fd((int)raw4(SYS_openat, AT_FDCWD, "data", O_PATH, 0), FD_OPATH);
  if (f->sleeper > 0) put_fd((int)raw2(SYS_pidfd_open, f->sleeper, 0), FD_PIDFD);
  put_fd((int)raw4(SYS_openat, AT_FDCWD, "/dev/urandom", O_RDONLY, 0), FD_URANDOM);
  put_fd((int)raw4(SYS_openat, AT_FDCWD, "/proc/self/mem", O_RDONLY, 0), FD_PROC_MEM);
  put_fd((int)raw4(SYS_openat, AT_FDCWD, "/proc/self/pagemap", O_RDONLY, 0), FD_PAGEMAP);
  struct {
    uint32_t events;
    uint32_t pad;
    uint64_t data;
  } ev = {1 /* EPOLLIN */, 0, 7};
  raw4(SYS_epoll_ctl, FD_EPOLL, 1 /* ADD */, FD_PIPE_R, &ev);
  raw4(SYS_epoll_ctl, FD_EPOLL, 1, FD_SOCK_A, &ev);
  raw4(SYS_epoll_ctl, FD_EPOLL, 1, FD_EVENT, &ev);
}

// The state the calls may have changed goes back to where it started, on the same call numbers in every
// lane: descriptors, the arena, signal actions and mask, mappings made outside the arena, the directory.
static void reset(struct fuzz* f) {
  reap_children(f, 1);   // its waits may need the watchdog
  raw0(SYS_munlockall);  // an mlockall(MCL_FUTURE) would make every new mapping count against RLIMIT_MEMLOCK
  raw1(SYS_personality, 0);
  for (int fd = 3; fd < 1024; fd++) {
    if (fd != 2) raw1(SYS_close, fd);
  }
  for (int i = 0; i < f->nmaps; i++) {
    if (f->map_lens[i] == 0) {
      raw1(SYS_shmdt, f->maps[i]);
    } else {
      raw2(SYS_munmap, f->maps[i], f->map_lens[i]);
    }
  }
  f->nmaps = 0;
  raw1(SYS_chdir, f->scratch);
  raw1(SYS_umask, 022);
  if (f->sleeper <= 0) start_sleeper(f);
  make_fds(f);
  // No handler may run while the arena (and the signal stack in it) is remade: signals wait until the end.
  uint64_t all = ~0ULL;
  raw4(SYS_rt_sigprocmask, SIG_SETMASK, &all, 0, 8);
  reset_arena(f);
  install_handlers();
  uint64_t none = 0;
  raw4(SYS_rt_sigprocmask, SIG_SETMASK, &none, 0, 8);
  start_watchdog(f);
}

// --- one call ---

static void make_call(struct fuzz* f, int which) {
  const struct call* c = &sysfuzz_calls[which];
  uint64_t a[6] = {0};
  for (int i = 0; i < 6; i++) a[i] = gen_arg(f, c, i, a);
  sanitize_call(f, c, a);
  const uint64_t idx = ++f->index;
  struct sysfuzz_slot* s = &f->ring->slots[idx % SYSFUZZ_SLOTS];
  s->state = SYSFUZZ_EMPTY;
  s->index = idx;
  s->nr = c->nr;
  memcpy(s->args, a, sizeof a);
  s->call = (uint16_t)which;
  s->props = c->props;
  strncpy(s->name, c->name, SYSFUZZ_NAME_LEN - 1);
  s->name[SYSFUZZ_NAME_LEN - 1] = 0;
  f->ring->last_start_ns = now_ns();
  __atomic_store_n(&s->state, SYSFUZZ_STARTED, __ATOMIC_RELEASE);
  f->ring->calls_started = idx;
  char bad[256];
  const int64_t r = checked_syscall(f, c->nr, a, bad, sizeof bad);
  s->result = r;
  note_mapping(f, c, a, r);
  __atomic_store_n(&s->state, SYSFUZZ_DONE, __ATOMIC_RELEASE);
  if (idx <= f->ring->results_capacity) {
    struct sysfuzz_result* res = &f->ring->results[idx - 1];
    res->value = r;
    memcpy(res->args, a, sizeof a);
    res->nr = (int32_t)c->nr;
    res->call = (uint16_t)which;
    res->props = c->props;
    memcpy(res->name, s->name, SYSFUZZ_NAME_LEN);
  }
  f->ring->calls_done = idx;
  if (bad[0]) {
    char msg[SYSFUZZ_MESSAGE_LEN] = "";
    append(msg, sizeof msg, c->name);
    append(msg, sizeof msg, " changed registers: ");
    append(msg, sizeof msg, bad);
    fuzz_fail(f, msg);
  }
  // The fuzzer's own watchdog signal stays deliverable whatever mask a call set.
  if (c->nr == SYS_rt_sigprocmask && f->mode == MODE_FUZZ) {
    uint64_t alrm = 1ULL << (WATCHDOG_SIG - 1);
    raw4(SYS_rt_sigprocmask, SIG_UNBLOCK, &alrm, 0, 8);
  }
}

// A special operation takes a call number too (so that every lane numbers calls alike) but has no result.
static void mark_special(struct fuzz* f, const char* name) {
  const uint64_t idx = ++f->index;
  struct sysfuzz_slot* s = &f->ring->slots[idx % SYSFUZZ_SLOTS];
  s->index = idx;
  s->nr = -1;
  memset(s->args, 0, sizeof s->args);
  s->call = 0xffff;
  s->props = P_BLOCKS;
  strncpy(s->name, name, SYSFUZZ_NAME_LEN - 1);
  s->result = 0;
  f->ring->last_start_ns = now_ns();
  __atomic_store_n(&s->state, SYSFUZZ_STARTED, __ATOMIC_RELEASE);
  f->ring->calls_started = idx;
  if (idx <= f->ring->results_capacity) {
    struct sysfuzz_result* res = &f->ring->results[idx - 1];
    memset(res, 0, sizeof *res);
    res->value = SYSFUZZ_NO_RESULT;
    res->nr = -1;
    res->call = 0xffff;
    memcpy(res->name, s->name, SYSFUZZ_NAME_LEN);
  }
}

static void end_special(struct fuzz* f) {
  struct sysfuzz_slot* s = &f->ring->slots[f->index % SYSFUZZ_SLOTS];
  __atomic_store_n(&s->state, SYSFUZZ_DONE, __ATOMIC_RELEASE);
  f->ring->calls_done = f->index;
}

static int eligible(const struct fuzz* f, const struct call* c) {
  if (c->nr < 0) return 0;
  if (f->mode == MODE_DIFF_NATIVE && !(c->props & P_ARCHFREE)) return 0;
  if (f->mode != MODE_FUZZ && (c->props & P_NODIFF)) return 0;
  return 1;
}

static int pick_call(struct fuzz* f) {
  for (;;) {
    const int i = (int)rng_below(&f->rng, (uint64_t)sysfuzz_ncalls);
    const struct call* c = &sysfuzz_calls[i];
    if (!eligible(f, c)) continue;
    if ((c->props & P_RARE) && !rng_chance(&f->rng, 4)) continue;
    return i;
  }
}

// --- setup ---

static uint64_t parse_u64(const char* s) {
  return strtoull(s, NULL, 0);
}

static void setup_canaries(struct fuzz* f) {
  for (int i = 0; i < CANARY_WORDS; i++) bss_canary[i] = CANARY(i);
  const uint64_t cur = (uint64_t)raw1(SYS_brk, 0);
  const uint64_t want = ((cur + PAGE - 1) & ~(PAGE - 1)) + HEAP_CANARY_BYTES;
  if ((uint64_t)raw1(SYS_brk, want) != want) fuzz_fail(f, "cannot grow the break for the heap canary");
  f->brk_start = cur;
  heap_canary = (uint64_t*)((cur + PAGE - 1) & ~(PAGE - 1));
  for (uint64_t i = 0; i < HEAP_CANARY_BYTES / 8; i++) heap_canary[i] = CANARY(i + 1000);
  f->brk_floor = want;
}

int main(int argc, char** argv) {
  struct fuzz* f = &g_fuzz;
  uint64_t seed = 1, calls = 1000;
  int ring_fd = -1;
  f->mode = MODE_FUZZ;
  f->scratch = ".";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--seed")) seed = parse_u64(argv[i + 1]);
    if (!strcmp(argv[i], "--calls")) calls = parse_u64(argv[i + 1]);
    if (!strcmp(argv[i], "--ring-fd")) ring_fd = (int)parse_u64(argv[i + 1]);
    if (!strcmp(argv[i], "--scratch")) f->scratch = argv[i + 1];
    if (!strcmp(argv[i], "--mode")) {
      f->mode = !strcmp(argv[i + 1], "qemu")     ? MODE_DIFF_QEMU
                : !strcmp(argv[i + 1], "native") ? MODE_DIFF_NATIVE
                                                 : MODE_FUZZ;
    }
  }
  // The calls signal process groups and every process the fuzzer can reach: it runs only as the first
  // process of a fresh pid namespace's init (the runner's sandbox), never loose on a machine.
  if (raw0(SYS_getpid) > 8) {
    say("sysfuzz: refusing to run outside a fresh pid namespace (run it through tests/sysfuzz's runner)\n");
    return SYSFUZZ_EXIT_SETUP;
  }
  if (ring_fd < 0) {
    say("usage: sysfuzz --ring-fd FD --scratch DIR [--seed N] [--calls N] [--mode fuzz|qemu|native]\n");
    return 2;
  }
  const int64_t size = raw3(SYS_lseek, ring_fd, 0, SEEK_END);
  void* ring = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, ring_fd, 0);
  if (size <= 0 || ring == MAP_FAILED) {
    say("sysfuzz: cannot map the ring\n");
    return SYSFUZZ_EXIT_SETUP;
  }
  f->ring = ring;
  if (f->ring->magic != SYSFUZZ_MAGIC) {
    say("sysfuzz: the ring has no magic\n");
    return SYSFUZZ_EXIT_SETUP;
  }
  f->ring->seed = seed;
  f->ring->calls_planned = calls;
  rng_seed(&f->rng, seed);
  uint64_t stack_words[64];
  stack_canary = stack_words;
  stack_canary_seed = seed * 0x2545f4914f6cdd1dULL;
  for (int i = 0; i < 64; i++) stack_words[i] = stack_canary_seed ^ CANARY(i);
  setup_canaries(f);
  raw1(SYS_chdir, f->scratch);
  reset(f);
  while (f->index < calls) {
    if (f->index % 128 == 127) reset(f);
    const uint64_t roll = rng_below(&f->rng, 1000);
    if (roll < 4 && f->mode != MODE_DIFF_NATIVE) {
      mark_special(f, "spawn");
      special_spawn(f);
      end_special(f);
    } else if (roll < 6 && f->mode == MODE_FUZZ) {
      mark_special(f, "sigreturn");
      special_sigreturn(f);
      end_special(f);
    } else {
      make_call(f, pick_call(f));
    }
    check_canaries(f, f->index % 64 == 0);
  }
  reap_children(f, 1);
  if (f->sleeper > 0) raw2(SYS_kill, f->sleeper, SIGKILL);
  check_canaries(f, 1);
  f->ring->finished = 1;
  raw1(SYS_exit_group, 0);
  return 0;
}
