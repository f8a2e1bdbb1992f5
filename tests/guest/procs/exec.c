// Tests execve: fork + execve of this binary with awkward arguments (empty, spaces, UTF-8, 100 KB) and a
// custom environment that must arrive exactly, keeping pid and parent; #! scripts written at test time whose
// interpreter is this binary, with the argv that binfmt_script builds (interpreter, optional argument, script
// path as given to execve, then the caller's argv[1...]); exec through a symlink and through /proc/self/exe;
// the errors (EACCES for a file without x bits or a directory, ENOEXEC for a text file without #! and for
// an empty file, ENOENT for a missing file or a script's missing interpreter, ENOTDIR, and ENOEXEC for an
// x86-64 host binary); and O_CLOEXEC (closed in the new program) against fds without it (still open, same
// file); the blocked mask and SIG_IGN dispositions carried into the new program, caught signals reset to
// SIG_DFL. The exec'd program is this binary in a checking mode chosen by argv[1] (or, for scripts, whose
// argv the kernel builds, by the environment variable A64RUN_EXEC_DUMP); it answers with its exit status.
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "self_exec.h"

extern char** environ;

enum { kLongArg = 100000 };

static char* long_arg(void) {
  static char* arg;
  if (!arg) {
    arg = malloc(kLongArg + 1);
    for (int i = 0; i < kLongArg; i++) arg[i] = 'a' + i % 26;
    arg[kLongArg] = '\0';
  }
  return arg;
}

static char* const kEnv[] = {"A64RUN_ONE=1", "EMPTY=", "WITH=EQUALS=SIGN", "SPACES=a b  c", NULL};

// ---- modes of the exec'd program ----

// argv: custom-argv0 --args-env PID PPID "" "two words" UTF-8 LONG last LANE
static int mode_args_env(int argc, char** argv) {
  REQUIRE(argc == 10);
  CHECK_STREQ(argv[0], "custom-argv0");
  CHECK_EQ(getpid(), atoi(argv[2]));   // exec keeps the pid
  CHECK_EQ(getppid(), atoi(argv[3]));  // and the parent
  CHECK_STREQ(argv[4], "");
  CHECK_STREQ(argv[5], "two words");
  CHECK_STREQ(argv[6], "\xc3\xbc\xc3\xb1\xc3\xad\xc3\xa7\xc3\xb8\x64\xc3\xa9");
  CHECK_EQ(strlen(argv[7]), kLongArg);
  CHECK(strcmp(argv[7], long_arg()) == 0);
  CHECK_STREQ(argv[8], "last");
  CHECK(argv[10] == NULL);
  int n = 0;
  while (environ[n]) n++;
  CHECK_EQ(n, 4);  // exactly the environment given to execve, nothing added
  for (int i = 0; i < 4; i++) {
    int found = 0;
    for (int j = 0; j < n; j++) found |= strcmp(environ[j], kEnv[i]) == 0;
    if (!CHECK(found)) NOTE("\"%s\" is missing from the environment", kEnv[i]);
  }
  // qemu-aarch64 7.2 hands the guest its environment in reverse order (linux-user/main.c collects it in an
  // envlist, which prepends each entry); Linux keeps the order. The lane comes in argv, as envp is custom.
  if (strcmp(argv[9], "qemu") != 0)
    for (int i = 0; i < 4 && i < n; i++) CHECK_STREQ(environ[i], kEnv[i]);
  CHECK_STREQ(getenv("WITH"), "EQUALS=SIGN");
  // AT_EXECFN is the path given to execve; /proc/self/exe the program.
  CHECK_STREQ((const char*)getauxval(AT_EXECFN), self_path());
  return check_done();
}

// argv: x --check-fds CLOSED... -- OPEN... ; each open fd reads "hello" at offset 0 and has FD_CLOEXEC clear.
static int mode_check_fds(int argc, char** argv) {
  int i = 2;
  for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
    int fd = atoi(argv[i]);
    if (!CHECK_ERRNO(fcntl(fd, F_GETFD), EBADF)) NOTE("fd %d (O_CLOEXEC) survived the exec", fd);
  }
  for (i++; i < argc; i++) {
    int fd = atoi(argv[i]);
    char buf[6] = {0};
    if (!CHECK_EQ(fcntl(fd, F_GETFD), 0)) NOTE("fd %d (no FD_CLOEXEC) is not open as it was", fd);
    CHECK_EQ(pread(fd, buf, 5, 0), 5);
    CHECK_STREQ(buf, "hello");
  }
  return check_done();
}

