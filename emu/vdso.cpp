// This file maps the embedded guest vDSO and finds symbols in it.
#include "emu/vdso.h"

#include <elf.h>
#include <sys/mman.h>

#include <cstring>

#include "emu/address_space.h"

namespace emu {

uint64_t map_guest_code(AddressSpace& as, const void* code, size_t len, const char* name) {
  const uint64_t size = (len + kPageSize - 1) & ~(kPageSize - 1);
  MapSource src;
  src.name = name;
  const int64_t addr = as.mmap(0, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, src);
  if (addr < 0) return 0;
  memcpy(as.host(static_cast<uint64_t>(addr)), code, len);
  as.mprotect(static_cast<uint64_t>(addr), size, PROT_READ | PROT_EXEC);
  return static_cast<uint64_t>(addr);
}

uint64_t map_vdso(AddressSpace& as) {
  return kVdsoImageSize == 0 ? 0 : map_guest_code(as, kVdsoImage, kVdsoImageSize, "[vdso]");
}

// The image is a64run's own (vdso.lds: one PT_LOAD at address 0, so addresses are file offsets), read
// through its PT_DYNAMIC: DT_SYMTAB, DT_STRTAB and DT_HASH, whose nchain is the symbol count.
uint64_t vdso_symbol(const char* name) {
  if (kVdsoImageSize < sizeof(Elf64_Ehdr)) return 0;
  const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(kVdsoImage);
  const auto* ph = reinterpret_cast<const Elf64_Phdr*>(kVdsoImage + eh->e_phoff);
  const Elf64_Dyn* dyn = nullptr;
  for (int i = 0; i < eh->e_phnum; ++i) {
    if (ph[i].p_type == PT_DYNAMIC) dyn = reinterpret_cast<const Elf64_Dyn*>(kVdsoImage + ph[i].p_offset);
  }
  if (dyn == nullptr) return 0;
  const Elf64_Sym* syms = nullptr;
  const char* strs = nullptr;
  const uint32_t* hash = nullptr;
  for (; dyn->d_tag != DT_NULL; ++dyn) {
    if (dyn->d_tag == DT_SYMTAB) syms = reinterpret_cast<const Elf64_Sym*>(kVdsoImage + dyn->d_un.d_ptr);
    if (dyn->d_tag == DT_STRTAB) strs = reinterpret_cast<const char*>(kVdsoImage + dyn->d_un.d_ptr);
    if (dyn->d_tag == DT_HASH) hash = reinterpret_cast<const uint32_t*>(kVdsoImage + dyn->d_un.d_ptr);
  }
  if (syms == nullptr || strs == nullptr || hash == nullptr) return 0;
  for (uint32_t i = 1; i < hash[1]; ++i) {
    if (strcmp(strs + syms[i].st_name, name) == 0) return syms[i].st_value;
  }
  return 0;
}

}  // namespace emu
