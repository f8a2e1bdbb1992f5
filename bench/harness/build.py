"""Builds what the benchmark runs: every C probe (bench/probes, and sigcost from workloads/sigcost) twice
(static aarch64 for qemu-aarch64 and a64run, static x86-64 for the native column; the dynamic hello both
ways dynamic), the Go probe for arm64 and amd64, the stall workload when it exists, and the host-side spawn
timer. Outputs go to out/build/<arch>/; a C probe is
rebuilt only when its source or common.h is newer. A build failure is recorded, never raised: the jobs
that need the missing binary then fail with that reason."""

import os
import shutil
import subprocess
from pathlib import Path

ARCH_GUEST, ARCH_NATIVE, ARCH_HOST = "aarch64", "x86_64", "host"
CC = {ARCH_GUEST: "aarch64-linux-gnu-gcc", ARCH_NATIVE: "gcc"}
GOARCH = {ARCH_GUEST: "arm64", ARCH_NATIVE: "amd64"}
# -ffp-contract=off: aarch64 gcc would fuse a*b+c into fmadd and x86-64 (no FMA at -O2) would not, and
# the floating-point checksums must match bit for bit.
CFLAGS = ["-O2", "-g", "-std=gnu17", "-Wall", "-Wextra", "-Werror", "-pthread", "-ffp-contract=off"]
PROBES = ["sig_latency", "eintr4", "sleep_res", "ipc", "spawn", "ret0", "hello", "kernels", "fpops"]
# Probes that live in workloads/ as programs of their own (self-contained: no common.h).
WORKLOAD_PROBES = ["sigcost"]
# Dynamic variants: artifact name -> source stem.
DYNAMIC = {"hello_dyn": "hello"}


class Artifacts:
    """Where each built binary is, and why a missing one is missing."""

    def __init__(self):
        self.paths = {}  # (arch, name) -> Path
        self.missing = {}  # (arch, name) -> reason
        self.notes = []  # build-wide notes for the report

    def path(self, arch, name):
        return self.paths.get((arch, name))

    def why_missing(self, arch, name):
        return self.missing.get((arch, name), f"{name} was not built for {arch}")


def _newer(out, inputs):
    return out.exists() and all(out.stat().st_mtime >= p.stat().st_mtime for p in inputs)


def _run(cmd, cwd=None, env=None):
    """Runs a build command; returns None on success or a one-line reason."""
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"{cmd[0]}: {e}"
    if p.returncode != 0:
        lines = [l for l in (p.stderr + p.stdout).splitlines() if l.strip()]
        return f"{' '.join(cmd[:2])}... failed: {lines[0] if lines else 'exit ' + str(p.returncode)}"
    return None


def _build_c(arts, arch, name, src, deps, out_dir, static, log):
    out = out_dir / name
    if shutil.which(CC[arch]) is None:
        arts.missing[(arch, name)] = f"{CC[arch]} not installed"
        return
    if not _newer(out, [src] + deps):
        link = ["-static"] if static else []
        err = _run([CC[arch]] + CFLAGS + link + [str(src), "-o", str(out), "-lm"])
        if err:
            arts.missing[(arch, name)] = err
            log(f"build: {arch}/{name}: {err}")
            return
    arts.paths[(arch, name)] = out


def _build_go(arts, arch, name, pkg_dir, out_dir, log):
    go = shutil.which("go")
    if go is None:
        arts.missing[(arch, name)] = "go not installed (apt-get install -y golang-go)"
        return
    out = out_dir / name
    env = dict(os.environ, GOARCH=GOARCH[arch], CGO_ENABLED="0", GOOS="linux")
    err = _run([go, "build", "-o", str(out), "."], cwd=pkg_dir, env=env)
    if err:
        arts.missing[(arch, name)] = err
        log(f"build: {arch}/{name}: {err}")
        return
    arts.paths[(arch, name)] = out


def build_all(bench_dir, repo_dir, out_dir, log):
    """Builds everything into out_dir/build; returns Artifacts."""
    arts = Artifacts()
    probes = bench_dir / "probes"
    common = [probes / "common.h"]
    for arch in (ARCH_GUEST, ARCH_NATIVE):
        d = out_dir / "build" / arch
        d.mkdir(parents=True, exist_ok=True)
        for name in PROBES:
            _build_c(arts, arch, name, probes / f"{name}.c", common, d, True, log)
        for name in WORKLOAD_PROBES:
            _build_c(arts, arch, name, repo_dir / "workloads" / name / f"{name}.c", [], d, True, log)
        for name, stem in DYNAMIC.items():
            _build_c(arts, arch, name, probes / f"{stem}.c", common, d, False, log)
        _build_go(arts, arch, "gosig", bench_dir / "go" / "gosig", d, log)
        _build_stall(arts, arch, repo_dir / "workloads" / "stall", d, common, log)
    host = out_dir / "build" / ARCH_HOST
    host.mkdir(parents=True, exist_ok=True)
    _build_c(arts, ARCH_NATIVE, "spawntime", bench_dir / "harness" / "spawntime.c", [], host, False, log)
    if (ARCH_NATIVE, "spawntime") in arts.paths:
        arts.paths[(ARCH_HOST, "spawntime")] = arts.paths.pop((ARCH_NATIVE, "spawntime"))
    else:
        arts.missing[(ARCH_HOST, "spawntime")] = arts.missing.pop((ARCH_NATIVE, "spawntime"), "not built")
    return arts


def _build_stall(arts, arch, stall_dir, out_dir, common, log):
    """workloads/stall is a Go package (any *.go) or a C program (stall.c); see bench/README.md."""
    if list(stall_dir.glob("*.go")):
        _build_go(arts, arch, "stall", stall_dir, out_dir, log)
    elif (stall_dir / "stall.c").exists():
        _build_c(arts, arch, "stall", stall_dir / "stall.c", common, out_dir, True, log)


def stall_present(repo_dir):
    d = repo_dir / "workloads" / "stall"
    return bool(list(d.glob("*.go"))) or (d / "stall.c").exists()


def tool_versions(a64run):
    """One line per tool, for the report header."""
    def first_line(cmd):
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
            return ((p.stdout or p.stderr).strip().splitlines() or ["?"])[0]
        except (OSError, subprocess.TimeoutExpired):
            return "not available"

    out = {
        "gcc (native)": first_line(["gcc", "--version"]),
        "aarch64-linux-gnu-gcc": first_line(["aarch64-linux-gnu-gcc", "--version"]),
        "qemu-aarch64": first_line(["qemu-aarch64", "--version"]),
        "go": first_line(["go", "version"]),
    }
    exists = a64run and Path(a64run).exists()
    out["a64run"] = first_line([str(a64run), "--version"]) if exists else "not built"
    return out
