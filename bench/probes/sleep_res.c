// Probe 3: sleep resolution: the actual duration of nanosleep for 1 us, 10 us, 100 us and 1 ms requests
// (minimum and median). A result below the request means the sleep returned early, which is a bug.
// Usage: sleep_res [iterations for the 1 ms request; the shorter requests run 4x as many]
#include "common.h"

int main(int argc, char** argv) {
  probe_init();
  int base = arg_count(argc, argv, 1, 100);
  static const struct {
    const char* name;
    int64_t ns;
    int mult;
  } kReqs[] = {{"1us", 1000, 4}, {"10us", 10000, 4}, {"100us", 100000, 4}, {"1ms", 1000000, 1}};
  int rc = 0;
  for (size_t r = 0; r < sizeof kReqs / sizeof kReqs[0]; r++) {
    int n = base * kReqs[r].mult;
    int64_t* d = calloc((size_t)n, sizeof *d);
    struct timespec req = {.tv_sec = 0, .tv_nsec = kReqs[r].ns};
    char fig[64];
    snprintf(fig, sizeof fig, "sleep.%s", kReqs[r].name);
    int got = 0;
    for (int i = 0; i < n; i++) {
      int64_t t0 = now_ns();
      if (nanosleep(&req, NULL) != 0) {
        fail(fig, "nanosleep: %s", strerror(errno));
        rc = 1;
        break;
      }
      d[got++] = now_ns() - t0;
    }
    if (got > 0) {
      samples_us(fig, d, got);
      char name[80];
      snprintf(name, sizeof name, "%s.min", fig);
      result_us(name, d[0]);
      snprintf(name, sizeof name, "%s.p50", fig);
      result_us(name, pct(d, got, 50));
      if (d[0] < kReqs[r].ns) {
        fail(fig, "a %s sleep returned after %.3f us, early", kReqs[r].name, (double)d[0] / 1e3);
        rc = 1;
      }
    }
    free(d);
  }
  return rc;
}
