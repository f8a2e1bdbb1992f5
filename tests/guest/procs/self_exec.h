// Helpers for guest tests that execute an arm64 program (usually themselves) with execve or posix_spawn.
//
// The reference lane needs a detour: qemu-aarch64 7.2 hands a guest's execve to the host kernel unchanged
// (linux-user/syscall.c, safe_execve), and this host deliberately has no binfmt_misc handler for aarch64
// (DESIGN.md section 4, guest/host/rejects_arm64_exec), so there an exec of an arm64 binary fails with
// ENOEXEC. Under qemu these helpers therefore run `qemu-aarch64 -0 ARGV0 PATH ARGV1...` instead, which gives
// the new program the same argv, envp, pid and file descriptors. Under a64run they call execve/posix_spawn
// directly: a64run must run the arm64 program by itself.
#ifndef A64RUN_TESTS_GUEST_PROCS_SELF_EXEC_H_
#define A64RUN_TESTS_GUEST_PROCS_SELF_EXEC_H_

#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

// This program's absolute path (/proc/self/exe resolved), or exits the test if it cannot be found.
static inline const char* self_path(void) {
  static char path[PATH_MAX];
  if (!path[0]) {
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    REQUIRE(n > 0 && path[0] == '/');
    path[n] = '\0';
  }
  return path;
}

// The host's qemu-aarch64 (found on PATH) when running in the reference lane, NULL under a64run.
static inline const char* reference_qemu_path(void) {
  static char found[PATH_MAX];
  if (!on_reference_qemu()) return NULL;
  if (found[0]) return found;
  const char* path_var = getenv("PATH");
  char dirs[4096];
  snprintf(dirs, sizeof dirs, "%s:/usr/bin:/usr/local/bin", path_var ? path_var : "");
  for (char *save = NULL, *dir = strtok_r(dirs, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
    snprintf(found, sizeof found, "%s/qemu-aarch64", dir);
    if (access(found, X_OK) == 0) return found;
  }
  found[0] = '\0';
  fprintf(stderr, "self_exec.h: qemu-aarch64 not found on PATH in the reference lane\n");
  exit(2);
}

// The argv that runs `path` with `argv` through qemu-aarch64 (reference lane); a static buffer.
static inline char* const* reference_qemu_argv(const char* path, char* const argv[]) {
  static char* wrapped[4096];
  size_t n = 0;
  wrapped[n++] = (char*)reference_qemu_path();
  wrapped[n++] = "-0";
  wrapped[n++] = argv[0] ? argv[0] : (char*)path;
  wrapped[n++] = (char*)path;
  for (size_t i = 1; argv[0] && argv[i] && n + 1 < sizeof wrapped / sizeof wrapped[0]; i++)
    wrapped[n++] = argv[i];
  wrapped[n] = NULL;
  return wrapped;
}

// execve of an arm64 program; see the top of this file for the reference lane.
static inline int exec_guest(const char* path, char* const argv[], char* const envp[]) {
  if (on_reference_qemu()) return execve(reference_qemu_path(), reference_qemu_argv(path, argv), envp);
  return execve(path, argv, envp);
}

// posix_spawn of an arm64 program; see the top of this file for the reference lane.
static inline int spawn_guest(pid_t* pid, const char* path, const posix_spawn_file_actions_t* actions,
                              const posix_spawnattr_t* attr, char* const argv[], char* const envp[]) {
  if (on_reference_qemu())
    return posix_spawn(pid, reference_qemu_path(), actions, attr, reference_qemu_argv(path, argv), envp);
  return posix_spawn(pid, path, actions, attr, argv, envp);
}

#endif  // A64RUN_TESTS_GUEST_PROCS_SELF_EXEC_H_
