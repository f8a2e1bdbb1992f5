#!/usr/bin/env bash
# Owns the real-binaries lane's sysroot cases: a64run runs the tree's python3
# named on its command line; the tree's bash, run by a64run with the tree as
# sysroot (-L), finds the tree's python3 on its PATH, runs a #!/usr/bin/python3
# script, changes into a directory of the tree (by either of its names), lists
# the host's /tmp, looks up users in /etc/passwd and unpacks a tar archive with
# its modes; each result is compared with what the sysroot rule
# (docs/sysroot.md) says the guest sees. The tree's man renders a page under
# seccomp filters.
#
# Usage: sysroot_cases.sh [--only REGEX] RUNNER_KIND ROOTFS
#        sysroot_cases.sh --list
#   RUNNER_KIND  a64run:/path/to/a64run
#   ROOTFS       tree made by make_rootfs.sh --tree sysroot
#   --only REGEX only cases whose name matches REGEX (bash =~)
#   --list       print "class name" for every case and exit
# Prints PASS name / FAIL name: ... lines, then "N passed, N failed";
# exits 1 if any case failed, 77 if the runner or the tree is missing, 2 on a
# usage error.
#
# Every case starts the tree's bash, which execs the tree's programs: there is
# no qemu lane (qemu-aarch64 does not intercept execve, and no binfmt_misc
# entry exists, so the host kernel refuses the children with ENOEXEC).
#
# Environment: REALBIN_TIMEOUT (seconds per guest command, default 120),
# REALBIN_KEEP=1 keeps the scratch directory.
#
# Guest shell code is single-quoted on purpose: it must expand in the guest.
# shellcheck disable=SC2016
set -euo pipefail

usage() { sed -n '/^# Usage:/,/^# Prints/p' "$0" | sed 's/^# \{0,1\}//' | sed '$d'; }

only='' list_only=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --list) list_only=1 ;;
    --only) [[ $# -ge 2 ]] || { usage >&2; exit 2; }; only=$2; shift ;;
    -h | --help) usage; exit 0 ;;
    --) shift; break ;;
    -*) echo "sysroot_cases.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) break ;;
  esac
  shift
done

CASE_NAME=() CASE_FN=()
reg() { CASE_NAME+=("$1") CASE_FN+=("$2"); }

why() { printf '%s\n' "$*" >>"$O/why"; }

# gsh SCRIPT: the tree's bash runs SCRIPT with the tree as sysroot and a PATH
# of the tree's directories; stdout -> $O/got, stderr -> $O/err; exit 0 wanted.
gsh() {
  local rc=0
  env -i PATH=/usr/bin:/bin HOME=/ LC_ALL=C.UTF-8 MARK="$MARK" SCRATCH="$W" TREE="$ROOTFS" \
    timeout -k 5 "$TMO" "$A64RUN" -L "$ROOTFS" "$ROOTFS/usr/bin/bash" -c "$1" >"$O/got" 2>"$O/err" || rc=$?
  if ((rc != 0)); then
    why "exit status $rc; stderr: '$(tail -c 300 "$O/err" | tr '\n' '|')'"
    return 1
  fi
}
# expect TEXT: $O/got must be TEXT plus a newline.
expect() {
  printf '%s\n' "$1" >"$O/exp"
  if ! cmp -s "$O/exp" "$O/got"; then
    why "expected '$(tr '\n' '|' <"$O/exp")' got '$(head -c 300 "$O/got" | tr '\n' '|')'"
    return 1
  fi
}

# ---------------------------------------------------------------- cases
# The interpreter found on PATH imports its standard library from the tree's
# /usr/lib/python3.13, a directory the host lacks ("Failed to import
# encodings module" when directories were looked up on the host).
c_path_python() {
  gsh 'python3 -c "import sys, encodings; print(sys.prefix, encodings.__file__)"'
  expect "/usr /usr/lib/python3.13/encodings/__init__.py"
}
reg path-python c_path_python

# A script whose #! names the tree's interpreter, started by path and found on
# PATH; /proc/self/exe reads as the guest's path of the interpreter.
c_shebang() {
  printf '#!/usr/bin/python3\nimport os, sys\nprint(sys.version_info[:2], os.readlink("/proc/self/exe"), sys.argv[1])\n' \
    >"$W/hello.py"
  chmod 755 "$W/hello.py"
  gsh '"$SCRATCH/hello.py" one && PATH=$SCRATCH:$PATH hello.py two'
  expect "(3, 13) /usr/bin/python3.13 one
(3, 13) /usr/bin/python3.13 two"
}
reg shebang c_shebang

