"""The thirteen scipy-named functions on numpy arrays against scipy.ndimage's on the same arrays,
on the CPU (no GPU needed): each call timed to completion, median after warm-up.

    python3 python/bench_cpu.py [--sizes 64,2048]

Prints one row a function, size and dtype (float32, float64), then the slowest and the median
ratio of scipy's time to the package's per size and dtype."""

import argparse
import os
import statistics
import sys
import time

import numpy as np
import scipy
import scipy.ndimage as nd

# Run from a checkout, this folder holds the package's sources without their extension: the
# installed package is imported instead.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
import ferroconv  # noqa: E402

W5 = np.random.default_rng(2).uniform(-1, 1, (5, 5))
W31 = np.random.default_rng(1).uniform(-1, 1, 31)
CASES = [  # name, call(module, array)
    ("correlate 5x5", lambda m, a: m.correlate(a, W5)),
    ("convolve 5x5", lambda m, a: m.convolve(a, W5)),
    ("correlate1d 31, axis 0", lambda m, a: m.correlate1d(a, W31, axis=0)),
    ("convolve1d 31, axis 1", lambda m, a: m.convolve1d(a, W31, axis=1)),
    ("gaussian_filter 2", lambda m, a: m.gaussian_filter(a, 2.0)),
    ("gaussian_filter 2, order 1", lambda m, a: m.gaussian_filter(a, 2.0, order=1)),
    ("gaussian_filter 50", lambda m, a: m.gaussian_filter(a, 50.0)),
    ("gaussian_filter1d 4", lambda m, a: m.gaussian_filter1d(a, 4.0)),
    ("uniform_filter 9", lambda m, a: m.uniform_filter(a, 9)),
    ("uniform_filter1d 9", lambda m, a: m.uniform_filter1d(a, 9)),
    ("sobel", lambda m, a: m.sobel(a)),
    ("prewitt", lambda m, a: m.prewitt(a)),
    ("laplace", lambda m, a: m.laplace(a)),
    ("gaussian_laplace 2", lambda m, a: m.gaussian_laplace(a, 2.0)),
    ("gaussian_gradient_magnitude 2", lambda m, a: m.gaussian_gradient_magnitude(a, 2.0)),
]


def t_ms(fn, n):
    for _ in range(2):
        fn()
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        ts.append((time.perf_counter() - t) * 1e3)
    return statistics.median(ts)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="64,2048", help="square image sides, comma-separated")
    args = ap.parse_args()
    print(f"{os.cpu_count()} CPUs, scipy {scipy.__version__}, numpy {np.__version__}, ferroconv {ferroconv.__version__}")
    print("size | dtype | function | scipy ms | ferroconv ms | scipy / ferroconv")
    rng = np.random.default_rng(0)
    summary = []
    for n in (int(s) for s in args.sizes.split(",")):
        runs = 200 if n <= 256 else 7
        for dt in (np.float32, np.float64):
            a = rng.random((n, n)).astype(dt)
            ratios = []
            for name, call in CASES:
                theirs = t_ms(lambda: call(nd, a), runs)
                ours = t_ms(lambda: call(ferroconv, a), runs)
                ratios.append(theirs / ours)
                print(f"{n}² | {a.dtype} | {name} | {theirs:.3f} | {ours:.3f} | {theirs / ours:.2f}", flush=True)
            slowest = min(range(len(CASES)), key=ratios.__getitem__)
            summary.append((n, a.dtype, ratios[slowest], CASES[slowest][0], statistics.median(ratios)))
    print("\nsize | dtype | slowest scipy / ferroconv (function) | median")
    for n, dt, low, name, med in summary:
        print(f"{n}² | {dt} | {low:.2f} ({name}) | {med:.2f}")


if __name__ == "__main__":
    main()
