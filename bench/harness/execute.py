"""Runs the jobs: the three runners (native, qemu-aarch64, a64run), one run of a job under one runner with
a time limit and its process group killed on expiry, the probe line protocol (bench/probes/common.h), and
the interleaved schedule (per job A B C in even repetitions, C B A in odd ones). A run never raises: every
outcome, including a missing runner or binary, a crash or a timeout, becomes a RunResult."""

import os
import re
import shutil
import signal
import statistics
import subprocess
import time
from dataclasses import dataclass, field

from build import ARCH_GUEST, ARCH_HOST, ARCH_NATIVE
from catalogue import STARTUP_RUNS_FULL, STARTUP_RUNS_QUICK

SYSROOT = "/usr/aarch64-linux-gnu"
UNIMPLEMENTED_RE = re.compile(r"unimplemented syscall (\w+) \((\d+)\)")


@dataclass
class Runner:
    name: str
    arch: str
    prefix: list  # command words before the program
    dyn_prefix: list  # the same for a dynamically linked program
    why_unavailable: str = ""
    env: dict = field(default_factory=dict)  # added to the environment of every run


def make_runners(a64run_path, baseline=None):
    qemu = shutil.which("qemu-aarch64")
    runners = [Runner("native", ARCH_NATIVE, [], [])]
    if qemu:
        # qemu-aarch64 hands a guest's execve of an arm64 program to the host, which (without binfmt_misc)
        # cannot run it: the spawn probe execs through qemu itself, as binfmt_misc would (BENCH_EXEC_VIA).
        runners.append(Runner("qemu-aarch64", ARCH_GUEST, [qemu], [qemu, "-L", SYSROOT],
                              env={"BENCH_EXEC_VIA": qemu}))
    else:
        runners.append(Runner("qemu-aarch64", ARCH_GUEST, [], [], "qemu-aarch64 not installed "
                              "(apt-get install --no-install-recommends qemu-user)"))
    a64 = str(a64run_path)
    why = "" if os.access(a64, os.X_OK) else f"{a64} not built"
    # a64run finds the arm64 sysroot by itself (default /usr/aarch64-linux-gnu).
    runners.append(Runner("a64run", ARCH_GUEST, [a64], [a64], why))
    if baseline:
        why = "" if os.access(baseline, os.X_OK) else f"{baseline} not executable"
        runners.append(Runner("a64run-base", ARCH_GUEST, [baseline], [baseline], why))
    return runners


@dataclass
class RunResult:
    results: dict = field(default_factory=dict)  # figure -> value
    units: dict = field(default_factory=dict)  # figure -> unit
    samples: dict = field(default_factory=dict)  # figure -> [values]
    checks: dict = field(default_factory=dict)  # kernel -> hex
    fails: list = field(default_factory=list)  # FAIL lines (without the prefix)
    rc: int | None = None
    timed_out: bool = False
    wall: float = 0.0
    error: str = ""  # why the run did not happen or did not finish normally
    unimplemented: set = field(default_factory=set)  # "name (nr)" from a64run's stderr
    wall_figures: set = field(default_factory=set)  # figures taken from the harness's wall clock
    stdout: str = ""  # the first 4 KiB of the program's output

    def reason(self):
        """One line saying why figures are missing or incomplete ('' when the run was clean)."""
        if self.fails:
            return self.fails[0] + (f" (then: {self.error})" if self.error else "")
        if self.error:
            return self.error
        if self.rc not in (0, None):
            return f"exit status {self.rc}" if self.rc > 0 else f"killed by signal {-self.rc}"
        return ""


# Workloads print one record line, `RESULT key=value key=value...` (workloads/stall/main.go), whose first key
# names it; the figures the report shows are taken from its fields: record key -> {field: (figure, unit)}.
RECORD_FIGURES = {"go": {"max_gap_ms": ("stall.max_gap", "ms")}}


def _parse_record(pairs, res):
    fields = dict(p.split("=", 1) for p in pairs if "=" in p)
    for field, (figure, unit) in RECORD_FIGURES[pairs[0].split("=", 1)[0]].items():
        if field in fields:
            res.results[figure] = float(fields[field])
            res.units[figure] = unit


def parse_output(text, res):
    for line in text.splitlines():
        words = line.split()
        if not words:
            continue
        try:
            if words[0] == "RESULT" and len(words) >= 2 and "=" in words[1]:
                name, value = words[1].split("=", 1)
                if name in RECORD_FIGURES:  # a workload's one-line record (workloads/stall)
                    _parse_record(words[1:], res)
                    continue
                res.results[name] = float(value)
                unit = next((w[5:] for w in words[2:] if w.startswith("unit=")), "")
                res.units[name] = unit
            elif words[0] == "SAMPLES" and len(words) >= 3:
                res.samples[words[1]] = [float(v) for v in words[3:]]
                res.units.setdefault(words[1], words[2][5:] if words[2].startswith("unit=") else "")
            elif words[0] == "CHECK" and len(words) >= 2 and "=" in words[1]:
                name, value = words[1].split("=", 1)
                res.checks[name] = value
            elif words[0] == "FAIL":
                res.fails.append(line[5:].strip())
        except ValueError:
            res.fails.append(f"unparsable line: {line[:120]}")


