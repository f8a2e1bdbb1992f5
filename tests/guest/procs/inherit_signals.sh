#!/bin/bash
# Wrapper for inherit_signals: starts the emulator the way a host parent would hand a program its signal
# state (execve(2) keeps the blocked and ignored signals): SIGHUP and SIGQUIT ignored (trap ''), and, with
# python3 at hand, SIGUSR1 and SIGTERM blocked. The program checks that it starts with exactly those.
set -u
trap '' HUP QUIT
if command -v python3 >/dev/null; then
  export A64RUN_EXPECT_BLOCKED=1
  exec python3 -c 'import os, signal, sys
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1, signal.SIGTERM})
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
fi
exec "$@"
