#!/bin/bash
# Wrapper for misc/signal_delay: under a64run adds --signal-delay-pre-ack-us=$A64RUN_DELAY_PRE and
# --signal-delay-post-ack-us=$A64RUN_DELAY_POST and passes the same values to the program, which checks that
# the delays were applied (also after an exec). qemu-aarch64 has no such model: there the program runs with
# "0 0" (upper bounds only, no exec, as qemu hands a guest execve to the host).
set -u
emulator="$1"
program="$2"
pre="${A64RUN_DELAY_PRE:?}"
post="${A64RUN_DELAY_POST:?}"
if [ "${A64RUN_REFERENCE:-}" = qemu ]; then
  exec "$emulator" "$program" 0 0
fi
exec "$emulator" "--signal-delay-pre-ack-us=$pre" "--signal-delay-post-ack-us=$post" "$program" "$pre" "$post" exec
