# Which kernel cuBLAS runs at each skinny GEMM shape, beside ours: runs bench_skinny_gemm under Nsight Compute once
# per shape and side (our skinny_gemm kernel; cuBLAS's GEMM and split-K reduction kernels) and prints one table
# row per shape: cuBLAS's kernel name, grid, CTAs, cluster size, duration and DRAM throughput (and its split-K
# reduction's duration), then ours. Writes bench/kernels/data/cublas_kernels_h200.txt's table.
# Durations are ncu's (locked clocks, each launch alone): compare the two sides of one row only.
#   python3 profile_skinny_vs_cublas.py [--bench ./bench_skinny_gemm] [--ncu ncu] [--csv-dir DIR] [N,K,M ...]
#   python3 profile_skinny_vs_cublas.py --from-csv DIR     (the table from CSVs an earlier run kept)
# Without shapes: the benchmark's 54. Not a bench_* program: run-gpu.sh does not run it (it takes ~6 s a shape).
import argparse
import csv
import os
import re
import subprocess
import sys

SECTIONS = ["SpeedOfLight", "LaunchStats", "Occupancy"]
FILTERS = {  # ncu --kernel-name filters: ours, and cuBLAS's kernels (not the benchmark's own helper kernels)
    "ours": "regex:skinny",
    "cublas": "regex:^(?!.*skinny).*(gemm|gemv|xmma|cutlass|splitK|nvjet|Reduce|reduce).*",
}
METRICS = {"Duration": "ns", "DRAM Throughput": "dram", "Cluster Size": "cluster"}


def fail(msg):
    print("profile_skinny_vs_cublas: " + msg, file=sys.stderr)
    sys.exit(2)


def profile(bench, ncu, side, shape, csv_path):
    n, k, m = shape
    env = dict(os.environ, DSV4_BENCH_N=str(n), DSV4_BENCH_K=str(k), DSV4_BENCH_M=str(m))
    cmd = [ncu, "-k", FILTERS[side], "--launch-skip", "3", "--launch-count", "2", "--kill", "yes"]
    for s in SECTIONS:
        cmd += ["--section", s]
    cmd += ["--csv", "--page", "details", bench]
    with open(csv_path, "w") as out:
        subprocess.run(cmd, env=env, stdout=out, stderr=subprocess.STDOUT, timeout=120, check=False)


def kernels(csv_path):
    """The profiled kernels of one CSV in launch order, once per name: (name, grid, {metric: value})."""
    if not os.path.exists(csv_path):
        return []
    lines = [l for l in open(csv_path) if l.startswith('"')]
    if not lines:
        return []
    rows = list(csv.reader(lines))
    col = {name: i for i, name in enumerate(rows[0])}
    found = {}
    for r in rows[1:]:
        key = (r[col["ID"]], r[col["Kernel Name"]], r[col["Grid Size"]])
        if r[col["Metric Name"]] in METRICS:
            found.setdefault(key, {})[METRICS[r[col["Metric Name"]]]] = float(r[col["Metric Value"]].replace(",", ""))
    seen, out = set(), []
    for (_, name, grid), metrics in found.items():
        if name in seen:
            continue
        seen.add(name)
        out.append((name, grid, metrics))
    return out


def ctas(grid):
    prod = 1
    for d in re.findall(r"\d+", grid):
        prod *= int(d)
    return prod


def row(shape, csv_dir):
    n, k, m = shape
    theirs = kernels(os.path.join(csv_dir, "ncu_cublas_%d_%d_%d.csv" % shape))
    ours = kernels(os.path.join(csv_dir, "ncu_ours_%d_%d_%d.csv" % shape))
    main = [t for t in theirs if "splitKreduce" not in t[0]]
    red = [t for t in theirs if "splitKreduce" in t[0]]
    if not main or not ours:
        return "%5d %6d %6d | not profiled (see the CSVs in %s)" % (n, k, m, csv_dir)
    name, grid, cm = main[0]
    name = re.sub(r"^nvjet_sm90_tst_", "", name)[:40]
    _, ogrid, om = ours[0]
    reduce_us = "%5.2f" % (red[0][2]["ns"] / 1e3) if red else "    -"
    return "%5d %6d %6d | %-40s %-12s %4d %2d %6.2f %5.1f | %s | %4d %2d %6.2f %5.1f" % (
        n, k, m, name, grid, ctas(grid), cm.get("cluster", 0), cm["ns"] / 1e3, cm["dram"], reduce_us,
        ctas(ogrid), om.get("cluster", 0), om["ns"] / 1e3, om["dram"])


def main():
    ap = argparse.ArgumentParser(description="cuBLAS's kernels beside ours, per shape, under Nsight Compute")
    ap.add_argument("shapes", nargs="*", help="N,K,M (default: the benchmark's 54)")
    ap.add_argument("--bench", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench_skinny_gemm"))
    ap.add_argument("--ncu", default="ncu")
    ap.add_argument("--csv-dir", default="ncu-skinny")
    ap.add_argument("--from-csv", metavar="DIR", help="only tabulate the CSVs in DIR")
    args = ap.parse_args()
    if args.shapes:
        try:
            shapes = [tuple(int(x) for x in s.split(",")) for s in args.shapes]
            if any(len(s) != 3 for s in shapes):
                raise ValueError
        except ValueError:
            fail("a shape is N,K,M (three integers), got %s" % " ".join(args.shapes))
    elif args.from_csv:
        if not os.path.isdir(args.from_csv):
            fail("no folder %s (--from-csv)" % args.from_csv)
        found = set()
        for name in os.listdir(args.from_csv):
            mm = re.match(r"^ncu_(?:ours|cublas)_(\d+)_(\d+)_(\d+)\.csv$", name)
            if mm:
                found.add(tuple(int(x) for x in mm.groups()))
        shapes = sorted(found)
    else:
        shapes = [(n, k, m) for n in (1, 4, 16, 32, 64, 128) for k in (2048, 7168, 16384) for m in (1024, 4096, 7168)]
    csv_dir = args.from_csv or args.csv_dir
    if not args.from_csv:
        if not os.access(args.bench, os.X_OK):
            fail("no bench_skinny_gemm at %s (--bench)" % args.bench)
        os.makedirs(csv_dir, exist_ok=True)
    print("    N      K      M | cuBLAS main kernel (nvjet_sm90_tst_...)   grid         CTAs cl     us  DRAM%"
          " | reduce us | ours: CTAs cl     us  DRAM%")
    for shape in shapes:
        if not args.from_csv:
            for side in ("ours", "cublas"):
                profile(args.bench, args.ncu, side, shape, os.path.join(csv_dir, "ncu_%s_%d_%d_%d.csv" % ((side,) + shape)))
        print(row(shape, csv_dir), flush=True)


if __name__ == "__main__":
    main()
