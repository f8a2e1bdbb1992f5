// This file renders crash reports: signal, fault address, disassembly around PC (Capstone) and registers.
#include "emu/crash_report.h"

#include <capstone/capstone.h>
#include <fmt/format.h>
#include <string.h>
#include <sys/mman.h>

#include <cstdio>

#include "emu/guest_mem.h"
#include "emu/task.h"

namespace emu {

std::string disassemble_around(Vcpu& cpu, uint64_t pc, int before, int after) {
  csh cs;
  if (cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &cs) != CS_ERR_OK) return "  (capstone unavailable)\n";
  std::string out;
  AddressSpace& as = cpu.task()->as();
  for (int i = -before; i <= after; ++i) {
    const uint64_t addr = pc + static_cast<uint64_t>(static_cast<int64_t>(i) * 4);
    uint32_t word = 0;
    if (copy_in(as, &word, addr, 4) != 0) {
      if (i == 0) out += fmt::format("=> {:#018x}:  <unreadable>\n", addr);
      continue;
    }
    cs_insn* insn = nullptr;
    const size_t n = cs_disasm(cs, reinterpret_cast<const uint8_t*>(&word), 4, addr, 1, &insn);
    const std::string text = n ? fmt::format("{} {}", insn[0].mnemonic, insn[0].op_str) : "(undecodable)";
    out += fmt::format("{} {:#018x}:  {:08x}  {}\n", i == 0 ? "=>" : "  ", addr, word, text);
    if (n) cs_free(insn, n);
  }
  cs_close(&cs);
  return out;
}

void print_crash_report(Vcpu& cpu, const StopInfo& stop, int sig) {
  const uint64_t pc = cpu.pc();
  std::string what;
  switch (stop.kind) {
    case StopKind::kFault:
      what = fmt::format("{} of {:#x} ({})",
                         stop.access == PROT_WRITE  ? "write"
                         : stop.access == PROT_EXEC ? "instruction fetch"
                                                    : "read",
                         stop.fault_addr, stop.mapped ? "permission denied" : "unmapped");
      break;
    case StopKind::kUndefined:
      what = "undefined instruction";
      break;
    case StopKind::kBreakpoint:
      what = "breakpoint (brk)";
      break;
    default:
      what = fmt::format("exception {}", stop.intno);
      break;
  }
  std::string out = fmt::format("a64run: guest killed by {} at pc {:#x}: {}\n", sigabbrev_np(sig), pc, what);
  out += disassemble_around(cpu, pc, 4, 3);
  for (int i = 0; i < 31; ++i) {
    out += fmt::format("  x{:<2} {:016x}{}", i, cpu.x(i), (i % 4 == 3) ? "\n" : "");
  }
  out += fmt::format("  sp  {:016x}\n  pc {:016x}  nzcv {:08x}\n", cpu.sp(), pc, cpu.reg(UC_ARM64_REG_NZCV));
  fputs(out.c_str(), stderr);
}

}  // namespace emu
