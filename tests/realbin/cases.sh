#!/usr/bin/env bash
# Owns the real-binaries lane's cases: runs the arm64 Debian tree's dynamic
# coreutils/findutils (with the tree as sysroot) and its static busybox under a
# runner (a64run or qemu-aarch64) and compares each result with the same work
# done by the host's own tools.
#
# Usage: cases.sh [--basic] [--only REGEX] [--run-unsupported] RUNNER_KIND ROOTFS
#        cases.sh --list
#   RUNNER_KIND  a64run:/path/to/a64run | qemu | qemu:/path/to/qemu-aarch64
#   ROOTFS       tree made by make_rootfs.sh
#   --basic            only cases that need no fork/exec in the guest
#   --only REGEX       only cases whose name matches REGEX (bash =~)
#   --run-unsupported  also run cases the runner is known not to support
#                      (the exec class and ls-l-root under qemu) instead of
#                      skipping them
#   --list             print "class name" for every case and exit
# Prints PASS name / FAIL name: ... / SKIP name: ... lines, then
# "N passed, N failed, N skipped"; exits 1 if any case failed, 77 if the
# runner or the tree is missing, 2 on a usage error.
#
# Environment: REALBIN_TIMEOUT (seconds per guest command, default 120),
# REALBIN_SYSROOT_VIEW (host|overlay, see case ls-root), REALBIN_KEEP=1 keeps
# the scratch directory.
#
# Case classes:
#   basic  one guest process: no fork, no exec (threads are not used either;
#          coreutils sort only starts threads above 128Ki lines).
#   proc   the guest forks (busybox sh pipelines, subshells, $(...), busybox
#          find -exec / xargs), but every child runs a busybox applet
#          in-process: no execve of a guest binary. Passes under qemu-aarch64.
#   exec   the guest execve()s an aarch64 binary (findutils find -exec and
#          xargs running the tree's coreutils, busybox running itself by path
#          or by /proc/self/exe). qemu-aarch64 does not intercept execve and
#          binfmt_misc has no aarch64 entry here, so the host kernel refuses
#          the child with ENOEXEC: these are a64run-only and are SKIPped for
#          qemu (one more qemu quirk: a guest execve of a path that exists on
#          the host as an x86-64 binary, e.g. /bin/echo, silently runs the
#          host binary, which is why the exec cases name tree binaries).
#   Under qemu, ls-l-root is skipped too (its -L overlay is inconsistent:
#   readlink() is looked up in the tree, statx() is not), and ls-root expects
#   the tree's top level as `/` ("overlay" view) where a64run is expected to
#   show the host's `/` ("host" view), each name of it then looked up by the
#   sysroot rule (ls-l-root). a64run must pass its sysroot on to the aarch64
#   programs a guest execs (case bb-sh-runs-dynamic).
#
# Guest shell code is single-quoted on purpose: it must expand in the guest.
# shellcheck disable=SC2016
set -euo pipefail

usage() { sed -n '/^# Usage:/,/^# Prints/p' "$0" | sed 's/^# \{0,1\}//' | sed '$d'; }

basic_only=0 list_only=0 run_unsupported=0 only=''
while [[ $# -gt 0 ]]; do
  case $1 in
    --basic) basic_only=1 ;;
    --list) list_only=1 ;;
    --run-unsupported) run_unsupported=1 ;;
    --only) [[ $# -ge 2 ]] || { usage >&2; exit 2; }; only=$2; shift ;;
    -h | --help) usage; exit 0 ;;
    --) shift; break ;;
    -*) echo "cases.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) break ;;
  esac
  shift
done

# ---------------------------------------------------------------- registry
# reg CLASS NAME FUNCTION [QEMU_SKIP_REASON]
CASE_CLASS=() CASE_NAME=() CASE_FN=() CASE_QEMU_SKIP=()
EXEC_REASON='a64run-only: the guest execs an aarch64 binary; qemu-aarch64 does not intercept execve and no binfmt_misc entry exists, so the host kernel refuses it (ENOEXEC)'
reg() {
  local qskip=${4:-}
  if [[ $1 == exec && -z $qskip ]]; then qskip=$EXEC_REASON; fi
  CASE_CLASS+=("$1") CASE_NAME+=("$2") CASE_FN+=("$3") CASE_QEMU_SKIP+=("$qskip")
}

