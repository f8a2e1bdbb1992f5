#!/usr/bin/env bash
# Owns the real-binaries lane's CPython cases: runs modules of CPython's own
# test suite (Debian trixie's python3.13 and libpython3.13-testsuite, in the
# tree make_rootfs.sh --tree python makes) with its test runner under a runner
# (a64run or qemu-aarch64). A case passes when the runner exits 0 and CPython
# says "Result: SUCCESS"; a SUCCESS followed by another exit status (the
# emulator crashing on the way out) is a failure.
#
# Usage: cpython_cases.sh [--only REGEX] RUNNER_KIND ROOTFS
#        cpython_cases.sh --list
#   RUNNER_KIND  a64run:/path/to/a64run | qemu | qemu:/path/to/qemu-aarch64
#   ROOTFS       tree made by make_rootfs.sh --tree python
#   --only REGEX only cases whose name matches REGEX (bash =~)
#   --list       print "class name" for every case and exit
# Prints PASS name (seconds) / FAIL name: ... / SKIP name: ... lines, then
# "N passed, N failed, N skipped"; exits 1 if any case failed, 77 if the
# runner or the tree is missing, 2 on a usage error.
#
# Environment: CPYTHON_TIMEOUT (seconds per case, default 540), REALBIN_KEEP=1
# keeps the scratch directory (the runner's output of each case is there).
#
# Cases marked "exec" start the tree's python3.13 as a child process. Under
# qemu-aarch64 they are skipped: qemu does not intercept execve and no
# binfmt_misc entry exists, so the host kernel refuses the child (ENOEXEC).
# Most cases name their test methods (-m patterns): the whole modules take
# 20 s to over 15 min each under a64run; the selections keep what exercises
# the emulator (fork, exec, threads, signals, mmap, ptys, selectors, sockets)
# in a few minutes of one core for all the cases on an idle host (several
# times that on a loaded one).
set -euo pipefail

usage() { sed -n '/^# Usage:/,/^# Prints/p' "$0" | sed 's/^# \{0,1\}//' | sed '$d'; }

only='' list_only=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --list) list_only=1 ;;
    --only) [[ $# -ge 2 ]] || { usage >&2; exit 2; }; only=$2; shift ;;
    -h | --help) usage; exit 0 ;;
    --) shift; break ;;
    -*) echo "cpython_cases.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) break ;;
  esac
  shift
done

# ---------------------------------------------------------------- cases
# A case named by `lenient NAME REASON` may also end in CPython's FAILURE, for
# the REASON given (a known a64run bug with its own issue): it passes when
# CPython printed its Result and the exit status agrees with it (0 for SUCCESS,
# 2 for FAILURE), so a crash, a hang or a SUCCESS with another exit status
# still fails it. Remove the line once the bug is fixed.
#
# reg NAME CLASS MODULE [PATTERN...]: CLASS is "plain" or "exec" (above); each
# PATTERN becomes a -m option of the test runner, which matches it (fnmatch)
# against the whole test id (test.test_os.FileTests.test_access) or any one
# of its dotted parts.
CASE_NAME=() CASE_CLASS=() CASE_MODULE=() CASE_PATTERNS=()
declare -A LENIENT=()
reg() {
  CASE_NAME+=("$1") CASE_CLASS+=("$2") CASE_MODULE+=("$3")
  shift 3
  CASE_PATTERNS+=("$*")
}
lenient() { LENIENT[$1]=$2; }

# The report's reproducer: a SIGSEGV in the translator's block chaining once
# the engine's 32 MiB code buffer filled for the first time.
reg time plain test_time test_strptime_timezone
# test_float's pow reaches _Py_c_pow, whose prologue (stp, fccmp, stp in one
# block) aborted the translator once (mem/block_labels).
reg float plain test_float
# TestChdir gives os.chdir the host path of a directory of the tree (__file__
# is one, since the interpreter runs by its host path) and compares os.getcwd()
# with it: getcwd read the tree's guest path (docs/sysroot.md, two names).
reg contextlib plain test_contextlib TestChdir
# The whole module; its test_pidfd_send_signal signals the process through a
# /proc/PID directory and expects KeyboardInterrupt from within the call.
reg signal exec test_signal
reg os exec test_os FileTests ForkTests TestScandir MemfdCreateTests EventfdTests PidTests
# (Not test_call_string: its #! script runs the host's /bin/sh, the tree has
# none, and a host program cannot exec the aarch64 python.)
reg subprocess exec test_subprocess '*.ProcessTestCase.test_call_seq' \
  '*.ProcessTestCase.test_check_output' '*.ProcessTestCase.test_communicate' \
  '*.POSIX*.test_pass_fds' '*.POSIX*.test_preexec' '*.POSIX*.test_send_signal' \
  '*.POSIX*.test_terminate' '*.POSIX*.test_run_abort' '*.POSIX*.test_start_new_session'
reg fcntl exec test_fcntl 'test_fcntl_*' test_flock 'test_lockf_*' test_fcntl_64_bit
reg mmap plain test_mmap MmapTests
reg selectors plain test_selectors 'DefaultSelectorTestCase' 'EpollSelectorTestCase'
reg faulthandler exec test_faulthandler test_sigsegv test_sigabrt test_sigbus \
  test_dump_traceback test_dump_traceback_threads test_enable_file test_register
reg pty plain test_pty
reg file_eintr exec test_file_eintr CTestFileIOSignalInterrupt
# A single-threaded guest must not read as multi-threaded: /proc/self/stat's
# num_threads counted a64run's own threads once, and CPython then warned "This
# process is multi-threaded, use of fork() may lead to deadlocks" on every fork
# (these check an empty stderr, and the warning when a second thread exists).
reg threading exec test_threading test_main_thread_after_fork test_dummy_thread_after_fork \
  test_is_alive_after_fork test_native_id_after_fork test_2_join_in_forked_process \
  test_3_join_in_forked_from_thread test_reinit_tls_after_fork
