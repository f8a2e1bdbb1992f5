// This file is the libFuzzer entry point for parse_elf: any input must be rejected with a one-line message
// or described in a way that keeps the loader's invariants, without crashing or reading out of bounds.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>

#include "emu/elf.h"
#include "tests/fuzz/elf_testing.h"

namespace {

constexpr uint64_t kVaLimit = uint64_t{1} << 40;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  emu::ElfInfo info;
  std::string error;
  const std::span<const uint8_t> file(data, size);
  if (emu::parse_elf(file, kVaLimit, &info, &error)) {
    if (const char* broken = emu::elf_testing::broken_invariant(file, info, kVaLimit)) {
      fprintf(stderr, "elf_fuzzer: an accepted image breaks an invariant: %s\n", broken);
      abort();
    }
  } else if (error.empty() || error.find('\n') != std::string::npos) {
    fprintf(stderr, "elf_fuzzer: rejected without a one-line message: '%s'\n", error.c_str());
    abort();
  }
  return 0;
}
