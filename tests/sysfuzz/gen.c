// The syscall fuzzer's argument values: pools of interesting integers, lengths, descriptors, signals and
// pointers (into valid, read-only, PROT_NONE and unmapped pages of the arena, the kernel half, above the
// emulator's window, tiny and misaligned addresses), argument structs built in the arena, and the rules
// that keep a call from destroying the fuzzer itself (memory calls stay inside MM_ZONE or are ones Linux
// refuses; no signal that would end it unless on purpose; no fd 2).
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>

#include "sysfuzz.h"

static const uint64_t kInts[] = {
    0,          1,          2,          3,          4,          5,
    7,          8,          16,         31,         32,         63,
    64,         100,        255,        256,        1023,       1024,
    4095,       4096,       4097,       65535,      65536,      0x7fffffff,
    0x80000000, 0xffffffff, 1ULL << 32, 1ULL << 40, 1ULL << 48, 1ULL << 63,
    ~0ULL,      ~0ULL - 1,  -4095ULL,   -4096ULL,   -100ULL,    0x7fffffffffffffffULL};

static const uint64_t kLens[] = {
    0,          1,          2,          7,          8,     16,       64,       100,        512,
    4095,       4096,       4097,       8192,       65536, 1 << 20,  1 << 22,  0x7ffff000, 0x80000000,
    0xffffffff, 1ULL << 32, 1ULL << 40, 1ULL << 62, ~0ULL, -4095ULL, -4096ULL, -8192ULL};

// Addresses nothing of the fuzzer lives at: the kernel half, above a64run's 1 TiB window (user addresses on
// Linux), tiny and misaligned ones.
static const uint64_t kBadPointers[] = {1,
                                        8,
                                        0xfff,
                                        0x10000,
                                        0xffff000000000000ULL,
                                        0xffff800000001000ULL,
                                        0xfffffffffffff000ULL,
                                        0x8000000000000000ULL,
                                        1ULL << 40,
                                        (1ULL << 40) + 0x1000,
                                        1ULL << 44,
                                        (1ULL << 47) - 0x1000,
                                        (1ULL << 48) - 0x1000,
                                        1ULL << 48};

static const char* const kPaths[] = {"data",
                                     "f0",
                                     "f1",
                                     "d0",
                                     "d0/f2",
                                     "d0/d1",
                                     "l0",
                                     "fifo0",
                                     "s0",
                                     ".",
                                     "..",
                                     "",
                                     "/",
                                     "/dev/null",
                                     "/dev/zero",
                                     "/dev/urandom",
                                     "/proc/self/maps",
                                     "/proc/self/status",
                                     "/proc/self/fd",
                                     "/proc/self/fd/0",
                                     "/proc/self/exe",
                                     "/proc/self/task",
                                     "/etc/passwd",
                                     "/nonexistent/x",
                                     "d0/../data",
                                     "data/",
                                     "./f0"};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static int deadly_signal(uint64_t sig);

// Signals a call may send anywhere: those the fuzzer catches, and the real-time ones.
static const int kFriendlySignals[] = {SIGHUP,    SIGINT,  SIGQUIT,  SIGUSR1, SIGUSR2, SIGPIPE, SIGALRM,
                                       SIGTERM,   SIGCONT, SIGTSTP,  SIGTTIN, SIGTTOU, SIGURG,  SIGXCPU,
                                       SIGVTALRM, SIGPROF, SIGWINCH, SIGIO,   SIGPWR,  SIGSYS,  SIGABRT};

// The STRUCT_ZONE is used like a stack that starts afresh for every call.
static uint64_t g_struct_top;

static void* struct_alloc(size_t n) {
  n = (n + 15) & ~15UL;
  if (g_struct_top + n > STRUCT_ZONE + STRUCT_SIZE) g_struct_top = STRUCT_ZONE;
  void* p = (void*)g_struct_top;
  g_struct_top += n;
  return p;
}

static uint64_t pool(struct rng* r, const uint64_t* v, int n) {
  return v[rng_below(r, (uint64_t)n)];
}

static uint64_t any_int(struct rng* r) {
  switch (rng_below(r, 8)) {
    case 0:
      return rng_next(r);
    case 1:
      return rng_below(r, 256);
    case 2:
      return (uint64_t)(int32_t)rng_next(r);
    default:
      return pool(r, kInts, COUNT(kInts));
  }
}

static int high_ok(const struct fuzz* f, uint64_t p) {
  // Between 2^47 and 2^48 is user memory on arm64 but not on x86-64: the native comparison leaves it out.
  return f->mode != MODE_DIFF_NATIVE || p < (1ULL << 47) - 0x1000 || p >= (1ULL << 63);
}

