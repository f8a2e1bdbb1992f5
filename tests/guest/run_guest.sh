#!/bin/bash
# Runs one guest test program under a64run or qemu-aarch64 in a fresh scratch directory (its cwd and TMPDIR),
# removes the directory, and exits with the program's status, saying why when that status is not 0.
#
# usage: run_guest.sh [--sysroot DIR] [--wrapper SCRIPT] [--cwd DIR] a64run|qemu EMULATOR PROGRAM [ARGS...]
#   --sysroot DIR    for qemu: the arm64 sysroot of a dynamically linked program (qemu-aarch64 -L DIR);
#                    a64run uses /usr/aarch64-linux-gnu by default.
#   --wrapper SCRIPT run SCRIPT with the launch command as its arguments instead of the command itself.
#   --cwd DIR        run the program in DIR (a test suite that reads its testdata/ there); TMPDIR is still
#                    the scratch directory.
# The qemu lane exports A64RUN_REFERENCE=qemu so that a test can skip a check that hits a documented qemu
# bug; the a64run lane never has it set.
set -u

usage() {
  echo "usage: run_guest.sh [--sysroot DIR] [--wrapper SCRIPT] [--cwd DIR] a64run|qemu EMULATOR PROGRAM [ARGS...]" >&2
  exit 2
}

sysroot=""
wrapper=""
workdir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --sysroot) [ $# -ge 2 ] || usage; sysroot="$2"; shift 2 ;;
    --wrapper) [ $# -ge 2 ] || usage; wrapper="$2"; shift 2 ;;
    --cwd) [ $# -ge 2 ] || usage; workdir="$2"; shift 2 ;;
    --) shift; break ;;
    -*) usage ;;
    *) break ;;
  esac
done
[ $# -ge 3 ] || usage
kind="$1"
emulator="$2"
program="$3"
shift 2

case "$kind" in
  a64run)
    unset A64RUN_REFERENCE
    launch=("$emulator")
    ;;
  qemu)
    export A64RUN_REFERENCE=qemu
    launch=("$emulator")
    if [ -n "$sysroot" ]; then launch+=(-L "$sysroot"); fi
    ;;
  *) usage ;;
esac
launch+=("$@")

scratch="$(mktemp -d "${TMPDIR:-/tmp}/a64run-guest.XXXXXX")" || exit 2
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
  cd / && chmod -R u+rwx "$scratch" 2>/dev/null
  rm -rf "$scratch"
}
trap cleanup EXIT
cd "${workdir:-$scratch}" || exit 2
export TMPDIR="$scratch"
# A crashing guest must not leave core files; the guest may still raise its soft limit up to the hard one.
ulimit -S -c 0

if [ -n "$wrapper" ]; then
  "$wrapper" "${launch[@]}"
else
  "${launch[@]}"
fi
status=$?

if [ "$status" -ne 0 ]; then
  what="$(basename "$program") under $kind"
  if [ -n "$wrapper" ]; then what="$what (wrapper $(basename "$wrapper"))"; fi
  if [ "$status" -gt 128 ] && [ "$status" -lt 192 ]; then
    echo "run_guest: FAIL: $what was killed by signal $((status - 128)) (SIG$(kill -l $((status - 128))))" >&2
  else
    echo "run_guest: FAIL: $what exited with status $status" >&2
  fi
fi
exit "$status"
