// Helpers shared by the guest tests that read the records of a signal frame's __reserved area
// (arch/arm64/include/uapi/asm/sigcontext.h: FPSIMD, ESR, SVE, ... and the terminator, magic 0).
#ifndef A64RUN_TESTS_GUEST_COMMON_SIGFRAME_UTIL_H_
#define A64RUN_TESTS_GUEST_COMMON_SIGFRAME_UTIL_H_

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/ucontext.h>

// The record with `magic` (0 finds the terminator), or NULL when the walk ends first: at the terminator, a
// record shorter than its 8-byte header, or the end of the area.
static inline const unsigned char* find_record(const mcontext_t* mc, uint32_t magic) {
  const unsigned char* p = (const unsigned char*)mc->__reserved;
  const unsigned char* end = p + sizeof(mc->__reserved);
  while (p + 8 <= end) {
    uint32_t m, size;
    memcpy(&m, p, 4);
    memcpy(&size, p + 4, 4);
    if (m == magic) return p;
    if (m == 0 || size < 8) return NULL;
    p += size;
  }
  return NULL;
}

// The ESR of a fault's frame (esr_context, 16 bytes): 1 and *esr when the frame has the record, else 0.
static inline int find_esr(const mcontext_t* mc, uint64_t* esr) {
  const unsigned char* p = find_record(mc, ESR_MAGIC);
  uint32_t size;
  if (p == NULL) return 0;
  memcpy(&size, p + 4, 4);
  if (size < 16) return 0;
  memcpy(esr, p + 8, 8);
  return 1;
}

// Installs `handler` for `sig` with SA_SIGINFO and no other flag (null: SIG_DFL again); sigaction's result.
static inline int set_siginfo_handler(int sig, void (*handler)(int, siginfo_t*, void*)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  if (handler != NULL) {
    sa.sa_sigaction = handler;
    sa.sa_flags = SA_SIGINFO;
  } else {
    sa.sa_handler = SIG_DFL;
  }
  return sigaction(sig, &sa, NULL);
}

#endif  // A64RUN_TESTS_GUEST_COMMON_SIGFRAME_UTIL_H_