# if_nameindex, if_nametoindex, if_indextoname (SIOCGIFNAME, SIOCGIFINDEX and
# netlink) and symbolic IPv6 scope ids.
reg socket plain test_socket testInterfaceNameIndex testInvalidInterfaceIndexToName \
  test_getaddrinfo_ipv6_scopeid_symbolic test_getnameinfo_ipv6_scopeid_symbolic
reg concurrent_futures exec test_concurrent_futures 'ThreadPool*' \
  'ProcessPoolForkProcessPoolExecutorTest.test_map*' 'ProcessPoolForkProcessPoolShutdownTest.test_*join*'

if ((list_only)); then
  for i in "${!CASE_NAME[@]}"; do printf '%s %s\n' "${CASE_CLASS[$i]}" "${CASE_NAME[$i]}"; done
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
      echo "cpython_cases.sh: SKIP: $q not found (apt-get install qemu-user)" >&2
      exit 77
    fi
    RUNNER=("$(command -v "$q")")
    ;;
  a64run:*)
    RUNNER_NAME=a64run
    RUNNER=("${kind#a64run:}")
    if [[ ! -x ${RUNNER[0]} ]]; then
      echo "cpython_cases.sh: SKIP: ${RUNNER[0]} is not an executable file" >&2
      exit 77
    fi
    ;;
  *) echo "cpython_cases.sh: RUNNER_KIND must be a64run:/path or qemu[:/path], not '$kind'" >&2; exit 2 ;;
esac

if [[ ! -f $ROOTFS/.complete || ! -x $ROOTFS/usr/bin/python3.13 ]]; then
  echo "cpython_cases.sh: SKIP: $ROOTFS is not a finished python tree (run make_rootfs.sh --tree python $ROOTFS)" >&2
  exit 77
fi
ROOTFS=$(cd "$ROOTFS" && pwd -P)
PY=$ROOTFS/usr/bin/python3.13
TMO=${CPYTHON_TIMEOUT:-540}

W=$(mktemp -d "${TMPDIR:-/tmp}/cpython.XXXXXX")
W=$(cd "$W" && pwd -P)
if [[ ${REALBIN_KEEP:-0} == 1 ]]; then
  echo "# scratch directory kept: $W"
else
  trap 'rm -rf "$W"' EXIT
fi
# The tree stays as it was made: compiled modules go to the scratch directory,
# and so do the test runner's own temporary directories.
export PYTHONPYCACHEPREFIX=$W/pycache TMPDIR=$W LC_ALL=C.UTF-8 TZ=UTC0
unset PYTHONDONTWRITEBYTECODE PYTHONPATH PYTHONHOME LANG LANGUAGE
exec </dev/null

echo "# cpython: runner=$RUNNER_NAME (${RUNNER[*]}) rootfs=$ROOTFS"

# ---------------------------------------------------------------- run
npass=0 nfail=0 nskip=0
for i in "${!CASE_NAME[@]}"; do
  name=${CASE_NAME[$i]}
  if [[ -n $only && ! $name =~ $only ]]; then continue; fi
  if [[ $RUNNER_NAME == qemu && ${CASE_CLASS[$i]} == exec ]]; then
    echo "SKIP $name: starts the tree's python3.13 as a child, which qemu-aarch64 cannot (no execve interception, no binfmt_misc entry: ENOEXEC)"
    nskip=$((nskip + 1))
    continue
  fi
  args=()
  read -r -a patterns <<<"${CASE_PATTERNS[$i]}"
  for p in "${patterns[@]}"; do args+=(-m "$p"); done
  out=$W/$name.out
  mkdir -p "$W/$name"
  start=$(date +%s)
  rc=0
  (cd "$W/$name" && timeout -k 10 "$TMO" "${RUNNER[@]}" -L "$ROOTFS" "$PY" -m test -v "${args[@]}" "${CASE_MODULE[$i]}") \
    >"$out" 2>&1 || rc=$?
  secs=$(($(date +%s) - start))
  result=$(grep -a '^Result: ' "$out" | tail -n 1 || true)
  if ((rc == 0)) && [[ $result == 'Result: SUCCESS' ]]; then
    echo "PASS $name (${secs} s)"
    npass=$((npass + 1))
    continue
  fi
  if [[ -n ${LENIENT[$name]:-} ]] && ((rc == 2)) && [[ $result == 'Result: FAILURE' ]]; then
    echo "PASS $name (${secs} s): CPython says FAILURE, known: ${LENIENT[$name]}"
    grep -a -E '^(FAIL|ERROR):' "$out" | head -n 5 | sed 's/^/  | /' || true
    npass=$((npass + 1))
    continue
  fi
  why="exit status $rc"
  if ((rc == 124 || rc == 137)); then why+=" (timed out after ${TMO} s)"; fi
  if ((rc > 128 && rc != 137)); then why+=" (signal $((rc - 128)))"; fi
  why+=", ${result:-no Result line}"
  echo "FAIL $name: $why after ${secs} s; last lines:"
  grep -a -E '^(FAIL|ERROR):|Error|Fatal|Segmentation' "$out" | head -n 10 | sed 's/^/  | /' || true
  tail -n 5 "$out" | sed 's/^/  | /'
  nfail=$((nfail + 1))
done

echo "$npass passed, $nfail failed, $nskip skipped"
((nfail == 0))
