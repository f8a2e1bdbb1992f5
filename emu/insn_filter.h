// The instruction words the translator is handed (emu/insn_filter.cpp): an encoding that Linux refuses at
// EL0, or that Unicorn's translator cannot take, reaches it as a permanently undefined one (UDF #0).
#pragma once

#include <cstdint>

namespace emu {

constexpr uint32_t kUdf = 0x00000000;  // UDF #0: the translator raises the undefined instruction exception

// `insn` itself, or kUdf when the guest must get SIGILL for it and would not get it from Unicorn's
// translator at EL1 (where Unicorn runs guest code), or when that translator would abort on it.
uint32_t filter_fetched_insn(uint32_t insn);

}  // namespace emu
