#!/usr/bin/env bash
# Installs everything a64run needs to build and test: Debian 12 packages through apt, then Unicorn 2.1.1 and
# Capstone 5.0.7 from Debian 13 packages unpacked into a project-local prefix (DESIGN.md section 1).
#
# Idempotent and quick when everything is present: apt runs only for missing packages, and the Debian 13
# download runs only when the prefix lacks the libraries. The system's apt configuration is never changed:
# the Debian 13 packages come through a private apt configuration kept inside the prefix.
#
# Environment:
#   A64RUN_DEPS           prefix to unpack into (default: <repo>/.deps; CMake reads <prefix>/usr)
#   A64RUN_DEBIAN_MIRROR  Debian mirror URI (default: the machine's own, read from its apt sources)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT
DEPS="$(realpath -m "${A64RUN_DEPS:-$ROOT/.deps}")"
readonly DEPS
readonly LIBDIR="$DEPS/usr/lib/x86_64-linux-gnu"
readonly UNICORN_VERSION="2.1.1"
readonly CAPSTONE_VERSION="5.0.7"
readonly DEPS_SUITE="trixie"
readonly DEPS_PACKAGES=(libunicorn2t64 libunicorn-dev libcapstone5 libcapstone-dev)

# Host packages. qemu-user is the reference for guest tests; gdb-multiarch drives the gdb stub's tests
# (tests/gdb); libclang-rt-14-dev holds libFuzzer
# (libclang_rt.fuzzer-x86_64.a) for clang 14's -fsanitize=fuzzer. Everything is installed without
# Recommends, above all so that qemu-user does not bring qemu-user-binfmt: with binfmt_misc registered the
# host itself would run aarch64 binaries, and an a64run that wrongly hands a guest exec to the host would
# pass its exec tests (DESIGN.md section 4).
readonly HOST_PACKAGES=(
  make git cmake ninja-build g++ clang clang-format clang-tidy libclang-rt-14-dev libfmt-dev libgtest-dev
  gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
  golang-go mmdebstrap gnuplot-nox python3 file gdb-multiarch
)

export DEBIAN_FRONTEND=noninteractive

log() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

as_root() {
  if [[ $(id -u) -eq 0 ]]; then
    "$@"
  elif command -v sudo > /dev/null; then
    sudo "$@"
  else
    die "need root to run: $*"
  fi
}

# Prints the host packages that are not installed, one per line.
missing_host_packages() {
  local installed
  installed="$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${HOST_PACKAGES[@]}" 2> /dev/null |
    awk '$2 == "installed" { print $1 }')" || true
  local p
  for p in "${HOST_PACKAGES[@]}"; do
    grep -qxF "$p" <<< "$installed" || printf '%s\n' "$p"
  done
}

