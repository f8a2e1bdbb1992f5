#!/bin/bash
# Wrapper for signals/rt_sources host: starts the guest, waits for it to write its pid to "ready", and sends
# it every signal from 32 to 64 with the host's kill, as another process would. qemu-aarch64 7.2 carries
# guest signal N on host signal N + 2 (host 32 and 33 are its glibc's) and has none for guest 63 and 64: in
# the qemu lane the script sends host 34 to 64 for guest 32 to 62.
set -u
"$@" &
guest=$!
for _ in $(seq 1 1000); do
  [ -e ready ] && break
  sleep 0.01
done
if [ ! -e ready ]; then
  echo "rt_host.sh: the guest never wrote ready" >&2
  kill -9 "$guest"
  exit 1
fi
pid=$(cat ready)
first=32
[ "${A64RUN_REFERENCE:-}" = qemu ] && first=34
for sig in $(seq "$first" 64); do
  kill -n "$sig" "$pid" || exit 1
done
wait "$guest"