uint64_t pick_pointer(struct fuzz* f, int writable) {
  struct rng* r = &f->rng;
  const uint64_t roll = rng_below(r, 100);
  if (roll < 45) {
    uint64_t off = rng_below(r, 64 * 1024);
    if (rng_chance(r, 2)) off &= ~7UL;
    return BUF_ZONE + off;
  }
  if (roll < 50) return BUF_ZONE + BUF_SIZE - 1 - rng_below(r, 64);  // runs into the read-only page
  if (roll < 55) return RO_PAGE + (writable ? rng_below(r, PAGE) : 0);
  if (roll < 60) return NONE_PAGE + rng_below(r, 64);
  if (roll < 64) return HOLE + rng_below(r, 2 * PAGE);
  if (roll < 72) return TAIL_PAGE + PAGE - 1 - rng_below(r, 256);  // runs into unmapped memory
  if (roll < 80) return MM_ZONE + rng_below(r, MM_SIZE);
  if (roll < 85) return 0;
  for (;;) {
    const uint64_t p = pool(r, kBadPointers, COUNT(kBadPointers));
    if (high_ok(f, p)) return p;
  }
}

static uint64_t pick_fd(struct fuzz* f, int dirfd) {
  struct rng* r = &f->rng;
  const uint64_t roll = rng_below(r, 100);
  int fd;
  if (roll < 70) {
    fd = FD_BASE + (int)rng_below(r, FD_END - FD_BASE);
  } else if (roll < 80) {
    fd = (int)rng_below(r, FD_BASE);
  } else if (roll < 85 && dirfd) {
    fd = AT_FDCWD;
  } else {
    static const int odd[] = {-1, -2, 100, 255, 1023, 1024, 65535, 0x7fffffff, (int)0x80000000};
    fd = odd[rng_below(r, COUNT(odd))];
  }
  if (fd == 2) fd = 1;  // stderr is the runner's log
  return (uint64_t)(int64_t)fd;
}

static uint64_t pick_signal(struct rng* r) {
  const uint64_t roll = rng_below(r, 100);
  if (roll < 60) return (uint64_t)kFriendlySignals[rng_below(r, COUNT(kFriendlySignals))];
  if (roll < 75) return 34 + rng_below(r, 31);  // SIGRTMIN..SIGRTMAX
  if (roll < 85) return 0;
  if (roll < 95) return rng_below(r, 66);
  static const uint64_t odd[] = {65, 128, -1ULL, 0x100000000ULL + SIGUSR1};
  return odd[rng_below(r, 4)];
}

static uint64_t pick_pid(struct fuzz* f) {
  struct rng* r = &f->rng;
  switch (rng_below(r, 10)) {
    case 0:
    case 1:
      return (uint64_t)raw0(SYS_getpid);
    case 2:
      return (uint64_t)raw0(SYS_gettid);
    case 3:
    case 4:
      return (uint64_t)(int64_t)f->sleeper;
    case 5:
      return 0;
    case 6:
      return (uint64_t)-1;
    case 7:
      return 1;
    case 8:
      return (uint64_t) - (int64_t)raw0(SYS_getpid);
    default:
      return pool(r, kInts, COUNT(kInts));
  }
}

static uint64_t build_timespec(struct fuzz* f) {
  struct rng* r = &f->rng;
  if (rng_chance(r, 6)) return pick_pointer(f, 0);
  int64_t* ts = struct_alloc(32);
  static const int64_t secs[] = {0, 0, 0, 1, -1, 0x7fffffffffffffffLL};
  static const int64_t nsecs[] = {0, 1, 1000, 1000000, 999999999, 1000000000, -1};
  ts[0] = secs[rng_below(r, COUNT(secs))];
  ts[1] = nsecs[rng_below(r, COUNT(nsecs))];
  // An absolute time far ahead, or now: real clocks read large values.
  if (rng_chance(r, 8)) ts[0] = (int64_t)(now_ns() / 1000000000ULL);
  // Two timespecs (itimerspec) for calls that want a pair.
  ts[2] = rng_chance(r, 2) ? 0 : ts[0];
  ts[3] = ts[1];
  return (uint64_t)ts;
}

