// Tests the exit status: exits with the code in argv[1], the way argv[2] names (exit, return, _exit, or the
// raw exit_group syscall); the expect_status.sh wrapper checks the status the parent sees.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void at_exit_handler(void) {
  puts("exit_code: atexit handler ran");
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: exit_code CODE exit|return|_exit|exit_group\n");
    return 100;
  }
  int code = atoi(argv[1]);
  const char* how = argv[2];
  atexit(at_exit_handler);
  printf("exit_code: leaving with %d by %s\n", code, how);
  fflush(stdout);
  if (strcmp(how, "exit") == 0) exit(code);
  if (strcmp(how, "return") == 0) return code;
  if (strcmp(how, "_exit") == 0) _exit(code);
  if (strcmp(how, "exit_group") == 0) {
    syscall(SYS_exit_group, code);
    fprintf(stderr, "exit_code: exit_group returned\n");
    return 101;
  }
  fprintf(stderr, "exit_code: unknown way out \"%s\"\n", how);
  return 102;
}
