// Prints "hello, world": the smallest program, built static, static-pie and dynamic.
#include <stdio.h>

int main(void) {
  puts("hello, world");
  return 0;
}