static uint64_t build_itimer(struct fuzz* f) {
  struct rng* r = &f->rng;
  if (rng_chance(r, 6)) return pick_pointer(f, 0);
  int64_t* t = struct_alloc(32);
  // Intervals of 1 ms or more (or none): a 1 ns interval timer would flood the fuzzer with signals.
  static const int64_t small[] = {0, 0, 1000000, 5000000, 999999999};
  t[0] = rng_chance(r, 8) ? -1 : 0;
  t[1] = small[rng_below(r, COUNT(small))];
  t[2] = rng_chance(r, 8) ? 1 : 0;
  t[3] = small[rng_below(r, COUNT(small))];
  if (rng_chance(r, 10)) t[3] = 1000000000;
  return (uint64_t)t;
}

static uint64_t build_sigset(struct fuzz* f) {
  struct rng* r = &f->rng;
  if (rng_chance(r, 6)) return pick_pointer(f, 0);
  uint64_t* s = struct_alloc(16);
  s[0] = rng_chance(r, 3) ? 0 : rng_next(r);
  s[1] = rng_next(r);
  if (f->mode == MODE_FUZZ) s[0] &= ~(1ULL << (WATCHDOG_SIG - 1));
  return (uint64_t)s;
}

static uint64_t build_iovec(struct fuzz* f, uint64_t* count_out) {
  struct rng* r = &f->rng;
  const uint64_t n = rng_chance(r, 8) ? rng_below(r, 1100) : 1 + rng_below(r, 4);
  *count_out = n;
  if (rng_chance(r, 8)) return pick_pointer(f, 0);
  const uint64_t room = n > 64 ? 64 : n;
  uint64_t* v = struct_alloc(room * 16);
  for (uint64_t i = 0; i < room; i++) {
    v[2 * i] = pick_pointer(f, 1);
    v[2 * i + 1] = pool(r, kLens, COUNT(kLens) - 8);  // mostly small lengths
  }
  return (uint64_t)v;
}

static uint64_t build_sockaddr(struct fuzz* f, uint64_t* len_out) {
  struct rng* r = &f->rng;
  uint8_t* a = struct_alloc(128);
  fill_random(r, a, 128);
  uint16_t family;
  switch (rng_below(r, 6)) {
    case 0:
      family = 1;  // AF_UNIX: a name in the scratch directory, or an abstract one
      memcpy(a + 2, rng_chance(r, 2) ? "s0\0" : "\0fz", 4);
      *len_out = 2 + rng_below(r, 110);
      break;
    case 1:
      family = 2;  // AF_INET: 127.0.0.1 on a random port
      a[2] = (uint8_t)rng_next(r);
      a[3] = (uint8_t)rng_next(r);
      a[4] = 127;
      a[5] = 0;
      a[6] = 0;
      a[7] = 1;
      *len_out = 16;
      break;
    case 2:
      family = 10;  // AF_INET6
      *len_out = 28;
      break;
    default:
      family = (uint16_t)rng_below(r, 48);
      *len_out = pool(r, kLens, 14);
  }
  memcpy(a, &family, 2);
  if (rng_chance(r, 6)) return pick_pointer(f, 0);
  return (uint64_t)a;
}

static uint64_t build_msghdr(struct fuzz* f) {
  struct rng* r = &f->rng;
  if (rng_chance(r, 8)) return pick_pointer(f, 0);
  uint64_t* m = struct_alloc(56);
  uint64_t len = 0, n = 0;
  m[0] = rng_chance(r, 2) ? 0 : build_sockaddr(f, &len);  // msg_name
  m[1] = len;                                             // msg_namelen (u32) + pad
  m[2] = build_iovec(f, &n);                              // msg_iov
  m[3] = n;                                               // msg_iovlen
  m[4] = rng_chance(r, 2) ? 0 : pick_pointer(f, 1);       // msg_control
  m[5] = rng_chance(r, 2) ? 0 : pool(r, kLens, 16);       // msg_controllen
  m[6] = rng_next(r) & 0xffffffff;                        // msg_flags
  return (uint64_t)m;
}

static uint64_t build_pollfds(struct fuzz* f) {
  struct rng* r = &f->rng;
  if (rng_chance(r, 8)) return pick_pointer(f, 1);
  int32_t* p = struct_alloc(8 * 16);
  for (int i = 0; i < 16; i++) {
    p[2 * i] = (int32_t)pick_fd(f, 0);
    p[2 * i + 1] = (int32_t)(rng_next(r) & (rng_chance(r, 2) ? 0xffff : 0x5));  // events, revents
  }
  return (uint64_t)p;
}

