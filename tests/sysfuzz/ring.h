// The shared memory between the syscall fuzzer (sysfuzz.c, a guest program) and its runner (runner.cpp, on
// the host): a header with the run's progress and self-check verdict, a ring of the last calls with their
// arguments and results (so the runner can say which call was running when a child died or hung), and one
// result per call for the differential mode. The runner makes it (a memfd) and passes its descriptor; the
// fuzzer maps it MAP_SHARED and writes it, and it survives the fuzzer's death. Plain C, fixed-size fields:
// the same layout on arm64 and x86-64.
#ifndef A64RUN_TESTS_SYSFUZZ_RING_H_
#define A64RUN_TESTS_SYSFUZZ_RING_H_

#include <stdint.h>

#define SYSFUZZ_MAGIC 0x315a465359535953ULL  // "SYSFUZ1" + 'S'
#define SYSFUZZ_SLOTS 256
#define SYSFUZZ_NAME_LEN 24
#define SYSFUZZ_MESSAGE_LEN 512
// The fuzzer's exit status when a self check failed (registers, canaries): an emulator failure.
#define SYSFUZZ_EXIT_CORRUPT 86
// ... and when it could not set itself up (no ring, no arena): a broken run.
#define SYSFUZZ_EXIT_SETUP 87
// results[] for a call the fuzzer did not make (a special operation, or the runner's own marker).
#define SYSFUZZ_NO_RESULT INT64_MIN

enum sysfuzz_slot_state { SYSFUZZ_EMPTY = 0, SYSFUZZ_STARTED = 1, SYSFUZZ_DONE = 2 };

struct sysfuzz_slot {
  uint64_t index;  // the call's number in the run, from 1
  int64_t nr;      // system call number, or -1 for a special operation
  uint64_t args[6];
  int64_t result;  // valid once state is SYSFUZZ_DONE
  uint32_t state;
  uint16_t call;   // index in the fuzzer's table
  uint16_t props;  // the call's properties (sysfuzz.h: P_BLOCKS tells a wait from a hang)
  char name[SYSFUZZ_NAME_LEN];
};

// One call of the run, kept for the whole run (the differential mode compares them one by one).
struct sysfuzz_result {
  int64_t value;  // the result or -errno; SYSFUZZ_NO_RESULT for a special operation
  uint64_t args[6];
  int32_t nr;
  uint16_t call;
  uint16_t props;
  char name[SYSFUZZ_NAME_LEN];
};

struct sysfuzz_ring {
  uint64_t magic;
  uint64_t seed;
  uint64_t calls_planned;
  uint64_t results_capacity;  // entries of results[] the runner made room for
  volatile uint64_t calls_started;
  volatile uint64_t calls_done;
  volatile uint64_t last_start_ns;  // CLOCK_MONOTONIC when the current call started
  volatile uint32_t finished;       // 1: the fuzzer made every call and passed every check
  volatile uint32_t corrupt;        // 1: a self check failed (message says what)
  // Signals the fuzzer sent (kill, tgkill, rt_sigqueueinfo...) that can end it: bit n-1 for signal n. A
  // death by one of these is the guest's doing.
  volatile uint64_t fatal_signals_sent;
  char message[SYSFUZZ_MESSAGE_LEN];
  struct sysfuzz_slot slots[SYSFUZZ_SLOTS];
  struct sysfuzz_result results[];  // results[i - 1] for call i
};

#endif  // A64RUN_TESTS_SYSFUZZ_RING_H_
