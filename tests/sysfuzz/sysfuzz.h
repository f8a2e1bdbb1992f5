// The syscall fuzzer's internals (a guest program, built for arm64 and, for the differential mode against
// the host kernel, for x86-64): the call table, the argument pools, the arena the pointers point into, the
// raw system call stub that checks the registers around each call, and the special operations.
#ifndef A64RUN_TESTS_SYSFUZZ_SYSFUZZ_H_
#define A64RUN_TESTS_SYSFUZZ_SYSFUZZ_H_

#include <stddef.h>
#include <stdint.h>

#include "ring.h"

// --- the arena: fixed addresses, so that every lane of a differential run passes the same pointers ---
#define ARENA_BASE 0x7e0000000UL
#define PAGE 4096UL
#define BUF_ZONE (ARENA_BASE + 0x000000UL)  // 4 MiB read-write, random bytes
#define BUF_SIZE 0x400000UL
#define RO_PAGE (ARENA_BASE + 0x400000UL)      // read-only
#define NONE_PAGE (ARENA_BASE + 0x401000UL)    // PROT_NONE
#define HOLE (ARENA_BASE + 0x402000UL)         // 2 pages never mapped
#define TAIL_PAGE (ARENA_BASE + 0x404000UL)    // read-write, the page after it never mapped
#define STRUCT_ZONE (ARENA_BASE + 0x410000UL)  // 64 KiB where argument structs and paths are built
#define STRUCT_SIZE 0x10000UL
#define ALT_STACK (ARENA_BASE + 0x420000UL)  // 64 KiB: the fuzzer's signal stack, no call's target
#define ALT_SIZE 0x10000UL
#define MM_ZONE (ARENA_BASE + 0x500000UL)  // 16 MiB where memory calls may map, unmap and move
#define MM_SIZE 0x1000000UL
#define ARENA_END (ARENA_BASE + 0x1600000UL)  // a 1 MiB hole after MM_ZONE keeps walks from leaving it

// --- descriptors the fuzzer keeps open at fixed numbers (re-made at every reset) ---
enum {
  FD_BASE = 10,
  FD_PIPE_R = FD_BASE,
  FD_PIPE_W,
  FD_SOCK_A,
  FD_SOCK_B,
  FD_UNIX_DGRAM,
  FD_INET_STREAM,
  FD_INET6_DGRAM,
  FD_EVENT,
  FD_EPOLL,
  FD_TIMER,
  FD_SIGNAL,
  FD_FILE,
  FD_DIR,
  FD_NULL,
  FD_ZERO,
  FD_MEMFD,
  FD_INOTIFY,
  FD_OPATH,
  FD_PIDFD,
  FD_URANDOM,
  FD_PROC_MEM,  // /proc/self/mem and pagemap, read-only: reads at any offset, never a write
  FD_PAGEMAP,
  FD_END
};

// --- argument kinds ---
enum arg_kind {
  A_NONE = 0,
  A_INT,       // the integer pool
  A_SMALL,     // small integers (counts, indexes)
  A_FD,        // a descriptor
  A_DIRFD,     // a descriptor or AT_FDCWD
  A_IN,        // a pointer the kernel reads
  A_OUT,       // a pointer the kernel writes
  A_LEN,       // a length for the buffer before it
  A_PATH,      // a path name
  A_CHOICE,    // one value of the argument's choice list
  A_BITS,      // a subset of the argument's choice list, sometimes with unknown bits
  A_MODE,      // file mode bits
  A_OFF,       // a file offset
  A_MMADDR,    // an address for a memory call (inside MM_ZONE, or one Linux refuses)
  A_MMLEN,     // its length (staying inside MM_ZONE, or one that wraps or exceeds TASK_SIZE)
  A_SIG,       // a signal number
  A_PID,       // a process or thread id
  A_UID,       // a user or group id
  A_TIMESPEC,  // a pointer to a timespec (valid, odd, or bad)
  A_ITIMER,    // a pointer to an itimerspec / itimerval pair
  A_SIGSET,    // a pointer to a sigset (the fuzzer's watchdog signal left unblocked)
  A_SIGSETSZ,  // the size of a sigset (8, or wrong)
  A_IOVEC,     // a pointer to an iovec array
  A_IOVCNT,    // its count
  A_SOCKADDR,  // a pointer to a socket address
  A_SOCKLEN,   // its length
  A_LENPTR,    // a pointer to a socklen_t / int length
  A_MSGHDR,    // a pointer to a msghdr
  A_POLLFD,    // a pointer to pollfds
  A_FDSET,     // a pointer to an fd_set
  A_EPEVENT,   // a pointer to epoll_events
  A_SIGACT,    // a pointer to a struct sigaction (the kernel's)
  A_SIGEVENT,  // a pointer to a sigevent
  A_RLIMIT,    // a pointer to an rlimit
  A_FUTEXVAL,  // a futex value (often the word's current value)
  A_PTR,       // any pointer from the pool
  A_ULONG,     // a 64-bit value from the integer pool, unrestricted
};