static uint64_t build_sigaction(struct fuzz* f) {
  struct rng* r = &f->rng;
  if (rng_chance(r, 6)) return pick_pointer(f, 0);
  uint64_t* a = struct_alloc(32);
  extern void sysfuzz_handler_for_calls(int);
  const uint64_t roll = rng_below(r, 3);
  a[0] = roll == 0 ? (uint64_t)sysfuzz_handler_for_calls : roll == 1 ? (uint64_t)SIG_IGN : (uint64_t)SIG_DFL;
  static const uint64_t flags[] = {SA_SIGINFO,   SA_RESTART,   SA_NODEFER,  SA_ONSTACK,
                                   SA_NOCLDSTOP, SA_NOCLDWAIT, SA_RESETHAND};
  uint64_t fl = 0;
  for (int i = 0; i < COUNT(flags); i++) {
    if (rng_chance(r, 3)) fl |= flags[i];
  }
  if (rng_chance(r, 8)) fl |= rng_next(r) & 0xffffffff;
  a[1] = fl & ~0x04000000ULL;  // SA_RESTORER: the fuzzer's own, added by sanitize_call
  a[2] = 0;
  a[3] = rng_next(r) & ~(1ULL << (WATCHDOG_SIG - 1));
  return (uint64_t)a;
}

static uint64_t build_sigevent(struct fuzz* f) {
  struct rng* r = &f->rng;
  if (rng_chance(r, 6)) return rng_chance(r, 2) ? 0 : pick_pointer(f, 0);
  int32_t* e = struct_alloc(64);
  memset(e, 0, 64);
  e[0] = (int32_t)rng_next(r);  // sigev_value
  e[2] = rng_chance(r, 2) ? SIGUSR1 : (int32_t)pick_signal(r);
  if (deadly_signal((uint64_t)(uint32_t)e[2])) e[2] = SIGUSR2;  // a timer's SIGSEGV would end the run
  static const int32_t notify[] = {0 /* SIGEV_SIGNAL */, 1 /* NONE */, 4 /* THREAD_ID */, 2, 7};
  e[3] = notify[rng_below(r, COUNT(notify))];
  e[4] = e[3] == 4 ? (int32_t)raw0(SYS_gettid) : (int32_t)rng_next(r);
  return (uint64_t)e;
}

static uint64_t build_path(struct fuzz* f) {
  struct rng* r = &f->rng;
  const uint64_t roll = rng_below(r, 100);
  if (roll < 8) return pick_pointer(f, 0);
  if (roll < 11) {  // no NUL before the unmapped page
    char* p = (char*)(TAIL_PAGE + PAGE - 16);
    memset(p, 'x', 16);
    return (uint64_t)p;
  }
  if (roll < 13) {  // longer than PATH_MAX
    char* p = struct_alloc(5000);
    memset(p, 'a', 4999);
    p[4999] = 0;
    return (uint64_t)p;
  }
  const char* s = kPaths[rng_below(r, COUNT(kPaths))];
  char* p = struct_alloc(strlen(s) + 1);
  memcpy(p, s, strlen(s) + 1);
  return (uint64_t)p;
}

// The length argument after a memory address: inside MM_ZONE from the address, or one every kernel
// refuses before it walks any mapping (rounds to 0, wraps, or exceeds TASK_SIZE).
static uint64_t mm_len(struct fuzz* f, uint64_t addr) {
  struct rng* r = &f->rng;
  if (addr >= MM_ZONE && addr < MM_ZONE + MM_SIZE) {
    const uint64_t room = MM_ZONE + MM_SIZE - addr;
    if (rng_chance(r, 6)) {
      static const uint64_t wrap[] = {~0ULL, ~0ULL - 1, -4095ULL, -4096ULL, -8192ULL};
      const uint64_t w = wrap[rng_below(r, COUNT(wrap))];
      return rng_chance(r, 3) ? w : (-addr + rng_below(r, 3 * PAGE));  // an end just past 2^64
    }
    uint64_t len = rng_chance(r, 2) ? PAGE * (1 + rng_below(r, 64)) : rng_below(r, room + 1);
    if (len > room) len = room;
    return len;
  }
  return pool(r, kLens, COUNT(kLens));
}

static uint64_t mm_addr(struct fuzz* f) {
  struct rng* r = &f->rng;
  const uint64_t roll = rng_below(r, 100);
  if (roll < 80) {
    uint64_t a = MM_ZONE + PAGE * rng_below(r, MM_SIZE / PAGE);
    if (rng_chance(r, 20)) a += 1 + rng_below(r, PAGE - 1);
    return a;
  }
  if (roll < 88) return 0;
  for (;;) {
    const uint64_t p = pool(r, kBadPointers, COUNT(kBadPointers));
    if (high_ok(f, p)) return p;
  }
}

