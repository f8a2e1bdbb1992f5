// Tests that a program starts with the blocked and ignored signals of the host process that started the
// emulator, as execve(2) keeps them (nohup's SIGHUP, a shell's background job's SIGINT): the wrapper
// ignores SIGHUP and SIGQUIT and blocks SIGUSR1 and SIGTERM. Nothing else is ignored or blocked, and the
// state passes on through the program's own execve (self_exec.h: under qemu-aarch64, through the host's).
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "self_exec.h"

static void check_state(const char* when) {
  NOTE("%s", when);
  for (int sig = 1; sig < 32; sig++) {
    if (sig == SIGKILL || sig == SIGSTOP) continue;
    struct sigaction sa;
    if (!CHECK_SYS(sigaction(sig, NULL, &sa))) continue;
    const int want_ignored = sig == SIGHUP || sig == SIGQUIT;
    if (!CHECK_EQ(sa.sa_handler == SIG_IGN, want_ignored)) NOTE("signal %d", sig);
  }
  if (getenv("A64RUN_EXPECT_BLOCKED") == NULL) return;
  sigset_t blocked;
  CHECK_SYS(sigprocmask(SIG_BLOCK, NULL, &blocked));
  for (int sig = 1; sig < 65; sig++) {
    if (sig == 32 || sig == 33) continue;  // glibc's own: sigprocmask never reports them
    const int want_blocked = sig == SIGUSR1 || sig == SIGTERM;
    if (!CHECK_EQ(sigismember(&blocked, sig) == 1, want_blocked)) NOTE("signal %d", sig);
  }
}

int main(int argc, char** argv) {
  check_state(argc > 1 ? "after the program's own execve" : "at start");
  if (argc == 1) {
    pid_t pid = REQUIRE_SYS(fork());
    if (pid == 0) {
      char* args[] = {argv[0], "again", NULL};
      exec_guest(self_path(), args, environ);
      _exit(127);
    }
    int status = 0;
    CHECK_EQ(waitpid(pid, &status, 0), pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  return check_done();
}
