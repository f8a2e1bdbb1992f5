#!/usr/bin/env python3
"""Runs ltp/run (the command after --) and checks its exit status and output for the runner's own tests.

usage: check_run.py --status N [--line REGEX]... [--absent REGEX]... [--last LINE] -- COMMAND...
  --line    a regular expression that must match one whole line of the output
  --absent  a regular expression that must match no line
  --last    the exact last line of the output"""

import argparse
import re
import subprocess
import sys


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--status", type=int, required=True)
    p.add_argument("--line", action="append", default=[])
    p.add_argument("--absent", action="append", default=[])
    p.add_argument("--last")
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
    for error in errors:
        print("check_run: FAIL: " + error)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
