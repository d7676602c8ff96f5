#!/usr/bin/env python3
"""bench/ncu-sum.py -- device time per kernel from ncu's CSV.

    ncu --metrics gpu__time_duration.sum --csv PROGRAM ARGS > run.csv
    python3 bench/ncu-sum.py run.csv

prints, per kernel name (template arguments and parameters dropped),
the launches and their summed gpu__time_duration in ms, largest first,
then the total.  bench/gpu-check.sh vegasbatch uses it.  This file is
part of gcuba."""
import collections
import csv
import re
import sys

UNIT_MS = {"nsecond": 1e-6, "ns": 1e-6, "usecond": 1e-3, "us": 1e-3,
           "msecond": 1.0, "ms": 1.0, "second": 1e3, "s": 1e3}


def main(path):
    total = collections.defaultdict(float)
    count = collections.Counter()
    head = None
    with open(path, newline="") as f:
        for row in csv.reader(f):
            if "Kernel Name" in row and "Metric Value" in row:
                head = row
                continue
            if head is None or len(row) != len(head):
                continue
            d = dict(zip(head, row))
            if d.get("Metric Name") != "gpu__time_duration.sum":
                continue
            name = re.sub(r"[<(].*", "", d["Kernel Name"]).replace("void ", "")
            unit = d.get("Metric Unit", "nsecond")
            if unit not in UNIT_MS:
                sys.exit("ncu-sum.py: unknown unit %r" % unit)
            total[name] += float(d["Metric Value"].replace(",", "")) * UNIT_MS[unit]
            count[name] += 1
    if not total:
        sys.exit("ncu-sum.py: no gpu__time_duration.sum rows in %s" % path)
    for name in sorted(total, key=lambda k: -total[k]):
        print("%-36s %6d launches %10.2f ms" % (name, count[name], total[name]))
    print("%-36s %6d launches %10.2f ms" % ("total", sum(count.values()),
                                           sum(total.values())))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: ncu-sum.py FILE.csv")
    main(sys.argv[1])
