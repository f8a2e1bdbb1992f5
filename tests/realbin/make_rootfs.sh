#!/usr/bin/env bash
# Owns the real-binaries lane's arm64 Debian trees: builds DIR with mmdebstrap
# (variant extract) holding one of two package sets and the shared libraries
# they need. Idempotent and safe to run concurrently.
#
# Usage: make_rootfs.sh [--tree base|python|sysroot] DIR
#   --tree base     (default) bookworm: busybox-static, coreutils, findutils
#   --tree python   trixie: python3.13 with its test package
#                   (libpython3.13-testsuite), for the CPython cases
#                   (cpython_cases.sh)
#   --tree sysroot  trixie: bash, coreutils, getent, a minimal python3.13 and
#                   man-db, for the sysroot cases (sysroot_cases.sh)
#   Exit 0: DIR is a complete tree (DIR/.complete matches this script's stamp).
#   Exit 77: the tree cannot be built here (no mirror, no mmdebstrap, download
#            failed); callers (the CTest fixture) treat that as "skip".
#   Exit 1: usage error, or DIR holds something this script did not make.
#
# Environment:
#   REALBIN_MIRROR  mirror URL to use instead of the first "URIs:" value in
#                   /etc/apt/sources.list.d/debian.sources (read at run time,
#                   never written to any file).
#
# Variant extract unpacks exactly the listed packages and none of their
# dependencies, so each list below is closed by hand (checked with
# `apt-cache depends` and readelf -d NEEDED over the tree).
#   base:
#     busybox-static  static, needs nothing
#     coreutils       libc6 libacl1 libattr1 libselinux1 libgmp10
#     findutils       libc6 libselinux1
#     libselinux1     libpcre2-8-0
#   python (about 15 MB to download, 75 MB unpacked):
#     python3.13-minimal      libpython3.13-minimal libexpat1 zlib1g
#     libpython3.13-minimal   libssl3t64 (libzstd1 zlib1g)
#     libpython3.13-stdlib    libbz2-1.0 libdb5.3t64 libffi8 liblzma5
#                             libncursesw6 libtinfo6 libreadline8t64
#                             libsqlite3-0 libuuid1; data: media-types
#                             (mime.types), netbase (services, protocols),
#                             tzdata (zoneinfo: test_time, test_strptime)
#     libc6                   libgcc-s1 (loaded by pthread_exit/cancel)
#     python3-minimal         the /usr/bin/python3 link
#   sysroot:
#     bash                    libtinfo6
#     coreutils               libacl1 libattr1 libcap2 libgmp10 libselinux1
#                             (libpcre2-8-0) libssl3t64 (zlib1g libzstd1)
#     libc-bin                getent
#     tar                     (the tar case: fchmodat2 on extraction)
#     python3.13-minimal      as in python, without the standard library's
#                             libpython3.13-stdlib (encodings and os are in
#                             libpython3.13-minimal)
#     man-db                  libpipeline1 libgdbm6t64 libseccomp2 zlib1g;
#                             groff-base (libstdc++6 libuchardet0) renders,
#                             dash is the /usr/bin/sh its pipelines start
#   Left out on purpose: debconf (tzdata's configuration), readline-common
#   (inputrc), openssl-provider-legacy (loaded only when a configuration asks
#   for the legacy provider), net-tools (ifconfig, for test_uuid only).
set -euo pipefail

skip() { echo "make_rootfs: SKIP: $*" >&2; exit 77; }
die() { echo "make_rootfs: error: $*" >&2; exit 1; }

TREE=base
if [[ $# -ge 2 && $1 == --tree ]]; then
  TREE=$2
  shift 2
fi
[[ $# -eq 1 && -n $1 ]] || die "usage: $0 [--tree base|python|sysroot] DIR"
DIR=$1

case $TREE in
  base)
    PACKAGES=(
      libc6 libacl1 libattr1 libselinux1 libpcre2-8-0 libgmp10
      coreutils findutils busybox-static
    )
    SUITE=bookworm
    # The binaries the cases run.
    SANITY=(bin/busybox bin/ls usr/bin/sha256sum usr/bin/find usr/bin/xargs lib/ld-linux-aarch64.so.1)
    STAMP_NAME=realbin-rootfs
    ;;
  python)
    PACKAGES=(
      libc6 libgcc-s1 zlib1g libexpat1 libzstd1 libssl3t64 libbz2-1.0 libdb5.3t64 libffi8 liblzma5
      libtinfo6 libncursesw6 libreadline8t64 libsqlite3-0 libuuid1 media-types netbase tzdata
      libpython3.13-minimal python3.13-minimal libpython3.13-stdlib python3.13 python3-minimal
      libpython3.13-testsuite
    )
    SUITE=trixie
    SANITY=(usr/bin/python3 usr/bin/python3.13 usr/lib/python3.13/test/regrtest.py
            usr/lib/python3.13/test/test_time.py usr/share/zoneinfo/UTC lib/ld-linux-aarch64.so.1)
    STAMP_NAME=realbin-python
    ;;
  sysroot)
    PACKAGES=(
      libc6 libgcc-s1 libc-bin bash libtinfo6 coreutils libacl1 libattr1 libcap2 libgmp10 libselinux1
      libpcre2-8-0 libssl3t64 zlib1g libzstd1 libexpat1 libpython3.13-minimal python3.13-minimal
      python3-minimal tar man-db libpipeline1 libgdbm6t64 libseccomp2 groff-base libstdc++6 libuchardet0 dash
    )
    SUITE=trixie
    SANITY=(usr/bin/bash usr/bin/tar usr/bin/python3 usr/bin/python3.13 usr/bin/getent usr/bin/ls usr/bin/id
            usr/lib/python3.13/encodings/__init__.py lib/ld-linux-aarch64.so.1 usr/bin/man usr/bin/nroff
            usr/share/man/man1/man.1.gz)
    STAMP_NAME=realbin-sysroot
    ;;
  *) die "unknown tree '$TREE' (base, python or sysroot)" ;;
