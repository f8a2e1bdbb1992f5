// A few TCG temps of a translated block and the value each is known to hold (emu/vreg_forwarding.cpp's
// constants, emu/fp_pairs.cpp's pointers into the CPU state).
#pragma once

#include <cstdint>

namespace emu {

// At most eight temps, the newest kept: forgetting one is always safe for the walks that use it.
struct TempValues {
  uintptr_t temp[8] = {};
  uint64_t value[8] = {};
  int n = 0;

  const uint64_t* find(uintptr_t t) const {
    for (int i = 0; i < n; ++i) {
      if (temp[i] == t) return &value[i];
    }
    return nullptr;
  }
  void forget(uintptr_t t) {
    for (int i = 0; i < n;) {
      if (temp[i] != t) {
        ++i;
        continue;
      }
      --n;
      temp[i] = temp[n];
      value[i] = value[n];
    }
  }
  void set(uintptr_t t, uint64_t v) {
    forget(t);
    if (n == 8) n = 7;
    temp[n] = t;
    value[n++] = v;
  }
  void clear() { n = 0; }
};

}  // namespace emu
