// The ELF loader: maps a static, static-pie or dynamic arm64 program (and its interpreter) into the guest
// address space and builds the initial stack with argv, envp and the auxiliary vector.
#pragma once

#include <cstdint>
#include <string>

#include "emu/task.h"

namespace emu {

struct LoadedProgram {
  uint64_t entry = 0;  // where the first instruction runs (the interpreter's entry for dynamic programs)
  uint64_t sp = 0;     // initial stack pointer (argc)
};

// Loads opts().program into proc's address space. On failure returns false with one clear line in *error and
// the exit status a64run should use (127: missing file, 126: not runnable).
bool load_program(Process& proc, LoadedProgram* out, std::string* error, int* status);

// AT_HWCAP and AT_HWCAP2 for what Unicorn's "max" CPU model implements (no SVE: it obeys CPACR.ZEN).
uint64_t guest_hwcap();
uint64_t guest_hwcap2();

}  // namespace emu
