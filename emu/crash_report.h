// Crash reports: a guest fault the guest did not handle, described with registers and Capstone disassembly.
#pragma once

#include <string>

#include "emu/vcpu.h"

namespace emu {

// Disassembles `count` instructions around pc (from guest memory, readable pages only); marks pc with "=>".
std::string disassemble_around(Vcpu& cpu, uint64_t pc, int before, int after);
// Prints the report for a fault that ends the guest with signal `sig`.
void print_crash_report(Vcpu& cpu, const StopInfo& stop, int sig);

}  // namespace emu
