"""OpenCV's side of `cargo xtask cpu-bench` (which runs it with OpenCV from pip on PYTHONPATH).

`time`: times one OpenCV call in-process on a random image, output allocated once (`dst=`), after
warm-ups, and prints a `#` line then each run's milliseconds, one per line (as `host cpu-time`).
`check`: reads what `host cpu-time --dump DIR` wrote (input, taps, result), runs the OpenCV call
on the same input and fails unless the results agree within 1 level (u8) or 1e-4 (f32); alpha of
RGBA is left out (the host copies it, OpenCV filters it).

The calls, all with BORDER_REPLICATE: `random` -> filter2D (correlation, as the host computes),
`gaussian` -> GaussianBlur, `box` and `sobel-x` -> sepFilter2D.
"""
import argparse
import sys
import time

import cv2
import numpy as np

BORDER = cv2.BORDER_REPLICATE


def random_taps(k, seed):
    """Random taps in [-0.3, 1) summing to 1, as `Filter::random_normalized` (not the same values)."""
    taps = np.random.default_rng(seed).uniform(-0.3, 1.0, (k, k))
    return (taps / max(taps.sum(), 0.5)).astype(np.float32)


def separable_factors(case, k):
    """(along x, along y) of the rank-1 filters timed with sepFilter2D, as the host builds them."""
    if case == "box":
        row = np.full(k, 1.0 / k, dtype=np.float32)
        return row, row
    if case == "sobel-x":
        smooth = np.array([1.0], dtype=np.float64)
        for _ in range(k - 1):
            smooth = np.convolve(smooth, [1.0, 1.0])
        deriv = np.array([1.0], dtype=np.float64)
        for _ in range(k - 3):
            deriv = np.convolve(deriv, [1.0, 1.0])
        deriv = np.convolve(deriv, [-1.0, 0.0, 1.0])
        return deriv.astype(np.float32), smooth.astype(np.float32)
    raise SystemExit(f"no separable factors for '{case}'")


def opencv_call(case, k, sigma, taps):
    """The OpenCV call for a case: a function of (image, dst)."""
    if case == "random":
        return lambda img, dst: cv2.filter2D(img, -1, taps, dst=dst, borderType=BORDER)
    if case == "gaussian":
        return lambda img, dst: cv2.GaussianBlur(
            img, (k, k), sigma, dst=dst, sigmaY=sigma, borderType=BORDER
        )
    kx, ky = separable_factors(case, k)
    return lambda img, dst: cv2.sepFilter2D(img, -1, kx, ky, dst=dst, borderType=BORDER)


def shape(size, channels):
    return (size, size) if channels == 1 else (size, size, channels)


def time_case(a):
    rng = np.random.default_rng(a.seed)
    if a.dtype == "u8":
        img = rng.integers(0, 256, shape(a.size, a.channels), dtype=np.uint8)
    else:
        img = rng.random(shape(a.size, a.channels), dtype=np.float32)
    call = opencv_call(a.case, a.k, a.sigma, random_taps(a.k, a.seed))
    dst = np.empty_like(img)
    for _ in range(a.warmups):
        call(img, dst)
    times = []
    for _ in range(a.runs):
        start = time.perf_counter()
        call(img, dst)
        times.append((time.perf_counter() - start) * 1e3)
    print(f"# opencv {cv2.__version__}, {cv2.getNumThreads()} thread(s), numpy {np.__version__}")
    for t in times:
        print(f"{t:.3f}")


def check_case(a):
    dtype = np.uint8 if a.dtype == "u8" else np.float32
    img = np.fromfile(f"{a.dir}/input.bin", dtype=dtype).reshape(shape(a.size, a.channels))
    host = np.fromfile(f"{a.dir}/output.bin", dtype=dtype).reshape(img.shape)
    taps = np.loadtxt(f"{a.dir}/filter.txt", dtype=np.float32, ndmin=2)
    if a.case == "gaussian":
        # The host's taps must be OpenCV's Gaussian: compare them too.
        g = cv2.getGaussianKernel(a.k, a.sigma, ktype=cv2.CV_64F)
        want = (g @ g.T).astype(np.float32)
        if not np.allclose(taps, want, atol=1e-7):
            raise SystemExit(f"check gaussian: taps differ from OpenCV's by {np.abs(taps - want).max()}")
    ours = np.empty_like(img)
    opencv_call(a.case, a.k, a.sigma, taps)(img, ours)
    if a.channels == 4:
        host, ours = host[..., :3], ours[..., :3]
    diff = float(np.abs(host.astype(np.float64) - ours.astype(np.float64)).max())
    tolerance = 1.0 if a.dtype == "u8" else 1e-4
    verdict = "ok" if diff <= tolerance else "MISMATCH"
    print(
        f"check {a.case} k={a.k} {a.dtype} {a.channels}ch {a.size}x{a.size}: "
        f"max |host - OpenCV| = {diff:.3g} (tolerance {tolerance:g}): {verdict}"
    )
    if diff > tolerance:
        sys.exit(1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["time", "check"])
    parser.add_argument("--case", required=True, choices=["random", "gaussian", "box", "sobel-x"])
    parser.add_argument("--size", type=int, default=4096)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--sigma", type=float, default=0.0)
    parser.add_argument("--dtype", choices=["f32", "u8"], default="f32")
    parser.add_argument("--channels", type=int, choices=[1, 3, 4], default=1)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--warmups", type=int, default=3)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--dir", help="check: the folder `host cpu-time --dump` wrote")
    a = parser.parse_args()
    if a.mode == "time":
        time_case(a)
    else:
        check_case(a)


if __name__ == "__main__":
    main()
