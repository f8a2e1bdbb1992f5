// execve of a file that is open for writing fails with ETXTBSY (Linux's deny_write_access), for a program
// and for a script, and works again once the writer has closed it. In the reference lane the exec goes
// through qemu-aarch64 (self_exec.h), which execs itself and never sees the file busy: only a64run checks.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "self_exec.h"

// Copies this program to `dst` (mode 0755).
static void copy_self(const char* dst) {
  int in = REQUIRE_SYS(open(self_path(), O_RDONLY));
  int out = REQUIRE_SYS(open(dst, O_CREAT | O_WRONLY | O_TRUNC, 0755));
  char buf[65536];
  ssize_t n;
  while ((n = read(in, buf, sizeof buf)) > 0) REQUIRE(write(out, buf, (size_t)n) == n);
  close(in);
  close(out);
}

// Runs path with one argument in a child; returns the exec's errno (0 when the program ran and exited 0).
static int try_exec(const char* path) {
  int pipefd[2];
  REQUIRE_SYS(pipe2(pipefd, O_CLOEXEC));
  pid_t pid = fork();
  if (pid == 0) {
    char* argv[] = {(char*)path, "ran", NULL};
    exec_guest(path, argv, environ);
    int e = errno;
    write(pipefd[1], &e, sizeof e);
    _exit(127);
  }
  close(pipefd[1]);
  int e = 0;
  if (read(pipefd[0], &e, sizeof e) != sizeof e) e = 0;
  close(pipefd[0]);
  int status;
  waitpid(pid, &status, 0);
  if (e == 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) e = -1;
  return e;
}

int main(int argc, char** argv) {
  if (argc == 2 && strcmp(argv[1], "ran") == 0) return 0;
  copy_self("prog");
  int w = CHECK_SYS(open("prog", O_WRONLY));
  if (!on_reference_qemu()) CHECK_EQ(try_exec("prog"), ETXTBSY);
  close(w);
  CHECK_EQ(try_exec("prog"), 0);

  // A script is the file exec opens first: busy too.
  FILE* f = fopen("script", "w");
  REQUIRE(f != NULL);
  fprintf(f, "#!%s/prog\n", getenv("PWD") ? getenv("PWD") : ".");
  fclose(f);
  chmod("script", 0755);
  w = CHECK_SYS(open("script", O_WRONLY | O_APPEND));
  if (!on_reference_qemu()) CHECK_EQ(try_exec("script"), ETXTBSY);
  close(w);
  return check_done();
}
