// This file renders crash reports: signal, fault address, disassembly around PC (Capstone) and registers.
#include "emu/crash_report.h"

#include <capstone/capstone.h>
#include <fmt/format.h>
#include <string.h>
#include <sys/mman.h>

#include <cstdio>

#include "emu/direct_memory.h"
#include "emu/guest_mem.h"
#include "emu/task.h"

namespace emu {

std::string disassemble_around(Vcpu& cpu, uint64_t pc, int before, int after) {
  csh cs;
  if (cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &cs) != CS_ERR_OK) return "  (capstone unavailable)\n";
  std::string out;
  AddressSpace& as = cpu.as();
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

namespace emu {
namespace {

// Reads the guest register Capstone names ("x3", "w3", "sp", "fp", "lr", "xzr"); false when unknown.
bool read_named_reg(Vcpu& cpu, const char* name, uint64_t* out) {
  if (strcmp(name, "sp") == 0 || strcmp(name, "wsp") == 0) {
    *out = cpu.sp();
  } else if (strcmp(name, "xzr") == 0 || strcmp(name, "wzr") == 0) {
    *out = 0;
  } else if (strcmp(name, "fp") == 0) {
    *out = cpu.x(29);
  } else if (strcmp(name, "lr") == 0) {
    *out = cpu.x(30);
  } else if ((name[0] == 'x' || name[0] == 'w') && name[1] >= '0' && name[1] <= '9') {
    const int n = atoi(name + 1);
    if (n > 30) return false;
    *out = cpu.x(n);
    if (name[0] == 'w') *out &= 0xffffffffu;
  } else {
    return false;
  }
  return true;
}

// The decoded address of an access the engine refused at page_hint: itself when it lies in the refused page
// (or no page is known); else page_hint (an access straddling into the refused page faults at the page's
// start, as on Linux; any other is a decode that does not match, and the page is the best answer).
uint64_t in_refused_page(uint64_t addr, uint64_t page_hint) {
  return (addr & ~kPageMask) == (page_hint & ~kPageMask) || page_hint == 0 ? addr : page_hint;
}

}  // namespace

// Linux reports a data address without its tag (untagged_addr), as the engine may have accessed it with the
// tag.
uint64_t exact_fault_address(Vcpu& cpu, uint64_t pc, uint64_t page_hint) {
  page_hint = untagged_addr(page_hint);
  uint32_t word = 0;
  if (copy_in(cpu.as(), &word, pc, 4) != 0) return page_hint;
  // DC ZVA Xt (SYS #3, C7, C4, #1, Xt: a register operand to the disassembler): its helper faults at the
  // start of the naturally aligned block it zeroes, in the refused page, as a64run's direct path does.
  if ((word & ~0x1fu) == 0xd50b7420u) {
    const unsigned rt = word & 0x1f;
    const uint64_t xt = rt == 31 ? 0 : cpu.x(static_cast<int>(rt));  // register 31 is XZR here
    const uint64_t len = dc_zva_block_bytes();
    if (len == 0) return page_hint;
    return in_refused_page(untagged_addr(xt) & ~(len - 1), page_hint);
  }
  // LDTR, LDTRB, LDTRH, LDTRSB, LDTRSH, LDTRSW, STTR, STTRB, STTRH (load/store register, unprivileged): the
  // base register (or SP) plus the signed 9-bit offset. Capstone 5.0.7 decodes none of the loads whose Rt
  // is their Rn (as if they wrote the base back, which they do not).
  if ((word & 0x3f200c00u) == 0x38000800u) {
    const unsigned rn = (word >> 5) & 0x1f;
    const uint64_t base = rn == 31 ? cpu.sp() : cpu.x(static_cast<int>(rn));
    const int64_t imm9 = static_cast<int32_t>(word << 11) >> 23;  // bits 20:12
    return in_refused_page(untagged_addr(base + static_cast<uint64_t>(imm9)), page_hint);
  }
  csh cs;
  if (cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &cs) != CS_ERR_OK) return page_hint;
  cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
  cs_insn* insn = nullptr;
  uint64_t result = page_hint;
  if (cs_disasm(cs, reinterpret_cast<const uint8_t*>(&word), 4, pc, 1, &insn) == 1) {
    const cs_arm64& d = insn->detail->arm64;
    for (int i = 0; i < d.op_count; ++i) {
      const cs_arm64_op& op = d.operands[i];
      if (op.type != ARM64_OP_MEM) continue;
      uint64_t base = 0, index = 0;
      if (!read_named_reg(cpu, cs_reg_name(cs, op.mem.base), &base)) break;
      if (op.mem.index != ARM64_REG_INVALID) {
        if (!read_named_reg(cpu, cs_reg_name(cs, op.mem.index), &index)) break;
        if (op.ext == ARM64_EXT_SXTW)
          index = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(index)));
        if (op.shift.type == ARM64_SFT_LSL) index <<= op.shift.value;
      }
      result = in_refused_page(
          untagged_addr((d.writeback && d.post_index) ? base
                                                      : base + index + static_cast<int64_t>(op.mem.disp)),
          page_hint);
      break;
    }
    cs_free(insn, 1);
  }
  cs_close(&cs);
  return result;
}

}  // namespace emu
