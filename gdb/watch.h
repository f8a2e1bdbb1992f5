// Watchpoints by page protection: which bytes a load or store touches, so that an access refused on a
// watched page is a hit only when it reaches the watched range (gdb/debugger.h).
#pragma once

#include <cstdint>
#include <string_view>

namespace emu {
class Vcpu;
}  // namespace emu

namespace gdb {

struct AccessRange {
  uint64_t start;
  uint64_t len;
};

// The bytes the load or store at pc accesses, from the instruction (Capstone) and the registers. An
// instruction it cannot size (SVE, DC ZVA, an unreadable pc) counts as touching the whole page of
// `fault_addr`, so a watched range there is reported rather than missed.
AccessRange decode_access(emu::Vcpu& cpu, uint64_t pc, uint64_t fault_addr);

// The number of bytes an arm64 load or store moves, from its encoding alone; 0 when unknown. (Exposed for
// the unit tests.)
uint64_t access_size(uint32_t insn);

}  // namespace gdb