install_host_packages() {
  local missing
  mapfile -t missing < <(missing_host_packages)
  if [[ ${#missing[@]} -eq 0 ]]; then
    log "host packages: all present"
    return
  fi
  log "host packages: installing ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get -q update
  as_root env DEBIAN_FRONTEND=noninteractive apt-get -q -y install --no-install-recommends "${missing[@]}"
}

warn_binfmt() {
  local f
  for f in /proc/sys/fs/binfmt_misc/qemu-aarch64 /proc/sys/fs/binfmt_misc/qemu-aarch64-static; do
    if [[ -e $f ]] && grep -qx enabled "$f" 2> /dev/null; then
      log "warning: $f is registered: the host runs aarch64 binaries by itself, so exec tests can pass"
      log "warning: for the wrong reason (remove qemu-user-binfmt / qemu-user-static, or disable it)"
    fi
  done
}

# The machine's own Debian mirror: the first URIs: of debian.sources, else the first deb line of
# sources.list that is not the security archive.
debian_mirror() {
  if [[ -n ${A64RUN_DEBIAN_MIRROR:-} ]]; then
    printf '%s\n' "$A64RUN_DEBIAN_MIRROR"
    return
  fi
  local uri=""
  if [[ -r /etc/apt/sources.list.d/debian.sources ]]; then
    uri="$(awk 'tolower($1) == "uris:" { print $2; exit }' /etc/apt/sources.list.d/debian.sources)"
  fi
  if [[ -z $uri && -r /etc/apt/sources.list ]]; then
    uri="$(awk '$1 == "deb" {
                  i = 2; if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
                  if ($i !~ /security/) { print $i; exit }
                }' /etc/apt/sources.list)"
  fi
  [[ -n $uri ]] || die "cannot find a Debian mirror in /etc/apt/sources.list.d/debian.sources or" \
    "/etc/apt/sources.list (set A64RUN_DEBIAN_MIRROR)"
  printf '%s\n' "${uri%/}"
}

deps_present() {
  [[ -e $LIBDIR/libunicorn.so.2 && -e $LIBDIR/libcapstone.so.5 && -e $LIBDIR/libunicorn.so &&
    -e $LIBDIR/libcapstone.so && -e $DEPS/usr/include/unicorn/unicorn.h &&
    -e $DEPS/usr/include/capstone/capstone.h ]]
}

# Checks that a downloaded .deb has the expected upstream version ("2.1.1-2+b2" is 2.1.1).
check_deb_version() {
  local deb="$1" want="$2" got
  got="$(dpkg-deb -f "$deb" Version)"
  local upstream="${got#*:}"
  upstream="${upstream%-*}"
  [[ $upstream == "$want" ]] ||
    die "$(basename "$deb") is version $got, a64run needs $want (Debian $DEPS_SUITE on the mirror" \
      "carries another version now: measure it, then update UNICORN_VERSION/CAPSTONE_VERSION here and DESIGN.md)"
  log "  $(dpkg-deb -f "$deb" Package) $got"
}

fetch_deps() {
  local mirror apt_dir
  mirror="$(debian_mirror)"
  apt_dir="$DEPS/apt"
  log "Unicorn $UNICORN_VERSION and Capstone $CAPSTONE_VERSION: downloading Debian $DEPS_SUITE packages"
  rm -rf "$apt_dir"
  mkdir -p "$apt_dir"/{lists/partial,cache/archives/partial,debs,etc/preferences.d}
  printf 'deb %s %s main\n' "$mirror" "$DEPS_SUITE" > "$apt_dir/sources.list"
  # Private lists, cache, sources and preferences: nothing here reads or writes the system's apt state
  # except its keyrings (to verify the archive) and dpkg status (which download ignores).
  local apt_opts=(
    -q
    -o "Dir::Etc::SourceList=$apt_dir/sources.list"
    -o "Dir::Etc::SourceParts=/dev/null"
    -o "Dir::Etc::Preferences=$apt_dir/etc/preferences"
    -o "Dir::Etc::PreferencesParts=$apt_dir/etc/preferences.d"
    -o "Dir::State::Lists=$apt_dir/lists"
    -o "Dir::Cache=$apt_dir/cache"
    -o "APT::Default-Release="
    -o "Acquire::Languages=none"
    # The download directory belongs to root; let root fetch instead of warning about the _apt sandbox.
    -o "APT::Sandbox::User=root"
  )
  apt-get "${apt_opts[@]}" update || die "apt-get update of $DEPS_SUITE from $mirror failed"
  (cd "$apt_dir/debs" && apt-get "${apt_opts[@]}" download "${DEPS_PACKAGES[@]}") ||
    die "apt-get download ${DEPS_PACKAGES[*]} from $mirror $DEPS_SUITE failed"

  local deb
  for deb in "$apt_dir"/debs/libunicorn*.deb; do check_deb_version "$deb" "$UNICORN_VERSION"; done
  for deb in "$apt_dir"/debs/libcapstone*.deb; do check_deb_version "$deb" "$CAPSTONE_VERSION"; done

  # Unpack into a staging tree and move it into place only when complete, so an interrupted run never
  # leaves a prefix that looks present.
  local staging="$DEPS/staging"
  rm -rf "$staging"
  mkdir -p "$staging"
  for deb in "$apt_dir"/debs/*.deb; do dpkg -x "$deb" "$staging"; done
  rm -rf "${DEPS:?}/usr"
  mv "$staging/usr" "$DEPS/usr"
  rm -rf "$staging" "$apt_dir"
  deps_present || die "unpacked $DEPS_SUITE packages but $DEPS/usr lacks the expected files"
  log "Unicorn and Capstone unpacked into $DEPS/usr"
}

install_deps() {
  if deps_present; then
    log "Unicorn/Capstone: present in $DEPS/usr"
    return
  fi
  mkdir -p "$DEPS"
  # Serialise concurrent runs on the same prefix.
  exec 9> "$DEPS/.setup.lock"
  flock 9
  if deps_present; then
    log "Unicorn/Capstone: present in $DEPS/usr"
  else
    fetch_deps
  fi
  exec 9>&-
}

main() {
  # The prefix's usr/ is replaced wholesale: never let that be the system's.
  [[ $DEPS != / ]] || die "A64RUN_DEPS must not be /"
  install_host_packages
  warn_binfmt
  install_deps
}

main "$@"