# ---------------------------------------------------------------- helpers
# Every case runs in a subshell with set -e: a helper that returns non-zero
# ends the case, after writing the reason to $O/why.
why() { printf '%s\n' "$*" >>"$O/why"; }

# First (or, with "tail", last) 200 bytes of a file on one ASCII line,
# newlines shown as \n.
short() {
  local f=$1 end=${2:-head} n
  n=$(wc -c <"$f")
  if ((n > 200)) && [[ $end == tail ]]; then printf '(%d bytes)...' "$n"; fi
  LC_ALL=C "$end" -c 200 "$f" | LC_ALL=C tr -c '[:print:]\n' '?' |
    awk 'BEGIN { ORS = "" } NR > 1 { print "\\n" } { print }'
  if ((n > 200)) && [[ $end == head ]]; then printf '...(%d bytes)' "$n"; fi
}

# Runs a guest command line; stdout -> $O/got, stderr -> $O/err. The exit
# status must be $WANT_RC (default 0).
guest() {
  local rc=0 want=${WANT_RC:-0}
  timeout -k 5 "$TMO" "$@" >"$O/got" 2>"$O/err" || rc=$?
  if ((rc != want)); then
    local extra=''
    if ((rc == 124 || rc == 137)); then extra=" (timed out after ${TMO}s)"; fi
    why "exit status $rc, expected $want$extra; stderr: '$(short "$O/err" tail)'"
    return 1
  fi
}

# Path of a tool in the tree (bookworm's extract variant is not usr-merged:
# ls and cat are in /bin, sort and sha256sum in /usr/bin).
gbin() {
  local d
  for d in usr/bin bin usr/sbin sbin; do
    if [[ -f $ROOTFS/$d/$1 ]]; then printf '%s\n' "$ROOTFS/$d/$1"; return 0; fi
  done
  echo "cases.sh: $1 is not in $ROOTFS" >&2
  return 1
}

# dyn TOOL ARGS...: a dynamic tool of the tree, with the tree as sysroot.
dyn() { local exe; exe=$(gbin "$1"); shift; guest "${RUNNER[@]}" -L "$ROOTFS" "$exe" "$@"; }
# bb ARGS...: the static busybox, no sysroot.
bb() { guest "${RUNNER[@]}" "$BB" "$@"; }
# bbL ARGS...: the static busybox with the tree as sysroot (for children that
# are dynamic tree binaries).
bbL() { guest "${RUNNER[@]}" -L "$ROOTFS" "$BB" "$@"; }

# expect_file FILE: $O/got must equal FILE byte for byte.
expect_file() {
  if ! cmp -s "$1" "$O/got"; then
    local at
    at=$(cmp "$1" "$O/got" 2>&1 | sed -n '1s/.* differ: /, first difference at /p' || true)
    why "expected '$(short "$1")' got '$(short "$O/got")' ($(wc -c <"$1") vs $(wc -c <"$O/got") bytes$at)"
    return 1
  fi
}
# expect_text TEXT: $O/got must be TEXT plus a newline.
expect_text() { printf '%s\n' "$1" >"$O/exp"; expect_file "$O/exp"; }
# expect_sorted FILE: $O/got, sorted, must equal FILE sorted (order-free).
expect_sorted() {
  sort "$1" >"$O/exp.sorted"
  sort "$O/got" >"$O/got.sorted"
  mv "$O/got.sorted" "$O/got"
  expect_file "$O/exp.sorted"
}

# ---------------------------------------------------------------- basic cases
# `/` as the guest sees it. With -L, qemu-aarch64 looks most absolute paths up
# in the sysroot first and falls back to the host's, so its guest's `/` is the
# tree's top level ("overlay" view); the a64run lane expects the host's `/`
# ("host" view). REALBIN_SYSROOT_VIEW overrides the runner's default.
view_root_names() {
  # shellcheck disable=SC2012 # ls itself is what is being compared
  case $SYSROOT_VIEW in
    host) ls -1 / | sort ;;
    overlay) ls -1 "$ROOTFS" | sort ;;
    *) echo "REALBIN_SYSROOT_VIEW must be host or overlay" >&2; return 1 ;;
  esac
}
c_ls_root() {
  dyn ls -1 /
  view_root_names >"$O/exp"
  expect_sorted "$O/exp"
}
reg basic ls-root c_ls_root