// For scripts: writes argv, NUL-separated, to the file named by A64RUN_EXEC_DUMP.
static int mode_dump(int argc, char** argv, const char* file) {
  FILE* f = fopen(file, "w");
  if (!f) return 3;
  for (int i = 0; i < argc; i++) fwrite(argv[i], 1, strlen(argv[i]) + 1, f);
  return fclose(f) == 0 ? 0 : 3;
}

// ---- the tests ----

// Forks; the child runs `fn(arg)` (normally an exec) and _exits with its result. Returns the wait status.
static int in_child(int (*fn)(const void*), const void* arg) {
  fflush(stdout);
  fflush(stderr);
  pid_t pid = REQUIRE_SYS(fork());
  if (pid == 0) _exit(fn(arg));
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  return status;
}

#define CHECK_EXITED_WITH(status, code, what)                                                      \
  do {                                                                                             \
    int s_ = (status);                                                                             \
    if (!CHECK(WIFEXITED(s_) && WEXITSTATUS(s_) == (code)))                                        \
      NOTE("%s: status 0x%x (exit %d, signal %d), expected exit %d", what, s_,                     \
           WIFEXITED(s_) ? WEXITSTATUS(s_) : -1, WIFSIGNALED(s_) ? WTERMSIG(s_) : 0, (int)(code)); \
  } while (0)

static int exec_args_env(const void* unused) {
  (void)unused;
  char pid[16], ppid[16];
  snprintf(pid, sizeof pid, "%d", (int)getpid());
  snprintf(ppid, sizeof ppid, "%d", (int)getppid());
  char* lane = on_reference_qemu() ? "qemu" : "a64run";
  char* argv[] = {"custom-argv0",
                  "--args-env",
                  pid,
                  ppid,
                  "",
                  "two words",
                  "\xc3\xbc\xc3\xb1\xc3\xad\xc3\xa7\xc3\xb8\x64\xc3\xa9",
                  long_arg(),
                  "last",
                  lane,
                  NULL};
  exec_guest(self_path(), argv, kEnv);
  return 100 + errno;
}

static int exec_exit_code(const void* path) {
  char* argv[] = {"x", "--exit", "9", NULL};
  exec_guest(path, argv, environ);
  return 100 + errno;
}

// Plain execve (no reference-lane detour): for the error cases, where the host kernel is the reference.
static int plain_execve_errno(const void* path) {
  char* argv[] = {(char*)path, NULL};
  execve(path, argv, environ);
  return errno;
}

static void write_file(const char* path, const char* text, mode_t mode) {
  int fd = REQUIRE_SYS(open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600));
  REQUIRE(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
  REQUIRE_SYS(close(fd));
  REQUIRE_SYS(chmod(path, mode));
}

static void test_args_env(void) {
  CHECK_EXITED_WITH(in_child(exec_args_env, NULL), 0, "exec with args and a custom environment");
  // A symlink in the cwd, run by a relative path, and /proc/self/exe.
  REQUIRE_SYS(symlink(self_path(), "link-to-self"));
  CHECK_EXITED_WITH(in_child(exec_exit_code, "./link-to-self"), 9, "exec of ./link-to-self");
  // Under qemu-aarch64 the exec goes to the host (see self_exec.h), where /proc/self/exe names the new qemu
  // process's own binary: only a64run can check this path.
  if (!on_reference_qemu())
    CHECK_EXITED_WITH(in_child(exec_exit_code, "/proc/self/exe"), 9, "exec of /proc/self/exe");
}

struct ScriptCase {
  const char* name;       // file to write in the cwd
  const char* path;       // path given to execve
  const char* shebang;    // the #! line (without the newline)
  const char* expect[6];  // the argv the interpreter must get, NULL-terminated
};

static int exec_script(const void* arg) {
  const struct ScriptCase* c = arg;
  char* argv[] = {"ignored-argv0", "a", "b c", NULL};
  setenv("A64RUN_EXEC_DUMP", "argv.dump", 1);
  execve(c->path, argv, environ);
  return 100 + errno;
}

