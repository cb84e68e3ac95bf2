"""Per-call times of ferroconv from Python on one GPU: PyTorch tensors in and out, CuPy arrays in
and out, and numpy arrays, each call timed to completion (synchronized), median after warm-up;
border `mirror` (edge not repeated) and general random filters, the cases of the peers' harness.

    python3 python/bench.py [--peers PATH/py_peers.py]

`--peers` first runs that external harness (torch conv2d, CuPy correlate, kornia filter2d,
cv2.filter2D) in a process of its own, so both tables come from the same run on the same card.
Also prints, for the overhead goal, the time of a one-element torch (and CuPy) operation timed the
same way and the plan's kernel alone (CUDA events on the same arrays)."""

import statistics
import subprocess
import sys
import time

import cupy as cp
import numpy as np
import torch

import ferroconv

CASES = [  # name, N, H, W, C, dtype, k, runs
    ("512x512 RGB u8 k5", 1, 512, 512, 3, np.uint8, 5, 200),
    ("2048x2048 gray f32 k5", 1, 2048, 2048, 1, np.float32, 5, 100),
    ("8192x8192 gray f32 k5", 1, 8192, 8192, 1, np.float32, 5, 20),
    ("8192x8192 gray u8 k3", 1, 8192, 8192, 1, np.uint8, 3, 20),
    ("8192x8192 gray f32 k17", 1, 8192, 8192, 1, np.float32, 17, 10),
    ("batch 64x224x224 RGB u8 k5", 64, 224, 224, 3, np.uint8, 5, 50),
    ("4096x4096 gray f32 k31", 1, 4096, 4096, 1, np.float32, 31, 10),
]


def t_ms(fn, sync, n):
    for _ in range(3):
        fn()
    sync()
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        sync()
        ts.append((time.perf_counter() - t) * 1e3)
    return statistics.median(ts)


def main():
    if "--peers" in sys.argv:
        path = sys.argv[sys.argv.index("--peers") + 1]
        print(f"== peers ({path})", flush=True)
        subprocess.run([sys.executable, path], check=True)
    tsync, csync = torch.cuda.synchronize, cp.cuda.Device().synchronize
    rng = np.random.default_rng(0)
    print(f"\n== ferroconv {torch.__version__=} {cp.__version__=} {np.__version__=}")
    print("case | torch in/out ms | CuPy in/out ms | numpy in/out ms | numpy into output= ms | variant | torch == numpy")
    for name, n, h, w, c, dt, k, runs in CASES:
        shape = (n, h, w, c) if n > 1 else ((h, w, c) if c > 1 else (h, w))
        x = rng.integers(0, 256, shape, dtype=np.uint8) if dt == np.uint8 else rng.random(shape, dtype=np.float32)
        f = rng.uniform(-1, 1, (k, k)).astype(np.float32)
        f /= np.abs(f).sum()
        plan = ferroconv.Filter2D(f, mode="mirror")
        xt, xc = torch.from_numpy(x).cuda(), cp.asarray(x)
        tt = t_ms(lambda: plan(xt), tsync, runs)
        ct = t_ms(lambda: plan(xc), csync, runs)
        nt = t_ms(lambda: plan(x), lambda: None, max(3, runs // 4))
        out = np.empty_like(x)
        ot = t_ms(lambda: plan(x, output=out), lambda: None, max(3, runs // 4))
        same = np.array_equal(plan(xt).cpu().numpy(), plan(x))
        print(f"{name} | {tt:.4f} | {ct:.4f} | {nt:.3f} | {ot:.3f} | {plan.variant} | {same}", flush=True)
    # numpy results in memory never touched before: the pool of dead results off and emptied.
    x = rng.random((8192, 8192), dtype=np.float32)
    plan = ferroconv.Filter2D(rng.uniform(-1, 1, (5, 5)), mode="mirror")
    pool = getattr(ferroconv, "_numpy", ferroconv)  # the result pool's module
    kept = pool._POOL_MAX
    pool._POOL_MAX = 0
    pool._pool.clear()
    pool._pool_kept[0] = 0
    print(f"8192x8192 gray f32 k5, numpy into memory never used before (result pool off): "
          f"{t_ms(lambda: plan(x), lambda: None, 10):.3f} ms")
    pool._POOL_MAX = kept
    # The overhead goal's references: a one-element operation timed the same way.
    one_t = torch.zeros(1, device="cuda")
    one_c = cp.zeros(1)
    print(f"one-element torch add: {t_ms(lambda: one_t.add_(1), tsync, 1000):.4f} ms; "
          f"CuPy add: {t_ms(lambda: one_c.__iadd__(1), csync, 1000):.4f} ms")
    x = torch.rand(2048, 2048, device="cuda")
    plan = ferroconv.Filter2D(rng.uniform(-1, 1, (5, 5)), mode="mirror")
    plan(x)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(200):
        start.record()
        plan(x)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    print(f"2048x2048 gray f32 k5 on torch: one call between CUDA events {statistics.median(times):.4f} ms, "
          f"synchronized call {t_ms(lambda: plan(x), tsync, 1000):.4f} ms")


if __name__ == "__main__":
    main()
