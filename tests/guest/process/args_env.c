// Tests the initial stack a program starts with: argc/argv exactly as passed (CMakeLists.txt passes them),
// envp with the variables the test sets, and the auxiliary vector right after envp's NULL.
#include <elf.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "check.h"

// Must match ARGS of process/args_env in CMakeLists.txt.
static const char* const kExpectedArgs[] = {
    "one",          "two words", "  spaced  ",
    "quote\"d",     "$dollar",   "\xc3\xbc\xc3\xb1\xc3\xad\xc3\xa7\xc3\xb8\x64\xc3\xa9",
    "--flag=value",
};
#define kExpectedArgc ((int)(sizeof(kExpectedArgs) / sizeof(kExpectedArgs[0])) + 1)

extern char** environ;

static int ends_with(const char* s, const char* suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

static const char* find_env(char** envp, const char* name) {
  size_t n = strlen(name);
  for (char** e = envp; *e; e++) {
    if (strncmp(*e, name, n) == 0 && (*e)[n] == '=') return *e + n + 1;
  }
  return NULL;
}

int main(int argc, char** argv, char** envp) {
  CHECK_EQ(argc, kExpectedArgc);
  CHECK(argv[0] != NULL && ends_with(argv[0], "/args_env"));
  for (int i = 1; i < argc && i < kExpectedArgc; i++) CHECK_STREQ(argv[i], kExpectedArgs[i - 1]);
  CHECK(argv[argc] == NULL);

  // The kernel puts envp right after argv's NULL; glibc hands main that same array and sets environ to it.
  CHECK(envp == argv + argc + 1);
  CHECK(environ == envp);
  CHECK_STREQ(find_env(envp, "A64RUN_TEST_VAR"), "xyz");
  CHECK_STREQ(getenv("A64RUN_TEST_VAR"), "xyz");
  CHECK_STREQ(getenv("A64RUN_TEST_SPACES"), "a b = c");
  CHECK(getenv("A64RUN_TEST_UNSET_VARIABLE") == NULL);
  int env_count = 0;
  for (char** e = envp; *e; e++, env_count++) {
    if (!CHECK(strchr(*e, '=') != NULL)) fprintf(stderr, "  environment entry without '=': \"%s\"\n", *e);
  }
  CHECK_GE(env_count, 2);

  // The auxiliary vector starts right after envp's NULL: (type, value) pairs up to AT_NULL.
  const Elf64_auxv_t* auxv = (const Elf64_auxv_t*)(envp + env_count + 1);
  int found_pagesz = 0, pairs = 0;
  for (; auxv->a_type != AT_NULL && pairs < 128; auxv++, pairs++) {
    if (auxv->a_type == AT_PAGESZ) {
      found_pagesz = 1;
      CHECK_EQ(auxv->a_un.a_val, getauxval(AT_PAGESZ));
    }
  }
  CHECK(found_pagesz);
  CHECK_LT(pairs, 128);

  // The strings are where the kernel copied them; writing to them must be allowed (they are the guest's).
  argv[1][0] = 'O';
  CHECK_EQ(argv[1][0], 'O');

  // setenv/unsetenv work on the inherited environment.
  CHECK_SYS(setenv("A64RUN_TEST_VAR", "changed", 1));
  CHECK_STREQ(getenv("A64RUN_TEST_VAR"), "changed");
  CHECK_SYS(unsetenv("A64RUN_TEST_VAR"));
  CHECK(getenv("A64RUN_TEST_VAR") == NULL);
  return check_done();
}