# ls -l /: the names are the host's `/`, and each one's mode column that of
# the file the sysroot rule gives it (docs/sysroot.md): the tree's copy when
# the tree has the name, outside /proc, /sys, /dev, /run and /tmp; else the
# host's.
view_root_modes() {
  local n p
  # shellcheck disable=SC2012 # ls itself is what is being compared
  ls -1 / | while read -r n; do
    p=/$n
    case $n in
      proc | sys | dev | run | tmp) ;;
      *) if [[ -e $ROOTFS/$n || -L $ROOTFS/$n ]]; then p=$ROOTFS/$n; fi ;;
    esac
    ls -ld "$p" | awk -v n="$n" '{ print $1, n }'
  done | sort
}
c_ls_l_root() {
  dyn ls -l /
  awk 'NR > 1 { print $1, $9 }' "$O/got" | sort >"$O/got.names"
  mv "$O/got.names" "$O/got"
  view_root_modes >"$O/exp"
  expect_file "$O/exp"
}
reg basic ls-l-root c_ls_l_root "qemu -L remaps readlink() into the tree but not statx(), so ls -l / sees the host's /lib symlink, reads the tree's /lib directory and fails with EINVAL"

# Static busybox without a sysroot sees the host's `/` under every runner.
c_bb_ls_root() {
  bb ls -1 /
  ls -1 / >"$O/exp"
  expect_sorted "$O/exp"
}
reg basic bb-ls-root c_bb_ls_root

c_ls_l_dir() {
  dyn ls -lR "$W/tree"
  ls -lR "$W/tree" >"$O/exp"
  expect_file "$O/exp"
}
reg basic ls-l-dir c_ls_l_dir

c_cat_text() { dyn cat "$W/text.txt"; expect_file "$W/text.txt"; }
reg basic cat-text c_cat_text

c_cat_1mib() { dyn cat "$W/rand.bin"; expect_file "$W/rand.bin"; }
reg basic cat-1mib c_cat_1mib

c_sha256sum() {
  dyn sha256sum "$W/rand.bin"
  sha256sum "$W/rand.bin" >"$O/exp"
  expect_file "$O/exp"
}
reg basic sha256sum c_sha256sum

c_sort() { dyn sort "$W/shuf.txt"; sort "$W/shuf.txt" >"$O/exp"; expect_file "$O/exp"; }
reg basic sort c_sort

c_sort_n() { dyn sort -n -r <"$W/nums.txt"; sort -n -r <"$W/nums.txt" >"$O/exp"; expect_file "$O/exp"; }
reg basic sort-n-stdin c_sort_n

c_wc() {
  dyn wc -l -w -c "$W/text.txt" "$W/rand.bin"
  wc -l -w -c "$W/text.txt" "$W/rand.bin" >"$O/exp"
  expect_file "$O/exp"
}
reg basic wc c_wc

c_find() {
  dyn find "$W/tree" -type f
  find "$W/tree" -type f >"$O/exp"
  expect_sorted "$O/exp"
}
reg basic find-type-f c_find

c_date() {
  local before after got
  before=$(date +%s)
  dyn date +%s
  after=$(date +%s)
  got=$(cat "$O/got")
  if ! [[ $got =~ ^[0-9]+$ ]] || ((got < before - 2 || got > after + 2)); then
    why "expected a time in [$((before - 2)), $((after + 2))] got '$(short "$O/got")'"
    return 1
  fi
}
reg basic date c_date

c_uname_m() { dyn uname -m; expect_text aarch64; }
reg basic uname-m c_uname_m

c_stat() {
  local fmt='%n %s %a %F %h %i %Y %U'
  dyn stat -c "$fmt" "$W/tree/a.txt" "$W/tree/sub" "$W/tree/link" "$W/tree/empty"
  stat -c "$fmt" "$W/tree/a.txt" "$W/tree/sub" "$W/tree/link" "$W/tree/empty" >"$O/exp"
  expect_file "$O/exp"
}
reg basic stat c_stat

