#!/usr/bin/env python3
"""Runs one gdb scenario (tests/gdb/scenarios/NAME.gdb) against an emulator's gdb stub.

Starts EMULATOR -g PORT PROGRAM [ARGS] (a64run, or qemu-aarch64 for the reference lane), drives
gdb-multiarch in batch mode with the scenario's commands after `target remote`, and checks:
  - every `# expect: REGEX` line matches gdb's output, in order (each search starts after the last match);
  - no `# reject: REGEX` line matches anywhere;
  - the emulator's exit status is `# exit: N` (128+N for a signal, as a shell reports it).
Other header lines: `# args: ...` (the program's arguments), `# program: NAME` (another program of the
build than debuggee), `# sysroot` (qemu-aarch64 gets -L SYSROOT; a64run finds it by itself, and gdb reads
the libraries through the stub), `# qemu-gap: REASON` (the
reference lane expects this scenario to fail under qemu-aarch64 and skips it, naming the reason; if it
passes there, the gap is gone and the test fails so the line is removed), `# qemu-flaky: REASON` (a qemu
race the scenario sometimes hits: the reference lane skips it when it fails, naming the reason).

Exit status: 0 pass, 1 fail, 77 skipped (ctest's SKIP_RETURN_CODE).
"""

import argparse
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

GDB_TIMEOUT = 120


def parse_scenario(path):
    spec = {"expect": [], "reject": [], "exit": None, "args": [], "program": None, "sysroot": False,
            "qemu_gap": None, "qemu_flaky": None, "commands": []}
    with open(path, encoding="ascii") as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.match(r"#\s*(expect|reject|exit|args|program|qemu-gap|qemu-flaky|sysroot)\s*:?\s*(.*)$", line)
            if m:
                key, value = m.group(1), m.group(2)
                if key in ("expect", "reject"):
                    spec[key].append(value)
                elif key == "exit":
                    spec["exit"] = int(value)
                elif key == "args":
                    spec["args"] = value.split()
                elif key == "program":
                    spec["program"] = value
                elif key == "sysroot":
                    spec["sysroot"] = True
                else:
                    spec[key.replace("-", "_")] = value
            elif line.strip() and not line.lstrip().startswith("#"):
                spec["commands"].append(line)
    return spec


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def status_of(returncode):
    return 128 - returncode if returncode < 0 else returncode


def check(spec, output, status):
    problems = []
    at = 0
    for rx in spec["expect"]:
        m = re.compile(rx, re.MULTILINE).search(output, at)
        if m is None:
            problems.append(f"expected (in order) but not found: {rx}")
        else:
            at = m.end()
    for rx in spec["reject"]:
        if re.search(rx, output, re.MULTILINE):
            problems.append(f"found but rejected: {rx}")
    if spec["exit"] is not None and status != spec["exit"]:
        problems.append(f"emulator exit status {status}, want {spec['exit']}")
    return problems


def run(args, spec, program):
    port = free_port()
    cmd = [args.emulator, "-g", str(port)]
    if spec["sysroot"] and args.lane == "qemu":
        cmd += ["-L", args.sysroot]
    cmd += [program] + spec["args"]
    with tempfile.TemporaryDirectory(prefix="a64run-gdb.") as scratch:
        emu_out = open(os.path.join(scratch, "emulator.out"), "w+", encoding="utf-8", errors="replace")
        emu = subprocess.Popen(cmd, stdout=emu_out, stderr=subprocess.STDOUT, cwd=scratch)
        script = os.path.join(scratch, "script.gdb")
        with open(script, "w", encoding="ascii") as f:
            f.write("set pagination off\nset confirm off\nset width 0\nset height 0\n")
            # gdb waits 2 s for a reply and 15 s for the stub to listen by default: too little for a
            # sanitized a64run on a loaded machine.
            f.write("set remotetimeout 60\nset tcp connect-timeout 60\n")
            f.write(f"target remote 127.0.0.1:{port}\n")
            f.write("\n".join(spec["commands"]) + "\n")
        gdb_cmd = [args.gdb, "-nx", "-batch", "-iex", "set auto-load python-scripts off", "-x", script, program]
        try:
            gdb = subprocess.run(gdb_cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=scratch,
                                 timeout=GDB_TIMEOUT, check=False)
            output = gdb.stdout.decode("utf-8", "replace")
        except subprocess.TimeoutExpired as e:
            output = (e.stdout or b"").decode("utf-8", "replace") + "\n[gdb timed out]\n"
        try:
            status = status_of(emu.wait(timeout=30))
        except subprocess.TimeoutExpired:
            emu.send_signal(signal.SIGKILL)
            status = status_of(emu.wait())
            output += "\n[the emulator was still running 30 s after gdb ended: killed]\n"
        emu_out.seek(0)
        emulator_output = emu_out.read()
        emu_out.close()
    return output, emulator_output, status


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lane", choices=["a64run", "qemu"], required=True)
    p.add_argument("--emulator", required=True)
    p.add_argument("--gdb", default="gdb-multiarch")
    p.add_argument("--programs", required=True, help="directory holding the debuggee programs")
    p.add_argument("--sysroot", default="/usr/aarch64-linux-gnu")
    p.add_argument("scenario")
    args = p.parse_args()
    if os.sep in args.emulator:
        args.emulator = os.path.abspath(args.emulator)  # the emulator runs in a scratch directory
    args.programs = os.path.abspath(args.programs)
    spec = parse_scenario(args.scenario)
    program = os.path.join(args.programs, spec["program"] or "debuggee")
    started = time.monotonic()
    output, emulator_output, status = run(args, spec, program)
    problems = check(spec, output, status)
    name = os.path.basename(args.scenario)
    gap = spec["qemu_gap"] if args.lane == "qemu" else None
    if gap:
        if problems:
            print(f"SKIP: {name} under qemu-aarch64: known gap: {gap}")
            return 77
        print(f"FAIL: {name} passes under qemu-aarch64 now: remove its qemu-gap line ({gap})")
        return 1
    flaky = spec["qemu_flaky"] if args.lane == "qemu" else None
    if flaky and problems:
        print(f"SKIP: {name} under qemu-aarch64 hit a known race: {flaky}")
        return 77
    print(f"--- gdb ({time.monotonic() - started:.1f} s) ---\n{output}\n--- program ---\n{emulator_output}")
    if problems:
        for problem in problems:
            print(f"FAIL: {name} ({args.lane}): {problem}")
        return 1
    print(f"PASS: {name} ({args.lane})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