def run_command(cmd, timeout, cwd, log_path, env=None):
    """Runs cmd in its own session; kills the whole group on timeout. Returns a RunResult."""
    res = RunResult()
    for attempt in range(2):
        t0 = time.perf_counter()
        try:
            p = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, start_new_session=True)
            break
        except OSError as e:
            # A binary being relinked at this moment (EACCES, ETXTBSY) is worth one more try.
            if attempt == 0:
                time.sleep(3)
                continue
            res.error = f"cannot start {cmd[0]}: {e}"
            return res
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        res.timed_out = True
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = p.communicate()
        res.error = f"timed out after {timeout:.0f} s"
    res.wall = time.perf_counter() - t0
    res.rc = p.returncode
    out = out.decode(errors="replace")
    err = err.decode(errors="replace")
    res.stdout = out[:4096]
    parse_output(out, res)
    for m in UNIMPLEMENTED_RE.finditer(err):
        res.unimplemented.add(f"{m.group(1)} ({m.group(2)})")
    if not res.error and res.rc is not None and res.rc < 0:
        res.error = f"killed by signal {-res.rc}" + _last_line(err)
    elif not res.error and res.rc not in (0, None) and not res.fails:
        res.error = f"exit status {res.rc}" + _last_line(err)
    if res.error and res.unimplemented:
        res.error += f" (unimplemented syscalls: {', '.join(sorted(res.unimplemented))})"
    with open(log_path, "w") as f:
        f.write(f"$ {' '.join(cmd)}\n# rc={res.rc} wall={res.wall:.3f}s {res.error}\n")
        f.write("--- stdout\n" + out + "--- stderr\n" + err)
    return res


def _last_line(err):
    """The most telling stderr line: an emulator's own message (not an unimplemented-syscall notice),
    else a Go runtime's fatal error or panic, else the last line."""
    lines = [l.strip() for l in err.splitlines() if l.strip() and not UNIMPLEMENTED_RE.search(l)]
    own = [l for l in lines if re.match(r"(a64run|qemu[-\w]*):", l)]
    fatal = [l for l in lines if re.match(r"(fatal error|panic|unexpected signal):", l)]
    pick = (own or fatal or lines[-1:] or [""])[0]
    return f": {pick[:160]}" if pick else ""


class Executor:
    def __init__(self, runners, arts, out_dir, quick):
        self.runners = runners
        self.arts = arts
        self.quick = quick
        self.logs = out_dir / "logs"
        self.scratch = out_dir / "scratch"
        self.logs.mkdir(parents=True, exist_ok=True)
        self.scratch.mkdir(parents=True, exist_ok=True)

    def _program(self, job, runner):
        """The command that runs job's binary under runner, or (None, reason)."""
        if runner.why_unavailable:
            return None, runner.why_unavailable
        path = self.arts.path(runner.arch, job.binary)
        if path is None:
            return None, self.arts.why_missing(runner.arch, job.binary)
        prefix = runner.dyn_prefix if job.dynamic else runner.prefix
        return prefix + [str(path)], ""

    def run(self, job, runner, rep):
        prog, why = self._program(job, runner)
        if prog is None:
            return RunResult(error=why)
        log = self.logs / f"{job.name}.{runner.name}.{rep}.log"
        timeout = job.timeout(self.quick)
        if job.kind == "startup":
            return self._run_startup(job, runner, prog, rep, log, timeout)
        env = dict(os.environ, **runner.env) if runner.env else None
        res = run_command(prog + job.args(self.quick), timeout, self.scratch, log, env)
        if job.kind == "kernel":
            self._kernel_fallback(job, res)
        return res

    def _run_startup(self, job, runner, prog, rep, log, timeout):
        if rep == 0 and job.expect_stdout is not None:
            check = run_command(prog, timeout, self.scratch, log.with_suffix(".check.log"))
            if check.error or check.rc != 0:
                return check
            if check.stdout != job.expect_stdout:
                return RunResult(error=f"printed {check.stdout[:40]!r}, expected {job.expect_stdout!r}")
        timer = self.arts.path(ARCH_HOST, "spawntime")
        if timer is None:
            return RunResult(error=self.arts.why_missing(ARCH_HOST, "spawntime"))
        runs = STARTUP_RUNS_QUICK if self.quick else STARTUP_RUNS_FULL
        res = run_command([str(timer), job.name, str(runs)] + prog, timeout, self.scratch, log)
        s = res.samples.get(job.name)
        if s and not res.fails:
            res.results[job.name] = statistics.median(s)
            res.units[job.name] = "ms"
        return res

    @staticmethod
    def _kernel_fallback(job, res):
        """Without a guest clock a kernel still prints its checksum: use the process's wall time."""
        fig = job.name
        if fig not in res.results and fig in res.checks and res.rc == 0 and not res.timed_out:
            res.results[fig] = res.wall
            res.units[fig] = "s"
            res.wall_figures.add(fig)


def schedule(jobs, runners, reps, executor, store, progress):
    """Runs every job under every runner, reps times, interleaved. A (job, runner) pair whose run gave no
    figure at all (missing binary, crash, timeout) is not retried in later repetitions."""
    dead = {}
    for rep in range(reps):
        order = runners if rep % 2 == 0 else list(reversed(runners))
        for job in jobs:
            parts = []
            for runner in order:
                key = (job.name, runner.name)
                if key in dead:
                    parts.append(f"{runner.name} skipped")
                    continue
                res = executor.run(job, runner, rep)
                store.setdefault(key, []).append(res)
                if not res.results:
                    dead[key] = res.reason() or "no figures"
                    parts.append(f"{runner.name} FAILED ({dead[key][:70]})")
                else:
                    mark = "partial: " + res.reason()[:60] if res.reason() else "ok"
                    parts.append(f"{runner.name} {mark} {res.wall:.1f}s")
            progress(f"[{rep + 1}/{reps}] {job.name}: " + " | ".join(parts))
    return dead
