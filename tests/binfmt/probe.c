// What a program started through binfmt_misc sees: its argv (argv[0] kept by the P flag), /proc/self/exe
// and its command name; with "exec" as argv[1] it then execs argv[2...] (a host program, or another arm64
// one).
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  char exe[4096] = {0};
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  printf("argv0=%s argc=%d exe=%s\n", argc > 0 ? argv[0] : "(none)", argc, n > 0 ? exe : "?");
  char comm[32] = {0};
  FILE* f = fopen("/proc/self/comm", "r");
  if (f != NULL && fgets(comm, sizeof comm, f) != NULL) printf("comm=%s", comm);
  if (f != NULL) fclose(f);
  for (int i = 1; i < argc; i++) printf("arg%d=%s\n", i, argv[i]);
  fflush(stdout);
  if (argc > 2 && strcmp(argv[1], "exec") == 0) {
    execvp(argv[2], argv + 2);
    perror("probe: execvp");
    return 127;
  }
  return 0;
}