uint64_t gen_arg(struct fuzz* f, const struct call* c, int i, const uint64_t* prev) {
  struct rng* r = &f->rng;
  const struct argspec* a = &c->a[i];
  if (i == 0) g_struct_top = STRUCT_ZONE + PAGE * rng_below(r, 8);
  switch (a->kind) {
    case A_NONE:
      return rng_chance(r, 16) ? rng_next(r) : 0;  // unused registers hold garbage sometimes
    case A_INT:
    case A_ULONG:
      return any_int(r);
    case A_SMALL:
      return rng_chance(r, 8) ? any_int(r) : rng_below(r, 16);
    case A_FD:
      return pick_fd(f, 0);
    case A_DIRFD:
      return pick_fd(f, 1);
    case A_IN:
      return pick_pointer(f, 0);
    case A_OUT:
    case A_PTR:
      return pick_pointer(f, 1);
    case A_LEN:
      if (rng_chance(r, 4)) return rng_below(r, 8192);
      return pool(r, kLens, COUNT(kLens));
    case A_SOCKLEN:
      return rng_chance(r, 4) ? pool(r, kLens, COUNT(kLens)) : f->pending_count;
    case A_PATH:
      return build_path(f);
    case A_CHOICE:
      if (rng_chance(r, 16)) return any_int(r);
      return a->ch->v[rng_below(r, (uint64_t)a->ch->n)];
    case A_BITS: {
      uint64_t v = 0;
      for (int k = 0; k < a->ch->n; k++) {
        if (rng_chance(r, 3)) v |= a->ch->v[k];
      }
      if (f->mode != MODE_DIFF_NATIVE && rng_chance(r, 12)) v |= 1ULL << rng_below(r, 32);
      return v;
    }
    case A_MODE:
      return rng_chance(r, 8) ? any_int(r) : rng_below(r, 010000);
    case A_OFF:
      return rng_chance(r, 3) ? rng_below(r, 70000) : any_int(r);
    case A_MMADDR:
      return mm_addr(f);
    case A_MMLEN:
      return mm_len(f, prev[i - 1]);
    case A_SIG:
      return pick_signal(r);
    case A_PID:
      return pick_pid(f);
    case A_UID:
      return rng_chance(r, 2) ? 65534 : rng_chance(r, 2) ? (uint64_t)-1 : any_int(r);
    case A_TIMESPEC:
      return rng_chance(r, 8) ? 0 : build_timespec(f);
    case A_ITIMER:
      return build_itimer(f);
    case A_SIGSET:
      return rng_chance(r, 5) ? 0 : build_sigset(f);
    case A_SIGSETSZ:
      return rng_chance(r, 8) ? any_int(r) : 8;
    case A_IOVEC: {
      uint64_t n;
      const uint64_t p = build_iovec(f, &n);
      f->pending_count = n;
      return p;
    }
    case A_IOVCNT:
      return f->pending_count;
    case A_SOCKADDR: {
      uint64_t n;
      const uint64_t p = rng_chance(r, 6) ? 0 : build_sockaddr(f, &n);
      f->pending_count = n;
      return p;
    }
    case A_LENPTR: {
      if (rng_chance(r, 5)) return pick_pointer(f, 1);
      uint32_t* l = struct_alloc(8);
      *l = (uint32_t)pool(r, kLens, 16);
      return (uint64_t)l;
    }
    case A_MSGHDR:
      return build_msghdr(f);
    case A_POLLFD:
      return build_pollfds(f);
    case A_FDSET:
    case A_EPEVENT:
    case A_RLIMIT:
      if (rng_chance(r, 3)) return rng_chance(r, 2) ? 0 : pick_pointer(f, 1);
      {
        uint64_t* p = struct_alloc(256);
        fill_random(r, p, 256);
        if (a->kind == A_RLIMIT && rng_chance(r, 2)) p[0] = p[1] = ~0ULL;
        return (uint64_t)p;
      }
    case A_SIGACT:
      return rng_chance(r, 6) ? 0 : build_sigaction(f);
    case A_SIGEVENT:
      return build_sigevent(f);
    case A_FUTEXVAL:
      if (prev[0] >= BUF_ZONE && prev[0] + 4 <= BUF_ZONE + BUF_SIZE && rng_chance(r, 2))
        return *(const uint32_t*)prev[0];
      return any_int(r);
  }
  return 0;
}

// --- keeping calls from ending the fuzzer ---

static int in_range(uint64_t p, uint64_t start, uint64_t end) {
  return p >= start && p < end;
}

