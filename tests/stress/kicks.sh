#!/usr/bin/env bash
# The kick stress job (`make stress`): RUNS runs each of sigcost's cross test (a sender tgkill()s a target
# spinning in guest code and waits for its handler) and of tests/guest/signals/kick_storm, under a64run. A
# run that hangs (TIMEOUT seconds), prints FAIL or exits nonzero is a failure; the job prints a line per
# run and a summary, and exits 1 if any run failed.
#
# usage: kicks.sh A64RUN SIGCOST_ARM64 KICK_STORM   (environment: RUNS, TIMEOUT, KICK_ARGS)
set -uo pipefail

readonly a64run=$1 sigcost=$2 kick_storm=$3
readonly runs=${RUNS:-100} timeout_s=${TIMEOUT:-300}
read -r -a kick_args <<< "${KICK_ARGS:-100000 3}"
failed=0

run_one() {
  local name=$1 i=$2
  shift 2
  local out rc
  out=$(timeout "$timeout_s" "$a64run" "$@" 2>&1)
  rc=$?
  if [[ $rc -ne 0 ]] || grep -q '^FAIL' <<< "$out"; then
    failed=$((failed + 1))
    printf 'stress: %s run %d FAILED (status %d%s)\n' "$name" "$i" "$rc" "$([[ $rc -eq 124 ]] && echo ', hung')"
    grep -E 'FAIL|lost' <<< "$out" | head -5
  else
    printf 'stress: %s run %d ok: %s\n' "$name" "$i" "$(tail -n 2 <<< "$out" | head -n 1)"
  fi
}

for ((i = 1; i <= runs; i++)); do
  run_one sigcost "$i" "$sigcost" -c 0 -s 1 2000
  run_one kick_storm "$i" "$kick_storm" "${kick_args[@]}"
done
printf 'stress: %d runs of each, %d failed\n' "$runs" "$failed"
[[ $failed -eq 0 ]]
