#!/bin/bash
# Wrapper for exit_code tests: runs the launch command and passes only if its exit status is exactly
# A64RUN_EXPECT_STATUS.
set -u
"$@"
status=$?
if [ "$status" -ne "${A64RUN_EXPECT_STATUS:?A64RUN_EXPECT_STATUS is not set}" ]; then
  echo "expect_status: FAIL: expected exit status $A64RUN_EXPECT_STATUS, got $status" >&2
  exit 1
fi
echo "expect_status: exit status $status as expected"
