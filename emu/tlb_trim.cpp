// This file trims the softmmu TLBs of the MMU indexes a vCPU never uses.
//
// Unicorn's tlb_init gives each of the Arm CPU's 12 MMU indexes a TLB of 256 entries (16 KiB, set to all
// ones at once, and a 4 KiB IOTLB): 48 pages touched for every vCPU, a sixth of what a start of a64run
// touches, and on a virtual machine each first touch costs microseconds. A vCPU runs in one MMU index (the
// translation regime of the EL Unicorn runs guest code at); another one is used only by LDTR and STTR (the
// EL0 index) and by nothing else a64run lets run. So right after the engine is made, every index but the
// vCPU's own gets QEMU's smallest TLB (CPU_TLB_DYN_MIN_BITS: 64 entries), allocated as QEMU's own resize
// allocates it, and the large tables go back to the heap, where the engine's next allocations take memory
// already touched. A trimmed TLB that is used after all stays correct: QEMU grows it at a flush when more
// than 70% of it was used (tlb_mmu_resize_locked), and a64run flushes when fills show a TLB is too small
// (Vcpu::grow_tlb).
//
// The layout is Debian's build of Unicorn 2.1.1 (QEMU 5.0's CPUTLB placed before CPUARMState), read off
// tlb_init's machine code and checked against it and against the fresh TLBs' own state before anything is
// freed; any mismatch leaves the TLBs as they are.
#include "emu/tlb_trim.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "emu/unicorn_layout.h"

#if A64RUN_WRAP_TRANSLATOR

extern "C" {
void tlb_init_aarch64(void* cpu);
int arm_mmu_idx_aarch64(void* env);
}

namespace emu {
namespace {

using unicorn::field;

constexpr int kMmuModes = 12;                            // NB_MMU_MODES (target/arm/cpu-param.h)
constexpr ptrdiff_t kFastFromEnv = -0xd0;                // env_tlb(env)->f[0] (CPUTLBDescFast: mask, table)
constexpr ptrdiff_t kFastSize = 0x10;                    // sizeof(CPUTLBDescFast)
constexpr ptrdiff_t kFastTable = 0x8;                    // CPUTLBDescFast.table (mask at 0)
constexpr ptrdiff_t kDescVtableFromEnv = -0x2140;        // env_tlb(env)->d[0].vtable
constexpr ptrdiff_t kDescSize = 0x2b8;                   // sizeof(CPUTLBDesc)
constexpr ptrdiff_t kDescIotlbFromVtable = 0x280;        // CPUTLBDesc.iotlb, from vtable
constexpr uintptr_t kDefaultMask = uintptr_t{255} << 6;  // CPU_TLB_DYN_DEFAULT_BITS 8, CPU_TLB_ENTRY_BITS 6
constexpr size_t kMinEntries = 64;                       // CPU_TLB_DYN_MIN_BITS 6
constexpr size_t kEntrySize = 64;                        // sizeof(CPUTLBEntry)
constexpr size_t kIotlbEntrySize = 16;                   // sizeof(CPUIOTLBEntry)
constexpr int kCoreIdxMask = 0xf;                        // ARM_MMU_IDX_COREIDX_MASK

bool layout_ok() {
  static const bool ok = [] {
    // tlb_init: mov 0x128(%rdi),%r12 (cpu->env_ptr); lea -0xd0(%r12),%rbp (f[0]); lea -0x2140(%r12),%rbx
    // (d[0].vtable); mov $0x4000,%edi (the table's size); movq $0x3fc0,-0x10(%rbp) (f[i].mask); mov
    // %rax,0x280(%rbx) (d[i].iotlb); add $0x2b8,%rbx (the next CPUTLBDesc).
    static const unsigned char kEnv[] = {0x4c, 0x8b, 0xa7, 0x28, 0x01, 0x00, 0x00};
    static const unsigned char kFast[] = {0x49, 0x8d, 0xac, 0x24, 0x30, 0xff, 0xff, 0xff};
    static const unsigned char kDesc[] = {0x49, 0x8d, 0x9c, 0x24, 0xc0, 0xde, 0xff, 0xff};
    static const unsigned char kTable[] = {0xbf, 0x00, 0x40, 0x00, 0x00};
    static const unsigned char kMask[] = {0x48, 0xc7, 0x45, 0xf0, 0xc0, 0x3f, 0x00, 0x00};
    static const unsigned char kIotlb[] = {0x48, 0x89, 0x83, 0x80, 0x02, 0x00, 0x00};
    static const unsigned char kNext[] = {0x48, 0x81, 0xc3, 0xb8, 0x02, 0x00, 0x00};
    const void* init = reinterpret_cast<const void*>(&tlb_init_aarch64);
    return unicorn::code_has(init, 0x40, kEnv, sizeof kEnv) &&
           unicorn::code_has(init, 0x60, kFast, sizeof kFast) &&
           unicorn::code_has(init, 0x60, kDesc, sizeof kDesc) &&
           unicorn::code_has(init, 0x100, kTable, sizeof kTable) &&
           unicorn::code_has(init, 0x100, kMask, sizeof kMask) &&
           unicorn::code_has(init, 0x100, kIotlb, sizeof kIotlb) &&
           unicorn::code_has(init, 0x140, kNext, sizeof kNext);
  }();
  return ok;
}

}  // namespace

bool trim_idle_tlbs(uc_engine* uc) {
  if (!layout_ok() || std::getenv("A64RUN_FULL_TLBS") != nullptr) return false;
  void* cpu = field<void*>(uc, unicorn::kUcCpu);
  if (cpu == nullptr) return false;
  auto* env = field<char*>(cpu, unicorn::kCpuEnvPtr);
  const int own = arm_mmu_idx_aarch64(env) & kCoreIdxMask;
  if (own >= kMmuModes) return false;
  char* fast = env + kFastFromEnv;
  char* desc = env + kDescVtableFromEnv;
  // Fresh TLBs only: each at the default size, with a table and an IOTLB.
  for (int i = 0; i < kMmuModes; ++i) {
    if (field<uintptr_t>(fast, i * kFastSize) != kDefaultMask ||
        field<void*>(fast, i * kFastSize + kFastTable) == nullptr ||
        field<void*>(desc, i * kDescSize + kDescIotlbFromVtable) == nullptr)
      return false;
  }
  for (int i = 0; i < kMmuModes; ++i) {
    if (i == own) continue;
    auto* table = static_cast<char*>(std::malloc(kMinEntries * kEntrySize));
    void* iotlb = std::calloc(kMinEntries, kIotlbEntrySize);
    if (table == nullptr || iotlb == nullptr) {
      std::free(table);
      std::free(iotlb);
      continue;  // this one keeps its large TLB
    }
    std::memset(table, 0xff, kMinEntries * kEntrySize);  // every entry invalid (tlb_mmu_flush_locked)
    std::free(field<void*>(fast, i * kFastSize + kFastTable));
    std::free(field<void*>(desc, i * kDescSize + kDescIotlbFromVtable));
    field<uintptr_t>(fast, i * kFastSize) = (kMinEntries - 1) * kEntrySize;
    field<void*>(fast, i * kFastSize + kFastTable) = table;
    field<void*>(desc, i * kDescSize + kDescIotlbFromVtable) = iotlb;
  }
  return true;
}

}  // namespace emu

#else

namespace emu {
bool trim_idle_tlbs(uc_engine*) {
  return false;
}
}  // namespace emu

#endif
