"""Turns the runs into the report: per figure and runner the combined value (catalogue.Figure.agg), the
slowdown ratios, footnotes for everything missing or partial, the checksum comparison, and the three
outputs: REPORT.md (markdown table), results.json, and the data for the latency plot (plot.py)."""

import json
import math
import statistics

from catalogue import COUNT, FIGURE_BY_NAME, FIGURES, HIGHER, MAX, POOLED, Figure

RUNNER_ORDER = ["native", "qemu-aarch64", "a64run"]  # bench/run appends BASELINE when given one
BASELINE = "a64run-base"
WALL_NOTE = ("kernel time is the harness's wall clock for the whole process, startup included (the guest's "
             "clock_gettime failed); its ratios compare whole-process wall times on both sides")


def job_of(figure):
    """The job that prints a figure (kernel.x and startup.x are their own jobs)."""
    head = figure.split(".")[0]
    if head in ("kernel", "startup"):
        return figure
    if head == "kcpu":  # the kernel job's CPU time
        return "kernel." + figure.split(".", 1)[1]
    return {"syscall": "ipc", "pipe": "ipc", "futex": "ipc", "thread": "spawn", "fork": "spawn",
            "go": "go", "stall": "stall", "fp": "fpops"}.get(head, head)


class Notes:
    """Numbered footnotes, one per distinct reason; each lists the runners and jobs it applies to."""

    def __init__(self):
        self.items = []  # [reason, [runners], [jobs]]
        self.index = {}

    def ref(self, runner, reason, job):
        if reason not in self.index:
            self.index[reason] = len(self.items)
            self.items.append([reason, [], []])
        item = self.items[self.index[reason]]
        for value, lst in ((runner, item[1]), (job, item[2])):
            if value not in lst:
                lst.append(value)
        return f"[{self.index[reason] + 1}]"

    def lines(self):
        for i, (reason, runners, jobs) in enumerate(self.items):
            order = [r for r in RUNNER_ORDER if r in runners]
            yield i + 1, order, reason, jobs


def _combine(fig, runs, pooled):
    if fig.agg == POOLED and pooled:
        return statistics.median(pooled)
    if fig.agg == MAX:
        return max(runs)
    return statistics.median(runs)


def aggregate(store, job_notes, job_names):
    """store: (job, runner) -> [RunResult]; job_notes: (job, runner) -> reason for jobs that never ran
    (skipped workloads); job_names: the jobs of this run (a figure of another job gets no row).
    Returns (rows, notes, checks, unimplemented, samples)."""
    per = {}  # (figure, runner) -> {"runs": [...], "pooled": [...], "unit": u, "wall": bool}
    samples = {}  # distribution -> runner -> pooled samples
    checks = {}  # kernel -> runner -> set of checksums
    unimpl = set()
    names = []
    for (job, runner), results in store.items():
        for res in results:
            if runner == "a64run":
                unimpl |= res.unimplemented
            for name, value in res.results.items():
                d = per.setdefault((name, runner), {"runs": [], "pooled": [], "unit": "", "wall": False,
                                                    "wall_runs": []})
                d["runs"].append(value)
                d["wall_runs"].append(res.wall)
                d["pooled"] += res.samples.get(name, [])
                d["unit"] = res.units.get(name, d["unit"])
                d["wall"] |= name in res.wall_figures
                if name not in names:
                    names.append(name)
            for name, values in res.samples.items():
                samples.setdefault(name, {}).setdefault(runner, []).extend(values)
            for name, value in res.checks.items():
                checks.setdefault(name, {}).setdefault(runner, set()).add(value)
    figures = [f for f in FIGURES if job_of(f.name) in job_names]
    figures += [Figure(n, n, per[next(k for k in per if k[0] == n)]["unit"], "Other")
                for n in names if n not in FIGURE_BY_NAME]
    notes = Notes()
    rows = [_row(f, per, store, job_notes, notes) for f in figures]
    return rows, notes, checks, sorted(unimpl), samples