c_cp() {
  dyn cp "$W/rand.bin" "$W/copy.bin"
  if ! cmp -s "$W/rand.bin" "$W/copy.bin"; then why "cp: copy differs from the original"; return 1; fi
  rm -f "$W/copy.bin"
}
reg basic cp-1mib c_cp

c_head_tail() {
  dyn head -c 1000 "$W/rand.bin"
  head -c 1000 "$W/rand.bin" >"$O/exp"
  expect_file "$O/exp"
  dyn tail -n 3 "$W/text.txt"
  tail -n 3 "$W/text.txt" >"$O/exp"
  expect_file "$O/exp"
}
reg basic head-tail c_head_tail

# coreutils expr does big numbers with libgmp.
c_expr_gmp() {
  dyn expr 123456789012345678901234567890 '*' 987654321098765432109876543210
  expect_text 121932631137021795226185032733622923332237463801111263526900
}
reg basic expr-gmp c_expr_gmp

c_bb_sh_arith() { bb sh -c 'echo $((6*7))'; expect_text 42; }
reg basic bb-sh-arith c_bb_sh_arith

c_bb_md5sum() {
  bb md5sum "$W/rand.bin" "$W/text.txt"
  md5sum "$W/rand.bin" "$W/text.txt" >"$O/exp"
  expect_file "$O/exp"
}
reg basic bb-md5sum c_bb_md5sum

c_bb_sha256sum() {
  bb sha256sum "$W/rand.bin"
  sha256sum "$W/rand.bin" >"$O/exp"
  expect_file "$O/exp"
}
reg basic bb-sha256sum c_bb_sha256sum

c_bb_uname_m() { bb uname -m; expect_text aarch64; }
reg basic bb-uname-m c_bb_uname_m

c_bb_echo() {
  bb echo hello 'real   binaries' '$HOME'
  expect_text 'hello real   binaries $HOME'
  bb echo -e 'a\tb\\c'
  printf 'a\tb\\c\n' >"$O/exp"
  expect_file "$O/exp"
}
reg basic bb-echo c_bb_echo

c_bb_expr() {
  bb expr 6 '*' 7
  expect_text 42
  bb expr substr realbinaries 5 3
  expect_text bin
  WANT_RC=1 bb expr 3 '<' 2
  expect_text 0
}
reg basic bb-expr c_bb_expr

c_bb_tr() {
  bb tr a-z A-Z <"$W/text.txt"
  # shellcheck disable=SC2018,SC2019 # ASCII ranges on purpose, LC_ALL=C
  tr a-z A-Z <"$W/text.txt" >"$O/exp"
  expect_file "$O/exp"
}
reg basic bb-tr c_bb_tr

c_bb_sort_n() {
  bb sort -n <"$W/nums.txt"
  sort -n <"$W/nums.txt" >"$O/exp"
  expect_file "$O/exp"
}
reg basic bb-sort-n c_bb_sort_n

c_bb_wc() {
  bb wc -l "$W/text.txt"
  wc -l "$W/text.txt" >"$O/exp"
  expect_file "$O/exp"
}
reg basic bb-wc c_bb_wc

# ---------------------------------------------------------------- proc cases
c_bb_sh_pipeline() {
  bb sh -c 'seq 1 100 | sort -n -r | head -3'
  printf '100\n99\n98\n' >"$O/exp"
  expect_file "$O/exp"
}
reg proc bb-sh-pipeline c_bb_sh_pipeline

c_bb_sh_cmdsubst() {
  bb sh -c 'x=$(seq 1 5 | tr "\n" " "); echo "[$x]" $(echo sub)'
  expect_text '[1 2 3 4 5 ] sub'
}
reg proc bb-sh-cmdsubst c_bb_sh_cmdsubst

c_bb_sh_status() {
  bb sh -c '(exit 7); echo $?; false | true; echo $?; sh -c "exit 3"; echo $?'
  printf '7\n0\n3\n' >"$O/exp"
  expect_file "$O/exp"
}
reg proc bb-sh-status c_bb_sh_status