# The program named on a64run's own command line follows the rule as a guest's
# execve does: /usr/bin/python3 is the tree's (a link to python3.13) though the
# host has one, and so is the python3 a bare name finds on PATH.
c_command_line() {
  local rc=0 code='import os, sys; print(os.readlink("/proc/self/exe"), sys.prefix)'
  { env -i PATH=/usr/bin:/bin HOME=/ LC_ALL=C.UTF-8 timeout -k 5 "$TMO" "$A64RUN" -L "$ROOTFS" /usr/bin/python3 -c "$code" &&
    env -i PATH=/usr/bin:/bin HOME=/ LC_ALL=C.UTF-8 timeout -k 5 "$TMO" "$A64RUN" -L "$ROOTFS" python3 -c "$code"; } \
    >"$O/got" 2>"$O/err" || rc=$?
  if ((rc != 0)); then
    why "exit status $rc; stderr: '$(tail -c 300 "$O/err" | tr '\n' '|')'"
    return 1
  fi
  expect "/usr/bin/python3.13 /usr
/usr/bin/python3.13 /usr"
}
reg command-line c_command_line

# The working directory inside the tree reads as the guest's path (bash's
# builtin, coreutils' pwd -P, Python's os.getcwd, /proc/self/cwd), and
# relative names are the tree's.
c_cwd() {
  gsh 'cd /usr/lib && pwd && /usr/bin/pwd -P && python3 -c "import os; print(os.getcwd(), os.readlink(\"/proc/self/cwd\"), os.path.realpath(\".\"))" && ls -d python3.13 && cd .. && /usr/bin/pwd'
  expect "/usr/lib
/usr/lib
/usr/lib /usr/lib /usr/lib
python3.13
/usr"
}
reg cwd c_cwd

# A directory of the tree has two names: its guest path (/usr/lib) and its host
# path ($TREE/usr/lib, which the rule leaves as the host's). getcwd and
# /proc/self/cwd read the name the program entered it by, as Linux's name the
# mount a process went through, and so does a program it then execs (CPython's
# test_contextlib compares getcwd with the host path it gave chdir).
c_cwd_host_path() {
  gsh 'cd "$TREE/usr/lib" && pwd -P && /usr/bin/pwd -P && python3 -c "import os; print(os.getcwd(), os.readlink(\"/proc/self/cwd\"))" && cd python3.13 && /usr/bin/pwd -P && cd /usr/lib && /usr/bin/pwd -P && cd "$TREE" && /usr/bin/pwd -P'
  expect "$ROOTFS/usr/lib
$ROOTFS/usr/lib
$ROOTFS/usr/lib $ROOTFS/usr/lib
$ROOTFS/usr/lib/python3.13
/usr/lib
$ROOTFS"
}
reg cwd-host-path c_cwd_host_path

# /tmp is the host's: the guest lists a marker the host made there, and a file
# the guest creates there is on the host.
c_tmp() {
  gsh 'ls /tmp | grep -Fx "$MARK" && echo made >"/tmp/$MARK.guest" && ls -d /usr/lib/python3.13'
  expect "$MARK
/usr/lib/python3.13"
  if [[ $(cat "/tmp/$MARK.guest" 2>/dev/null) != made ]]; then
    why "the guest's /tmp/$MARK.guest is not on the host"
    return 1
  fi
}
reg tmp c_tmp

# /etc/passwd: the tree has none, so lookups read the host's (getent from the
# tree's libc-bin, coreutils' id, Python's pwd module).
c_passwd() {
  local name
  name=$(id -un)
  gsh 'getent passwd root | cut -d: -f1,3 && id -un && python3 -c "import os, pwd; print(pwd.getpwuid(os.getuid()).pw_name)"'
  expect "root:0
$name
$name"
}
reg passwd c_passwd

