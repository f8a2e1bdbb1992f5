// This file writes the ELF fuzzer's seed corpus: small valid images from the shared builder, which the
// fuzzer mutates about 15x faster than real binaries of hundreds of KiB (whose extra bytes it never reads).
#include <utility>
#include <vector>

#include "tests/fuzz/elf_testing.h"
#include "tests/fuzz/seed_writer.h"

int main(int argc, char** argv) {
  using namespace emu::elf_testing;
  ElfImage loader = pie_image();  // like ld.so: ET_DYN without PT_INTERP or PT_PHDR
  loader.ph.erase(loader.ph.begin(), loader.ph.begin() + 2);
  loader.eh.e_phnum = static_cast<uint16_t>(loader.ph.size());
  ElfImage no_stack = static_image();  // no PT_GNU_STACK
  no_stack.ph.pop_back();
  no_stack.eh.e_phnum = static_cast<uint16_t>(no_stack.ph.size());
  const std::vector<std::pair<const char*, std::vector<uint8_t>>> seeds = {
      {"seed-static", static_image().bytes()}, {"seed-pie", pie_image().bytes()},
      {"seed-go", go_image().bytes()},         {"seed-loader", loader.bytes()},
      {"seed-no-gnu-stack", no_stack.bytes()},
  };
  return fuzz_seeds::write_seeds(argc, argv, seeds);
}
