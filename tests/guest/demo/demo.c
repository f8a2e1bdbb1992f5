// The bundled demo: a friendly arm64 program that shows what it runs on, its arguments, and computes a little
// (the README's first command runs it under a64run).
#include <stdint.h>
#include <stdio.h>
#include <sys/utsname.h>
#include <unistd.h>

static uint64_t fib(unsigned n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static unsigned count_primes_below(unsigned limit) {
  static unsigned char composite[100000];
  unsigned count = 0;
  for (unsigned i = 2; i < limit && i < sizeof(composite); i++) {
    if (composite[i]) continue;
    count++;
    for (unsigned j = i * 2; j < limit && j < sizeof(composite); j += i) composite[j] = 1;
  }
  return count;
}

int main(int argc, char** argv) {
  struct utsname u;
  if (uname(&u) != 0) {
    perror("uname");
    return 1;
  }
  printf("Hello from an arm64 program!\n");
  printf("  machine: %s, system: %s %s\n", u.machine, u.sysname, u.release);
  printf("  pid %d, page size %ld bytes\n", (int)getpid(), sysconf(_SC_PAGESIZE));
  printf("  %d argument%s:\n", argc, argc == 1 ? "" : "s");
  for (int i = 0; i < argc; i++) printf("    argv[%d] = %s\n", i, argv[i]);
  printf("  fib(30) = %llu\n", (unsigned long long)fib(30));
  printf("  primes below 100000: %u\n", count_primes_below(100000));
  printf("Goodbye!\n");
  return 0;
}
