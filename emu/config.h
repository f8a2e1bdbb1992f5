// a64run's configuration file, for what a program started by the kernel (binfmt_misc passes no options)
// cannot get from a command line: /etc/a64run.conf, or the file A64RUN_CONFIG names.
#pragma once

#include <string>

namespace emu {

inline constexpr const char* kConfigPath = "/etc/a64run.conf";

struct Config {
  std::string sysroot;  // `sysroot = DIR`: the -L default when A64RUN_LD_PREFIX is not set
};

// Reads the configuration: `key = value` lines, '#' comments, blank lines. A missing default file is an
// empty configuration; a missing A64RUN_CONFIG file, an unknown key or a malformed line is an error, with
// the file and line in *error.
bool read_config(Config* out, std::string* error);

}  // namespace emu
