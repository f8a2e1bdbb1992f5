// binfmt_misc: `a64run --binfmt install|uninstall|status` registers a64run with the kernel as the handler of
// arm64 ELF executables, and a64run started that way finds its program and the program's argv[0].
#pragma once

#include <string>
#include <vector>

namespace emu {

// The entry's name under /proc/sys/fs/binfmt_misc, and its flags: F opens the interpreter at registration
// (the handler works in chroots, containers and mount namespaces that lack a64run's path), P keeps the
// program's argv[0]. Not C: with it the kernel would give a64run a setuid program's credentials, and
// a64run, which runs the program's code in its own process and takes options from the environment
// (A64RUN_GDB, A64RUN_LD_PREFIX, A64RUN_CONFIG), is not a hardened setuid program. So setuid and setgid
// bits of arm64 programs are not honoured: they run with the caller's credentials.
inline constexpr const char* kBinfmtName = "a64run";
inline constexpr const char* kBinfmtFlags = "FP";

// `a64run --binfmt ARGS...`: install [--persistent], uninstall, status. Returns the exit status.
int binfmt_command(const std::vector<std::string>& args);

// The registration line (":name:M::magic:mask:interpreter:flags", magic and mask as qemu-user's
// qemu-binfmt-conf.sh writes them for aarch64: ELF64, little-endian, machine 183, types EXEC and DYN).
std::string binfmt_register_line(const std::string& interpreter);

// How the kernel started a64run. With P, argv is {interpreter, program path, argv[0], args...} and AT_FLAGS
// has AT_FLAGS_PRESERVE_ARGV0; with O (or C) the program's open descriptor is AT_EXECFD.
struct KernelStart {
  bool preserve_argv0 = false;
  int exec_fd = -1;
};
KernelStart kernel_start();

}  // namespace emu
