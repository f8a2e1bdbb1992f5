// This file sizes arm64 loads and stores for the page-protection watchpoints: the bytes an instruction
// moves follow from its data registers (before the memory operand), its mnemonic's size suffix, and for
// atomics and exclusives the few operands that are not data.
#include "gdb/watch.h"

#include <capstone/capstone.h>

#include <cstring>
#include <string_view>

#include "emu/address_space.h"
#include "emu/crash_report.h"
#include "emu/guest_mem.h"
#include "emu/task.h"

namespace gdb {
namespace {

// The size of one register operand: by its name's first letter, or for a vector register by its
// arrangement (a lane index selects one element).
uint64_t reg_bytes(csh cs, const cs_arm64_op& op) {
  const char* name = cs_reg_name(cs, op.reg);
  if (name == nullptr) return 0;
  if (name[0] == 'v') {
    if (op.vector_index >= 0) {
      switch (op.vas) {
        case ARM64_VAS_16B:
        case ARM64_VAS_8B:
        case ARM64_VAS_4B:
        case ARM64_VAS_1B:
          return 1;
        case ARM64_VAS_8H:
        case ARM64_VAS_4H:
        case ARM64_VAS_2H:
        case ARM64_VAS_1H:
          return 2;
        case ARM64_VAS_4S:
        case ARM64_VAS_2S:
        case ARM64_VAS_1S:
          return 4;
        default:
          return 8;
      }
    }
    switch (op.vas) {
      case ARM64_VAS_8B:
      case ARM64_VAS_4H:
      case ARM64_VAS_2S:
      case ARM64_VAS_1D:
        return 8;
      case ARM64_VAS_4B:
      case ARM64_VAS_2H:
      case ARM64_VAS_1S:
        return 4;
      case ARM64_VAS_1B:
        return 1;
      case ARM64_VAS_1H:
        return 2;
      default:
        return 16;
    }
  }
  switch (name[0]) {
    case 'x':
    case 'f':
    case 'l':
    case 'd':
      return 8;  // x0-x30, xzr, fp, lr, d0-d31
    case 'w':
    case 's':
      return 4;  // w0-w30, wzr, s0-s31
    case 'h':
      return 2;
    case 'b':
      return 1;
    case 'q':
      return 16;
    default:
      return 0;
  }
}

// The element size of a replicating vector load (ld1r-ld4r): one element per register.
uint64_t element_bytes(const cs_arm64_op& op) {
  switch (op.vas) {
    case ARM64_VAS_16B:
    case ARM64_VAS_8B:
      return 1;
    case ARM64_VAS_8H:
    case ARM64_VAS_4H:
      return 2;
    case ARM64_VAS_4S:
    case ARM64_VAS_2S:
      return 4;
    default:
      return 8;
  }
}

bool starts_with_any(std::string_view m, std::initializer_list<std::string_view> prefixes) {
  for (const std::string_view p : prefixes) {
    if (m.starts_with(p)) return true;
  }
  return false;
}

uint64_t size_of(csh cs, const cs_insn& insn) {
  const cs_arm64& d = insn.detail->arm64;
  const std::string_view m = insn.mnemonic;
  const bool atomic =
      starts_with_any(m, {"ldadd", "ldclr", "ldeor", "ldset", "ldsmax", "ldsmin", "ldumax", "ldumin", "stadd",
                          "stclr", "steor", "stset", "stsmax", "stsmin", "stumax", "stumin", "swp", "cas"});
  const bool status = starts_with_any(m, {"stxr", "stlxr", "stxp", "stlxp"});  // first operand: the status
  const bool replicate = m.size() == 4 && m.starts_with("ld") && m[3] == 'r';  // ld1r-ld4r
  uint64_t total = 0;
  int regs = 0;
  for (int i = 0; i < d.op_count; ++i) {
    const cs_arm64_op& op = d.operands[i];
    if (op.type == ARM64_OP_MEM) break;  // registers after it are post-index increments
    if (op.type != ARM64_OP_REG || (status && i == 0)) continue;
    ++regs;
    const uint64_t n = replicate ? element_bytes(op) : reg_bytes(cs, op);
    if (n == 0) return 0;
    if (atomic && regs > 1 && !m.starts_with("casp")) continue;  // the value in and the value out: one size
    if (atomic && m.starts_with("casp") && regs > 2) continue;   // casp: the pair compared, the pair stored
    total += n;
  }
  if (regs == 0) return 0;
  // A size suffix narrows a general register's access: ldrb/strb/ldrsb... one byte, ...h two, ldrsw and
  // ldpsw four per register.
  if (m.ends_with("sw")) return m.starts_with("ldp") ? 8 : 4;
  const uint64_t per = m.ends_with('b') ? 1 : m.ends_with('h') ? 2 : 0;
  if (per != 0 && !m.starts_with("ld1") && !m.starts_with("st1")) {
    const int n = atomic && m.starts_with("casp") ? 2 : (atomic ? 1 : regs);
    return per * static_cast<uint64_t>(n);
  }
  return total;
}

}  // namespace

uint64_t access_size(uint32_t insn_word) {
  csh cs;
  if (cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &cs) != CS_ERR_OK) return 0;
  cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
  cs_insn* insn = nullptr;
  uint64_t size = 0;
  if (cs_disasm(cs, reinterpret_cast<const uint8_t*>(&insn_word), 4, 0, 1, &insn) == 1) {
    size = size_of(cs, *insn);
    cs_free(insn, 1);
  }
  cs_close(&cs);
  return size;
}

AccessRange decode_access(emu::Vcpu& cpu, uint64_t pc, uint64_t fault_addr) {
  const AccessRange whole{emu::page_down(fault_addr), emu::kPageSize};
  uint32_t word = 0;
  if (emu::copy_in(cpu.task()->as(), &word, pc, 4) != 0) return whole;
  const uint64_t len = access_size(word);
  const uint64_t start = emu::exact_fault_address(cpu, pc, 0);
  if (len == 0 || start == 0) return whole;
  return {start, len};
}

}  // namespace gdb
