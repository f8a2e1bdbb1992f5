// This file moves a CpuState in and out of Unicorn with one batch call each way (~0.25 us, DESIGN.md s1).
#include "emu/cpu_state.h"

#include <unicorn/unicorn.h>

#include <cstdlib>

#include "emu/vcpu.h"

namespace emu {
namespace {

constexpr int kCount = 31 + 7 + 32;  // x0-x30, seven special registers, q0-q31

struct Batch {
  int ids[kCount];
  void* ptrs[kCount];
};

void build(Batch* b, CpuState* s) {
  int n = 0;
  for (int i = 0; i < 29; ++i) {
    b->ids[n] = UC_ARM64_REG_X0 + i;
    b->ptrs[n++] = &s->x[i];
  }
  b->ids[n] = UC_ARM64_REG_X29;
  b->ptrs[n++] = &s->x[29];
  b->ids[n] = UC_ARM64_REG_X30;
  b->ptrs[n++] = &s->x[30];
  const struct {
    int id;
    uint64_t* p;
  } misc[] = {{UC_ARM64_REG_SP, &s->sp},
              {UC_ARM64_REG_PC, &s->pc},
              {UC_ARM64_REG_NZCV, &s->nzcv},
              {UC_ARM64_REG_TPIDR_EL0, &s->tpidr},
              {UC_ARM64_REG_TPIDRRO_EL0, &s->tpidrro},
              {UC_ARM64_REG_FPSR, &s->fpsr},
              {UC_ARM64_REG_FPCR, &s->fpcr}};
  for (const auto& m : misc) {
    b->ids[n] = m.id;
    b->ptrs[n++] = m.p;
  }
  for (int i = 0; i < 32; ++i) {
    b->ids[n] = UC_ARM64_REG_Q0 + i;
    b->ptrs[n++] = &s->v[i];
  }
}

}  // namespace

void save_cpu_state(const Vcpu& cpu, CpuState* out) {
  Batch b;
  build(&b, out);
  if (uc_reg_read_batch(cpu.uc(), b.ids, b.ptrs, kCount) != UC_ERR_OK) abort();
}

void restore_cpu_state(Vcpu& cpu, const CpuState& in) {
  Batch b;
  build(&b, const_cast<CpuState*>(&in));
  if (uc_reg_write_batch(cpu.uc(), b.ids, b.ptrs, kCount) != UC_ERR_OK) abort();
}

}  // namespace emu