def _row(fig, per, store, job_notes, notes):
    job = job_of(fig.name)
    row = {"figure": fig, "values": {}, "cells": {}}
    for runner in RUNNER_ORDER:
        d = per.get((fig.name, runner))
        results = store.get((job, runner), [])
        if d:
            value = _combine(fig, d["runs"], d["pooled"])
            row["values"][runner] = {"value": value, "runs": d["runs"], "unit": d["unit"],
                                     "process_wall_s": statistics.median(d["wall_runs"]),
                                     "from_wall_clock": d["wall"]}
            cell = _fmt(value)
            if d["wall"]:
                cell += " " + notes.ref(runner, WALL_NOTE, job)
            # A FAIL line names what it is about ("eintr.count: ..."): note it on those figures.
            refs = []
            for res in results:
                for fail in res.fails:
                    what = fail.split(":", 1)[0]
                    if fig.name == what or fig.name.startswith(what + "."):
                        ref = notes.ref(runner, fail, job)
                        if ref not in refs:
                            refs.append(ref)
            cell += "".join(" " + r for r in refs)
            row["cells"][runner] = cell
        else:
            # Prefer a FAIL line about this figure ("siglat.abstime: ..."), then the run's first reason.
            about = [f for r in results for f in r.fails
                     if fig.name.startswith(f.split(":", 1)[0] + ".") or fig.name == f.split(":", 1)[0]]
            reason = job_notes.get((job, runner)) or (about[0] if about else "") or next(
                (r.reason() for r in results if r.reason()), "") or "the probe did not print this figure"
            row["values"][runner] = {"value": None, "reason": reason}
            row["cells"][runner] = "n.a. " + notes.ref(runner, reason, job)
    row["ratio_qemu"] = _ratio(fig, row, "qemu-aarch64")
    row["ratio_native"] = _ratio(fig, row, "native")
    row["ratio_base"] = _ratio(fig, row, BASELINE) if BASELINE in RUNNER_ORDER else None
    return row


def _ratio(fig, row, base):
    va, vb = row["values"].get("a64run", {}), row["values"].get(base, {})
    a, b = va.get("value"), vb.get("value")
    if va.get("from_wall_clock") != vb.get("from_wall_clock") and a is not None and b is not None:
        # One side could only be timed from outside: compare whole-process wall times on both sides.
        a, b = va["process_wall_s"], vb["process_wall_s"]
    if fig.better == COUNT or a is None or b is None or a <= 0 or b <= 0:
        return None
    return b / a if fig.better == HIGHER else a / b


def _fmt(v):
    if v is None:
        return "n.a."
    a = abs(v)
    if a >= 1000:
        return f"{v:,.0f}"
    if a >= 100:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    return f"{v:.3f}"


def _fmt_ratio(r):
    return "-" if r is None else f"{r:.2f}x"


def checksum_rows(checks):
    out = []
    for name in sorted(checks):
        per = checks[name]
        allv = set().union(*per.values())
        verdict = "MISMATCH" if len(allv) > 1 else ("match" if len(per) == len(RUNNER_ORDER) else "match (not all runners)")
        out.append((name, {r: ",".join(sorted(per.get(r, set()))) or "n.a." for r in RUNNER_ORDER}, verdict))
    return out


def kernel_geomean(rows, key, prefix="kernel."):
    rs = [r[key] for r in rows if r["figure"].name.startswith(prefix) and r[key]]
    return math.exp(sum(math.log(x) for x in rs) / len(rs)) if rs else None


