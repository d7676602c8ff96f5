#!/usr/bin/env python3
"""bench/perf-plots.py -- the plots of doc/performance.md.

Reads bench/perf-data.csv (the measurements named in bench/RESULTS.md)
and draws, per algorithm, the time each implementation needs to deliver
a given true relative accuracy:
  doc/perf-cuhre.png  gCuhre (H200, and CPU threads) against the reference
                      PAGANI (H200) and Cuba 4.2.2's Cuhre (one CPU core)
  doc/perf-vegas.png  gVegas (H200) against m-Cubes and cuVegas (H200)

Time to accuracy eps: for routines with a tolerance, the time of the call
at the first tolerance L <= eps of the sweep (1e-3, 2e-4, ... divided by 5)
that returned fail = 0 with a true relative error <= eps, i.e. what a user
who asks for eps, and for less when the answer is not good enough, waits
for the first correct answer with a claim of success.  cuVegas has no
tolerance (it spends a fixed budget): its time is that of the smallest
budget whose own error estimate and true error are both <= eps.

Usage: python3 bench/perf-plots.py [CSV [OUTDIR]]
       (defaults: bench/perf-data.csv next to this script, doc/)
Needs python3 and matplotlib.  Prints the medians quoted in
doc/performance.md.  This file is part of gcuba.
"""
import csv
import math
import os
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SWEEP = [1e-3 / 5**k for k in range(11)]  # 1e-3 ... 1.024e-10
CASES = ["f1_8", "f2_6", "f3_3", "f3_8", "f4_5", "f4_6", "f4_8", "f5_8",
         "f6_5", "f6_6", "f7_8", "f8_8"]
NAMES = {"f1": "oscillatory", "f2": "product peak", "f3": "corner peak",
         "f4": "Gaussian", "f5": "C0 exponential", "f6": "discontinuous",
         "f7": "box B8_22", "f8": "box B8_15"}
# (implementation, device) -> line style
STYLE = {
    ("gCuhre", "H200"): dict(color="C0", marker="o", ls="-"),
    ("PAGANI", "H200"): dict(color="C1", marker="s", ls="-"),
    ("gCuhre", "CPU 2 threads"): dict(color="C0", marker="o", ls="--",
                                      mfc="none"),
    ("Cuba Cuhre", "CPU 1 core"): dict(color="C2", marker="^", ls="--",
                                       mfc="none"),
    ("gVegas", "H200"): dict(color="C0", marker="o", ls="-"),
    ("m-Cubes", "H200"): dict(color="C1", marker="s", ls="-"),
    ("cuVegas", "H200"): dict(color="C3", marker="D", ls="-"),
}


def fnum(s):
    try:
        return float(s)
    except ValueError:
        return None


def load(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def time_to(rows, eps):
    """ms to a correct answer within eps with a claim (see above), or None"""
    if rows and rows[0]["impl"] == "cuVegas":
        best = None
        for r in rows:
            sig, tr, ms = (fnum(r["sigma_rel"]), fnum(r["true_relerr"]),
                           fnum(r["ms"]))
            if sig is not None and sig <= eps and tr <= eps:
                best = ms if best is None else min(best, ms)
        return best
    levels = sorted((r for r in rows if fnum(r["epsrel"]) <= eps * 1.0001),
                    key=lambda r: -fnum(r["epsrel"]))
    for r in levels:
        if r["fail"] == "0" and fnum(r["true_relerr"]) <= eps:
            return fnum(r["ms"])
    return None


def curves(data, algorithm):
    """{(impl, device): {case: [(eps, ms), ...]}}"""
    out = {}
    for key in STYLE:
        rows = [r for r in data if r["algorithm"] == algorithm and
                (r["impl"], r["device"]) == key]
        if not rows:
            continue
        per = {}
        for case in CASES:
            cr = [r for r in rows if r["case"] == case]
            pts = [(e, time_to(cr, e)) for e in SWEEP] if cr else []
            per[case] = [(e, t) for e, t in pts if t is not None]
        out[key] = per
    return out


def plot(cv, title, png):
    fig, axes = plt.subplots(3, 4, figsize=(13, 9), sharex=True)
    for ax, case in zip(axes.flat, CASES):
        fam, d = case.split("_")
        drawn = 0
        for key, per in cv.items():
            pts = per.get(case, [])
            if pts:
                ax.plot([-math.log10(e) for e, _ in pts], [t for _, t in pts],
                        ms=4, lw=1.2, label=f"{key[0]} ({key[1]})",
                        **STYLE[key])
                drawn += 1
        if not drawn:
            ax.text(0.5, 0.5, "no correct answer at 1e-3", ha="center",
                    va="center", transform=ax.transAxes, fontsize=9)
        ax.set_yscale("log")
        ax.set_title(f"{fam} {NAMES[fam]}, {d}D", fontsize=10)
        ax.grid(True, which="major", alpha=0.3)
    fig.supxlabel("digits asked for and delivered: -log10(eps), true "
                  "relative error <= eps")
    fig.supylabel("milliseconds to the first correct answer")
    handles, labels = {}, {}
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    fig.legend(list(handles.values()), list(handles.keys()),
               loc="lower center", ncol=len(handles), frameon=False,
               bbox_to_anchor=(0.5, 0.02))
    fig.suptitle(title)
    fig.tight_layout(rect=(0, 0.05, 1, 0.97))
    fig.savefig(png, dpi=80)
    plt.close(fig)
    print("wrote", png)


def ratios(cv, ours, theirs):
    """their ms / our ms wherever both reached a level"""
    out = []
    for case in CASES:
        a = dict(cv.get(ours, {}).get(case, []))
        b = dict(cv.get(theirs, {}).get(case, []))
        out += [b[e] / a[e] for e in a if e in b]
    return out


def summary(cv, ours, theirs):
    r = ratios(cv, ours, theirs)
    if r:
        print(f"{theirs[0]} ({theirs[1]}) / {ours[0]} ({ours[1]}): median "
              f"{statistics.median(r):.2f}x over {len(r)} levels, "
              f"min {min(r):.2f}, max {max(r):.1f}, "
              f"{sum(x >= 1 for x in r)} at or above 1")


def main():
    csvpath = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        HERE, "perf-data.csv")
    outdir = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        HERE, "..", "doc")
    data = load(csvpath)
    cu = curves(data, "cuhre")
    ve = curves(data, "vegas")
    plot(cu, "Cuhre: time to a correct answer (PAGANI test suite)",
         os.path.join(outdir, "perf-cuhre.png"))
    plot(ve, "Vegas: time to a correct answer (PAGANI test suite)",
         os.path.join(outdir, "perf-vegas.png"))
    summary(cu, ("gCuhre", "H200"), ("PAGANI", "H200"))
    summary(cu, ("gCuhre", "H200"), ("Cuba Cuhre", "CPU 1 core"))
    summary(cu, ("gCuhre", "CPU 2 threads"), ("Cuba Cuhre", "CPU 1 core"))
    summary(ve, ("gVegas", "H200"), ("m-Cubes", "H200"))
    summary(ve, ("gVegas", "H200"), ("cuVegas", "H200"))


if __name__ == "__main__":
    main()
