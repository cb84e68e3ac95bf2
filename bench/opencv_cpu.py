"""Times OpenCV's filter2D on the CPU for the case `host --size N --mask K --cpu-only` times as
cpu-par: an N×N f32 image, a K×K box filter, zero border, all cores; median of 20 calls after
warm-up, output buffer allocated once (as OpenCV users do with `dst=`).

Usage: python3 bench/opencv_cpu.py [N] [K]
"""
import statistics
import sys
import time

import cv2
import numpy as np


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2048
    k = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    image = np.random.default_rng(42).random((n, n), dtype=np.float32)
    kernel = np.full((k, k), 1.0 / (k * k), dtype=np.float32)
    out = np.empty_like(image)
    for _ in range(3):
        cv2.filter2D(image, -1, kernel, dst=out, borderType=cv2.BORDER_CONSTANT)
    times = []
    for _ in range(20):
        t = time.perf_counter()
        cv2.filter2D(image, -1, kernel, dst=out, borderType=cv2.BORDER_CONSTANT)
        times.append((time.perf_counter() - t) * 1e3)
    print(f"opencv filter2D {n}x{n} k={k} f32: median {statistics.median(times):.3f} ms, "
          f"min {min(times):.3f} ms, {cv2.getNumThreads()} threads, OpenCV {cv2.__version__}")


if __name__ == "__main__":
    main()
