#!/bin/bash
# Wrapper for mem/rlimit_as's host_limit variant: the emulator starts under a hard and soft RLIMIT_AS of
# 4,000,000 KiB (`ulimit -v`), which a64run takes as the guest's (the program checks it) while it reserves a
# guest window that fits under it. Not in the sanitizer lanes: their shadow memory needs no limit.
set -u
ulimit -v 4000000 || exit 1
exec "$@"