// A list of values an argument takes (A_CHOICE) or combines (A_BITS).
struct choice {
  const uint64_t* v;
  int n;
};

struct argspec {
  uint8_t kind;
  const struct choice* ch;
};

// Call properties.
enum {
  P_BLOCKS = 1 << 0,    // may wait (a timeout inside it is the guest's doing, not a hang)
  P_ARCHFREE = 1 << 1,  // same arguments, same answer on x86-64: in the native differential mode
  P_CMP_OK = 1 << 2,    // compare only success or the errno (fd numbers, addresses, counts)
  P_CMP_NONE = 1 << 3,  // never compared (time, pids, random bytes)
  P_STATE = 1 << 4,     // changes state later calls see: a difference here ends a comparison
  P_RARE = 1 << 5,      // made a quarter as often
  P_NODIFF = 1 << 6,    // left out of differential runs (its result depends on timing)
};

struct call {
  const char* name;
  long nr;  // -1 where this architecture has no such call
  uint16_t props;
  struct argspec a[6];
};

extern const struct call sysfuzz_calls[];
extern const int sysfuzz_ncalls;

// --- the run ---
enum fuzz_mode { MODE_FUZZ, MODE_DIFF_QEMU, MODE_DIFF_NATIVE };

struct rng {
  uint64_t s[4];
};
uint64_t rng_next(struct rng* r);
static inline uint64_t rng_below(struct rng* r, uint64_t n) {
  return n ? rng_next(r) % n : 0;
}
static inline int rng_chance(struct rng* r, int one_in) {
  return rng_below(r, (uint64_t)one_in) == 0;
}
void rng_seed(struct rng* r, uint64_t seed);

struct fuzz {
  struct rng rng;
  enum fuzz_mode mode;
  struct sysfuzz_ring* ring;
  uint64_t index;       // calls made so far
  uint64_t brk_floor;   // the break below which the heap canary lives
  const char* scratch;  // the scratch directory (cwd)
  int sleeper;          // a child that sleeps (a target for kill, wait, pidfd)
  uint64_t maps[64];    // where mmap and mremap put memory outside the arena (unmapped at resets)
  uint64_t map_lens[64];
  int nmaps;
  int children[16];  // processes and threads spawned and not reaped yet
  int nchildren;
  uint64_t pending_count;  // the count that goes with a pointer just built (iovecs, a socket address)
  uint64_t brk_start;      // the break the program started with
};

// Where a call put memory outside the arena (mmap, mremap, shmat results): undone at the next reset.
void note_mapping(struct fuzz* f, const struct call* c, const uint64_t* a, int64_t result);

// gen.c: argument values.
uint64_t gen_arg(struct fuzz* f, const struct call* c, int i, const uint64_t* prev);
void sanitize_call(struct fuzz* f, const struct call* c, uint64_t* a);
void fill_random(struct rng* r, void* p, size_t n);
uint64_t pick_pointer(struct fuzz* f, int writable);

// The raw call with every register set to a known pattern and checked afterwards; returns the result and
// writes a description of any register the call changed into `bad` (empty when none).
int64_t checked_syscall(struct fuzz* f, long nr, const uint64_t* args, char* bad, size_t bad_len);

// special.c: operations that are not one system call.
void special_spawn(struct fuzz* f);
void special_sigreturn(struct fuzz* f);
void reap_children(struct fuzz* f, int all);
void start_sleeper(struct fuzz* f);

// sysfuzz.c
int64_t raw6(long nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5);
#define raw0(nr) raw6((nr), 0, 0, 0, 0, 0, 0)
#define raw1(nr, a) raw6((nr), (uint64_t)(a), 0, 0, 0, 0, 0)
#define raw2(nr, a, b) raw6((nr), (uint64_t)(a), (uint64_t)(b), 0, 0, 0, 0)
#define raw3(nr, a, b, c) raw6((nr), (uint64_t)(a), (uint64_t)(b), (uint64_t)(c), 0, 0, 0)
#define raw4(nr, a, b, c, d) raw6((nr), (uint64_t)(a), (uint64_t)(b), (uint64_t)(c), (uint64_t)(d), 0, 0)
void fuzz_fail(struct fuzz* f, const char* what);
void say(const char* s);
void record_fatal_signal(struct fuzz* f, int sig);
uint64_t now_ns(void);

// The fuzzer's watchdog signal: a real-time interval timer ends any wait with EINTR (normal mode only).
#define WATCHDOG_SIG 14  // SIGALRM

#endif  // A64RUN_TESTS_SYSFUZZ_SYSFUZZ_H_
