#!/bin/bash
# Checks that the host kernel cannot execute an arm64 program by itself (no binfmt_misc handler for aarch64),
# so that a guest exec which a64run wrongly handed to the host fails instead of passing through qemu.
set -u
program="$1"
if [ ! -x "$program" ]; then
  echo "host_rejects_arm64: FAIL: $program is missing (build the guest tests first)" >&2
  exit 1
fi
output="$("$program" 2>&1)"
status=$?
if [ "$status" -eq 126 ]; then
  echo "host_rejects_arm64: the host refused $program as expected ($output)"
  exit 0
fi
echo "host_rejects_arm64: FAIL: the host ran an arm64 program directly (status $status, output: $output)." >&2
echo "  Is qemu-user-binfmt installed? Install qemu-user with --no-install-recommends and remove it." >&2
exit 1
