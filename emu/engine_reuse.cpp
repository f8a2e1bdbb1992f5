// This file resets an engine left inside uc_emu_start by a process that ended there.
//
// Unicorn counts nested uc_emu_start calls (uc->nested_level: uc_emu_start raises it on entry and lowers it
// on return; at 0 it starts afresh, at UC_MAX_NESTED_LEVEL, 64, it refuses with UC_ERR_RESOURCE). A
// CLONE_VM|CLONE_VFORK child (posix_spawn, vfork: emu/process_fork.cpp) runs on a vCPU of its parent's pool
// in the parent's memory and leaves by execve or exit_group from the system-call hook, inside uc_emu_start,
// which thus never returns for it. Handed back to the pool, the engine kept one level per child: each later
// run of it counted as nested, and every child after the 64th to get it failed to start (uc_emu_start's
// error read as a fault: SIGSEGV at its first instruction; CPython's test_subprocess spawns hundreds).
// Nothing else is left half-done: the hook runs outside any translation or lock, and the next uc_emu_start
// resets the CPU's exception and stop state itself.
#include "emu/engine_reuse.h"

#include <cstddef>
#include <cstring>

namespace emu {
namespace {

// uc_struct.nested_level in Debian's build of Unicorn 2.1.1 (objdump of uc_emu_start: its first read of the
// level, `mov 0x39e0(%rdi),%edx`, and the store of the raised level, `mov %edx,0x39e0(%rbx)`).
constexpr size_t kUcNestedLevel = 0x39e0;

bool layout_checked() {
  static const bool ok = [] {
    static const unsigned char kRead[] = {0x8b, 0x97, 0xe0, 0x39, 0x00, 0x00};
    static const unsigned char kStore[] = {0x89, 0x93, 0xe0, 0x39, 0x00, 0x00};
    const auto* code = reinterpret_cast<const unsigned char*>(&uc_emu_start);
    const auto has = [code](const unsigned char* want, size_t n) {
      for (size_t i = 0; i + n <= 0x100; ++i) {
        if (std::memcmp(code + i, want, n) == 0) return true;
      }
      return false;
    };
    return has(kRead, sizeof kRead) && has(kStore, sizeof kStore);
  }();
  return ok;
}

}  // namespace

bool reset_abandoned_engine(uc_engine* uc) {
  if (!layout_checked()) return false;
  char* level = reinterpret_cast<char*>(uc) + kUcNestedLevel;
  int n = 0;
  std::memcpy(&n, level, sizeof n);
  if (n == 0) return true;   // never ran (the clone failed)
  if (n != 1) return false;  // a64run never nests: one run, abandoned
  n = 0;
  std::memcpy(level, &n, sizeof n);
  return true;
}

}  // namespace emu
