"""RGB and RGBA against gray, per sample, from `host bench --channels 1,3,4` CSV files (several
rounds: one file per round, or one file whose rows hold every round).

For each size, sample type and k: the median over the rounds of each warm row's median ms, the
fastest variant per channel count, and (colour time / channels) / gray time; 1.00 means a colour
sample costs what a gray pixel costs.

Usage: python3 bench/per_sample.py bench.csv [more.csv ...]
"""
import collections
import csv
import statistics
import sys


def main():
    rows = collections.defaultdict(list)
    for path in sys.argv[1:]:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                if r["cache"] != "warm":
                    continue
                key = (r["size"], r["dtype"], int(r["channels"]), int(r["k"]), r["variant"])
                rows[key].append(float(r["median ms"]))
    t = {key: statistics.median(v) for key, v in rows.items()}
    sizes = sorted({key[0] for key in t}, key=lambda s: int(s.split("x")[0]))
    for size in sizes:
        for dtype in sorted({key[1] for key in t}):
            for k in sorted({key[3] for key in t}):
                best = {}
                for c in (1, 3, 4):
                    times = [(ms, key[4]) for key, ms in t.items() if key[:4] == (size, dtype, c, k)]
                    if times:
                        best[c] = min(times)
                if 1 not in best:
                    continue
                line = f"{size} {dtype} k={k}: gray {best[1][0]:.4f} ({best[1][1]})"
                for c, name in ((3, "RGB"), (4, "RGBA")):
                    if c in best:
                        ms, v = best[c]
                        line += f" | {name} {ms:.4f} ({v}) per sample {ms / c / best[1][0]:.2f}"
                print(line)


if __name__ == "__main__":
    main()