c_bb_sh_bg_wait() {
  bb sh -c "echo bg >'$W/bg.out' & wait \$!; echo rc=\$?; cat '$W/bg.out'"
  printf 'rc=0\nbg\n' >"$O/exp"
  expect_file "$O/exp"
}
reg proc bb-sh-bg-wait c_bb_sh_bg_wait

c_bb_find_exec() {
  bb find "$W/tree" -type f -exec md5sum {} +
  find "$W/tree" -type f -exec md5sum {} + >"$O/exp"
  expect_sorted "$O/exp"
}
reg proc bb-find-exec c_bb_find_exec

c_bb_xargs() {
  bb sh -c "find '$W/tree' -type f -print0 | xargs -0 md5sum"
  find "$W/tree" -type f -print0 | xargs -0 md5sum >"$O/exp"
  expect_sorted "$O/exp"
}
reg proc bb-xargs c_bb_xargs

# ---------------------------------------------------------------- exec cases
c_xargs() {
  local sum
  sum=$(gbin sha256sum)
  find "$W/tree" -type f | sort >"$W/list.txt"
  dyn xargs -d '\n' "$sum" <"$W/list.txt"
  xargs -d '\n' sha256sum <"$W/list.txt" >"$O/exp"
  expect_file "$O/exp"
}
reg exec xargs c_xargs

c_find_exec() {
  local wc_
  wc_=$(gbin wc)
  dyn find "$W/tree" -type f -exec "$wc_" -c {} ';'
  find "$W/tree" -type f -exec wc -c {} ';' >"$O/exp"
  expect_sorted "$O/exp"
}
reg exec find-exec c_find_exec

c_bb_sh_exec_path() {
  bb sh -c "seq 1 100 | '$BB' sort -n -r | '$BB' head -3"
  printf '100\n99\n98\n' >"$O/exp"
  expect_file "$O/exp"
}
reg exec bb-sh-exec-path c_bb_sh_exec_path

# busybox xargs and find -exec run applets that are neither NOFORK nor NOEXEC
# (wc is one) by execve("/proc/self/exe", ...).
c_bb_xargs_reexec() {
  printf '%s\n' "$W/text.txt" >"$W/one.txt"
  bb xargs wc -l <"$W/one.txt"
  wc -l "$W/text.txt" >"$O/exp"
  expect_file "$O/exp"
}
reg exec bb-xargs-reexec c_bb_xargs_reexec

# A static guest executing a dynamic one: the sysroot must reach the child.
c_bb_sh_runs_dynamic() {
  bbL sh -c "'$(gbin ls)' -l '$W/tree'"
  ls -l "$W/tree" >"$O/exp"
  expect_file "$O/exp"
}
reg exec bb-sh-runs-dynamic c_bb_sh_runs_dynamic

if ((list_only)); then
  for i in "${!CASE_NAME[@]}"; do printf '%-6s %s\n' "${CASE_CLASS[$i]}" "${CASE_NAME[$i]}"; done
  exit 0
fi

