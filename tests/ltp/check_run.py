#!/usr/bin/env python3
"""Runs ltp/run (the command after --) and checks its exit status and output for the runner's own tests.

usage: check_run.py --status N [--line REGEX]... [--absent REGEX]... [--last LINE] [--dead-pidfile FILE]
                    -- COMMAND...
  --line    a regular expression that must match one whole line of the output
  --absent  a regular expression that must match no line
  --last    the exact last line of the output
  --dead-pidfile  a file the command's tests wrote a pid into: that process must be gone (or a zombie)
                  within 2 seconds after the command"""

import argparse
import os
import re
import subprocess
import sys
import time


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return False


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--status", type=int, required=True)
    p.add_argument("--line", action="append", default=[])
    p.add_argument("--absent", action="append", default=[])
    p.add_argument("--last")
    p.add_argument("--dead-pidfile")
    p.add_argument("command", nargs="+")
    opts = p.parse_args()
    proc = subprocess.run(opts.command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False)
    print(proc.stdout, end="")
    lines = proc.stdout.rstrip("\n").split("\n")
    errors = []
    if proc.returncode != opts.status:
        errors.append("exit status %d, want %d" % (proc.returncode, opts.status))
    for regex in opts.line:
        if not any(re.fullmatch(regex, line) for line in lines):
            errors.append("no line matches: " + regex)
    for regex in opts.absent:
        if any(re.fullmatch(regex, line) for line in lines):
            errors.append("a line matches: " + regex)
    if opts.last is not None and lines[-1] != opts.last:
        errors.append("last line %r, want %r" % (lines[-1], opts.last))
    if opts.dead_pidfile is not None:
        try:
            with open(opts.dead_pidfile, encoding="ascii") as f:
                pid = int(f.read())
            os.unlink(opts.dead_pidfile)
        except (OSError, ValueError) as e:
            errors.append("no pid in %s: %s" % (opts.dead_pidfile, e))
            pid = 0
        deadline = time.monotonic() + 2
        while pid and alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if pid and alive(pid):
            errors.append("process %d, left behind by a test, is still running" % pid)
            os.kill(pid, 9)
    for error in errors:
        print("check_run: FAIL: " + error)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
