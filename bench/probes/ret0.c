// Probe 6a: the smallest program, for startup + teardown time (timed from outside by the harness).
int main(void) {
  return 0;
}