# ---------------------------------------------------------------- setup
if [[ $# -ne 2 ]]; then usage >&2; exit 2; fi
kind=$1
ROOTFS=$2

case $kind in
  qemu | qemu:*)
    RUNNER_NAME=qemu
    q=${kind#qemu}
    q=${q#:}
    q=${q:-qemu-aarch64}
    if ! command -v "$q" >/dev/null 2>&1; then
      echo "cases.sh: SKIP: $q not found (apt-get install qemu-user)" >&2
      exit 77
    fi
    RUNNER=("$(command -v "$q")")
    default_view=overlay
    ;;
  a64run:*)
    RUNNER_NAME=a64run
    RUNNER=("${kind#a64run:}")
    if [[ ! -x ${RUNNER[0]} ]]; then
      echo "cases.sh: SKIP: ${RUNNER[0]} is not an executable file" >&2
      exit 77
    fi
    default_view=host
    ;;
  *) echo "cases.sh: RUNNER_KIND must be a64run:/path or qemu[:/path], not '$kind'" >&2; exit 2 ;;
esac
SYSROOT_VIEW=${REALBIN_SYSROOT_VIEW:-$default_view}

if [[ ! -f $ROOTFS/.complete || ! -x $ROOTFS/bin/busybox ]]; then
  echo "cases.sh: SKIP: $ROOTFS is not a finished tree (run make_rootfs.sh $ROOTFS)" >&2
  exit 77
fi
ROOTFS=$(cd "$ROOTFS" && pwd -P)
BB=$ROOTFS/bin/busybox
TMO=${REALBIN_TIMEOUT:-120}

export LC_ALL=C TZ=UTC0
unset LANG LANGUAGE
exec </dev/null

W=$(mktemp -d "${TMPDIR:-/tmp}/realbin.XXXXXX")
W=$(cd "$W" && pwd -P)
if [[ ${REALBIN_KEEP:-0} == 1 ]]; then
  echo "# scratch directory kept: $W"
else
  trap 'rm -rf "$W"' EXIT
fi
O=$W/out
mkdir "$O"

# Host-made inputs.
awk 'BEGIN { for (i = 1; i <= 2000; i++) {
  printf "line %d: the quick brown fox %x\tjumps", i, i * 7919
  if (i % 7 == 0) printf "  over  the lazy dog"
  printf "\n"
  if (i % 100 == 0) printf "\n" } }' >"$W/text.txt"
head -c 1048576 /dev/urandom >"$W/rand.bin"
{ seq 1 3000; printf '%s\n' apple Banana cherry _under zeta 'with space' -dash ''; } | shuf >"$W/shuf.txt"
seq -50 5000 | shuf >"$W/nums.txt"

mkdir -p "$W/tree/sub/deep" "$W/tree/empty-dir"
printf 'hello\n' >"$W/tree/a.txt"
: >"$W/tree/empty"
printf x >"$W/tree/one"
head -c 4096 "$W/rand.bin" >"$W/tree/exact4096"
head -c 12345 "$W/rand.bin" >"$W/tree/b.bin"
printf 'secret\n' >"$W/tree/mode600"
chmod 600 "$W/tree/mode600"
printf '#!/bin/sh\n' >"$W/tree/exec755"
chmod 755 "$W/tree/exec755"
printf 'spaced\n' >"$W/tree/with space.txt"
head -c 70000 "$W/rand.bin" >"$W/tree/sub/mid.bin"
printf 'deep\n' >"$W/tree/sub/deep/f"
ln -s a.txt "$W/tree/link"
ln -s ../a.txt "$W/tree/sub/uplink"
find "$W/tree" -depth -exec touch -h -d '2021-03-04 05:06:07' {} +

echo "# realbin: runner=$RUNNER_NAME (${RUNNER[*]}) rootfs=$ROOTFS mode=$( ((basic_only)) && echo basic || echo full) view=$SYSROOT_VIEW"

# ---------------------------------------------------------------- run
npass=0 nfail=0 nskip=0
for i in "${!CASE_NAME[@]}"; do
  name=${CASE_NAME[$i]} class=${CASE_CLASS[$i]} fn=${CASE_FN[$i]}
  if [[ -n $only && ! $name =~ $only ]]; then continue; fi
  if ((basic_only)) && [[ $class != basic ]]; then continue; fi
  if [[ $RUNNER_NAME == qemu && -n ${CASE_QEMU_SKIP[$i]} ]] && ((!run_unsupported)); then
    echo "SKIP $name: ${CASE_QEMU_SKIP[$i]}"
    nskip=$((nskip + 1))
    continue
  fi
  rm -f "$O"/*
  : >"$O/why"
  # Not "|| rc=$?": errexit would be ignored inside the subshell.
  set +e
  (set -e; "$fn")
  rc=$?
  set -e
  if ((rc == 0)); then
    echo "PASS $name"
    npass=$((npass + 1))
  else
    msg=$(head -n 3 "$O/why" | paste -sd ';' -)
    echo "FAIL $name: ${msg:-case exited with status $rc}"
    nfail=$((nfail + 1))
  fi
done

echo "$npass passed, $nfail failed, $nskip skipped"
((nfail == 0))
