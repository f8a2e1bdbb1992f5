// Probe 8: compute kernels. Each prints its time and a checksum that must be equal on every runner (the
// same source computes the same bits on aarch64 and x86-64: no char signedness, no FMA contraction since
// the harness builds with -ffp-contract=off, no reassociated float sums).
//   sieve     Eratosthenes over 10 MB, repeated            integer, strided stores over a large array
//   xorshift  a long xorshift64 chain                       integer, register-only
//   qsort     glibc qsort of 32-bit keys                    integer, indirect calls
//   imatmul   32-bit integer matrix multiply                integer, loads and multiplies
//   fib       naive recursive Fibonacci                     calls and returns
//   memcpy    glibc memcpy of 64 B .. 1 MiB blocks, 16 MiB  memory bandwidth
//   hash      open-addressing hash table, 64 MiB            random memory access (TLB)
//   fmatmul   double matrix multiply                        floating point
// Usage: kernels <name> [scale]   (scale 1 is the full size; the harness uses less in QUICK mode)
#include "common.h"

static inline uint64_t xorshift64(uint64_t* s) {
  uint64_t x = *s;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return *s = x;
}

static uint64_t mix(uint64_t h, uint64_t v) {
  return (h ^ v) * 0x100000001b3ULL + (h >> 29);
}

static uint64_t k_sieve(long reps) {
  enum { kN = 10 * 1000 * 1000 };
  uint8_t* composite = malloc(kN + 1);
  uint64_t sum = 0;
  for (long r = 0; r < reps; r++) {
    memset(composite, 0, kN + 1);
    uint64_t count = 0;
    for (uint64_t i = 2; i <= kN; i++) {
      if (composite[i]) continue;
      count++;
      sum += i;
      for (uint64_t j = i * i; j <= kN; j += i) composite[j] = 1;
    }
    sum = mix(sum, count);
  }
  free(composite);
  return sum;
}

static uint64_t k_xorshift(long n) {
  uint64_t s = 88172645463325252ULL, acc = 0;
  for (long i = 0; i < n; i++) acc += xorshift64(&s) >> (i & 7);
  return acc ^ s;
}

static int cmp_u32(const void* a, const void* b) {
  uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
  return (x > y) - (x < y);
}

static uint64_t k_qsort(long n) {
  uint32_t* v = malloc((size_t)n * sizeof *v);
  uint64_t s = 2463534242ULL, h = 0;
  for (long i = 0; i < n; i++) v[i] = (uint32_t)(xorshift64(&s) >> 16);
  qsort(v, (size_t)n, sizeof *v, cmp_u32);
  for (long i = 0; i < n; i++) h = mix(h, v[i]);
  free(v);
  return h;
}

static uint64_t k_imatmul(long n) {
  uint32_t* a = malloc((size_t)(n * n) * sizeof *a);
  uint32_t* b = malloc((size_t)(n * n) * sizeof *b);
  uint32_t* c = calloc((size_t)(n * n), sizeof *c);
  uint64_t s = 1234567ULL, h = 0;
  for (long i = 0; i < n * n; i++) a[i] = (uint32_t)xorshift64(&s), b[i] = (uint32_t)xorshift64(&s);
  for (long i = 0; i < n; i++)
    for (long k = 0; k < n; k++) {
      uint32_t aik = a[i * n + k];
      for (long j = 0; j < n; j++) c[i * n + j] += aik * b[k * n + j];
    }
  for (long i = 0; i < n * n; i++) h = mix(h, c[i]);
  free(a), free(b), free(c);
  return h;
}

__attribute__((noinline)) static uint64_t fib(int n) {
  return n < 2 ? (uint64_t)n : fib(n - 1) + fib(n - 2);
}

static uint64_t k_fib(long n) {
  return fib((int)n);
}

static uint64_t k_memcpy(long rounds) {
  enum { kBuf = 16 << 20 };
  static const size_t kSizes[] = {64, 1024, 64 << 10, 1 << 20};
  uint8_t* src = malloc(kBuf);
  uint8_t* dst = malloc(kBuf);
  uint64_t s = 42, h = 0;
  for (size_t i = 0; i < kBuf / 8; i++) ((uint64_t*)src)[i] = xorshift64(&s);
  for (long r = 0; r < rounds; r++) {
    size_t size = kSizes[r % 4];
    size_t shift = ((size_t)r * 4160) % (kBuf - size);
    for (size_t off = 0; off + size <= kBuf; off += size) {
      size_t from = (off + shift) % (kBuf - size + 1);
      memcpy(dst + off, src + from, size);
    }
    h = mix(h, ((uint64_t*)dst)[(size_t)r * 977 % (kBuf / 8)]);
  }
  for (size_t i = 0; i < kBuf / 8; i += 61) h = mix(h, ((uint64_t*)dst)[i]);
  free(src), free(dst);
  return h;
}

