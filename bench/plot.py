#!/usr/bin/env python3
"""bench/plot.py -- plot the CSV of bench/bench-cuhre or bench/bench-vegas
(the routine is named after the file: "vegas" in its name means gVegas):
wall time per call
(ms, log scale) against digits requested, -log10(epsrel), one line per
suite case.  Filled markers: converged (fail = 0 and true relative error
<= epsrel); hollow: not converged (fail != 0, a false claim, or over the
time limit).  Skipped levels (not run) are not drawn.

usage: python3 bench/plot.py [bench-cuhre.csv [bench-cuhre.png]]
       python3 bench/plot.py bench-vegas.csv bench-vegas.png
Needs python3 and matplotlib only.  This file is part of gcuba.
"""
import csv
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    cases = {}
    with open(path, newline="") as fh:
        for r in csv.DictReader(fh):
            if r.get("status") == "skipped" or not r.get("ms"):
                continue
            try:
                eps = float(r["epsrel"])
                ms = float(r["ms"])
            except (KeyError, ValueError):
                continue
            name = "%s %sD" % (r["integrand"], r["d"])
            conv = r.get("converged", "0").strip() in ("1", "y", "yes", "True")
            cases.setdefault(name, []).append((-math.log10(eps), ms, conv))
    return cases


def main(argv):
    src = argv[1] if len(argv) > 1 else "bench-cuhre.csv"
    dst = argv[2] if len(argv) > 2 else "bench-cuhre.png"
    try:
        cases = load(src)
    except OSError as e:
        print("plot.py: %s" % e, file=sys.stderr)
        return 1
    if not cases:
        print("plot.py: no timed rows in %s" % src, file=sys.stderr)
        return 1
    fig, ax = plt.subplots(figsize=(10, 6))
    markers = "osD^v<>ph*XPd"
    colors = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
              "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
              "#000000", "#aec7e8", "#98df8a"]

    def key(n):
        # the suite's f1..f8 by number, then the others (fdiag) by name
        fam, d = n.split()
        num = fam[1:]
        return (0, int(num), "", int(d[:-1])) if num.isdigit() else \
            (1, 0, fam, int(d[:-1]))

    for i, name in enumerate(sorted(cases, key=key)):
        pts = sorted(cases[name])
        col, mk = colors[i % len(colors)], markers[i % len(markers)]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "-" + mk, lw=1.2,
                ms=6, color=col, mec=col, mfc=col, mew=1.3, label=name)
        hollow = [p for p in pts if not p[2]]
        if hollow:  # not converged: the same marker, hollow
            ax.plot([p[0] for p in hollow], [p[1] for p in hollow], mk,
                    ms=6, mec=col, mfc="white", mew=1.3)
    ax.set_yscale("log")
    ax.set_xlabel("digits requested, -log10(epsrel)")
    ax.set_ylabel("time per call (ms)")
    routine = "gVegas" if "vegas" in src.lower() else "gCuhre"
    ax.set_title("%s over the suite (filled: converged; hollow: not)"
                 % routine)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(dst, dpi=120)
    print("plot.py: wrote %s" % dst)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