// Memory the fuzzer reads a struct from without the call's consent: a built struct or NULL or memory that
// faults are fine; random readable bytes (a handler address, say) are not. A pointer within 8 bytes of the
// end of TAIL_PAGE faults for every struct it could hold.
static int readable_random(uint64_t p) {
  return in_range(p, BUF_ZONE, BUF_ZONE + BUF_SIZE) || in_range(p, RO_PAGE, RO_PAGE + PAGE) ||
         in_range(p, TAIL_PAGE, TAIL_PAGE + PAGE - 8) || in_range(p, MM_ZONE, MM_ZONE + MM_SIZE);
}

// A memory call's range: inside MM_ZONE, or refused by every kernel before it touches a mapping, or far
// from anything of the fuzzer's (at or above 2^40, below the program).
static void keep_mm_range(uint64_t* addr, uint64_t* len) {
  if (in_range(*addr, MM_ZONE, MM_ZONE + MM_SIZE)) {
    const uint64_t room = MM_ZONE + MM_SIZE - *addr;
    if (*len > room && *len < (1ULL << 48) && *addr + *len > *addr) *len = room;
    return;
  }
  if (*addr >= (1ULL << 40)) return;
  if (*len >= (1ULL << 48) || *addr + *len < *addr) return;  // EINVAL, ENOMEM: wraps or too long
  if (*addr + *len > 0x400000) *len = *addr < 0x400000 ? 0x400000 - *addr : 0;
}

static int deadly_signal(uint64_t sig) {
  const uint32_t s = (uint32_t)sig;
  return s == SIGKILL || s == SIGSTOP || s == SIGSEGV || s == SIGBUS || s == SIGILL || s == SIGFPE ||
         s == SIGTRAP;
}

static void keep_signal(struct fuzz* f, uint64_t* sig) {
  if (!deadly_signal(*sig)) return;
  if (f->mode == MODE_FUZZ && rng_chance(&f->rng, 32)) {
    record_fatal_signal(f, (int)(uint32_t)*sig);  // sent on purpose: a death by it is the guest's doing
    return;
  }
  *sig = 0;
}

// Signals whose action a call may change: not the faults, the watchdog, SIGXFSZ (ignored) or SIGCHLD.
static int action_allowed(uint64_t sig) {
  const uint32_t s = (uint32_t)sig;
  return !(deadly_signal(sig) || s == WATCHDOG_SIG || s == SIGXFSZ);
}

static int ignored_by_default(uint32_t s) {
  return s == SIGCHLD || s == SIGCONT || s == SIGURG || s == SIGWINCH;
}

void sysfuzz_handler_for_calls(int sig) {
  (void)sig;
}

#if defined(__x86_64__)
extern void sysfuzz_restorer(void);
#endif

static void keep_sigaction(struct fuzz* f, uint64_t* a) {
  if (action_allowed(a[0])) {
    if (in_range(a[1], STRUCT_ZONE, STRUCT_ZONE + STRUCT_SIZE)) {
      uint64_t* act = (uint64_t*)a[1];
      const uint32_t s = (uint32_t)a[0];
      const int dfl_harmless = ignored_by_default(s);
      if (act[0] == (uint64_t)SIG_DFL && !dfl_harmless) act[0] = (uint64_t)sysfuzz_handler_for_calls;
      if (!dfl_harmless) act[1] &= ~(uint64_t)SA_RESETHAND;
#if defined(__x86_64__)
      act[1] |= 0x04000000;  // SA_RESTORER: x86-64 handlers return through one
      act[2] = (uint64_t)sysfuzz_restorer;
#endif
    } else if (readable_random(a[1])) {
      a[1] = 0;
    }
    return;
  }
  // The fuzzer's own signals: only a query, or a refusal (SIGKILL, SIGSTOP and invalid numbers).
  if ((uint32_t)a[0] != SIGKILL && (uint32_t)a[0] != SIGSTOP) a[1] = 0;
  (void)f;
}

// The watchdog must end every wait: a temporary signal mask (rt_sigsuspend, ppoll, pselect6, epoll_pwait)
// in writable memory of the arena leaves SIGALRM out. (One in read-only memory may still block it: the call
// then ends as "a timeout in a call that blocks".)
static void unblock_watchdog(struct fuzz* f, uint64_t mask) {
  if (f->mode != MODE_FUZZ || !(in_range(mask, BUF_ZONE, BUF_ZONE + BUF_SIZE - 8) ||
                                in_range(mask, STRUCT_ZONE, STRUCT_ZONE + STRUCT_SIZE - 8) ||
                                in_range(mask, TAIL_PAGE, TAIL_PAGE + PAGE - 8)))
    return;
  uint64_t m;
  memcpy(&m, (const void*)mask, 8);
  m &= ~(1ULL << (WATCHDOG_SIG - 1));
  memcpy((void*)mask, &m, 8);
}

