// Crash reports: a guest fault the guest did not handle, described with registers and Capstone disassembly.
#pragma once

#include <string>

#include "emu/vcpu.h"

namespace emu {

// Disassembles `count` instructions around pc (from guest memory, readable pages only); marks pc with "=>".
std::string disassemble_around(Vcpu& cpu, uint64_t pc, int before, int after);
// The exact address a faulting load/store at pc accessed (without its tag byte, as Linux reports it),
// decoded with Capstone from the instruction and registers; `page_hint` (the refused TLB fill,
// page-granular) is returned when decoding does not apply.
uint64_t exact_fault_address(Vcpu& cpu, uint64_t pc, uint64_t page_hint);
// Prints the report for a fault that ends the guest with signal `sig`.
void print_crash_report(Vcpu& cpu, const StopInfo& stop, int sig);

}  // namespace emu
