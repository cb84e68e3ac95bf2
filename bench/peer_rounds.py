"""Our fastest gray f32 variant against the best `g_fast` row of the external peer harness
`peers.cu`, over several rounds: reads the `peers-ratio.csv` files that
`host bench --peers peers.csv` writes (one per round, or one file whose rows hold every round)
and prints, per size and k, each round's ratio, their median, and the geometric mean of the
medians over the 2048² and 8192² cases and over all cases.

Usage: python3 bench/peer_rounds.py peers-ratio.csv [more.csv ...]
"""
import collections
import csv
import math
import statistics
import sys


def main():
    rows = collections.defaultdict(list)
    for path in sys.argv[1:]:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                rows[(r["size"], int(r["k"]))].append(float(r["ours / g_fast"]))
    med = {}
    for (size, k), ratios in sorted(rows.items(), key=lambda x: (int(x[0][0].split("x")[0]), x[0][1])):
        med[(size, k)] = statistics.median(ratios)
        print(f"{size} k={k}: " + " ".join(f"{x:.3f}" for x in ratios) + f" | median {med[(size, k)]:.3f}")

    def geo(xs):
        return math.exp(sum(map(math.log, xs)) / len(xs))

    ten = [m for (s, _), m in med.items() if s in ("2048x2048", "8192x8192")]
    if ten:
        print(f"geometric mean of the medians: 2048² and 8192² ({len(ten)} cases) {geo(ten):.3f}, "
              f"all {len(med)} cases {geo(list(med.values())):.3f}")


if __name__ == "__main__":
    main()
