// The guest vDSO: an arm64 shared object (emu/vdso/vdso.c) embedded in a64run and mapped into every guest,
// named by AT_SYSINFO_EHDR, as Linux maps its own. It answers clock_gettime(CLOCK_MONOTONIC) without a
// system call.
#pragma once

#include <cstddef>
#include <cstdint>

namespace emu {

class AddressSpace;

// The image's bytes (emu/vdso/embed.cmake); size 0 when a64run was built without the arm64 cross compiler.
extern const unsigned char kVdsoImage[];
extern const size_t kVdsoImageSize;

// Maps the vDSO read-and-execute as "[vdso]"; returns its guest address, or 0 when there is none.
uint64_t map_vdso(AddressSpace& as);
// Maps `len` bytes of a64run's own guest code read-and-execute, named `name` in /proc/self/maps (the vDSO;
// the sigreturn trampoline of a build without one). Returns the guest address, or 0.
uint64_t map_guest_code(AddressSpace& as, const void* code, size_t len, const char* name);
// The offset of a dynamic symbol of the image (0 when absent).
uint64_t vdso_symbol(const char* name);

}  // namespace emu
