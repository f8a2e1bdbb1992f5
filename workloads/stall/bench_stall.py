#!/usr/bin/env python3
"""make bench-stall: builds the stall workload for amd64 and arm64 and runs it natively, under qemu-aarch64
and under a64run, each with async preemption on and off (GODEBUG=asyncpreemptoff=1), and prints one
markdown table (max gap, tick gap, GC cycles per arm). --sweep runs the slow-core table of README.md
instead (a64run with --signal-delay-pre-ack-us / --signal-delay-post-ack-us over several delays), and
--stats one a64run run per preemption mode with --signal-stats (the SIGURG row). Standard library only."""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent


def build(out, log):
    """Builds out/amd64/stall and out/arm64/stall; returns {arch: path}; a missing go is an error."""
    go = shutil.which("go")
    if go is None:
        sys.exit("bench-stall: go not found (apt-get install --no-install-recommends golang-go)")
    env = dict(os.environ, CGO_ENABLED="0", GOOS="linux", GOFLAGS="-mod=mod", GOPROXY="off",
               GOCACHE=str(out / "go-cache"), GOPATH=str(out / "gopath"))
    bins = {}
    for arch in ("amd64", "arm64"):
        path = out / arch / "stall"
        path.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([go, "build", "-o", str(path), "."], cwd=HERE, env=dict(env, GOARCH=arch), check=True)
        bins[arch] = path
    log(f"built {', '.join(str(p) for p in bins.values())}")
    return bins


def run_once(cmd, env_extra, timeout):
    """Runs one stall process; returns (fields of its RESULT line or {}, stderr)."""
    env = dict(os.environ, **env_extra)
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"verdict": "TIMEOUT"}, ""
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            return dict(w.split("=", 1) for w in line.split()[1:] if "=" in w), p.stderr
    return {"verdict": f"exit {p.returncode}"}, p.stderr


def summarize(results):
    """Median and worst of max gap, tick gap, GC cycles; stalled runs."""
    def col(key):
        vals = [float(r[key]) for r in results if key in r]
        prec = 0 if key == "gc_cycles" else 1
        if not vals:
            return "n.a."
        if len(vals) == 1:
            return f"{vals[0]:.{prec}f}"
        return f"{statistics.median(vals):.{prec}f} / {max(vals):.{prec}f}"
    stalled = sum(1 for r in results if r.get("verdict") != "OK")
    return col("max_gap_ms"), col("tick_gap_ms"), col("gc_cycles"), col("alloc_mib_s"), stalled


def runners(bins, a64run):
    out = [("native", [str(bins["amd64"])])]
    qemu = shutil.which("qemu-aarch64")
    if qemu:
        out.append(("qemu-aarch64", [qemu, str(bins["arm64"])]))
    if a64run.exists():
        out.append(("a64run", [str(a64run), str(bins["arm64"])]))
    return out


MODES = [("on", {}), ("off", {"GODEBUG": "asyncpreemptoff=1"})]


def arms_table(args, bins, a64run, log):
    rows = []
    for name, prefix in runners(bins, a64run):
        for mode, env in MODES:
            results = []
            for i in range(args.runs):
                r, _ = run_once(prefix + args.stall_args, env, args.timeout)
                log(f"{name} async={mode} run {i + 1}: " + " ".join(
                    f"{k}={r.get(k, '?')}" for k in ("max_gap_ms", "tick_gap_ms", "gc_cycles", "verdict")))
                results.append(r)
            rows.append((name, mode) + summarize(results) + (len(results),))
    what = "median / worst of %d runs" % args.runs if args.runs > 1 else "one run"
    print(f"\nstall workload, {' '.join(args.stall_args)} ({what}; gaps in ms)\n")
    print("| arm | async preemption | max gap | tick gap | GC cycles | alloc MiB/s | stalled runs |")
    print("|---|---|---|---|---|---|---|")
    for name, mode, gap, tick, gc, alloc, stalled, n in rows:
        print(f"| {name} | {mode} | {gap} | {tick} | {gc} | {alloc} | {stalled}/{n} |")


