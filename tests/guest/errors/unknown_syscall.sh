#!/bin/bash
# Wrapper for errors/unknown_syscall: runs the guest with stderr captured and checks that a64run named the
# unknown numbers at most once each and stopped naming new ones after a few: a guest must not be able to
# fill the terminal. (qemu-aarch64 prints nothing for them.)
set -u
log=unknown_syscall.stderr
"$@" 2> "$log"
status=$?
cat "$log" >&2
[ "$status" -eq 0 ] || exit "$status"
[ "${A64RUN_REFERENCE:-}" = qemu ] && exit 0
fail() { echo "unknown_syscall.sh: $*" >&2; exit 1; }
lines=$(grep -c '^a64run: ' "$log")
[ "$(grep -c 'unimplemented syscall unknown (1000)' "$log")" -eq 1 ] || fail "syscall 1000 not named exactly once"
[ "$(grep -c 'more unknown syscall numbers' "$log")" -eq 1 ] || fail "no line saying the rest are not named"
[ "$lines" -le 20 ] || fail "$lines lines from a64run for 104 numbers made 1,306 times"
exit 0
