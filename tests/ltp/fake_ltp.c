// A fake LTP syscall test for the runner's own tests: argv[1] picks the outcome, printed the way LTP's
// library does (the new API's "Summary:" block, or the old API's result lines) with LTP's exit status bits.
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// LTP's result bits (include/tst_res_flags.h) double as the exit status.
enum { kTFail = 1, kTBrok = 2, kTWarn = 4, kTConf = 32 };

static int summary(int passed, int failed, int broken, int skipped, int warnings, int status) {
  fprintf(stderr, "\nSummary:\npassed   %d\nfailed   %d\nbroken   %d\nskipped  %d\nwarnings %d\n", passed,
          failed, broken, skipped, warnings);
  return status;
}

// The runner gives every test LTPROOT and a fresh, empty TMPDIR that is also its working directory.
static int check_env(void) {
  const char* root = getenv("LTPROOT");
  const char* tmp = getenv("TMPDIR");
  char cwd[4096];
  struct stat st;
  if (!root || !tmp || !getcwd(cwd, sizeof cwd) || strcmp(cwd, tmp) != 0 || stat(root, &st) != 0) {
    fprintf(stderr, "fake 1 TFAIL: LTPROOT=%s TMPDIR=%s cwd=%s\n", root ? root : "(unset)",
            tmp ? tmp : "(unset)", cwd);
    return summary(0, 1, 0, 0, 0, kTFail);
  }
  return summary(1, 0, 0, 0, 0, 0);
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "pass") == 0) return summary(2, 0, 0, 0, 0, 0);
  if (strcmp(mode, "fail") == 0) return summary(1, 1, 0, 0, 0, kTFail);
  if (strcmp(mode, "brok") == 0) return summary(0, 0, 1, 0, 0, kTBrok);
  if (strcmp(mode, "warn") == 0) return summary(1, 0, 0, 0, 1, kTWarn);
  if (strcmp(mode, "conf") == 0) return summary(0, 0, 0, 1, 0, kTConf);
  if (strcmp(mode, "env") == 0) return check_env();
  if (strcmp(mode, "oldpass") == 0) {
    printf("fake01      1  TPASS  :  first\nfake01      2  TPASS  :  second\n");
    return 0;
  }
  if (strcmp(mode, "orphan") == 0) {
    // A child that outlives the test and keeps its output open must not hold up the runner.
    if (fork() == 0) {
      sleep(1000);
      _exit(0);
    }
    return summary(1, 0, 0, 0, 0, 0);
  }
  if (strcmp(mode, "stray") == 0) {
    // A child in a process group of its own (as LTP's library runs a test) that outlives the test: the
    // runner kills it. Its pid goes to $LTPROOT/stray.pid for the check.
    pid_t child = fork();
    if (child == 0) {
      setpgid(0, 0);
      sleep(1000);
      _exit(0);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/stray.pid", getenv("LTPROOT"));
    FILE* f = fopen(path, "w");
    if (f == NULL) return summary(0, 0, 1, 0, 0, kTBrok);
    fprintf(f, "%d\n", (int)child);
    fclose(f);
    return summary(1, 0, 0, 0, 0, 0);
  }
  if (strcmp(mode, "hang") == 0) {
    for (;;) pause();
  }
  if (strcmp(mode, "crash") == 0) {
    fprintf(stderr, "fake: about to crash\n");
    fflush(stderr);
    raise(SIGSEGV);
  }
  fprintf(stderr, "fake_ltp: unknown mode '%s'\n", mode);
  return kTBrok;
}
