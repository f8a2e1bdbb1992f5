// This file declares the ELF64 AArch64 image parser: it validates an executable held in memory and
// describes what the loader must map, without mapping anything itself.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace emu {

// The guest page size the parser reasons in (Linux arm64 with 4 KiB pages).
inline constexpr uint64_t kElfPageSize = 4096;

// One PT_LOAD with p_memsz > 0. Invariants after a successful parse: filesz <= memsz;
// [offset, offset + filesz) lies inside the file; vaddr % kElfPageSize == offset % kElfPageSize;
// vaddr + memsz does not overflow, even when rounded up to a page.
struct ElfSegment {
  uint64_t vaddr, memsz, offset, filesz, align;
  int prot;  // PROT_READ | PROT_WRITE | PROT_EXEC, from p_flags PF_R / PF_W / PF_X
};

struct ElfInfo {
  uint16_t type;   // ET_EXEC or ET_DYN
  uint64_t entry;  // e_entry (unrelocated)
  uint64_t phoff;
  uint16_t phentsize, phnum;
  // PT_LOADs with p_memsz > 0, in file order, which is ascending by vaddr with no byte of one segment
  // inside another. Two neighbours may still share a 4 KiB page (the end of one and the start of the next);
  // Linux maps the segments in order with MAP_FIXED, so such a page ends up with the later segment's
  // protection and file page.
  std::vector<ElfSegment> loads;
  std::string interp;  // PT_INTERP path up to its first NUL, empty if none
  // The stack is executable only when PT_GNU_STACK has PF_X. Without PT_GNU_STACK, arm64 Linux >= 5.8
  // gives a non-executable stack (and does not set READ_IMPLIES_EXEC for 64-bit programs: only
  // compat_elf_read_implies_exec, for 32-bit ones, keeps the old "missing PT_GNU_STACK: exec-all").
  bool exec_stack;
  // Page-aligned span covering all PT_LOADs: [min_vaddr, max_vaddr). For ET_DYN these are unrelocated;
  // the loader picks a bias so that the span lands below the va_limit it passed.
  uint64_t min_vaddr, max_vaddr;
  // Unrelocated vaddr of the program header table in memory, for AT_PHDR. As Linux (>= 5.18) does: the
  // PT_LOAD whose file bytes hold the whole table; else PT_PHDR's p_vaddr if a PT_LOAD covers it; else 0.
  uint64_t phdr_vaddr;
};

// Validates and describes an ELF image held in memory. `va_limit` is the top of the guest address space
// (addresses >= it are invalid): an ET_EXEC's segments must end at or below it, and an ET_DYN's span
// max_vaddr - min_vaddr must fit below it (its vaddrs are relocated by the loader). Returns false and sets
// *error to one line (e.g. "not an ELF file (bad magic)", "ELF for machine 62 (x86-64), not aarch64",
// "segment 2 extends past the end of the file ...") on failure; *out is then unspecified.
//
// Beyond what Linux checks, it also rejects: overlapping or descending PT_LOADs, more than one PT_INTERP,
// p_align that is not a power of two, and an entry point outside every executable PT_LOAD (Linux would
// start the program and let it fault; an ET_DYN with e_entry 0 is a shared library, not a program).
bool parse_elf(std::span<const uint8_t> file, uint64_t va_limit, ElfInfo* out, std::string* error);

// Name of an e_machine value for messages ("x86-64", "riscv", ...); "unknown" for unlisted values.
const char* elf_machine_name(uint16_t machine);

}  // namespace emu
