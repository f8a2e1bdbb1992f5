"""The benchmark catalogue: every job bench/run runs (which probe binary, its arguments in full and QUICK
mode, its time limit) and every figure the report shows (label, unit, which direction is better, how
repetitions combine), in report order. A figure a probe prints that is not listed here still reaches the
report, after the listed ones, under its own name."""

from dataclasses import dataclass

# Figure.better: LOWER for costs (times), HIGHER for rates, COUNT for correctness counts (no ratio).
LOWER, HIGHER, COUNT = "lower", "higher", "count"
# Figure.agg: how the per-repetition values combine into the reported one.
#   median  the median of the per-repetition values (each itself a median or percentile inside the probe)
#   max     the largest per-repetition value (a count that must stay at its expected value)
#   pooled  the median of all samples of all repetitions (startup: many short runs)
MEDIAN, MAX, POOLED = "median", "max", "pooled"


@dataclass(frozen=True)
class Figure:
    name: str
    label: str
    unit: str
    section: str
    better: str = LOWER
    agg: str = MEDIAN


@dataclass(frozen=True)
class Job:
    name: str
    kind: str  # probe | startup | kernel | go | workload
    binary: str  # artifact name under out/build/<arch>/
    args_full: tuple = ()
    args_quick: tuple = ()
    timeout_full: float = 60.0
    timeout_quick: float = 12.0  # a working runner needs ~3 s; a hang must not eat the 3-minute budget
    dynamic: bool = False  # needs the arm64 sysroot (qemu-aarch64 -L)
    expect_stdout: str | None = None  # startup jobs: one captured run must print exactly this

    def args(self, quick):
        return list(self.args_quick if quick else self.args_full)

    def timeout(self, quick):
        return self.timeout_quick if quick else self.timeout_full


SIG, SLEEP, IPC, START, LIFE, COMPUTE, COMPUTE_CPU, FP, GO = (
    "Signals", "Sleeps", "Syscalls and IPC", "Startup + teardown", "Threads and processes",
    "Compute kernels", "Compute kernels, process CPU time", "Floating-point operations", "Go runtime")

KERNELS = ["sieve", "xorshift", "qsort", "imatmul", "fib", "memcpy", "hash", "fmatmul"]
KERNEL_QUICK_SCALE = "0.15"
# Startup: spawns per repetition (the figure pools all of them).
STARTUP_RUNS_FULL, STARTUP_RUNS_QUICK = 20, 8


def _fig(name, label, unit, section, better=LOWER, agg=MEDIAN):
    return Figure(name, label, unit, section, better, agg)