static void keep_rlimit(uint64_t resource, uint64_t* newp) {
  const uint32_t r = (uint32_t)resource;
  if (r == RLIMIT_AS || r == RLIMIT_DATA || r == RLIMIT_NOFILE || r == RLIMIT_NPROC || r == RLIMIT_CPU ||
      r == RLIMIT_STACK || r == RLIMIT_RTTIME)
    *newp = 0;
}

void sanitize_call(struct fuzz* f, const struct call* c, uint64_t* a) {
  const long nr = c->nr;
  if (nr == SYS_kill || nr == SYS_tkill || nr == SYS_rt_sigqueueinfo || nr == SYS_pidfd_send_signal) {
    keep_signal(f, &a[1]);
  } else if (nr == SYS_tgkill || nr == SYS_rt_tgsigqueueinfo) {
    keep_signal(f, &a[2]);
  } else if (nr == SYS_rt_sigaction) {
    keep_sigaction(f, a);
  } else if (nr == SYS_sigaltstack) {
    if (a[0] != 0 && (readable_random(a[0]) || in_range(a[0], STRUCT_ZONE, ALT_STACK + ALT_SIZE))) a[0] = 0;
  } else if (nr == SYS_rt_sigsuspend) {
    unblock_watchdog(f, a[0]);
  } else if (nr == SYS_ppoll || nr == SYS_epoll_pwait || nr == SYS_epoll_pwait2) {
    unblock_watchdog(f, a[nr == SYS_ppoll ? 3 : 4]);
  } else if (nr == SYS_pselect6) {
    // The sixth argument points at {const sigset_t* ss; size_t ss_len}.
    if (in_range(a[5], BUF_ZONE, BUF_ZONE + BUF_SIZE - 16) ||
        in_range(a[5], STRUCT_ZONE, STRUCT_ZONE + STRUCT_SIZE - 16)) {
      uint64_t ss;
      memcpy(&ss, (const void*)a[5], 8);
      unblock_watchdog(f, ss);
    }
  } else if (nr == SYS_fcntl) {
    if ((uint32_t)a[1] == F_SETSIG && deadly_signal(a[2])) a[2] = 0;  // SIGIO instead of a fault signal
  } else if (nr == SYS_setitimer) {
    if ((uint32_t)a[0] == ITIMER_REAL) a[0] = ITIMER_VIRTUAL;  // ITIMER_REAL is the watchdog
  } else if (nr == SYS_setrlimit) {
    keep_rlimit(a[0], &a[1]);
  } else if (nr == SYS_prlimit64) {
    keep_rlimit(a[1], &a[2]);
  } else if (nr == SYS_prctl) {
    static const uint32_t refused[] = {22 /* SECCOMP */,
                                       35 /* SET_MM */,
                                       50 /* SVE_SET_VL */,
                                       54 /* PAC_RESET_KEYS */,
                                       55 /* SET_TAGGED_ADDR_CTRL */,
                                       59 /* SYSCALL_USER_DISPATCH */,
                                       63 /* SME_SET_VL */};
    for (int i = 0; i < COUNT(refused); i++) {
      if ((uint32_t)a[0] == refused[i]) a[0] = PR_GET_DUMPABLE;
    }
  } else if (nr == SYS_close_range) {
    if ((uint32_t)a[0] <= 2 && (uint32_t)a[1] >= 2) a[0] = 3;
  } else if (nr == SYS_brk) {
    if (a[0] >= f->brk_start && a[0] < f->brk_floor) a[0] = f->brk_floor + (a[0] - f->brk_start);
    if (rng_chance(&f->rng, 2))
      a[0] = f->brk_floor + PAGE * rng_below(&f->rng, 64) + rng_below(&f->rng, 2) * 123;
  } else if (nr == SYS_mmap) {
    if ((a[3] & MAP_FIXED) && !in_range(a[0], MM_ZONE, MM_ZONE + MM_SIZE) && a[0] < (1ULL << 40))
      a[3] &= ~MAP_FIXED;
    if (a[3] & MAP_POPULATE && a[1] > (1 << 20) && a[1] < (1ULL << 48)) a[1] = 1 << 20;
    if (!(a[3] & MAP_FIXED) && a[1] > (16 << 20) && a[1] < (1ULL << 48)) a[1] = 16 << 20;
    keep_mm_range(&a[0], &a[1]);
  } else if (nr == SYS_mremap) {
    keep_mm_range(&a[0], &a[1]);
    if (a[2] > (16 << 20) && a[2] < (1ULL << 48)) a[2] = 16 << 20;
    // A shrink unmaps [addr + new_len, addr + old_len), which with lengths near 2^64 wraps to a valid range
    // below the address (Linux unmaps it too): outside MM_ZONE, the call keeps its size instead.
    const uint64_t ol = (a[1] + PAGE - 1) & ~(PAGE - 1), nl = (a[2] + PAGE - 1) & ~(PAGE - 1);
    if (!(a[3] & (MREMAP_FIXED | 4 /* MREMAP_DONTUNMAP */)) && nl != 0 && ol > nl) {
      const uint64_t start = a[0] + nl, len = ol - nl;
      if (!(in_range(start, MM_ZONE, MM_ZONE + MM_SIZE) && len <= MM_ZONE + MM_SIZE - start)) a[2] = a[1];
    }
    if (in_range(a[0], MM_ZONE, MM_ZONE + MM_SIZE) && !(a[3] & MREMAP_MAYMOVE) &&
        a[2] > MM_ZONE + MM_SIZE - a[0] && a[2] < (1ULL << 48))
      a[2] = MM_ZONE + MM_SIZE - a[0];
    if (a[3] & MREMAP_FIXED) {
      if (in_range(a[4], MM_ZONE, MM_ZONE + MM_SIZE) && a[2] < (1ULL << 48)) {
        if (a[2] > MM_ZONE + MM_SIZE - a[4]) a[2] = MM_ZONE + MM_SIZE - a[4];
      } else if (a[4] < (1ULL << 40)) {
        a[4] = MM_ZONE + PAGE * rng_below(&f->rng, 16);
        if (a[2] > MM_SIZE - 16 * PAGE && a[2] < (1ULL << 48)) a[2] = PAGE;
      }
    }
  } else if (nr == SYS_munmap || nr == SYS_mprotect || nr == SYS_madvise || nr == SYS_msync ||
             nr == SYS_mincore || nr == SYS_mlock || nr == SYS_munlock || nr == SYS_mlock2 ||
             nr == SYS_remap_file_pages || nr == SYS_pkey_mprotect || nr == SYS_mbind) {
    keep_mm_range(&a[0], &a[1]);
  } else if (nr == SYS_shmat) {
    a[2] &= ~040000ULL;  // SHM_REMAP would replace the fuzzer's own mappings
    if (!in_range(a[1], MM_ZONE, MM_ZONE + MM_SIZE) && a[1] < (1ULL << 40)) a[1] = 0;
  } else if (nr == SYS_shmdt) {
    if (!in_range(a[0], MM_ZONE, MM_ZONE + MM_SIZE) && a[0] < (1ULL << 40)) a[0] = MM_ZONE;
  } else if (nr == SYS_unshare) {
    if (f->mode != MODE_FUZZ) a[0] &= ~(uint64_t)CLONE_NEWUSER;
  } else if (nr == SYS_set_tid_address || nr == SYS_set_robust_list) {
    if (!in_range(a[0], ARENA_BASE, ARENA_END) && a[0] < (1ULL << 40) && a[0] >= 0x10000) a[0] = BUF_ZONE;
  } else if (nr == SYS_process_vm_writev) {
    a[0] = (uint64_t)raw0(SYS_getpid);  // writes go to the arena's pointers, in this process only
  } else if (nr == SYS_sched_setscheduler || nr == SYS_sched_setattr) {
    a[0] = (uint64_t)f->sleeper;  // SCHED_IDLE would starve the run
  } else if (nr == SYS_setpriority || nr == SYS_ioprio_set) {
    if ((uint32_t)a[0] == 0 && a[1] == 0) a[1] = (uint64_t)f->sleeper;
  }
}

void note_mapping(struct fuzz* f, const struct call* c, const uint64_t* a, int64_t result) {
  if (result < 0 || f->nmaps >= (int)(sizeof f->maps / sizeof f->maps[0])) return;
  uint64_t len = 0;
  if (c->nr == SYS_mmap) len = a[1];
  if (c->nr == SYS_mremap) len = a[2];
  if (c->nr == SYS_shmat) len = 0;  // shmdt at the reset
  if (c->nr != SYS_mmap && c->nr != SYS_mremap && c->nr != SYS_shmat) return;
  const uint64_t at = (uint64_t)result;
  if (in_range(at, ARENA_BASE, ARENA_END)) return;  // the arena is remade anyway
  f->maps[f->nmaps] = at;
  f->map_lens[f->nmaps] = len;
  f->nmaps++;
}
