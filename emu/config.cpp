// This file reads a64run's configuration file (emu/config.h).
#include "emu/config.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace emu {
namespace {

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

}  // namespace

bool read_config(Config* out, std::string* error) {
  const char* named = getenv("A64RUN_CONFIG");
  const std::string path = named != nullptr ? named : kConfigPath;
  std::ifstream f(path);
  if (!f) {
    if (named == nullptr && errno == ENOENT) return true;
    *error = fmt::format("{}: {}", path, strerror(errno));
    return false;
  }
  std::string line;
  for (int n = 1; std::getline(f, line); ++n) {
    const std::string t = trim(line.substr(0, line.find('#')));
    if (t.empty()) continue;
    const size_t eq = t.find('=');
    const std::string key = eq == std::string::npos ? t : trim(t.substr(0, eq));
    const std::string value = eq == std::string::npos ? std::string() : trim(t.substr(eq + 1));
    if (eq == std::string::npos || value.empty()) {
      *error = fmt::format("{}:{}: want `key = value`", path, n);
      return false;
    }
    if (key != "sysroot") {
      *error = fmt::format("{}:{}: unknown setting `{}` (known: sysroot)", path, n, key);
      return false;
    }
    out->sysroot = value;
  }
  return true;
}

}  // namespace emu