static void run_script_case(const struct ScriptCase* c) {
  char text[PATH_MAX + 100];
  snprintf(text, sizeof text, "%s\nthe rest of a script is not read\n", c->shebang);
  write_file(c->name, text, 0755);
  unlink("argv.dump");
  CHECK_EXITED_WITH(in_child(exec_script, c), 0, c->name);
  char got[PATH_MAX * 4] = {0};
  int fd = open("argv.dump", O_RDONLY);
  if (!CHECK(fd >= 0)) return;
  ssize_t n = read(fd, got, sizeof got - 1);
  close(fd);
  CHECK_GT(n, 0);
  const char* p = got;
  for (int i = 0; c->expect[i]; i++) {
    if (p >= got + n) {
      CHECK(!"argv too short");
      NOTE("%s: argv ends before argv[%d] = \"%s\"", c->name, i, c->expect[i]);
      return;
    }
    if (!CHECK_STREQ(p, c->expect[i])) NOTE("%s: argv[%d]", c->name, i);
    p += strlen(p) + 1;
  }
  if (!CHECK(p == got + n)) NOTE("%s: argv has more entries, the next is \"%s\"", c->name, p);
}

static void test_scripts(void) {
  char shebang[PATH_MAX + 64], abs_script[PATH_MAX + 32], cwd[PATH_MAX];
  REQUIRE(getcwd(cwd, sizeof cwd));
  const char* self = self_path();
  // In the reference lane the interpreter must be something the host can run: qemu-aarch64 with this
  // binary as its one optional argument, which gives this binary the same argv as `#!SELF` would.
  if (on_reference_qemu())
    snprintf(shebang, sizeof shebang, "#!%s %s", reference_qemu_path(), self);
  else
    snprintf(shebang, sizeof shebang, "#!%s", self);

  struct ScriptCase relative = {"script1", "./script1", shebang, {self, "./script1", "a", "b c", NULL}};
  run_script_case(&relative);
  snprintf(abs_script, sizeof abs_script, "%s/script2", cwd);
  struct ScriptCase absolute = {"script2", abs_script, shebang, {self, abs_script, "a", "b c", NULL}};
  run_script_case(&absolute);

  // The optional argument, and blanks around the interpreter and the argument (the argument keeps its
  // inner blanks). The reference lane already spends the one optional argument on qemu's program path.
  if (!on_reference_qemu()) {
    char with_arg[PATH_MAX + 64], blanks[PATH_MAX + 64];
    snprintf(with_arg, sizeof with_arg, "#!%s --opt", self);
    struct ScriptCase optional = {
        "script3", "./script3", with_arg, {self, "--opt", "./script3", "a", "b c", NULL}};
    run_script_case(&optional);
    snprintf(blanks, sizeof blanks, "#! \t%s  one \t two \t ", self);
    struct ScriptCase spaced = {
        "script4", "./script4", blanks, {self, "one \t two", "./script4", "a", "b c", NULL}};
    run_script_case(&spaced);
  }

  write_file("script-missing-interp", "#!/nonexistent/interpreter\n", 0755);
  CHECK_EXITED_WITH(in_child(plain_execve_errno, "./script-missing-interp"), ENOENT,
                    "script with a missing interpreter");
}

static void test_errors(void) {
  write_file("not-executable", "#!/bin/sh\nexit 0\n", 0644);
  CHECK_EXITED_WITH(in_child(plain_execve_errno, "./not-executable"), EACCES, "file without x bits");
  write_file("plain-text", "just some text, no #! line\n", 0755);
  CHECK_EXITED_WITH(in_child(plain_execve_errno, "./plain-text"), ENOEXEC, "text file without #!");
  write_file("empty", "", 0755);
  CHECK_EXITED_WITH(in_child(plain_execve_errno, "./empty"), ENOEXEC, "empty file");
  CHECK_EXITED_WITH(in_child(plain_execve_errno, "./missing"), ENOENT, "missing file");
  REQUIRE_SYS(mkdir("a-directory", 0755));
  CHECK_EXITED_WITH(in_child(plain_execve_errno, "./a-directory"), EACCES, "directory");
  CHECK_EXITED_WITH(in_child(plain_execve_errno, "./plain-text/x"), ENOTDIR, "path through a file");
  // A program of the host's architecture runs on the host, as qemu-aarch64 hands exec to the host.
  const char* host = access("/bin/true", X_OK) == 0 ? "/bin/true" : "/usr/bin/true";
  CHECK_EXITED_WITH(in_child(plain_execve_errno, host), 0, "host-architecture program");
}

