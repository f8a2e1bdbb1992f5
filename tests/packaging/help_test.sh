#!/bin/bash
# --help, the manual page and --version against the code: every A64RUN_* variable the sources read with
# getenv and every option main.cpp parses is in --help and in packaging/a64run.1; the manual page renders
# without a groff warning; --version names Unicorn, Capstone and the seven fast paths, and says which are
# on (this project's build takes all seven; A64RUN_SERIAL, A64RUN_BLOCK_HOOK, A64RUN_SOFTMMU,
# A64RUN_SOFTFLOAT and A64RUN_SLOW_LOOKUP turn five off), and the huge page policy (the host's, or a64run's
# own under A64RUN_HUGE_PAGES).
#
# usage: help_test.sh A64RUN SOURCE_DIR
set -u
a64run="$1"
src="$2"
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

help="$("$a64run" --help)"
man="$(sed 's/\\-/-/g' "$src/packaging/a64run.1")"
mapfile -t vars < <(grep -rhoE 'getenv\("A64RUN_[A-Z0-9_]+"' "$src"/emu "$src"/syscalls "$src"/signals "$src"/gdb |
  sed 's/getenv("//; s/"//' | sort -u)
# Options: every string literal in main.cpp outside usage() that looks like one ("-L", "--strace",
# "--signal-stats=" as "--signal-stats"), but the end-of-options "--".
mapfile -t opts < <(awk '/^void usage\(/ { skip = 1 } skip && /^}/ { skip = 0; next } !skip' "$src/emu/main.cpp" |
  grep -oE '"-[-A-Za-z0-9]+' | sed 's/^"//' | grep -vx -- '--' | sort -u)
[ ${#vars[@]} -ge 8 ] || fail "found only ${#vars[@]} variables in the sources: ${vars[*]}"
[ ${#opts[@]} -ge 12 ] || fail "found only ${#opts[@]} options in main.cpp: ${opts[*]}"
for v in "${vars[@]}"; do
  grep -qF -- "$v" <<< "$help" || fail "--help does not mention $v"
  grep -qF -- "$v" <<< "$man" || fail "the manual page does not mention $v"
done
for o in "${opts[@]}"; do
  grep -qE -- "(^|[ ,\[])$o([ =\[,]|$)" <<< "$help" || fail "--help does not list $o"
  grep -qE -- "(^|[ ,\[])$o([ =\[,]|$)" <<< "$(grep -v '^\.\\"' <<< "$man" | sed -E 's/^\.[A-Z]+ //; s/"//g')" ||
    fail "the manual page does not list $o"
done
for c in install uninstall status --persistent; do
  grep -qF -- "$c" <<< "$help" || fail "--help does not mention --binfmt $c"
done
warnings="$(groff -man -Tutf8 -ww -z "$src/packaging/a64run.1" 2>&1)"
[ -z "$warnings" ] || fail "groff warns about the manual page: $warnings"

version="$("$a64run" --version)"
# A position-independent build (ThreadSanitizer's) has its code too high for the code buffer's slots.
near="near helpers: yes \(translated code calls helpers with a direct call\)"
shared="shared blocks: yes"
if LC_ALL=C readelf -h "$a64run" | grep -q "Type: *DYN"; then
  near="near helpers: no \(a position-independent build"
  shared="shared blocks: no \(each thread"
fi
for want in "^a64run [0-9]+\.[0-9]+\.[0-9]+$" "^Unicorn 2\.1\.1 .*Capstone 5\.0\.7$" \
  "parallel atomics: yes" "kicks: yes" "4 KiB pages: yes \(the engine translates with 4096 byte pages\)" \
  "direct memory access: yes" "host FPU: yes" "short block lookup: yes" \
  "lazy flags: yes" "$near" "FP helper calls: yes" "V register forwarding: yes" "FMUL and FADD pairs: yes" \
  "$shared"; do
  grep -qE -- "$want" <<< "$version" || fail "--version lacks /$want/: $version"
done
slow="$(A64RUN_SERIAL=1 A64RUN_BLOCK_HOOK=1 "$a64run" --version)"
grep -q "parallel atomics: no (A64RUN_SERIAL" <<< "$slow" || fail "A64RUN_SERIAL not reported: $slow"
grep -q "kicks: no (A64RUN_BLOCK_HOOK" <<< "$slow" || fail "A64RUN_BLOCK_HOOK not reported: $slow"
soft="$(A64RUN_SOFTMMU=1 A64RUN_SOFTFLOAT=1 A64RUN_SLOW_LOOKUP=1 "$a64run" --version)"
grep -q "direct memory access: no (A64RUN_SOFTMMU" <<< "$soft" || fail "A64RUN_SOFTMMU not reported: $soft"
grep -q "host FPU: no (A64RUN_SOFTFLOAT" <<< "$soft" || fail "A64RUN_SOFTFLOAT not reported: $soft"
grep -q "short block lookup: no (A64RUN_SLOW_LOOKUP" <<< "$soft" || fail "A64RUN_SLOW_LOOKUP not reported: $soft"
diag="$(A64RUN_EAGER_FLAGS=1 A64RUN_NO_FORWARD=1 A64RUN_NO_SHARED_TB=1 A64RUN_NO_FP_PAIRS=1 "$a64run" --version)"
grep -q "lazy flags: no (A64RUN_EAGER_FLAGS" <<< "$diag" || fail "A64RUN_EAGER_FLAGS not reported: $diag"
grep -q "V register forwarding: no (A64RUN_NO_FORWARD" <<< "$diag" || fail "A64RUN_NO_FORWARD not reported: $diag"
grep -q "shared blocks: no (A64RUN_NO_SHARED_TB" <<< "$diag" || fail "A64RUN_NO_SHARED_TB not reported: $diag"
grep -q "FMUL and FADD pairs: no (A64RUN_NO_FP_PAIRS" <<< "$diag" || fail "A64RUN_NO_FP_PAIRS not reported: $diag"
grep -q "huge pages: the host's policy" <<< "$version" || fail "the default huge page policy not reported: $version"
huge="$(A64RUN_HUGE_PAGES=1 "$a64run" --version)"
grep -qE "huge pages: (yes|no \(the host's transparent_hugepage is never)" <<< "$huge" ||
  fail "A64RUN_HUGE_PAGES not reported: $huge"

echo "checked ${#vars[@]} variables (${vars[*]}) and ${#opts[@]} options (${opts[*]})"
[ $failures -eq 0 ] && echo "PASS: help, manual page, version" && exit 0
exit 1