def markdown(meta, rows, notes, checks, unimpl, plot_note, img):
    L = ["# a64run benchmark report", "",
         f"Generated {meta['date']} by `bench/run` in {'QUICK' if meta['quick'] else 'full'} mode: "
         f"{meta['reps']} repetitions per figure, runners interleaved (A B C, then C B A). "
         f"Host: {meta['host']}, {meta['cpus']} CPUs. Source: {meta['source']}. "
         f"Run time {meta['seconds']:.0f} s; 1-minute load average {meta['load'][0]} before, "
         f"{meta['load'][1]} after.", ""]
    if max(meta["load"]) > 0.5 * (meta["cpus"] or 1):
        L += ["**The host was busy during this run (load average above half the CPUs): timings are "
              "noisy; compare ratios within one run, and rerun on a quiet machine for absolute figures.**",
              ""]
    L += [f"- {k}: {v}" for k, v in meta["tools"].items()] + [""]
    base = BASELINE in RUNNER_ORDER
    L += ["| figure | native | qemu-aarch64 | a64run | a64run/qemu | a64run/native |" +
          (" a64run-base | a64run/base |" if base else ""),
          "|---|---:|---:|---:|---:|---:|" + ("---:|---:|" if base else "")]
    section = None
    for row in rows:
        f = row["figure"]
        if f.section != section:
            section = f.section
            L.append(f"| **{section}** | | | | | |" + (" | |" if base else ""))
        c = row["cells"]
        L.append(f"| {f.label} ({f.unit}) | {c['native']} | {c['qemu-aarch64']} | {c['a64run']} | "
                 f"{_fmt_ratio(row['ratio_qemu'])} | {_fmt_ratio(row['ratio_native'])} |" +
                 (f" {c[BASELINE]} | {_fmt_ratio(row['ratio_base'])} |" if base else ""))
    L += ["", "Ratios are slowdown factors: above 1 means a64run is slower (for a rate, the inverse ratio "
          "is shown, so the reading is the same). Each value is the median over the repetitions of the "
          "probe's own statistic; startup pools every spawn; the EINTR count is the worst repetition.", ""]
    for prefix, what in (("kernel.", "wall time"), ("kcpu.", "CPU time")):
        for key, label in (("ratio_qemu", "qemu-aarch64"), ("ratio_native", "native"), ("ratio_base", BASELINE)):
            g = kernel_geomean(rows, key, prefix)
            if g:
                L.append(f"Compute kernels ({what}), geometric mean of a64run/{label}: **{g:.2f}x**" +
                         (" (goal: within 3x of qemu-aarch64)" if key == "ratio_qemu" else "") + "  ")
    L += ["", "## Checksums", "", "| kernel | " + " | ".join(RUNNER_ORDER) + " | verdict |",
          "|---|" + "---|" * len(RUNNER_ORDER) + "---|"]
    for name, per, verdict in checksum_rows(checks):
        L.append(f"| {name} | " + " | ".join(per[r] for r in RUNNER_ORDER) + f" | {verdict} |")
    L += ["", "## Notes", ""]
    for number, runners, reason, jobs in notes.lines():
        L.append(f"{number}. {', '.join(runners)}: {reason} (jobs: {', '.join(jobs)})")
    if unimpl:
        L += ["", "a64run reported these syscalls as unimplemented during the run: " + ", ".join(unimpl)
              + "."]
    L += ["", "## Latency distributions", ""]
    if img:
        L += [f"![latency distributions]({img})", ""]
    L += [plot_note, "",
          "Raw output of every run: `bench/out/logs/<job>.<runner>.<repetition>.log`; all figures, "
          "repetitions and samples: `bench/out/results.json`.", ""]
    return "\n".join(L)


def to_json(meta, rows, notes, checks, unimpl, samples):
    figs = []
    for row in rows:
        f = row["figure"]
        figs.append({"name": f.name, "label": f.label, "unit": f.unit, "section": f.section,
                     "better": f.better, "combine": f.agg, "values": row["values"],
                     "a64run_over_qemu": row["ratio_qemu"], "a64run_over_native": row["ratio_native"],
                     "a64run_over_base": row["ratio_base"]})
    return json.dumps({
        "meta": meta, "figures": figs,
        "checksums": [{"kernel": n, "values": p, "verdict": v} for n, p, v in checksum_rows(checks)],
        "notes": [{"number": n, "runners": r, "reason": why, "jobs": j} for n, r, why, j in notes.lines()],
        "a64run_unimplemented_syscalls": unimpl,
        "samples": samples,
    }, indent=1)
