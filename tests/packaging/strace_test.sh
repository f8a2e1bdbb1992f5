#!/usr/bin/env bash
# --strace: one line per system call, "[TID] NAME(ARGS) = RESULT", on stderr; a fork child's clone returns
# in the child and its line carries the child's id. Usage: strace_test.sh A64RUN GUEST_THAT_FORKS
set -euo pipefail
a64run="${1:?a64run}"
guest="${2:?a guest program that forks}"
fail() {
  echo "strace_test: $*" >&2
  exit 1
}
trace="$("$a64run" --strace "$guest" 2>&1 >/dev/null)" || fail "the guest failed"
lines="$(grep -E '^\[[0-9]+\] ' <<< "$trace" || true)"
[ -n "$lines" ] || fail "no trace line"
bad="$(grep -vE '^\[[0-9]+\] [a-z0-9_]+\(.*\) = (-?[0-9]+|0x[0-9a-f]+|\?|-1 E[A-Z0-9]+ \(.*\))$' <<< "$lines" || true)"
[ -z "$bad" ] || fail "malformed lines: $(head -3 <<< "$bad")"
# Every clone that made a child process in the parent (= N) has its child's line: [N] clone(...) = 0. (A new
# thread, CLONE_THREAD, starts at its own entry point: it returns from no clone.)
children=()
while read -r flags child; do
  (((flags & 0x10000) == 0)) && children+=("$child")
done < <(sed -nE 's/^\[[0-9]+\] clone\((0x[0-9a-f]+), .*\) = ([1-9][0-9]*)$/\1 \2/p' <<< "$lines")
[ ${#children[@]} -ge 1 ] || fail "no clone made a child"
for c in "${children[@]}"; do
  grep -qE "^\[$c\] clone\(.*\) = 0$" <<< "$lines" || fail "no child line [$c] clone(...) = 0"
done
parent="$(sed -nE '1s/^\[([0-9]+)\].*/\1/p' <<< "$lines")"
! grep -qE "^\[$parent\] clone\(.*\) = 0$" <<< "$lines" || fail "a child's clone line carries the parent's id"
echo "strace_test: ok (${#children[@]} children)"
