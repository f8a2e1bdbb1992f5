#!/usr/bin/env bash
# Runs clang-tidy (.clang-tidy) on NUL-separated files from stdin, JOBS at a time, with BUILD's
# compile_commands.json. Prints the findings of failing files only and fails if there is any.
#
# Usage: ... | scripts/lint.sh <build dir> <jobs>
set -euo pipefail

build="${1:?build dir}"
jobs="${2:-2}"
[[ -f $build/compile_commands.json ]] || {
  echo "lint: $build/compile_commands.json is missing: configure $build first" >&2
  exit 2
}

# One file per clang-tidy; the compiler's "N warnings generated." lines (from headers filtered out by
# HeaderFilterRegex) are noise. The script runs under sh -c, hence single quotes.
# shellcheck disable=SC2016
tidy_one='out="$("${CLANG_TIDY:-clang-tidy}" -p "$0" --quiet --extra-arg=-Wno-unknown-warning-option "$1" 2>&1)" ||
  { printf "%s\n" "$out" | grep -v "warnings generated\.$"; exit 1; }'
if xargs -0 -r -n 1 -P "$jobs" sh -c "$tidy_one" "$build"; then
  echo "lint: ok"
else
  echo "lint: clang-tidy found problems (see above)" >&2
  exit 1
fi
