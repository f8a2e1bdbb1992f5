// This file owns parse_elf: validation of ELF64 little-endian AArch64 executables held in memory.
#include "emu/elf.h"

#include <elf.h>
#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <optional>

namespace emu {
namespace {

// Headers are memcpy'd into the host's Elf64 structs, which reads them right only on a little-endian host.
static_assert(std::endian::native == std::endian::little, "a64run runs on little-endian hosts only");
static_assert(sizeof(Elf64_Ehdr) == 64 && sizeof(Elf64_Phdr) == 56);

constexpr uint16_t kMaxPhnum = 1024;  // Linux: 64 KiB of them (older kernels: one page); real files: < 20.
constexpr uint64_t kPathMax = 4096;   // Linux's bound on PT_INTERP's p_filesz, NUL included.

std::string hex(uint64_t v) {
  char buf[24];
  snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return buf;
}

std::string segment_name(size_t index) {
  return "segment " + std::to_string(index);
}

uint64_t page_down(uint64_t v) {
  return v & ~(kElfPageSize - 1);
}

// Rounds v up to a page; false if that overflows.
bool page_up(uint64_t v, uint64_t* out) {
  if (__builtin_add_overflow(v, kElfPageSize - 1, out)) return false;
  *out = page_down(*out);
  return true;
}

// True if [offset, offset + size) lies inside a file of file_size bytes.
bool in_file(uint64_t offset, uint64_t size, uint64_t file_size) {
  uint64_t end;
  return !__builtin_add_overflow(offset, size, &end) && end <= file_size;
}

int prot_from_flags(uint32_t flags) {
  return ((flags & PF_R) ? PROT_READ : 0) | ((flags & PF_W) ? PROT_WRITE : 0) |
         ((flags & PF_X) ? PROT_EXEC : 0);
}

// One parse: the checks run in file order so that the first problem is the one reported.
class ElfParser {
 public:
  ElfParser(std::span<const uint8_t> file, uint64_t va_limit, ElfInfo* out, std::string* error)
      : file_(file), va_limit_(va_limit), out_(out), error_(error) {}

  bool parse();

 private:
  bool fail(std::string message) {
    *error_ = std::move(message);
    return false;
  }
  bool check_ident();
  bool check_header();
  bool check_type(uint16_t type);
  Elf64_Phdr phdr(size_t index) const;
  bool scan_phdrs();
  bool check_load(const Elf64_Phdr& ph, size_t index);
  bool check_load_order(const Elf64_Phdr& ph, size_t index);
  bool read_interp(const Elf64_Phdr& ph, size_t index);
  bool compute_span();
  bool check_entry();
  uint64_t find_phdr_vaddr() const;