esac
ARCH=arm64
VARIANT=extract
STAMP="$STAMP_NAME v1 suite=$SUITE arch=$ARCH variant=$VARIANT packages=$(IFS=,; echo "${PACKAGES[*]}")"
PARTIAL_MARK=.realbin-partial

stamp_ok() { [[ -f $DIR/.complete ]] && [[ "$(cat "$DIR/.complete")" == "$STAMP" ]]; }

# Fast path without the lock: .complete is written last.
if stamp_ok; then
  exit 0
fi

mkdir -p "$DIR" || die "cannot create $DIR"
DIR=$(cd "$DIR" && pwd -P)
[[ $DIR != / ]] || die "refusing to use / as the tree"

# One builder at a time: lock the directory itself (no extra files next to it).
exec 9<"$DIR"
if ! flock -w 900 9; then
  die "timed out waiting for the lock on $DIR"
fi
if stamp_ok; then
  exit 0
fi

# Anything already in DIR must be ours (a finished tree with an old stamp, or
# a build that died half way) before it is wiped.
if [[ -n "$(ls -A "$DIR")" ]]; then
  if [[ -e $DIR/.complete || -e $DIR/$PARTIAL_MARK ]]; then
    echo "make_rootfs: removing stale or partial tree in $DIR" >&2
    find "$DIR" -mindepth 1 -delete
  else
    die "$DIR is not empty and was not made by this script; remove it or pick another DIR"
  fi
fi

# Mirror: first URIs: value of the host's deb822 sources (never hard-coded).
mirror=${REALBIN_MIRROR:-}
if [[ -z $mirror && -r /etc/apt/sources.list.d/debian.sources ]]; then
  mirror=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources)
fi
if [[ -z $mirror && -r /etc/apt/sources.list ]]; then
  mirror=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' /etc/apt/sources.list)
fi
[[ -n $mirror ]] || skip "no Debian mirror found (no URIs: line in /etc/apt/sources.list.d/debian.sources; set REALBIN_MIRROR)"

if ! command -v mmdebstrap >/dev/null 2>&1; then
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
    echo "make_rootfs: installing mmdebstrap" >&2
    if ! { apt-get install -y --no-install-recommends mmdebstrap debian-archive-keyring >&2 ||
           { apt-get update >&2 && apt-get install -y --no-install-recommends mmdebstrap debian-archive-keyring >&2; }; }; then
      skip "mmdebstrap is missing and could not be installed"
    fi
  else
    skip "mmdebstrap is missing (apt-get install mmdebstrap)"
  fi
fi

: >"$DIR/$PARTIAL_MARK"
log=$(mktemp "${TMPDIR:-/tmp}/realbin-mmdebstrap.XXXXXX")
trap 'rm -f "$log"' EXIT

echo "make_rootfs: building $ARCH $SUITE ($VARIANT) in $DIR: ${PACKAGES[*]}" >&2
start=$(date +%s)
if ! mmdebstrap --arch="$ARCH" --variant="$VARIANT" --skip=check/empty \
      --include="$(IFS=,; echo "${PACKAGES[*]}")" \
      "$SUITE" "$DIR" "$mirror" >"$log" 2>&1; then
  tail -n 30 "$log" >&2
  find "$DIR" -mindepth 1 ! -name "$PARTIAL_MARK" -delete 2>/dev/null || true
  skip "mmdebstrap failed (no network or mirror unreachable?); see the log above"
fi

# Trim what the guest should not see from the tree: the apt sources (they name
# the mirror), device nodes (the guest uses the host's /dev), and the copied
# host identity files.
rm -f "$DIR/etc/apt/sources.list" "$DIR/etc/hostname" "$DIR/etc/resolv.conf"
rm -rf "${DIR:?}/etc/apt/sources.list.d" "${DIR:?}/dev"

# Trixie's packages install under /usr only (merged /usr); the /bin, /sbin and
# /lib links come from base-files' setup, which variant extract does not run.
# ELF interpreters name /lib/ld-linux-aarch64.so.1.
if [[ $SUITE != bookworm ]]; then
  for d in bin sbin lib; do
    [[ -e $DIR/$d || -L $DIR/$d ]] || ln -s "usr/$d" "$DIR/$d"
  done
fi
# dash's postinst makes /usr/bin/sh, which variant extract does not run.
if [[ -e $DIR/usr/bin/dash && ! -e $DIR/usr/bin/sh && ! -L $DIR/usr/bin/sh ]]; then
  ln -s dash "$DIR/usr/bin/sh"
fi

# Sanity: the files the cases use are there.
for f in "${SANITY[@]}"; do
  [[ -e $DIR/$f || -L $DIR/$f ]] || { tail -n 30 "$log" >&2; die "tree lacks $f"; }
done

rm -f "$DIR/$PARTIAL_MARK"
printf '%s\n' "$STAMP" >"$DIR/.complete.tmp"
mv "$DIR/.complete.tmp" "$DIR/.complete"
echo "make_rootfs: done in $(( $(date +%s) - start )) s ($(du -sh "$DIR" | cut -f1))" >&2
