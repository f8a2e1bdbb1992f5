// The generated-corpus tests (misc/fp_random, mem/access_forms): a fixed pseudo-random stream, a digest per
// entry (an instruction or an access form) of everything its cases produced, and the main that checks each
// digest against the one recorded under qemu-aarch64, prints them (the recording) or dumps one entry's cases
// (to diff two emulators).
#ifndef A64RUN_TESTS_GUEST_COMMON_CORPUS_H_
#define A64RUN_TESTS_GUEST_COMMON_CORPUS_H_

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

// xorshift64*: the stream every emulator sees alike.
static uint64_t corpus_state;
static uint64_t corpus_rnd(void) {
  corpus_state ^= corpus_state >> 12;
  corpus_state ^= corpus_state << 25;
  corpus_state ^= corpus_state >> 27;
  return corpus_state * 0x2545f4914f6cdd1dull;
}

// A seed of its own for each entry, so that adding one changes no other's digest.
static uint64_t corpus_seed(const char* name) {
  uint64_t seed = 0x9e3779b97f4a7c15ull;
  for (const char* c = name; *c; c++) seed = seed * 131 + (unsigned char)*c;
  return seed;
}

static uint64_t corpus_mix(uint64_t h, uint64_t v) {
  h ^= v;
  h *= 0x100000001b3ull;
  return h ^ (h >> 29);
}

struct corpus_digest {
  const char* name;
  uint64_t digest;
};

// `n` entries, entry i named name(i); run(i, dump) returns entry i's digest, printing each case with dump.
//   TEST             check every digest against `want`
//   TEST --print     print the digests in the form of `want`'s file
//   TEST --dump NAME print every case of one entry
static int corpus_main(int argc, char** argv, const char* test, size_t n, const char* (*name)(size_t),
                       uint64_t (*run)(size_t, int), const struct corpus_digest* want, size_t nwant) {
  if (argc == 2 && strcmp(argv[1], "--print") == 0) {
    printf("// %s --print under qemu-aarch64: each entry's digest (tests/guest/%s.c).\n// clang-format off\n",
           strrchr(test, '/') + 1, test);
    for (size_t i = 0; i < n; i++)
      printf("{\"%s\", 0x%016llxull},\n", name(i), (unsigned long long)run(i, 0));
    printf("    // clang-format on\n");
    return 0;
  }
  if (argc == 3 && strcmp(argv[1], "--dump") == 0) {
    for (size_t i = 0; i < n; i++)
      if (strcmp(name(i), argv[2]) == 0) {
        run(i, 1);
        return 0;
      }
    fprintf(stderr, "no entry %s\n", argv[2]);
    return 2;
  }
  CHECK_EQ(n, nwant);
  for (size_t i = 0; i < n; i++) {
    const uint64_t got = run(i, 0);
    const struct corpus_digest* w = NULL;
    for (size_t j = 0; j < nwant; j++)
      if (strcmp(want[j].name, name(i)) == 0) w = &want[j];
    if (!CHECK(w != NULL)) {
      NOTE("%s has no recorded digest", name(i));
      continue;
    }
    if (!CHECK_EQ(got, w->digest))
      NOTE("%s differs: rerun with --dump %s on both emulators", name(i), name(i));
  }
  return check_done();
}

#endif  // A64RUN_TESTS_GUEST_COMMON_CORPUS_H_
