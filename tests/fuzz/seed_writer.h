// The seed programs' common end: write each named seed into the corpus directory given as the one argument.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fuzz_seeds {

// `seeds` holds (name, bytes) pairs; bytes a std::vector<uint8_t>. Returns main's exit status: 0, 1 when a
// seed cannot be written, 2 for a usage error.
template <typename Seeds>
int write_seeds(int argc, char** argv, const Seeds& seeds) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s <corpus dir>\n", argv[0]);
    return 2;
  }
  std::filesystem::create_directories(argv[1]);
  for (const auto& [name, bytes] : seeds) {
    const std::string file(name);
    std::ofstream out(std::filesystem::path(argv[1]) / file, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
      fprintf(stderr, "%s: cannot write %s\n", argv[0], file.c_str());
      return 1;
    }
  }
  return 0;
}

}  // namespace fuzz_seeds
