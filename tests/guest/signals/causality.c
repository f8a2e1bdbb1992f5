// A signal another process sends before it writes to a pipe is handled before the reader sees the data: on
// Linux the kill makes the signal pending (and wakes a thread to take it) before the write happens, and the
// reader's read returns to user space only through the kernel's signal delivery. So a reader that finds the
// data always finds the handler's mark too. Three readers: a read that sleeps (SA_RESTART), one that sleeps
// and is ended by the signal (EINTR, read again), and a non-blocking read polled in a loop. A fourth: the
// data is read by a thread that blocks the signal, which passes the round on through a private futex; the
// thread that takes the signal learns of the round only from its futex wait's return (woken, or EAGAIN for
// a word already changed), and Linux runs the handler on that return, the kill being before the write.
// (a64run: the reader's read settles host signals, so the waiter's wait needs no settle of its own.)
//
// Usage: causality [ROUNDS]
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

enum Reader { kSleeping, kInterrupted, kPolling, kRelayed };

static volatile sig_atomic_t handled;

static void on_usr1(int sig) {
  (void)sig;
  handled = handled + 1;
}

static int read_round(int fd, enum Reader mode, uint32_t* round) {
  while (1) {
    ssize_t n = read(fd, round, sizeof *round);
    if (n == (ssize_t)sizeof *round) return 1;
    if (n < 0 && errno == EINTR && mode == kInterrupted) continue;
    if (n < 0 && errno == EAGAIN && mode == kPolling) continue;
    return 0;
  }
}

// kRelayed: the round number the relay thread read last, plus one.
static uint32_t relayed;

struct Relay {
  int fd;
  uint32_t rounds;
};

static void* relay_main(void* arg) {
  const struct Relay* r = arg;
  for (uint32_t i = 0; i < r->rounds; ++i) {
    uint32_t round;
    if (!read_round(r->fd, kSleeping, &round) || round != i) _exit(255);
    __atomic_store_n(&relayed, i + 1, __ATOMIC_RELEASE);
    syscall(SYS_futex, &relayed, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
  }
  return NULL;
}

// kRelayed: waits for the relay thread to pass round i on, looking at the word only after a futex wait
// returned (woken, or EAGAIN: changed before the wait began).
static int relayed_round(uint32_t i, uint32_t* round) {
  while (1) {
    const long r = syscall(SYS_futex, &relayed, FUTEX_WAIT_PRIVATE, i, NULL, NULL, 0);
    if (r != 0 && errno != EAGAIN && errno != EINTR) return 0;
    if (r == 0 || errno == EAGAIN) {
      const uint32_t v = __atomic_load_n(&relayed, __ATOMIC_ACQUIRE);
      if (v == i + 1) {
        *round = i;
        return 1;
      }
      if (v != i) return 0;
    }
  }
}

// The child: reads round numbers; after each, the handler must have run once per round so far. Its exit
// status is the number of rounds whose data came before their signal's handler (at most 255).
static int child_main(int rfd, int ack, enum Reader mode, uint32_t rounds) {
  struct sigaction sa = {0};
  sa.sa_handler = on_usr1;
  sa.sa_flags = mode == kSleeping ? SA_RESTART : 0;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGUSR1, &sa, NULL) != 0) return 255;
  if (mode == kPolling && fcntl(rfd, F_SETFL, O_NONBLOCK) != 0) return 255;
  struct Relay relay = {rfd, rounds};
  if (mode == kRelayed) {
    // The relay thread blocks SIGUSR1 (it inherits this mask), so this thread is the one to take it.
    sigset_t usr1, old;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    pthread_t th;
    if (pthread_sigmask(SIG_BLOCK, &usr1, &old) != 0 || pthread_create(&th, NULL, relay_main, &relay) != 0 ||
        pthread_sigmask(SIG_SETMASK, &old, NULL) != 0 || pthread_detach(th) != 0)
      return 255;
  }
  int early = 0;
  char ready = 'r';
  if (write(ack, &ready, 1) != 1) return 255;
  for (uint32_t i = 0; i < rounds; ++i) {
    uint32_t round;
    const int got = mode == kRelayed ? relayed_round(i, &round) : read_round(rfd, mode, &round);
    if (!got || round != i) return 255;
    if (handled != (sig_atomic_t)(i + 1)) {
      if (early < 3) fprintf(stderr, "round %u: data read, handler ran %d times\n", i, (int)handled);
      early++;
      while (handled != (sig_atomic_t)(i + 1)) {
      }
    }
    if (write(ack, &ready, 1) != 1) return 255;
  }
  return early > 254 ? 254 : early;
}

static void run(enum Reader mode, const char* name, uint32_t rounds) {
  int data[2], ack[2];
  REQUIRE_SYS(pipe(data));
  REQUIRE_SYS(pipe(ack));
  pid_t pid = REQUIRE_SYS(fork());
  if (pid == 0) {
    close(data[1]);
    close(ack[0]);
    _exit(child_main(data[0], ack[1], mode, rounds));
  }
  close(data[0]);
  close(ack[1]);
  char c;
  CHECK_EQ(read(ack[0], &c, 1), 1);  // the handler is in place
  uint32_t i = 0;
  for (; i < rounds; ++i) {
    if (kill(pid, SIGUSR1) != 0) break;
    if (write(data[1], &i, sizeof i) != (ssize_t)sizeof i) break;
    if (read(ack[0], &c, 1) != 1) break;
  }
  CHECK_EQ(i, rounds);
  close(data[1]);
  close(ack[0]);
  int status = 0;
  CHECK_EQ(waitpid(pid, &status, 0), pid);
  CHECK(WIFEXITED(status));
  if (WEXITSTATUS(status) != 0)
    fprintf(stderr, "%s: %d rounds read their data first\n", name, WEXITSTATUS(status));
  CHECK_EQ(WEXITSTATUS(status), 0);
}

int main(int argc, char** argv) {
  const uint32_t rounds = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 3000;
  run(kSleeping, "sleeping read", rounds);
  run(kInterrupted, "interrupted read", rounds);
  run(kPolling, "polling read", rounds);
  run(kRelayed, "read relayed through a futex", rounds);
  return check_done();
}
