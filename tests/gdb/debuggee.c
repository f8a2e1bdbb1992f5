// The program the gdb tests debug (tests/gdb/scenarios, bad_input.py): a -g -O0 build whose parts are
// functions the scripts stop in. argv[1] picks a mode: "" runs the common path, "signal" raises SIGUSR1
// (handled), "segv" ends in a store to address 16, "spin" first loops until a debugger sets `magic` to 7,
// "stress" runs the all-stop stress (stress_allstop.py) and nothing else, "closefds" first closes every
// descriptor from 3 up (close_range), as daemons do: the debugger's connection must survive it.
// The exit status tells what the program saw: 7 when a debugger set `magic` to 7, 9 when SIGUSR1 was
// raised but its handler never ran (the debugger dropped it), else 0.
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int magic = 1;
volatile int watched = 0;
volatile int neighbour = 0;  // next to `watched`: writing it is no hit of a watchpoint on `watched`
volatile long read_me = 5;
volatile long my_pid = 0;
volatile int handled = 0;

__attribute__((noinline)) int add(int a, int b) {
  int sum = a + b;
  return sum;
}

__attribute__((noinline)) void worker_bp(int round) {
  __asm__ volatile("" ::"r"(round));
}

// The scripts' stepping ground: next over the first line, step into add.
__attribute__((noinline)) int step_here(void) {
  int total = 0;
  for (int i = 0; i < 3; i++) total += add(i, 10);
  return total;
}

static void* worker(void* arg) {
  for (int i = 0; i < 2; i++) worker_bp(i);
  return arg;
}

__attribute__((noinline)) void poke(void) {
  neighbour = 5;
  watched = 42;
  neighbour = 6;
}

__attribute__((noinline)) long peek(void) {
  long v = read_me;
  return v + 1;
}

__attribute__((noinline)) void vectors_loaded(void) {
  __asm__ volatile("" ::: "memory");
}

// v0 = 0x5a in every byte, v1 = 0x11 in every 32-bit lane, then a function to break in.
__attribute__((noinline)) void vectors(void) {
  __asm__ volatile("movi v0.16b, #0x5a\n\tmovi v1.4s, #0x11" ::: "v0", "v1");
  vectors_loaded();
}

// getpid(2) by hand, at the global label svc_here: a script steps over exactly that instruction.
__attribute__((noinline)) long raw_getpid(void) {
  register long x8 __asm__("x8") = 172;
  register long x0 __asm__("x0");
  __asm__ volatile(".globl svc_here\nsvc_here:\n\tsvc #0" : "=r"(x0) : "r"(x8) : "memory");
  return x0;
}

// Compares x0 with itself (Z and C set), branches to a new block at the global label flags_set and
// returns NZCV there: a script that stops at flags_set and writes $cpsr must see its own flags come back.
__attribute__((noinline)) long flags_probe(void) {
  long nzcv;
  __asm__ volatile("mov x0, #5\n\tcmp x0, x0\n\tb 1f\n1:\n.globl flags_set\nflags_set:\n\tmrs %0, nzcv"
                   : "=r"(nzcv)
                   :
                   : "x0", "cc");
  return nzcv;
}

static void on_usr1(int sig) {
  handled = sig;
}

// The all-stop stress: counting threads that hit stress_bp every round, one that counts without ever
// stopping by itself (only a kick stops it), a thread sleeping in nanosleep and one blocked in read(2) on a
// pipe, whose read must come back with the byte (restarted, not EINTR) however often the debugger stopped it.
enum { kStressThreads = 4, kStressRounds = 25 };
volatile unsigned long stress_counts[kStressThreads];
volatile unsigned long sleep_count;
volatile unsigned long spin_count;
static volatile int stop_sleeping;
static int stress_pipe[2];

__attribute__((noinline)) void stress_bp(int id) {
  __asm__ volatile("" ::"r"(id));
}

static void* stresser(void* arg) {
  const int id = (int)(long)arg;
  for (int r = 0; r < kStressRounds; r++) {
    for (int i = 0; i < 1000000; i++) stress_counts[id]++;
    stress_bp(id);
  }
  return NULL;
}

static void* spinner(void* arg) {
  while (!stop_sleeping) spin_count++;
  return arg;
}

static void* sleeper(void* arg) {
  const struct timespec ms = {0, 1000000};
  while (!stop_sleeping) {
    nanosleep(&ms, NULL);
    sleep_count++;
  }
  return arg;
}

static void* reader(void* arg) {
  char c = 0;
  const ssize_t n = read(stress_pipe[0], &c, 1);
  return (void*)(long)(n == 1 && c == 'x');
}

static int stress(void) {
  pthread_t ts[kStressThreads], sl, sp, rd;
  if (pipe(stress_pipe) != 0) return 2;
  pthread_create(&sl, NULL, sleeper, NULL);
  pthread_create(&sp, NULL, spinner, NULL);
  pthread_create(&rd, NULL, reader, NULL);
  for (long i = 0; i < kStressThreads; i++) pthread_create(&ts[i], NULL, stresser, (void*)i);
  for (int i = 0; i < kStressThreads; i++) pthread_join(ts[i], NULL);
  stop_sleeping = 1;
  pthread_join(sl, NULL);
  pthread_join(sp, NULL);
  if (write(stress_pipe[1], "x", 1) != 1) return 2;
  void* ok = NULL;
  pthread_join(rd, &ok);
  return ok ? 0 : 3;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  my_pid = getpid();
  if (strcmp(mode, "stress") == 0) return stress();
  if (strcmp(mode, "closefds") == 0) syscall(SYS_close_range, 3, ~0u, 0);
  if (strcmp(mode, "spin") == 0) {
    while (*(volatile int*)&magic != 7) {
    }
  }
  const int total = step_here();
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
  poke();
  const long seen = peek();
  vectors();
  const long pid = raw_getpid();
  const long flags = flags_probe();
  if (strcmp(mode, "signal") == 0) {
    signal(SIGUSR1, on_usr1);
    raise(SIGUSR1);
    if (handled != SIGUSR1) return 9;
  }
  if (strcmp(mode, "segv") == 0) *(volatile int*)16 = 1;
  printf("total=%d seen=%ld pid_ok=%d magic=%d flags=%#lx\n", total, seen, pid == my_pid, magic, flags);
  return magic == 7 ? 7 : 0;
}
