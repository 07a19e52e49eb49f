#!/usr/bin/env python3
"""Merges bench_skinny_gemm layout sweeps (DSV4_BENCH_SWEEP=2 output) into fit_skinny_model's input: each layout's
fastest time over the given sweeps. A layout is the whole line before its time (kernel, tile, panels, residency,
slices, shards, grid) plus its reduction, so a sweep of a changed plan (other panels per slot, say) never merges
with an older one. Usage: merge_skinny_sweeps.py HEADER_FILE SWEEP... > data/skinny_sweep_h200.txt
(HEADER_FILE: the comment lines to put on top; '-' for none)."""
import re
import sys

LINE = re.compile(r"^\s*(layout \d+ \d+ \d+ \| .*?) \| ([0-9.]+) us \| model [0-9.]+( reduce=cluster)?\s*$")
DATA = re.compile(r"^\s*(layout \d+ \d+ \d+ \| .*?) \| ([0-9.]+) us( reduce=cluster)?\s*$")


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    best, order = {}, []
    for path in argv[2:]:
        with open(path) as f:
            for raw in f:
                m = LINE.match(raw) or DATA.match(raw)
                if not m:
                    continue
                key = (m.group(1), m.group(3) or "")
                t = float(m.group(2))
                if key not in best:
                    order.append(key)
                    best[key] = t
                else:
                    best[key] = min(best[key], t)
    if argv[1] != "-":
        with open(argv[1]) as f:
            sys.stdout.write(f.read())
    for key in order:
        sys.stdout.write(f"{key[0]} | {best[key]:.2f} us{key[1]}\n")


if __name__ == "__main__":
    main(sys.argv)