# The tree's tar (trixie: glibc 2.41) restores modes on extraction with
# fchmodat2 (452), AT_SYMLINK_NOFOLLOW: a directory's mode is set after its
# entries, and a symbolic link's gets EOPNOTSUPP, which tar ignores, as on
# Linux. a64run once had no entry for 452 and logged it as unknown on stderr.
c_tar() {
  mkdir -p "$W/tar/src/d"
  echo one >"$W/tar/src/f1"
  echo two >"$W/tar/src/d/x"
  ln -s f1 "$W/tar/src/link"
  chmod 640 "$W/tar/src/f1"
  chmod 751 "$W/tar/src/d/x"
  chmod 710 "$W/tar/src/d"
  gsh 'cd "$SCRATCH/tar" && tar -cf t.tar -C src . && mkdir out && tar -xpf t.tar -C out && cd out && stat -c "%a %n" d d/x f1 && readlink link && cat d/x'
  expect "710 d
751 d/x
640 f1
f1
two"
  if [[ -s $O/err ]]; then
    why "stderr: '$(head -c 300 "$O/err" | tr '\n' '|')'"
    return 1
  fi
}
reg tar c_tar

# man-db's man (trixie) renders its own page through groff: each child of its
# pipelines confines itself with a seccomp filter (libseccomp's seccomp_load,
# SECCOMP_SET_MODE_FILTER) before it runs, and a filter that libseccomp could
# not load (ENOSYS) left man with no page. Under --strace the loads show as
# seccomp(1, ...) = 0.
c_man() {
  local rc=0
  env -i PATH=/usr/bin:/bin HOME=/ LC_ALL=C.UTF-8 MANPAGER=cat PAGER=cat MANWIDTH=80 \
    timeout -k 5 "$TMO" "$A64RUN" --strace -L "$ROOTFS" /usr/bin/man 1 man >"$O/got" 2>"$O/err" || rc=$?
  if ((rc != 0)); then
    why "exit status $rc; stderr: '$(grep -v '^\[' "$O/err" | tail -c 300 | tr '\n' '|')'"
    return 1
  fi
  if ! grep -q '^ *man - an interface to the system reference manuals' "$O/got"; then
    why "no NAME line in the page: '$(head -c 300 "$O/got" | tr '\n' '|')'"
    return 1
  fi
  local loads
  loads=$(grep -c '\] seccomp(1, .*) = 0$' "$O/err" || true)
  if ((loads < 3)); then
    why "only $loads filters loaded: '$(grep 'seccomp(' "$O/err" | head -n 3 | tr '\n' '|')'"
    return 1
  fi
}
reg man c_man

if ((list_only)); then
  for n in "${CASE_NAME[@]}"; do echo "sysroot $n"; done
  exit 0
fi

# ---------------------------------------------------------------- setup
[[ $# -eq 2 ]] || { usage >&2; exit 2; }
kind=$1 ROOTFS=$2
[[ $kind == a64run:* ]] || { echo "sysroot_cases.sh: only a64run runs these cases" >&2; exit 2; }
A64RUN=${kind#a64run:}
[[ -x $A64RUN ]] || { echo "sysroot_cases.sh: SKIP: no runner $A64RUN" >&2; exit 77; }
[[ -x $ROOTFS/usr/bin/bash && -e $ROOTFS/usr/bin/python3 ]] ||
  { echo "sysroot_cases.sh: SKIP: $ROOTFS is not a sysroot tree" >&2; exit 77; }
ROOTFS=$(cd "$ROOTFS" && pwd -P)
TMO=${REALBIN_TIMEOUT:-120}

W=$(mktemp -d /tmp/realbin-sysroot.XXXXXX)
MARK=$(basename "$(mktemp /tmp/a64run-sysroot-mark.XXXXXX)")
if [[ ${REALBIN_KEEP:-0} == 1 ]]; then
  echo "# scratch: $W"
  trap 'rm -f "/tmp/$MARK" "/tmp/$MARK.guest"' EXIT
else
  trap 'rm -rf "$W"; rm -f "/tmp/$MARK" "/tmp/$MARK.guest"' EXIT
fi
O=$W/out
mkdir -p "$O"

echo "# sysroot: runner=$A64RUN rootfs=$ROOTFS"
npass=0 nfail=0
for i in "${!CASE_NAME[@]}"; do
  name=${CASE_NAME[$i]} fn=${CASE_FN[$i]}
  if [[ -n $only && ! $name =~ $only ]]; then continue; fi
  rm -f "$O"/*
  : >"$O/why"
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

echo "$npass passed, $nfail failed"
((nfail == 0))
