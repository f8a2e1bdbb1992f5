#!/bin/bash
# make install's file list (packaging/install.sh) into a DESTDIR: the stripped static a64run runs the demo
# from there, the manual page renders, bash completion completes options, --binfmt's commands, -L's
# directories and the program's files; uninstall removes every file again.
#
# usage: install_test.sh A64RUN_BUILD_DIR SOURCE_DIR DEMO
set -u
build="$1"
src="$2"
demo="$3"
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
dest="$(mktemp -d "${TMPDIR:-/tmp}/a64run-install.XXXXXX")"
trap 'rm -rf "$dest"' EXIT
prefix=/usr/local

bash "$src/packaging/install.sh" "$build" "$dest" "$prefix" || fail "install.sh failed"
for f in bin/a64run share/man/man1/a64run.1 share/bash-completion/completions/a64run share/doc/a64run/README.md; do
  [ -f "$dest$prefix/$f" ] || fail "not installed: $prefix/$f"
done
installed="$dest$prefix/bin/a64run"
[ -x "$installed" ] || fail "a64run is not executable"
file "$installed" | grep -q "not stripped" && fail "a64run is not stripped: $(file "$installed")"
out="$("$installed" "$demo" "from the README")"
grep -q "fib(30) = 832040" <<< "$out" && echo "ok: the installed a64run runs the demo" ||
  fail "the installed a64run did not run the demo: $out"
man -l "$dest$prefix/share/man/man1/a64run.1" 2> /dev/null | grep -q "binfmt_misc" && echo "ok: man page" ||
  fail "the manual page does not render"

# Completion: load the script, complete a few command lines.
complete_words() {
  bash -c '
    source "$1"; shift
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
    _a64run
    printf "%s\n" "${COMPREPLY[@]}"' _ "$dest$prefix/share/bash-completion/completions/a64run" "$@"
}
work="$dest.work"
mkdir -p "$work/sysroot-dir" && touch "$work/prog-file"
cd "$work" || exit 2
[ "$(complete_words a64run --ver)" = "--version" ] && echo "ok: completes --version" || fail "--ver"
grep -qx "uninstall" <<< "$(complete_words a64run --binfmt un)" && echo "ok: completes --binfmt un" ||
  fail "--binfmt un"
[ "$(complete_words a64run --binfmt install --p)" = "--persistent" ] && echo "ok: completes --persistent" ||
  fail "--binfmt install --p"
[ "$(complete_words a64run -L sysroot)" = "sysroot-dir" ] && echo "ok: -L completes directories" ||
  fail "-L sysroot: $(complete_words a64run -L sysroot)"
[ "$(complete_words a64run prog)" = "prog-file" ] && echo "ok: completes the program" || fail "program"
[ "$(complete_words a64run prog-file --ver)" = "" ] && echo "ok: the program's options are its own" ||
  fail "the program's arguments got a64run's options"
cd / && rm -rf "$work"

bash "$src/packaging/install.sh" --uninstall "$build" "$dest" "$prefix" > /dev/null || fail "uninstall failed"
left="$(find "$dest" -type f)"
[ -z "$left" ] && echo "ok: uninstall removed every file" || fail "left after uninstall: $left"

[ $failures -eq 0 ] && echo "PASS: install" && exit 0
exit 1