static int exec_check_fds(const void* unused) {
  (void)unused;
  char* argv[] = {"x", "--check-fds", "60", "62", "63", "--", "61", "64", NULL};
  exec_guest(self_path(), argv, environ);
  return 100 + errno;
}

// The new program's signal state: what execve(2) keeps. SIGUSR1 blocked, SIGUSR2 and SIGHUP ignored (as
// nohup leaves it), SIGTERM (caught before) back to SIG_DFL, SIGINT neither blocked nor ignored.
static int mode_check_signals(void) {
  sigset_t cur;
  sigprocmask(SIG_SETMASK, NULL, &cur);
  struct sigaction usr2, hup, term, intr;
  sigaction(SIGUSR2, NULL, &usr2);
  sigaction(SIGHUP, NULL, &hup);
  sigaction(SIGTERM, NULL, &term);
  sigaction(SIGINT, NULL, &intr);
  if (!sigismember(&cur, SIGUSR1) || sigismember(&cur, SIGINT)) return 1;
  if (usr2.sa_handler != SIG_IGN || hup.sa_handler != SIG_IGN) return 2;
  if (term.sa_handler != SIG_DFL || intr.sa_handler != SIG_DFL) return 3;
  // An ignored signal sent now is discarded: the program lives on.
  raise(SIGHUP);
  return 0;
}

static void on_term(int sig) {
  (void)sig;
}

static int exec_check_signals(const void* unused) {
  (void)unused;
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGUSR1);
  sigprocmask(SIG_BLOCK, &s, NULL);
  signal(SIGUSR2, SIG_IGN);
  signal(SIGHUP, SIG_IGN);
  signal(SIGTERM, on_term);
  char* argv[] = {"x", "--check-signals", NULL};
  exec_guest(self_path(), argv, environ);
  return 100 + errno;
}

static void test_cloexec(void) {
  write_file("data", "hello", 0644);
  // High numbers, so that files the new program's loader opens cannot take a closed fd's number.
  int with = REQUIRE_SYS(open("data", O_RDONLY | O_CLOEXEC));
  int without = REQUIRE_SYS(open("data", O_RDONLY));
  REQUIRE(dup2(with, 60) == 60);  // dup2 clears FD_CLOEXEC: set it again
  REQUIRE_SYS(fcntl(60, F_SETFD, FD_CLOEXEC));
  REQUIRE(dup2(without, 61) == 61);
  REQUIRE(dup3(without, 62, O_CLOEXEC) == 62);
  REQUIRE(fcntl(without, F_DUPFD_CLOEXEC, 63) == 63);
  REQUIRE(dup2(without, 64) == 64);
  REQUIRE_SYS(fcntl(64, F_SETFD, FD_CLOEXEC));
  REQUIRE_SYS(fcntl(64, F_SETFD, 0));  // set, then cleared: stays open
  close(with);
  close(without);
  CHECK_EXITED_WITH(in_child(exec_check_fds, NULL), 0, "fds across exec");
  for (int fd = 60; fd <= 64; fd++) close(fd);
}

static void test_signal_state(void) {
  CHECK_EXITED_WITH(in_child(exec_check_signals, NULL), 0, "signal mask and ignored signals across exec");
}

int main(int argc, char** argv) {
  const char* dump = getenv("A64RUN_EXEC_DUMP");
  if (dump) return mode_dump(argc, argv, dump);
  if (argc >= 2 && strcmp(argv[1], "--args-env") == 0) return mode_args_env(argc, argv);
  if (argc >= 2 && strcmp(argv[1], "--check-fds") == 0) return mode_check_fds(argc, argv);
  if (argc == 3 && strcmp(argv[1], "--exit") == 0) return atoi(argv[2]);
  if (argc == 2 && strcmp(argv[1], "--check-signals") == 0) return mode_check_signals();

  NOTE("args and environment");
  test_args_env();
  NOTE("scripts");
  test_scripts();
  NOTE("errors");
  test_errors();
  NOTE("close-on-exec");
  test_cloexec();
  NOTE("signal mask and dispositions");
  test_signal_state();
  return check_done();
}
