// This file holds what the ELF parser's unit tests and its fuzzer share: an in-memory ELF image builder,
// typical images (the fuzzer's seeds), and the invariants every accepted image must keep.
#pragma once

#include <elf.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "emu/elf.h"

namespace emu::elf_testing {

inline constexpr char kInterp[] = "/lib/ld-linux-aarch64.so.1";

// An ELF image under construction: header, program headers at eh.e_phoff, and byte strings at offsets,
// laid into a file of `size` bytes (anything that does not fit is clipped, which is how tests truncate).
struct ElfImage {
  Elf64_Ehdr eh{};
  std::vector<Elf64_Phdr> ph;
  std::vector<std::pair<uint64_t, std::string>> blobs;
  uint64_t size = 0x2000;

  std::vector<uint8_t> bytes() const {
    std::vector<uint8_t> out(size);
    auto put = [&out](uint64_t offset, const void* data, uint64_t len) {
      if (offset < out.size()) memcpy(out.data() + offset, data, std::min(len, out.size() - offset));
    };
    put(0, &eh, sizeof eh);
    for (size_t i = 0; i < ph.size(); ++i) {
      uint64_t offset;
      if (!__builtin_add_overflow(eh.e_phoff, i * sizeof(Elf64_Phdr), &offset)) {
        put(offset, &ph[i], sizeof ph[i]);
      }
    }
    for (const auto& [offset, data] : blobs) put(offset, data.data(), data.size());
    return out;
  }
};

inline Elf64_Phdr make_phdr(uint32_t type, uint32_t flags, uint64_t offset, uint64_t vaddr, uint64_t filesz,
                            uint64_t memsz, uint64_t align) {
  return Elf64_Phdr{.p_type = type,
                    .p_flags = flags,
                    .p_offset = offset,
                    .p_vaddr = vaddr,
                    .p_paddr = vaddr,
                    .p_filesz = filesz,
                    .p_memsz = memsz,
                    .p_align = align};
}

// A header for an aarch64 executable whose program headers follow it at offset 64.
inline Elf64_Ehdr make_ehdr(uint16_t type, uint64_t entry, size_t phnum) {
  Elf64_Ehdr eh{};
  memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = type;
  eh.e_machine = EM_AARCH64;
  eh.e_version = EV_CURRENT;
  eh.e_entry = entry;
  eh.e_phoff = sizeof(Elf64_Ehdr);
  eh.e_ehsize = sizeof(Elf64_Ehdr);
  eh.e_phentsize = sizeof(Elf64_Phdr);
  eh.e_phnum = static_cast<uint16_t>(phnum);
  return eh;
}

// Like `gcc -static`: text at 0x400000 holding the headers, data + bss one 64 KiB page further on.
inline ElfImage static_image() {
  ElfImage img;
  img.ph = {make_phdr(PT_LOAD, PF_R | PF_X, 0, 0x400000, 0x1000, 0x1000, 0x10000),
            make_phdr(PT_LOAD, PF_R | PF_W, 0x1000, 0x411000, 0x100, 0x3000, 0x10000),
            make_phdr(PT_GNU_STACK, PF_R | PF_W, 0, 0, 0, 0, 16)};
  img.eh = make_ehdr(ET_EXEC, 0x400100, img.ph.size());
  return img;
}

// Like a dynamically linked PIE: PT_PHDR, PT_INTERP, text at 0, data + bss above it.
inline ElfImage pie_image() {
  ElfImage img;
  const uint64_t phdrs_size = 5 * sizeof(Elf64_Phdr);
  img.ph = {make_phdr(PT_PHDR, PF_R, 64, 64, phdrs_size, phdrs_size, 8),
            make_phdr(PT_INTERP, PF_R, 0x200, 0x200, sizeof kInterp, sizeof kInterp, 1),
            make_phdr(PT_LOAD, PF_R | PF_X, 0, 0, 0x1000, 0x1000, 0x10000),
            make_phdr(PT_LOAD, PF_R | PF_W, 0x1000, 0x11000, 0x100, 0x3000, 0x10000),
            make_phdr(PT_GNU_STACK, PF_R | PF_W, 0, 0, 0, 0, 16)};
  img.eh = make_ehdr(ET_DYN, 0x100, img.ph.size());
  img.blobs = {{0x200, std::string(kInterp, sizeof kInterp)}};
  return img;
}

// Like Go's arm64 linker output: PT_PHDR first, text/rodata/data at 0x10000, no PT_INTERP.
inline ElfImage go_image() {
  ElfImage img;
  const uint64_t phdrs_size = 5 * sizeof(Elf64_Phdr);
  img.ph = {make_phdr(PT_PHDR, PF_R, 64, 0x10040, phdrs_size, phdrs_size, 0x10000),
            make_phdr(PT_LOAD, PF_R | PF_X, 0, 0x10000, 0x1000, 0x1000, 0x10000),
            make_phdr(PT_LOAD, PF_R, 0x1000, 0x21000, 0x800, 0x800, 0x10000),
            make_phdr(PT_LOAD, PF_R | PF_W, 0x1800, 0x31800, 0x800, 0x4000, 0x10000),
            make_phdr(PT_GNU_STACK, PF_R | PF_W, 0, 0, 0, 0, 8)};
  img.eh = make_ehdr(ET_EXEC, 0x10200, img.ph.size());
  return img;
}

// Returns what an accepted image breaks of the promises in emu/elf.h, or nullptr if it keeps them all.
inline const char* broken_invariant(std::span<const uint8_t> file, const ElfInfo& info, uint64_t va_limit) {
  constexpr uint64_t kPage = kElfPageSize;
  if (info.type != ET_EXEC && info.type != ET_DYN) return "type is ET_EXEC or ET_DYN";
  if (info.loads.empty()) return "at least one PT_LOAD";
  uint64_t prev_end = 0;
  for (const ElfSegment& seg : info.loads) {
    if (seg.memsz == 0 || seg.filesz > seg.memsz) return "0 < filesz <= memsz";
    if (seg.filesz > 0 && (seg.offset > file.size() || seg.filesz > file.size() - seg.offset)) {
      return "file bytes inside the file";
    }
    if (seg.vaddr % kPage != seg.offset % kPage) return "vaddr and offset congruent modulo the page size";
    if (seg.vaddr > UINT64_MAX - seg.memsz - (kPage - 1)) return "page-rounded end does not overflow";
    if (seg.vaddr < prev_end) return "ascending, non-overlapping PT_LOADs";
    prev_end = seg.vaddr + seg.memsz;
  }
  if (info.min_vaddr % kPage != 0 || info.max_vaddr % kPage != 0) return "page-aligned span";
  if (info.min_vaddr > info.loads.front().vaddr || info.max_vaddr < prev_end) return "span covers the loads";
  if (info.max_vaddr - info.min_vaddr > va_limit) return "span fits the address space";
  if (info.type == ET_EXEC && info.max_vaddr > va_limit) return "ET_EXEC ends below va_limit";
  if (info.type == ET_DYN && info.entry == 0) return "ET_DYN has an entry point";
  if (info.interp.size() >= 4096 || info.interp.find('\0') != std::string::npos) {
    return "interp is a C string";
  }
  return nullptr;
}

}  // namespace emu::elf_testing