static uint64_t k_hash(long n) {
  enum { kBits = 23 };
  const uint64_t mask = (1ULL << kBits) - 1;
  uint64_t* table = calloc((size_t)1 << kBits, sizeof *table);
  uint64_t s = 777, probes = 0, found = 0;
  for (long i = 0; i < n; i++) {
    uint64_t key = xorshift64(&s) | 1;
    for (uint64_t slot = (key * 0x9E3779B97F4A7C15ULL) >> (64 - kBits);; slot = (slot + 1) & mask) {
      probes++;
      if (table[slot] == 0 || table[slot] == key) {
        table[slot] = key;
        break;
      }
    }
  }
  uint64_t s1 = 777, s2 = 999;
  for (long i = 0; i < n; i++) {
    uint64_t key = (i & 1) ? (xorshift64(&s1) | 1) : (xorshift64(&s2) | 1);
    for (uint64_t slot = (key * 0x9E3779B97F4A7C15ULL) >> (64 - kBits);; slot = (slot + 1) & mask) {
      probes++;
      if (table[slot] == key) {
        found++;
        break;
      }
      if (table[slot] == 0) break;
    }
  }
  free(table);
  return mix(probes, found);
}

static uint64_t k_fmatmul(long n) {
  double* a = malloc((size_t)(n * n) * sizeof *a);
  double* b = malloc((size_t)(n * n) * sizeof *b);
  double* c = calloc((size_t)(n * n), sizeof *c);
  uint64_t s = 99991ULL;
  for (long i = 0; i < n * n; i++) {
    a[i] = (double)(xorshift64(&s) >> 11) * 0x1p-53 - 0.5;
    b[i] = (double)(xorshift64(&s) >> 11) * 0x1p-53 - 0.5;
  }
  for (long i = 0; i < n; i++)
    for (long k = 0; k < n; k++) {
      double aik = a[i * n + k];
      for (long j = 0; j < n; j++) c[i * n + j] += aik * b[k * n + j];
    }
  double sum = 0;
  for (long i = 0; i < n * n; i++) sum += c[i] * (double)(i % 7 + 1);
  uint64_t bits;
  memcpy(&bits, &sum, sizeof bits);
  free(a), free(b), free(c);
  return bits;
}

// Full sizes: each kernel runs ~0.5-2 s under qemu-aarch64 on the reference machine.
static const struct {
  const char* name;
  uint64_t (*fn)(long);
  long full;
  long min;  // the smallest size, whatever the scale
} kKernels[] = {
    {"sieve", k_sieve, 8, 1},
    {"xorshift", k_xorshift, 400000000, 1000},
    {"qsort", k_qsort, 1200000, 1000},
    {"imatmul", k_imatmul, 640, 64},
    {"fib", k_fib, 38, 20},
    {"memcpy", k_memcpy, 160, 4},
    {"hash", k_hash, 3000000, 1000},
    {"fmatmul", k_fmatmul, 448, 32},
};

int main(int argc, char** argv) {
  // No probe_init: without a working clock the kernel still runs and prints its checksum, and the
  // harness falls back to the process's wall time (it marks such figures).
  setvbuf(stdout, NULL, _IOLBF, 0);
  struct timespec ts;
  int have_clock = clock_gettime(CLOCK_MONOTONIC, &ts) == 0;
  if (!have_clock) fail("clock", "clock_gettime(CLOCK_MONOTONIC): %s", strerror(errno));
  if (argc < 2) {
    fprintf(stderr, "usage: kernels <name> [scale]\n");
    return 2;
  }
  double scale = argc > 2 ? atof(argv[2]) : 1.0;
  for (size_t i = 0; i < sizeof kKernels / sizeof kKernels[0]; i++) {
    if (strcmp(argv[1], kKernels[i].name) != 0) continue;
    long n = (long)((double)kKernels[i].full * scale);
    // Sizes that grow faster than linearly scale by the matching root, so the work scales by `scale`.
    if (strcmp(argv[1], "imatmul") == 0 || strcmp(argv[1], "fmatmul") == 0)
      n = (long)((double)kKernels[i].full * __builtin_cbrt(scale));
    if (strcmp(argv[1], "fib") == 0)
      n = kKernels[i].full + (long)(__builtin_log(scale) / __builtin_log(1.618));
    if (n < kKernels[i].min) n = kKernels[i].min;
    // Wall time, and the process's CPU time (translation and emulation included under an emulator): the
    // second holds on a busy host, where the first also counts the time other processes had the CPU.
    struct timespec c0, c1;
    int have_cpu = clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0) == 0;
    int64_t t0 = now_ns();
    uint64_t check = kKernels[i].fn(n);
    int64_t t1 = now_ns();
    have_cpu = have_cpu && clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1) == 0;
    printf("CHECK kernel.%s=%016llx\n", argv[1], (unsigned long long)check);
    if (have_clock) printf("RESULT kernel.%s=%.4f unit=s\n", argv[1], (double)(t1 - t0) / 1e9);
    if (have_cpu)
      printf("RESULT kcpu.%s=%.4f unit=s\n", argv[1],
             (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) / 1e9);
    return 0;
  }
  fprintf(stderr, "kernels: unknown kernel %s\n", argv[1]);
  return 2;
}
