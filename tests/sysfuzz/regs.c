// The syscall fuzzer's checked call: every register the call must preserve is set to a pattern that
// depends on the call's number in the run, and compared after the call (tests/sysfuzz/svc_*.S make it).
#include <string.h>

#include "sysfuzz.h"

static uint64_t pattern(uint64_t index, int reg) {
  uint64_t z = index * 0x9e3779b97f4a7c15ULL + (uint64_t)reg * 0xbf58476d1ce4e5b9ULL;
  z ^= z >> 29;
  return z * 0x94d049bb133111ebULL;
}

static void note_reg(char* bad, size_t cap, const char* name, int n, uint64_t want, uint64_t got) {
  char line[96];
  static const char hex[] = "0123456789abcdef";
  size_t k = 0;
  for (const char* p = name; *p && k < 8; p++) line[k++] = *p;
  if (n >= 0) {
    if (n >= 10) line[k++] = (char)('0' + n / 10);
    line[k++] = (char)('0' + n % 10);
  }
  memcpy(line + k, " 0x", 3);
  k += 3;
  for (int i = 0; i < 16; i++) line[k++] = hex[(want >> (60 - 4 * i)) & 15];
  memcpy(line + k, "->0x", 4);
  k += 4;
  for (int i = 0; i < 16; i++) line[k++] = hex[(got >> (60 - 4 * i)) & 15];
  line[k++] = ';';
  line[k++] = ' ';
  line[k] = 0;
  const size_t used = strlen(bad);
  if (used + k + 1 < cap) memcpy(bad + used, line, k + 1);
}

#if defined(__aarch64__)

struct svc_regs {
  uint64_t x[31];
  uint64_t sp_after;
  uint64_t sp_before;
  uint64_t pad;
  uint64_t v[64];
};
_Static_assert(sizeof(struct svc_regs) == 784, "svc_arm64.S's layout");
extern long sysfuzz_svc(const struct svc_regs* in, struct svc_regs* out);

int64_t checked_syscall(struct fuzz* f, long nr, const uint64_t* args, char* bad, size_t bad_len) {
  struct svc_regs in, out;
  memset(&out, 0, sizeof out);
  for (int i = 0; i < 31; i++) in.x[i] = pattern(f->index, i);
  for (int i = 0; i < 6; i++) in.x[i] = args[i];
  in.x[8] = (uint64_t)nr;
  for (int i = 0; i < 64; i++) in.v[i] = pattern(f->index, 100 + i);
  const int64_t r = sysfuzz_svc(&in, &out);
  bad[0] = 0;
  for (int i = 1; i < 31; i++) {
    if (out.x[i] != in.x[i]) note_reg(bad, bad_len, "x", i, in.x[i], out.x[i]);
  }
  if (out.sp_after != out.sp_before) note_reg(bad, bad_len, "sp", -1, out.sp_before, out.sp_after);
  for (int i = 0; i < 64; i++) {
    if (out.v[i] != in.v[i]) note_reg(bad, bad_len, i & 1 ? "vhi" : "vlo", i / 2, in.v[i], out.v[i]);
  }
  return r;
}

#elif defined(__x86_64__)

struct svc_regs {
  uint64_t r[16];  // rax rcx rdx rbx rsp rbp rsi rdi r8..r15
  uint64_t sp_before;
  uint64_t pad;
  uint64_t xmm[32];
};
_Static_assert(sizeof(struct svc_regs) == 400, "svc_x86_64.S's layout");
extern long sysfuzz_svc(const struct svc_regs* in, struct svc_regs* out);

int64_t checked_syscall(struct fuzz* f, long nr, const uint64_t* args, char* bad, size_t bad_len) {
  static const char* const names[16] = {"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
                                        "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};
  struct svc_regs in, out;
  memset(&out, 0, sizeof out);
  for (int i = 0; i < 16; i++) in.r[i] = pattern(f->index, i);
  in.r[0] = (uint64_t)nr;
  in.r[7] = args[0];
  in.r[6] = args[1];
  in.r[2] = args[2];
  in.r[10] = args[3];
  in.r[8] = args[4];
  in.r[9] = args[5];
  for (int i = 0; i < 32; i++) in.xmm[i] = pattern(f->index, 100 + i);
  const int64_t r = sysfuzz_svc(&in, &out);
  bad[0] = 0;
  for (int i = 1; i < 16; i++) {
    if (i == 1 || i == 4 || i == 11) continue;  // rcx and r11 belong to `syscall`; rsp below
    if (out.r[i] != in.r[i]) note_reg(bad, bad_len, names[i], -1, in.r[i], out.r[i]);
  }
  if (out.r[4] != out.sp_before) note_reg(bad, bad_len, "rsp", -1, out.sp_before, out.r[4]);
  for (int i = 0; i < 32; i++) {
    if (out.xmm[i] != in.xmm[i])
      note_reg(bad, bad_len, i & 1 ? "xmmhi" : "xmmlo", i / 2, in.xmm[i], out.xmm[i]);
  }
  return r;
}

#else
#error "sysfuzz: no register-checking call for this architecture"
#endif
