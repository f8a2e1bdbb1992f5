#!/usr/bin/env bash
# Builds the Debian package of a built a64run with dpkg-deb, without network: a64run_VERSION_ARCH.deb in
# OUT_DIR. The package has no maintainer scripts and no dependencies (a64run is one static executable);
# registering with binfmt_misc is the user's step (a64run --binfmt install --persistent), and so is
# undoing it before removing the package.
#
# usage: build_deb.sh BUILD_DIR OUT_DIR
set -euo pipefail

[[ $# -eq 2 ]] || { echo "usage: build_deb.sh BUILD_DIR OUT_DIR" >&2; exit 2; }
build="$(realpath "$1")"
out="$(realpath -m "$2")"
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

version="$("$build/a64run" --version | awk 'NR == 1 { print $2 }')"
arch="$(dpkg --print-architecture)"
[[ -n $version && -n $arch ]] || { echo "build_deb.sh: no version or architecture" >&2; exit 1; }

stage="$(mktemp -d "${TMPDIR:-/tmp}/a64run-deb.XXXXXX")"
chmod 0755 "$stage"  # the package's "./": dpkg must not take mktemp's 0700 for /
trap 'rm -rf "$stage"' EXIT
bash "$src/packaging/install.sh" "$build" "$stage" /usr > /dev/null
gzip -9n "$stage/usr/share/man/man1/a64run.1"
mkdir -p "$stage/DEBIAN"
size="$(du -sk "$stage/usr" | cut -f1)"
cat > "$stage/DEBIAN/control" << CONTROL
Package: a64run
Version: $version
Architecture: $arch
Maintainer: a64run developers <a64run@localhost>
Installed-Size: $size
Section: otherosfs
Priority: optional
Suggests: libc6-arm64-cross, gdb-multiarch
Description: run arm64 (aarch64) Linux programs on x86-64 Linux
 a64run is a user-mode emulator, like qemu-aarch64, on the Unicorn CPU engine:
 static, static-pie and dynamic arm64 programs, one host thread per guest
 thread running in parallel, Linux's signal semantics, a gdb stub (-g PORT)
 and binfmt_misc registration (a64run --binfmt install).
CONTROL
(cd "$stage" && find usr -type f -print0 | sort -z | xargs -0 md5sum > DEBIAN/md5sums)
mkdir -p "$out"
deb="$out/a64run_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" > /dev/null
echo "$deb"