  std::span<const uint8_t> file_;
  uint64_t va_limit_;
  ElfInfo* out_;
  std::string* error_;
  size_t last_load_index_ = 0;             // program header index of out_->loads.back()
  std::optional<size_t> interp_index_;     // program header index of the PT_INTERP
  std::optional<uint64_t> pt_phdr_vaddr_;  // p_vaddr of the first PT_PHDR
};

bool ElfParser::parse() {
  *out_ = ElfInfo{};
  if (!check_ident() || !check_header() || !scan_phdrs()) return false;
  if (out_->loads.empty()) return fail("no loadable segment (no PT_LOAD with p_memsz > 0)");
  if (!compute_span() || !check_entry()) return false;
  out_->phdr_vaddr = find_phdr_vaddr();
  return true;
}

bool ElfParser::check_ident() {
  static constexpr uint8_t kMagic[SELFMAG] = {ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3};
  if (file_.empty()) return fail("not an ELF file (empty)");
  if (memcmp(file_.data(), kMagic, std::min<size_t>(file_.size(), SELFMAG)) != 0) {
    return fail("not an ELF file (bad magic)");
  }
  if (file_.size() < EI_NIDENT) {
    return fail("truncated ELF header (file is " + std::to_string(file_.size()) + " bytes)");
  }
  const uint8_t elf_class = file_[EI_CLASS];
  if (elf_class == ELFCLASS32) {
    if (file_.size() < 20) return fail("32-bit ELF (ELFCLASS32), not a 64-bit aarch64 program");
    // e_machine sits at the same offset in ELF32 headers, in the file's byte order.
    const bool big = file_[EI_DATA] == ELFDATA2MSB;
    const auto machine = static_cast<uint16_t>(big ? file_[18] << 8 | file_[19] : file_[18] | file_[19] << 8);
    return fail("32-bit ELF for machine " + std::to_string(machine) + " (" + elf_machine_name(machine) +
                "), not a 64-bit aarch64 program");
  }
  if (elf_class != ELFCLASS64) return fail("bad ELF class " + std::to_string(elf_class) + " (EI_CLASS)");
  if (file_[EI_DATA] == ELFDATA2MSB) return fail("big-endian ELF (aarch64_be is not supported)");
  if (file_[EI_DATA] != ELFDATA2LSB) {
    return fail("bad ELF data encoding " + std::to_string(file_[EI_DATA]) + " (EI_DATA)");
  }
  if (file_[EI_VERSION] != EV_CURRENT) {
    return fail("bad ELF version " + std::to_string(file_[EI_VERSION]) + " (EI_VERSION)");
  }
  if (file_.size() < sizeof(Elf64_Ehdr)) {
    return fail("truncated ELF header (file is " + std::to_string(file_.size()) + " bytes, the header 64)");
  }
  return true;
}

bool ElfParser::check_header() {
  Elf64_Ehdr eh;
  memcpy(&eh, file_.data(), sizeof eh);
  if (eh.e_version != EV_CURRENT) {
    return fail("bad ELF version " + std::to_string(eh.e_version) + " (e_version)");
  }
  if (eh.e_machine != EM_AARCH64) {
    return fail("ELF for machine " + std::to_string(eh.e_machine) + " (" + elf_machine_name(eh.e_machine) +
                "), not aarch64");
  }
  if (!check_type(eh.e_type)) return false;
  out_->type = eh.e_type;
  out_->entry = eh.e_entry;
  out_->phoff = eh.e_phoff;
  out_->phentsize = eh.e_phentsize;
  out_->phnum = eh.e_phnum;
  if (eh.e_phentsize != sizeof(Elf64_Phdr)) {
    return fail("bad program header size " + std::to_string(eh.e_phentsize) + " (e_phentsize), expected 56");
  }
  if (eh.e_phnum == 0) return fail("no program headers (e_phnum is 0)");
  if (eh.e_phnum > kMaxPhnum) {
    return fail("too many program headers (" + std::to_string(eh.e_phnum) + ", the limit is 1024)");
  }
  if (!in_file(eh.e_phoff, uint64_t{eh.e_phnum} * sizeof(Elf64_Phdr), file_.size())) {
    return fail("program header table (offset " + hex(eh.e_phoff) + ", " + std::to_string(eh.e_phnum) +
                " entries) extends past the end of the file (" + std::to_string(file_.size()) + " bytes)");
  }
  return true;
}

bool ElfParser::check_type(uint16_t type) {
  switch (type) {
    case ET_EXEC:
    case ET_DYN:
      return true;
    case ET_REL:
      return fail("relocatable object (ET_REL), not an executable: link it first");
    case ET_CORE:
      return fail("core file (ET_CORE), not an executable");
    default:
      return fail("ELF type " + std::to_string(type) + " is not an executable (ET_EXEC or ET_DYN)");
  }
}

Elf64_Phdr ElfParser::phdr(size_t index) const {
  Elf64_Phdr ph;
  memcpy(&ph, file_.data() + out_->phoff + index * sizeof ph, sizeof ph);  // bounds checked by check_header
  return ph;
}

bool ElfParser::scan_phdrs() {
  bool have_gnu_stack = false;
  for (size_t i = 0; i < out_->phnum; ++i) {
    Elf64_Phdr ph = phdr(i);
    switch (ph.p_type) {
      case PT_LOAD:
        if (!check_load(ph, i)) return false;
        break;
      case PT_INTERP:
        if (interp_index_) {
          return fail("more than one PT_INTERP (segments " + std::to_string(*interp_index_) + " and " +
                      std::to_string(i) + ")");
        }
        interp_index_ = i;
        if (!read_interp(ph, i)) return false;
        break;
      case PT_GNU_STACK:  // Linux reads the first one only.
        if (!have_gnu_stack) out_->exec_stack = (ph.p_flags & PF_X) != 0;
        have_gnu_stack = true;
        break;
      case PT_PHDR:
        if (!pt_phdr_vaddr_) pt_phdr_vaddr_ = ph.p_vaddr;
        break;
      default:
        break;
    }
  }
  return true;
}

bool ElfParser::check_load(const Elf64_Phdr& ph, size_t index) {
  const std::string name = segment_name(index);
  if (ph.p_filesz > ph.p_memsz) {
    return fail(name + ": p_filesz " + hex(ph.p_filesz) + " is larger than p_memsz " + hex(ph.p_memsz));
  }
  if (ph.p_memsz == 0) return true;  // Linux maps nothing for it.
  if (ph.p_filesz > 0 && !in_file(ph.p_offset, ph.p_filesz, file_.size())) {
    return fail(name + " extends past the end of the file (offset " + hex(ph.p_offset) + ", size " +
                hex(ph.p_filesz) + ", file " + hex(file_.size()) + ")");
  }
  uint64_t end, end_page;
  if (__builtin_add_overflow(ph.p_vaddr, ph.p_memsz, &end) || !page_up(end, &end_page)) {
    return fail(name + ": p_vaddr " + hex(ph.p_vaddr) + " + p_memsz " + hex(ph.p_memsz) + " overflows");
  }
  if (out_->type == ET_EXEC && end_page > va_limit_) {
    return fail(name + " ends at " + hex(end) + ", beyond the guest address space (limit " + hex(va_limit_) +
                ")");
  }
  if (ph.p_align > 1 && !std::has_single_bit(ph.p_align)) {
    return fail(name + ": p_align " + hex(ph.p_align) + " is not a power of two");
  }
  if ((ph.p_vaddr - ph.p_offset) % kElfPageSize != 0) {
    return fail(name + ": p_vaddr " + hex(ph.p_vaddr) + " and p_offset " + hex(ph.p_offset) +
                " differ modulo the 4 KiB page size, so it cannot be mapped");
  }
  if (!check_load_order(ph, index)) return false;
  out_->loads.push_back(ElfSegment{.vaddr = ph.p_vaddr,
                                   .memsz = ph.p_memsz,
                                   .offset = ph.p_offset,
                                   .filesz = ph.p_filesz,
                                   .align = ph.p_align,
                                   .prot = prot_from_flags(ph.p_flags)});
  last_load_index_ = index;
  return true;
}

bool ElfParser::check_load_order(const Elf64_Phdr& ph, size_t index) {
  if (out_->loads.empty()) return true;
  const ElfSegment& prev = out_->loads.back();
  const uint64_t prev_end = prev.vaddr + prev.memsz;  // overflow ruled out when prev was checked
  if (ph.p_vaddr < prev.vaddr) {
    return fail(segment_name(index) + " at " + hex(ph.p_vaddr) + " comes after " +
                segment_name(last_load_index_) + " at " + hex(prev.vaddr) +
                ": PT_LOAD segments must be in ascending address order");
  }
  if (ph.p_vaddr < prev_end) {
    return fail(segment_name(index) + " [" + hex(ph.p_vaddr) + ", " + hex(ph.p_vaddr + ph.p_memsz) +
                ") overlaps " + segment_name(last_load_index_) + " [" + hex(prev.vaddr) + ", " +
                hex(prev_end) + ")");
  }
  return true;
}

bool ElfParser::read_interp(const Elf64_Phdr& ph, size_t index) {
  const std::string name = "PT_INTERP (" + segment_name(index) + ")";
  if (ph.p_filesz > kPathMax) {
    return fail(name + " is too long (" + std::to_string(ph.p_filesz) + " bytes, the limit is 4096)");
  }
  if (!in_file(ph.p_offset, ph.p_filesz, file_.size())) {
    return fail(name + " extends past the end of the file (offset " + hex(ph.p_offset) + ", size " +
                hex(ph.p_filesz) + ", file " + hex(file_.size()) + ")");
  }
  const char* path = reinterpret_cast<const char*>(file_.data() + ph.p_offset);
  if (ph.p_filesz == 0 || path[0] == '\0') return fail(name + " is an empty path");
  if (path[ph.p_filesz - 1] != '\0') return fail(name + " is not NUL-terminated");
  out_->interp.assign(path, strnlen(path, ph.p_filesz));  // Linux opens it as a C string.
  return true;
}

bool ElfParser::compute_span() {
  const ElfSegment& last = out_->loads.back();
  out_->min_vaddr = page_down(out_->loads.front().vaddr);
  page_up(last.vaddr + last.memsz, &out_->max_vaddr);  // cannot overflow: checked in check_load
  const uint64_t span = out_->max_vaddr - out_->min_vaddr;
  if (out_->type == ET_DYN && span > va_limit_) {
    return fail("position-independent image spans " + hex(span) +
                " bytes, more than the guest address space (" + hex(va_limit_) + ")");
  }
  return true;
}

bool ElfParser::check_entry() {
  const uint64_t entry = out_->entry;
  if (out_->type == ET_DYN && entry == 0) {
    return fail("no entry point (e_entry is 0): a shared library, not a program");
  }
  for (const ElfSegment& seg : out_->loads) {
    uint64_t end_page;
    page_up(seg.vaddr + seg.memsz, &end_page);  // cannot overflow: checked in check_load
    // Whole pages are mapped, so an entry in the page-rounded part of the segment runs on Linux too.
    if ((seg.prot & PROT_EXEC) && page_down(seg.vaddr) <= entry && entry < end_page) return true;
  }
  return fail("entry point " + hex(entry) + " is not inside an executable PT_LOAD segment");
}

uint64_t ElfParser::find_phdr_vaddr() const {
  const uint64_t table_size = uint64_t{out_->phnum} * sizeof(Elf64_Phdr);
  for (const ElfSegment& seg : out_->loads) {
    if (seg.offset <= out_->phoff && out_->phoff - seg.offset <= seg.filesz &&
        table_size <= seg.filesz - (out_->phoff - seg.offset)) {
      return seg.vaddr + (out_->phoff - seg.offset);
    }
  }
  if (pt_phdr_vaddr_) {
    for (const ElfSegment& seg : out_->loads) {
      if (*pt_phdr_vaddr_ >= seg.vaddr && *pt_phdr_vaddr_ - seg.vaddr < seg.memsz) return *pt_phdr_vaddr_;
    }
  }
  return 0;
}

}  // namespace

bool parse_elf(std::span<const uint8_t> file, uint64_t va_limit, ElfInfo* out, std::string* error) {
  return ElfParser(file, va_limit, out, error).parse();
}

const char* elf_machine_name(uint16_t machine) {
  struct MachineName {
    uint16_t machine;
    const char* name;
  };
  static constexpr MachineName kNames[] = {
      {EM_NONE, "none"},  {EM_SPARC, "sparc"},   {EM_386, "i386"},        {EM_68K, "m68k"},
      {EM_MIPS, "mips"},  {EM_PARISC, "parisc"}, {EM_PPC, "powerpc"},     {EM_PPC64, "powerpc64"},
      {EM_S390, "s390"},  {EM_ARM, "arm"},       {EM_SH, "superh"},       {EM_SPARCV9, "sparc64"},
      {EM_IA_64, "ia64"}, {EM_X86_64, "x86-64"}, {EM_AARCH64, "aarch64"}, {EM_RISCV, "riscv"},
      {EM_BPF, "bpf"},    {258, "loongarch"},  // EM_LOONGARCH, missing from older <elf.h>
  };
  for (const MachineName& entry : kNames) {
    if (entry.machine == machine) return entry.name;
  }
  return "unknown";
}

}  // namespace emu
