// Shared verdict helpers for guest tests: CHECK macros that print file:line, the expression and the values on
// failure, count failures, and let main() end with `return check_done();` (exit status 0 only if all passed).
#ifndef A64RUN_TESTS_GUEST_COMMON_CHECK_H_
#define A64RUN_TESTS_GUEST_COMMON_CHECK_H_

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failures;
static int check_count;

static inline void check_fail_header(const char* file, int line, const char* expr) {
  check_failures++;
  fprintf(stderr, "%s:%d: CHECK failed: %s\n", file, line, expr);
}

// Returns the exit status for main(): 0 if every check passed, 1 otherwise, after a summary line.
static inline int check_done(void) {
  fflush(stdout);
  if (check_failures) {
    fprintf(stderr, "FAIL: %d of %d checks failed\n", check_failures, check_count);
    return 1;
  }
  printf("PASS: %d checks\n", check_count);
  fflush(stdout);
  return 0;
}

// True when the test runs in the reference lane (run_guest.sh sets A64RUN_REFERENCE=qemu for qemu-aarch64).
// Use only to skip a check that hits a documented qemu bug; say which bug next to the call.
static inline int on_reference_qemu(void) {
  const char* ref = getenv("A64RUN_REFERENCE");
  return ref && strcmp(ref, "qemu") == 0;
}

#define NOTE(...)                          \
  do {                                     \
    fprintf(stderr, "note: " __VA_ARGS__); \
    fputc('\n', stderr);                   \
  } while (0)

// CHECK(cond): a boolean condition; a nonzero errno after it is shown, as most conditions involve a syscall.
#define CHECK(cond)                                                                                  \
  ({                                                                                                 \
    int check_ok_ = !!(cond);                                                                        \
    int check_errno_ = errno;                                                                        \
    check_count++;                                                                                   \
    if (!check_ok_) {                                                                                \
      check_fail_header(__FILE__, __LINE__, #cond);                                                  \
      if (check_errno_) fprintf(stderr, "  (errno %d: %s)\n", check_errno_, strerror(check_errno_)); \
    }                                                                                                \
    check_ok_;                                                                                       \
  })

// CHECK_EQ(actual, expected) for integers and pointers; evaluates each side once.
#define CHECK_CMP_(a, op, b)                                                                 \
  ({                                                                                         \
    long long check_a_ = (long long)(a);                                                     \
    long long check_b_ = (long long)(b);                                                     \
    int check_ok_ = check_a_ op check_b_;                                                    \
    check_count++;                                                                           \
    if (!check_ok_) {                                                                        \
      check_fail_header(__FILE__, __LINE__, #a " " #op " " #b);                              \
      fprintf(stderr, "  actual:   %lld (0x%llx)\n  expected: %s %lld (0x%llx)\n", check_a_, \
              (unsigned long long)check_a_, #op, check_b_, (unsigned long long)check_b_);    \
    }                                                                                        \
    check_ok_;                                                                               \
  })
#define CHECK_EQ(a, b) CHECK_CMP_(a, ==, b)
#define CHECK_NE(a, b) CHECK_CMP_(a, !=, b)
#define CHECK_GE(a, b) CHECK_CMP_(a, >=, b)
#define CHECK_GT(a, b) CHECK_CMP_(a, >, b)
#define CHECK_LE(a, b) CHECK_CMP_(a, <=, b)
#define CHECK_LT(a, b) CHECK_CMP_(a, <, b)

#define CHECK_STREQ(a, b)                                                                         \
  ({                                                                                              \
    const char* check_a_ = (a);                                                                   \
    const char* check_b_ = (b);                                                                   \
    int check_ok_ = check_a_ && check_b_ && strcmp(check_a_, check_b_) == 0;                      \
    check_count++;                                                                                \
    if (!check_ok_) {                                                                             \
      check_fail_header(__FILE__, __LINE__, #a " == " #b);                                        \
      fprintf(stderr, "  actual:   \"%s\"\n  expected: \"%s\"\n", check_a_ ? check_a_ : "(null)", \
              check_b_ ? check_b_ : "(null)");                                                    \
    }                                                                                             \
    check_ok_;                                                                                    \
  })

// CHECK_MEMEQ(a, b, n): reports the first differing byte offset.
#define CHECK_MEMEQ(a, b, n)                                                                           \
  ({                                                                                                   \
    const unsigned char* check_a_ = (const unsigned char*)(a);                                         \
    const unsigned char* check_b_ = (const unsigned char*)(b);                                         \
    size_t check_n_ = (n), check_i_ = 0;                                                               \
    while (check_i_ < check_n_ && check_a_[check_i_] == check_b_[check_i_]) check_i_++;                \
    check_count++;                                                                                     \
    if (check_i_ != check_n_) {                                                                        \
      check_fail_header(__FILE__, __LINE__, "memcmp(" #a ", " #b ", " #n ") == 0");                    \
      fprintf(stderr, "  first difference at byte %zu of %zu: 0x%02x vs 0x%02x\n", check_i_, check_n_, \
              check_a_[check_i_], check_b_[check_i_]);                                                 \
    }                                                                                                  \
    check_i_ == check_n_;                                                                              \
  })

// CHECK_SYS(call): the call must not return -1; prints errno otherwise. Yields the call's value.
#define CHECK_SYS(call)                                                                       \
  ({                                                                                          \
    errno = 0;                                                                                \
    long long check_r_ = (long long)(call);                                                   \
    int check_errno_ = errno;                                                                 \
    check_count++;                                                                            \
    if (check_r_ == -1) {                                                                     \
      check_fail_header(__FILE__, __LINE__, #call " != -1");                                  \
      fprintf(stderr, "  failed with errno %d (%s)\n", check_errno_, strerror(check_errno_)); \
    }                                                                                         \
    check_r_;                                                                                 \
  })

// CHECK_ERRNO(call, err): the call must return -1 with errno == err.
#define CHECK_ERRNO(call, err)                                                                  \
  ({                                                                                            \
    errno = 0;                                                                                  \
    long long check_r_ = (long long)(call);                                                     \
    int check_errno_ = errno;                                                                   \
    int check_want_ = (err);                                                                    \
    int check_ok_ = check_r_ == -1 && check_errno_ == check_want_;                              \
    check_count++;                                                                              \
    if (!check_ok_) {                                                                           \
      check_fail_header(__FILE__, __LINE__, #call " fails with " #err);                         \
      fprintf(stderr, "  returned %lld, errno %d (%s); expected -1, errno %d (%s)\n", check_r_, \
              check_errno_, check_r_ == -1 ? strerror(check_errno_) : "-", check_want_,         \
              strerror(check_want_));                                                           \
    }                                                                                           \
    check_ok_;                                                                                  \
  })

// REQUIRE*(...): like CHECK*, but a failure ends the test at once (for set-up that later checks depend on).
#define REQUIRE(cond)                     \
  do {                                    \
    if (!CHECK(cond)) exit(check_done()); \
  } while (0)
#define REQUIRE_SYS(call)                                    \
  ({                                                         \
    int check_before_ = check_failures;                      \
    long long check_v_ = CHECK_SYS(call);                    \
    if (check_failures != check_before_) exit(check_done()); \
    check_v_;                                                \
  })

#endif  // A64RUN_TESTS_GUEST_COMMON_CHECK_H_
