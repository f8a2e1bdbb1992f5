// What the debugger sees of an arm64 thread: the target description (registers in gdb's aarch64 features),
// the register file as the 'g'/'p' packets carry it, and gdb's numbering of signals.
#pragma once

#include <string>
#include <string_view>

#include "emu/cpu_state.h"

namespace gdb {

// target.xml: org.gnu.gdb.aarch64.core (x0-x30, sp, pc, cpsr), .fpu (v0-v31, fpsr, fpcr), .tls (tpidr).
std::string_view target_xml();

inline constexpr int kNumRegs = 69;  // x0-x30, sp, pc, cpsr, v0-v31, fpsr, fpcr, tpidr

// The whole register file in gdb's order, hexadecimal, target (little-endian) byte order ('g').
std::string encode_registers(const emu::CpuState& s);
// 'G': the same layout; false (and no change) unless `hex` is exactly that long and hexadecimal.
bool decode_registers(std::string_view hex, emu::CpuState* s);
// One register ('p n', 'P n=value'); false for a register number outside the description.
bool encode_register(const emu::CpuState& s, int regno, std::string* hex);
bool decode_register(int regno, std::string_view hex, emu::CpuState* s);

// gdb's signal numbers (include/gdb/signals.def, the remote protocol's) from Linux's and back. Linux signals
// gdb has no name for (SIGSTKFLT) map to GDB_SIGNAL_UNKNOWN (143); unknown gdb numbers to 0.
int to_gdb_signal(int linux_sig);
int from_gdb_signal(int gdb_sig);

}  // namespace gdb
