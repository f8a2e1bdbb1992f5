// CpuState: the user-visible arm64 register file of a guest thread (what clone copies and a signal frame
// saves), read from and written to a Vcpu in one batch each way.
#pragma once

#include <cstdint>

namespace emu {

class Vcpu;

struct CpuState {
  uint64_t x[31] = {};
  uint64_t sp = 0;
  uint64_t pc = 0;
  uint64_t nzcv = 0;  // PSTATE.NZCV in bits 31:28
  uint64_t tpidr = 0;
  uint64_t tpidrro = 0;
  uint64_t fpsr = 0;
  uint64_t fpcr = 0;
  struct alignas(16) Vreg {
    uint64_t lo = 0;
    uint64_t hi = 0;
  } v[32];
};

void save_cpu_state(const Vcpu& cpu, CpuState* out);
void restore_cpu_state(Vcpu& cpu, const CpuState& in);

}  // namespace emu
