// This file writes the ELF fuzzer's seed corpus: small valid images from the shared builder, which the
// fuzzer mutates about 15x faster than real binaries of hundreds of KiB (whose extra bytes it never reads).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <utility>
#include <vector>

#include "tests/fuzz/elf_testing.h"

int main(int argc, char** argv) {
  using namespace emu::elf_testing;
  if (argc != 2) {
    fprintf(stderr, "usage: %s <corpus dir>\n", argv[0]);
    return 2;
  }
  ElfImage loader = pie_image();  // like ld.so: ET_DYN without PT_INTERP or PT_PHDR
  loader.ph.erase(loader.ph.begin(), loader.ph.begin() + 2);
  loader.eh.e_phnum = static_cast<uint16_t>(loader.ph.size());
  ElfImage no_stack = static_image();  // no PT_GNU_STACK
  no_stack.ph.pop_back();
  no_stack.eh.e_phnum = static_cast<uint16_t>(no_stack.ph.size());
  const std::vector<std::pair<const char*, ElfImage>> seeds = {
      {"seed-static", static_image()}, {"seed-pie", pie_image()},       {"seed-go", go_image()},
      {"seed-loader", loader},         {"seed-no-gnu-stack", no_stack},
  };
  std::filesystem::create_directories(argv[1]);
  for (const auto& [name, image] : seeds) {
    const std::vector<uint8_t> bytes = image.bytes();
    std::ofstream out(std::filesystem::path(argv[1]) / name, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
      fprintf(stderr, "%s: cannot write %s\n", argv[0], name);
      return 1;
    }
  }
  return 0;
}