FIGURES = [
    _fig("siglat.nanosleep.p50", "signal to a thread in nanosleep, median", "us", SIG),
    _fig("siglat.nanosleep.max", "signal to a thread in nanosleep, max", "us", SIG),
    _fig("siglat.abstime.p50", "signal to a thread in clock_nanosleep ABSTIME, median", "us", SIG),
    _fig("siglat.abstime.max", "signal to a thread in clock_nanosleep ABSTIME, max", "us", SIG),
    _fig("eintr.first.p50", "kill to first EINTR, 4 sleeping threads, median", "us", SIG),
    _fig("eintr.first.max", "kill to first EINTR, 4 sleeping threads, max", "us", SIG),
    _fig("eintr.count.max", "EINTRs per kill (must be 1), worst", "count", SIG, COUNT, MAX),
    _fig("sigcost.self.p50", "sigcost self (tgkill to handler and back), p50", "us", SIG),
    _fig("sigcost.self.p99", "sigcost self, p99", "us", SIG),
    _fig("sigcost.cross.p50", "sigcost cross (to a running thread's handler), p50", "us", SIG),
    _fig("sigcost.cross.p99", "sigcost cross, p99", "us", SIG),
    _fig("sleep.1us.min", "nanosleep 1 us, min", "us", SLEEP),
    _fig("sleep.1us.p50", "nanosleep 1 us, median", "us", SLEEP),
    _fig("sleep.10us.min", "nanosleep 10 us, min", "us", SLEEP),
    _fig("sleep.10us.p50", "nanosleep 10 us, median", "us", SLEEP),
    _fig("sleep.100us.min", "nanosleep 100 us, min", "us", SLEEP),
    _fig("sleep.100us.p50", "nanosleep 100 us, median", "us", SLEEP),
    _fig("sleep.1ms.min", "nanosleep 1 ms, min", "us", SLEEP),
    _fig("sleep.1ms.p50", "nanosleep 1 ms, median", "us", SLEEP),
    _fig("syscall.getppid", "getppid round trip", "ns", IPC),
    _fig("pipe.rtt", "pipe ping-pong between two threads, round trip", "us", IPC),
    _fig("futex.rtt", "futex ping-pong between two threads, round trip", "us", IPC),
    _fig("startup.ret0", "static `return 0`", "ms", START, agg=POOLED),
    _fig("startup.hello", "static hello", "ms", START, agg=POOLED),
    _fig("startup.hello_dyn", "dynamic hello", "ms", START, agg=POOLED),
    _fig("thread.create_join.p50", "thread create + join, median", "us", LIFE),
    _fig("fork.exec_wait.p50", "fork + exec + wait, median", "ms", LIFE),
] + [_fig(f"kernel.{k}", k, "s", COMPUTE) for k in KERNELS] + [
    _fig(f"kcpu.{k}", k, "s", COMPUTE_CPU) for k in KERNELS] + [
    _fig("fp.fmadd", "fused multiply-add chain (FMADD)", "s", FP),
    _fig("fp.convert", "double to integer and back (FCVTZS, SCVTF)", "s", FP),
    _fig("fp.narrow", "double to single and back (FCVT)", "s", FP),
    _fig("fp.round", "floor and trunc (FRINTM, FRINTZ)", "s", FP),
    _fig("fp.minmax", "fmax and fmin (FMAXNM, FMINNM)", "s", FP),
    _fig("fp.compare", "compare and select (FCMPE, FCSEL)", "s", FP),
    _fig("go.notify.p50", "signal.Notify round trip, p50", "us", GO),
    _fig("go.notify.p99", "signal.Notify round trip, p99", "us", GO),
    _fig("go.signals_s", "signals per second with handshake", "1/s", GO, HIGHER),
    _fig("stall.max_gap", "stall workload, max gap", "ms", GO),
]

FIGURE_BY_NAME = {f.name: f for f in FIGURES}

# Distributions drawn in the plot (SAMPLES lines), in panel order.
PLOTTED = ["siglat.nanosleep", "siglat.abstime", "eintr.first", "sigcost.self", "sigcost.cross",
           "sleep.1us", "sleep.100us", "thread.create_join", "go.notify", "startup.hello"]


def jobs():
    """All jobs in run order (the workload job is added by bench/run when workloads/stall exists)."""
    out = [
        Job("siglat", "probe", "sig_latency", ("200",), ("40",)),
        Job("eintr", "probe", "eintr4", ("40",), ("12",)),
        Job("sigcost", "probe", "sigcost", ("2000",), ("400",)),
        Job("sleep", "probe", "sleep_res", ("200",), ("40",)),
        Job("ipc", "probe", "ipc", ("1",), ("0.25",)),
        Job("startup.ret0", "startup", "ret0"),
        Job("startup.hello", "startup", "hello", expect_stdout="hello\n"),
        Job("startup.hello_dyn", "startup", "hello_dyn", dynamic=True, expect_stdout="hello\n"),
        Job("spawn", "probe", "spawn", ("300", "30"), ("60", "8")),
    ]
    out += [Job(f"kernel.{k}", "kernel", "kernels", (k, "1"), (k, KERNEL_QUICK_SCALE), 90.0, 20.0)
            for k in KERNELS]
    out.append(Job("fpops", "probe", "fpops", ("1",), ("0.2",), 90.0, 20.0))
    out.append(Job("go", "go", "gosig", ("-n", "3000", "-d", "1s"), ("-n", "500", "-d", "300ms")))
    return out
