// A fake open POSIX suite test for the runner's own tests: installed as <dir>_<N>-<M>.run-test, it exits with
// status N, so that each file name stands for one of the suite's exit codes (PTS_PASS 0, PTS_FAIL 1,
// PTS_UNRESOLVED 2, PTS_UNSUPPORTED 4, PTS_UNTESTED 5) or for an unknown one.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  (void)argc;
  const char* under = strrchr(argv[0], '_');
  if (!under) {
    fprintf(stderr, "fake_posix: no _N-M in the name %s\n", argv[0]);
    return 99;
  }
  int code = atoi(under + 1);
  printf("fake POSIX test %s: exit %d\n", argv[0], code);
  return code;
}