def sweep_table(args, bins, a64run, log):
    rows = []
    for kind in ("pre", "post"):
        for us in args.delays:
            for mode, env in MODES:
                if us == 0 and kind == "post":
                    continue  # the same runs as pre 0
                opt = f"--signal-delay-{kind}-ack-us={us}"
                results = []
                for i in range(args.runs):
                    r, _ = run_once([str(a64run), opt, str(bins["arm64"])] + args.stall_args, env, args.timeout)
                    log(f"{opt} async={mode} run {i + 1}: max_gap_ms={r.get('max_gap_ms', '?')} "
                        f"gc_cycles={r.get('gc_cycles', '?')} verdict={r.get('verdict')}")
                    results.append(r)
                gap, tick, gc, alloc, stalled = summarize(results)
                rows.append((kind if us else "none", us, mode, stalled, len(results), gap, tick, gc))
    print(f"\na64run slow-core sweep, {' '.join(args.stall_args)}, {args.runs} runs per cell "
          "(gaps: median / worst, ms)\n")
    print("| delay | N (us) | async preemption | stalled runs | max gap | tick gap | GC cycles |")
    print("|---|---|---|---|---|---|---|")
    for kind, us, mode, stalled, n, gap, tick, gc in rows:
        print(f"| {kind} | {us} | {mode} | {stalled}/{n} | {gap} | {tick} | {gc} |")


def stats_table(args, bins, a64run, log):
    print("\na64run --signal-stats, SIGURG (23) row, one run each (us)\n")
    for opt in [None] + [f"--signal-delay-post-ack-us={us}" for us in args.delays if us]:
        for mode, env in MODES:
            cmd = [str(a64run), "--signal-stats"] + ([opt] if opt else []) + [str(bins["arm64"])]
            r, err = run_once(cmd + args.stall_args, env, args.timeout)
            row = next((l for l in err.splitlines() if re.match(r"\s*23\s", l)), "  23  (no SIGURG)")
            print(f"{opt or 'no delay'}, async {mode}: max_gap_ms={r.get('max_gap_ms', '?')} "
                  f"gc_cycles={r.get('gc_cycles', '?')}")
            head = next((l for l in err.splitlines() if l.strip().startswith("sig ")), "")
            print("    " + head.strip() + "\n    " + row.strip())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.environ.get("BUILD", "build"), help="a64run build directory")
    ap.add_argument("--runs", type=int, default=int(os.environ.get("RUNS", "1")), help="runs per cell")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per run before it is killed")
    ap.add_argument("--sweep", action="store_true", help="the slow-core delay table (a64run only)")
    ap.add_argument("--stats", action="store_true", help="--signal-stats SIGURG rows (a64run only)")
    ap.add_argument("--delays", default="0,10,50,150", help="delays in us for --sweep and --stats")
    ap.add_argument("stall_args", nargs="*", help="arguments for stall (default: -secs 5)")
    args = ap.parse_args()
    args.stall_args = args.stall_args or os.environ.get("STALL_ARGS", "-secs 5").split()
    args.delays = [int(d) for d in args.delays.split(",")]
    build_dir = Path(args.build) if Path(args.build).is_absolute() else REPO / args.build
    a64run = build_dir / "a64run"
    out = build_dir / "workloads" / "stall"

    def log(msg):
        print(f"bench-stall: {msg}", file=sys.stderr, flush=True)

    bins = build(out, log)
    if (args.sweep or args.stats) and not a64run.exists():
        sys.exit(f"bench-stall: {a64run} not built")
    if args.sweep:
        sweep_table(args, bins, a64run, log)
    if args.stats:
        stats_table(args, bins, a64run, log)
    if not args.sweep and not args.stats:
        arms_table(args, bins, a64run, log)


if __name__ == "__main__":
    main()
