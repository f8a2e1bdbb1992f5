#!/bin/bash
# binfmt_misc end to end, without touching the host: in a new user and mount namespace (Linux 6.7 and later
# give each user namespace a binfmt_misc of its own), mount binfmt_misc, `a64run --binfmt install`, and run
# arm64 programs the way any tool does: from a shell, env, nohup, make, exec -a, a symlink, and chains of
# host and arm64 programs exec'ing each other. Then the configuration file, --persistent, status and
# uninstall. With `go`, runs Go's own os/signal test binary (arm64) there instead.
#
# usage: binfmt_test.sh A64RUN PROGRAM_DIR [go SIGNAL_TEST]
#   PROGRAM_DIR holds hello, hello_dynamic and probe (arm64).
set -u

if [ "${1:-}" != "--inside" ]; then
  if ! unshare --user --map-root-user --mount true 2> /dev/null; then
    echo "SKIP: cannot make a user namespace here (unshare --user --map-root-user --mount)"
    exit 77
  fi
  exec unshare --user --map-root-user --mount "$0" --inside "$@"
fi
shift
a64run="$1"
programs="$2"
mode="${3:-}"

if ! mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2> /dev/null; then
  echo "SKIP: this kernel ($(uname -r)) gives a user namespace no binfmt_misc of its own (Linux 6.7 and later do)"
  exit 77
fi

failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
# expect WHAT REGEX COMMAND...: runs COMMAND, checks its combined output against REGEX (grep -E).
expect() {
  local what="$1" regex="$2"
  shift 2
  local out
  out="$("$@" 2>&1)"
  if grep -qE -- "$regex" <<< "$out"; then
    echo "ok: $what"
  else
    fail "$what: wanted /$regex/, got: $out"
  fi
}

scratch="$(mktemp -d "${TMPDIR:-/tmp}/a64run-binfmt.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
cd "$scratch" || exit 2
cp "$programs"/hello "$programs"/hello_dynamic "$programs"/probe .
export A64RUN_BINFMT_D="$scratch/binfmt.d"

"$a64run" --binfmt status > status.txt
[ $? -eq 1 ] && grep -q "not registered" status.txt && echo "ok: status before install: not registered" ||
  fail "status before install: $(cat status.txt)"
expect "install" "registered .*flags FP" "$a64run" --binfmt install
expect "status: enabled, flags P and F" "flags: PF" "$a64run" --binfmt status

if [ "$mode" = "go" ]; then
  cp "$4" ./signal.test
  # Go's own os/signal tests: TestNohup and TestDetectNohup exec the host's nohup, which execs this arm64
  # test binary through the kernel (and so through binfmt_misc).
  ./signal.test -test.v -test.timeout=240s > go.log 2>&1
  status=$?
  grep -E "^(--- |PASS|FAIL|ok)" go.log
  grep -q -- "--- PASS: TestNohup " go.log || fail "TestNohup did not pass"
  grep -q -- "--- PASS: TestDetectNohup " go.log || fail "TestDetectNohup did not pass"
  grep -qE -- "--- (FAIL|SKIP)" go.log && fail "a test failed or was skipped"
  [ $status -eq 0 ] || { tail -50 go.log; fail "os/signal tests exited $status"; }
  [ $failures -eq 0 ] && echo "PASS: Go's os/signal under binfmt_misc" && exit 0
  exit 1
fi

expect "from a shell" "^hello, world$" ./hello
expect "from env" "^hello, world$" env ./hello
expect "from env -i" "^hello, world$" env -i ./hello
expect "from nohup" "^hello, world$" nohup ./hello
printf 'all:\n\t./hello > made.txt\n' > Makefile
make -s > /dev/null 2>&1 && grep -qx "hello, world" made.txt && echo "ok: from make" || fail "from make"
expect "argv[0] kept (exec -a)" "^argv0=custom-name argc=2 exe=$scratch/probe$" bash -c 'exec -a custom-name ./probe one'
expect "its arguments" "^arg1=one two$" ./probe "one two"
ln -s probe alias
expect "through a symlink" "^argv0=./alias argc=1 exe=$scratch/probe$" ./alias
expect "host -> arm64 -> host" "^from-host-echo$" sh -c './probe exec /bin/echo from-host-echo'
expect "host -> arm64 -> host -> arm64" "^hello, world$" sh -c './probe exec /bin/sh -c ./hello'
expect "arm64 -> arm64 (a64run re-executes itself)" "^argv0=./probe argc=2 exe=$scratch/probe$" \
  ./probe exec ./probe probe-two
expect "a dynamic program (default sysroot)" "^hello, world$" ./hello_dynamic

# A chroot of arm64 programs (a foreign-architecture container): the F flag's open file runs a64run there,
# where its own path does not exist; an arm64 program's exec of another still works (through /proc/self/exe)
# and the new one's command name is its own. Only a static a64run runs in a chroot without its host
# libraries (the sanitizer lanes' builds are dynamic).
root="$scratch/root"
mkdir -p "$root/bin" "$root/proc"
cp probe hello "$root/bin/"
if ldd "$a64run" > /dev/null 2>&1; then
  echo "ok: in a chroot: not run (this a64run is dynamically linked)"
elif mount --rbind /proc "$root/proc" 2> /dev/null; then
  expect "in a chroot" "^hello, world$" chroot "$root" /bin/hello
  expect "in a chroot: arm64 -> arm64" "^argv0=/bin/probe argc=2 exe=/bin/probe$" \
    chroot "$root" /bin/probe exec /bin/probe probe-two
  expect "in a chroot: both programs' command names" "^2$" \
    sh -c "chroot '$root' /bin/probe exec /bin/probe probe-two | grep -cx comm=probe"
  umount -l "$root/proc"
else
  fail "could not bind /proc into the chroot"
fi

printf '# a sysroot without the loader\nsysroot = /nonexistent\n' > bad.conf
expect "the configuration file's sysroot is used" "interpreter" env A64RUN_CONFIG="$scratch/bad.conf" ./hello_dynamic
expect "A64RUN_LD_PREFIX beats the configuration file" "^hello, world$" \
  env A64RUN_CONFIG="$scratch/bad.conf" A64RUN_LD_PREFIX=/usr/aarch64-linux-gnu ./hello_dynamic
printf 'sysrot = /x\n' > typo.conf
expect "a bad configuration file is an error" "typo.conf:1: unknown setting .sysrot." \
  env A64RUN_CONFIG="$scratch/typo.conf" ./hello

expect "install --persistent" "binfmt.d/a64run.conf registers it at boot" "$a64run" --binfmt install --persistent
grep -q '^:a64run:M::\\x7fELF\\x02\\x01\\x01' binfmt.d/a64run.conf && echo "ok: persistent file" ||
  fail "persistent file: $(cat binfmt.d/a64run.conf 2>&1)"
expect "uninstall" "removed from binfmt_misc, .*binfmt.d/a64run.conf removed" "$a64run" --binfmt uninstall
[ ! -e binfmt.d/a64run.conf ] && echo "ok: persistent file removed" || fail "persistent file still there"
./hello > /dev/null 2>&1
status=$?
[ $status -eq 126 ] && echo "ok: uninstalled: the kernel refuses arm64 programs again" ||
  fail "after uninstall ./hello exited $status"

[ $failures -eq 0 ] && echo "PASS: binfmt_misc" && exit 0
echo "$failures failure(s)"
exit 1
