#!/usr/bin/env bash
# Installs a built a64run the way `make install` and the Debian package do, or removes it.
#
# usage: install.sh [--uninstall] BUILD_DIR DESTDIR PREFIX
#   $DESTDIR$PREFIX/bin/a64run                                   the static emulator, stripped
#   $DESTDIR$PREFIX/share/man/man1/a64run.1                      the manual page
#   $DESTDIR$PREFIX/share/bash-completion/completions/a64run     bash completion
#   $DESTDIR$PREFIX/share/doc/a64run/                            README.md and docs/*.md
set -euo pipefail

uninstall=0
if [[ ${1:-} == --uninstall ]]; then
  uninstall=1
  shift
fi
[[ $# -eq 3 ]] || { echo "usage: install.sh [--uninstall] BUILD_DIR DESTDIR PREFIX" >&2; exit 2; }
build="$1"
dest="$2$3"
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

bin="$dest/bin"
man="$dest/share/man/man1"
completions="$dest/share/bash-completion/completions"
doc="$dest/share/doc/a64run"

if [[ $uninstall -eq 1 ]]; then
  rm -f "$bin/a64run" "$man/a64run.1" "$man/a64run.1.gz" "$completions/a64run"
  rm -rf "$doc"
  echo "install.sh: removed a64run from $dest"
  exit 0
fi

[[ -x $build/a64run ]] || { echo "install.sh: $build/a64run is not built (make first)" >&2; exit 1; }
install -d "$bin" "$man" "$completions" "$doc"
install -m 0755 -s "$build/a64run" "$bin/a64run"
install -m 0644 "$src/packaging/a64run.1" "$man/a64run.1"
install -m 0644 "$src/packaging/a64run.bash-completion" "$completions/a64run"
install -m 0644 "$src/README.md" "$doc/README.md"
install -m 0644 "$src"/docs/*.md "$doc/"
echo "install.sh: installed a64run into $dest"
