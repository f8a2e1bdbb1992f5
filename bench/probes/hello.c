// Probe 6b: hello world through stdio, for startup + teardown time (built static and dynamic; timed from
// outside by the harness, which also checks the output).
#include <stdio.h>

int main(void) {
  puts("hello");
  return 0;
}
