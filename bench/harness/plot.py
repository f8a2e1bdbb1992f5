"""Draws the latency distributions (SAMPLES lines) as one PNG with gnuplot: a panel per distribution, a
cumulative distribution per runner on a logarithmic time axis, so the medians and the tails of native,
qemu-aarch64 and a64run read side by side. Returns (the PNG's path or None, a sentence for the report)."""

import shutil
import subprocess

from catalogue import PLOTTED
from report import RUNNER_ORDER

COLORS = {"native": "#2b8a3e", "qemu-aarch64": "#1c5fbf", "a64run": "#d9480f", "a64run-base": "#868e96"}


def _write_cdf(path, values):
    v = sorted(x for x in values if x > 0)
    with open(path, "w") as f:
        for i, x in enumerate(v):
            f.write(f"{x:.4f} {(i + 1) / len(v):.5f}\n")
    return bool(v)


def plot(samples, units, out_dir):
    gnuplot = shutil.which("gnuplot")
    if gnuplot is None:
        return None, "No plot: gnuplot is not installed (apt-get install -y gnuplot-nox)."
    d = out_dir / "plot"
    d.mkdir(parents=True, exist_ok=True)
    png = out_dir / "latency.png"
    cols = 2
    rows = (len(PLOTTED) + cols - 1) // cols
    gp = [f"set terminal pngcairo size 1400,{360 * rows} font 'sans,10'",
          f"set output '{png}'",
          f"set multiplot layout {rows},{cols} title 'Latency distributions (CDF per runner, log time axis)'",
          "set logscale x", "set grid", "set key bottom right", "set yrange [0:1]",
          "set ylabel 'fraction'", "set termoption noenhanced"]
    drawn = 0
    for name in PLOTTED:
        per = samples.get(name, {})
        plots = []
        for runner in RUNNER_ORDER:
            f = d / f"{name}.{runner}.dat"
            if runner in per and _write_cdf(f, per[runner]):
                plots.append(f"'{f}' using 1:2 with steps lw 2 lc rgb '{COLORS[runner]}' title '{runner}'")
        gp += [f"set title '{name}'", f"set xlabel '{units.get(name, '')}'"]
        if plots:
            drawn += 1
            gp += ["unset label", "set autoscale x", "plot " + ", ".join(plots)]
        else:
            gp += ["set label 1 'no data' at graph 0.45, graph 0.5", "set xrange [1:10]",
                   "plot 1/0 notitle", "unset label 1", "set autoscale x"]
    gp.append("unset multiplot")
    script = d / "latency.gp"
    script.write_text("\n".join(gp) + "\n")
    try:
        p = subprocess.run([gnuplot, str(script)], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, f"No plot: gnuplot failed ({e})."
    if p.returncode != 0:
        return None, f"No plot: gnuplot failed ({(p.stderr.strip().splitlines() or ['?'])[-1]})."
    return png, (f"`bench/out/latency.png`: {drawn} of {len(PLOTTED)} distributions had samples "
                 f"(gnuplot script: `bench/out/plot/latency.gp`).")
