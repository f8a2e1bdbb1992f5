#!/bin/bash
# The Debian package (packaging/build_deb.sh, what `make deb` runs): built with dpkg-deb, installed with dpkg
# into a temporary root (dpkg --root, its own database), the demo run from the installed a64run, then
# removed and purged: nothing of it is left.
#
# usage: deb_test.sh A64RUN_BUILD_DIR SOURCE_DIR DEMO
set -u
build="$1"
src="$2"
demo="$3"
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
scratch="$(mktemp -d "${TMPDIR:-/tmp}/a64run-deb-test.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT

deb="$(bash "$src/packaging/build_deb.sh" "$build" "$scratch/out")" || { echo "FAIL: build_deb.sh"; exit 1; }
info="$(dpkg-deb --info "$deb")"
grep -q "Package: a64run" <<< "$info" || fail "control: $info"
contents="$(dpkg-deb --contents "$deb")"
for f in ./usr/bin/a64run ./usr/share/man/man1/a64run.1.gz ./usr/share/bash-completion/completions/a64run; do
  grep -q " $f$" <<< "$contents" || fail "the package lacks $f"
done
grep -q "^drwxr-xr-x root/root .* \./$" <<< "$contents" || fail "the package's / is not 0755 root: $contents"

root="$scratch/root"
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status"
dpkg --root="$root" --log=/dev/null -i "$deb" > "$scratch/dpkg.log" 2>&1 || fail "dpkg -i: $(cat "$scratch/dpkg.log")"
dpkg --root="$root" -s a64run 2> /dev/null | grep -q "Status: install ok installed" || fail "not installed"
out="$("$root/usr/bin/a64run" "$demo" "from the README" 2>&1)"
grep -q "argv\[1\] = from the README" <<< "$out" && grep -q "fib(30) = 832040" <<< "$out" &&
  echo "ok: the demo runs from the installed package" || fail "the demo from the package: $out"
dpkg --root="$root" --log=/dev/null -r a64run > /dev/null 2>&1 || fail "dpkg -r"
dpkg --root="$root" --log=/dev/null -P a64run > /dev/null 2>&1 || fail "dpkg -P"
left="$(cd "$root" && find . -mindepth 1 -not -path './var/lib/dpkg*' -not -path ./var -not -path ./var/lib)"
[ -z "$left" ] && echo "ok: removed and purged cleanly" || fail "left after purge: $left"

[ $failures -eq 0 ] && echo "PASS: deb" && exit 0
exit 1
