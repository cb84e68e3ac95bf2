"""Per-call times of ferroconv from Python on one GPU: PyTorch tensors in and out, CuPy arrays in
and out, and numpy arrays, each call timed to completion (synchronized), median after warm-up;
border `mirror` (edge not repeated) and general random filters, the cases of the peers' harness.

    python3 python/bench.py [--peers PATH/py_peers.py]

Then the scipy-named functions against cupyx.scipy.ndimage on the same CuPy arrays, and each
function call against a kept ``Filter2D`` running the same filter; then float16 and bfloat16
torch tensors against float32 ones.

`--peers` first runs that external harness (torch conv2d, CuPy correlate, kornia filter2d,
cv2.filter2D) in a process of its own, so both tables come from the same run on the same card.
Also prints, as references for the per-call overhead, the time of a one-element torch (and CuPy) operation timed the
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
        filt = ferroconv.Filter2D(f, mode="mirror")
        kw = {"channel_axis": -1} if c > 1 else {}

        def plan(a, **more):
            return filt(a, **kw, **more)

        xt, xc = torch.from_numpy(x).cuda(), cp.asarray(x)
        tt = t_ms(lambda: plan(xt), tsync, runs)
        ct = t_ms(lambda: plan(xc), csync, runs)
        nt = t_ms(lambda: plan(x), lambda: None, max(3, runs // 4))
        out = np.empty_like(x)
        ot = t_ms(lambda: plan(x, output=out), lambda: None, max(3, runs // 4))
        same = np.array_equal(plan(xt).cpu().numpy(), plan(x))
        print(f"{name} | {tt:.4f} | {ct:.4f} | {nt:.3f} | {ot:.3f} | {filt.variant} | {same}", flush=True)
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
    # References for the per-call overhead: a one-element operation timed the same way.
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


def ndimage_cases():
    """The scipy-named functions against cupyx.scipy.ndimage on the same CuPy arrays (each call
    synchronized), and against a kept ``Filter2D`` of the same filter where there is one."""
    import cupyx.scipy.ndimage as cnd

    csync = cp.cuda.Device().synchronize
    rng = cp.random.default_rng(0)
    f32 = lambda *s: rng.random(s, dtype=cp.float32)  # noqa: E731
    g4 = ferroconv._ndimage._fold.gaussian(4.0, 16, 4096, "reflect")[0]
    sob = np.outer([1.0, 2.0, 1.0], [-1.0, 0.0, 1.0])
    w31 = np.random.default_rng(1).uniform(-1, 1, 31)
    w5 = np.random.default_rng(2).uniform(-1, 1, (5, 5))
    cases = [  # name, array, ferroconv call, cupyx call, kept Filter2D (or None), runs
        ("gaussian_filter s4 4096^2 f32", f32(4096, 4096), lambda a: ferroconv.gaussian_filter(a, 4.0),
         lambda a: cnd.gaussian_filter(a, 4.0), ferroconv.Filter2D(np.outer(g4, g4)), 50),
        ("gaussian_filter s4 256x512x512 f32", f32(256, 512, 512), lambda a: ferroconv.gaussian_filter(a, 4.0),
         lambda a: cnd.gaussian_filter(a, 4.0), None, 10),
        ("sobel 8192^2 f32", f32(8192, 8192), ferroconv.sobel, cnd.sobel, ferroconv.Filter2D(sob), 20),
        ("uniform_filter 9 8192^2 u8", rng.integers(0, 256, (8192, 8192), dtype=cp.uint8),
         lambda a: ferroconv.uniform_filter(a, 9), lambda a: cnd.uniform_filter(a, 9),
         ferroconv.Filter2D(np.full((9, 9), 1 / 81)), 20),
        ("correlate1d 31 axis 0 8192^2 f32", f32(8192, 8192), lambda a: ferroconv.correlate1d(a, w31, axis=0),
         lambda a: cnd.correlate1d(a, cp.asarray(w31), axis=0), ferroconv.Filter2D(w31.reshape(31, 1)), 20),
        ("correlate 5x5 8192^2 f64", rng.random((8192, 8192), dtype=cp.float64), lambda a: ferroconv.correlate(a, w5),
         lambda a: cnd.correlate(a, cp.asarray(w5)), ferroconv.Filter2D(w5), 10),
        ("correlate 5x5 8192^2 f32", f32(8192, 8192), lambda a: ferroconv.correlate(a, w5),
         lambda a: cnd.correlate(a, cp.asarray(w5)), ferroconv.Filter2D(w5), 20),
        ("correlate 5x5 8192^2 f16", f32(8192, 8192).astype(cp.float16), lambda a: ferroconv.correlate(a, w5),
         None, ferroconv.Filter2D(w5), 20),
    ]
    print("\n== scipy.ndimage's functions on CuPy arrays, synchronized calls (median ms)")
    print("case | ferroconv | cupyx | cupyx / ferroconv | kept Filter2D | function / plan | max |diff| vs cupyx"
          " | variants: plan / function's plans")
    for name, a, ours, theirs, kept, runs in cases:
        t_ours = t_ms(lambda: ours(a), csync, runs)
        t_theirs = t_ms(lambda: theirs(a), csync, runs) if theirs else float("nan")
        t_kept = t_ms(lambda: kept(a), csync, runs) if kept else float("nan")
        diff = float(cp.abs(ours(a).astype(cp.float64) - theirs(a).astype(cp.float64)).max()) if theirs else float("nan")
        v = _variants(kept._plan) if kept and kept._plan else "-"
        print(f"{name} | {t_ours:.4f} | {t_theirs:.4f} | {t_theirs / t_ours:.2f}x | {t_kept:.4f} | "
              f"{t_ours / t_kept:.2f} | {diff:.3g} | {v} / {_function_variants()}", flush=True)
        del a


def _variants(plan):
    """The variants a kept ``Kernel2D`` chose for the CUDA arrays it ran."""
    return ",".join(sorted({str(run[0].variant) for run in plan._direct.values()}))


def _function_variants():
    """The variants of the plans the functions kept last."""
    return " ".join(_variants(p) for p in list(ferroconv._engine._plans.values())[-2:])


def _taps(sigma, order):
    """scipy's Gaussian derivative taps of ``sigma`` and ``order`` (radius 4 sigma), correlated."""
    from scipy.ndimage._filters import _gaussian_kernel1d

    return _gaussian_kernel1d(sigma, order, int(4.0 * sigma + 0.5))[::-1].copy()


def call_cases(sizes=(64, 4096)):
    """Each of the thirteen functions on a float32 CuPy array against kept ``Filter2D`` plans of
    the filters it runs (synchronized calls, median ms), and the function's margin over
    1.1 x the plans' time + 15 us."""
    rng = np.random.default_rng(3)
    w5, w9 = rng.uniform(-1, 1, (5, 5)), rng.uniform(-1, 1, 9)
    g, g1, g2 = _taps(2.0, 0), _taps(2.0, 1), _taps(2.0, 2)
    F = ferroconv.Filter2D  # noqa: N806
    row, col = (lambda t: F(t.reshape(1, -1))), (lambda t: F(t.reshape(-1, 1)))
    box = np.full(9, 1 / 9)
    cases = [  # name, function call, the kept plans it is compared with
        ("correlate 5x5", lambda a: ferroconv.correlate(a, w5), [F(w5)]),
        ("convolve 5x5", lambda a: ferroconv.convolve(a, w5), [F(w5[::-1, ::-1])]),
        ("correlate1d 9 axis -1", lambda a: ferroconv.correlate1d(a, w9), [row(w9)]),
        ("correlate1d 9 axis 0", lambda a: ferroconv.correlate1d(a, w9, axis=0), [col(w9)]),
        ("convolve1d 9 axis 0", lambda a: ferroconv.convolve1d(a, w9, axis=0), [col(w9[::-1])]),
        ("gaussian_filter s2", lambda a: ferroconv.gaussian_filter(a, 2.0), [F(np.outer(g, g))]),
        ("gaussian_filter1d s2", lambda a: ferroconv.gaussian_filter1d(a, 2.0), [row(g)]),
        ("uniform_filter 9", lambda a: ferroconv.uniform_filter(a, 9), [F(np.outer(box, box))]),
        ("uniform_filter1d 9", lambda a: ferroconv.uniform_filter1d(a, 9), [row(box)]),
        ("sobel", ferroconv.sobel, [F(np.outer([1.0, 2.0, 1.0], [-1.0, 0.0, 1.0]))]),
        ("prewitt", ferroconv.prewitt, [F(np.outer([1.0, 1.0, 1.0], [-1.0, 0.0, 1.0]))]),
        ("laplace", ferroconv.laplace, [F(np.array([[0.0, 1, 0], [1, -4, 1], [0, 1, 0]]))]),
        ("gaussian_laplace s2", lambda a: ferroconv.gaussian_laplace(a, 2.0), [F(np.outer(g2, g) + np.outer(g, g2))]),
        ("gaussian_gradient_magnitude s2", lambda a: ferroconv.gaussian_gradient_magnitude(a, 2.0),
         [F(np.outer(g1, g)), F(np.outer(g, g1))]),
    ]
    csync = cp.cuda.Device().synchronize
    print("\n== each function against kept Filter2D plans of its filters, float32 CuPy (median ms)")
    print("case | size | function | kept plans | function / plans | over 1.1 x plans + 15 us (ms)")
    for n in sizes:
        a = cp.random.default_rng(4).random((n, n), dtype=cp.float32)
        runs = 200 if n <= 512 else 30
        for name, call, plans in cases:
            t_f = t_ms(lambda: call(a), csync, runs)
            t_p = t_ms(lambda: [p(a) for p in plans], csync, runs)
            print(f"{name} | {n}^2 | {t_f:.4f} | {t_p:.4f} | {t_f / t_p:.2f} | {t_f - 1.1 * t_p - 0.015:+.4f}", flush=True)


def events_ms(fn, n=30):
    """The median time of ``fn`` between two CUDA events on CuPy's current stream, after three
    warm-up calls (ms)."""
    start, end = cp.cuda.Event(), cp.cuda.Event()
    for _ in range(3):
        fn()
    ts = []
    for _ in range(n):
        start.record()
        fn()
        end.record()
        end.synchronize()
        ts.append(cp.cuda.get_elapsed_time(start, end))
    return statistics.median(ts)


def floor_cases():
    """Kept plans of a 5 x 5 filter on 8192^2 float64, float32, float16 CuPy arrays against a
    device copy of the same bytes, the memory floor (CUDA events, median ms)."""
    w5 = np.random.default_rng(2).uniform(-1, 1, (5, 5))
    kept = ferroconv.Filter2D(w5)
    print("\n== 8192^2 5x5, kept Filter2D against a device copy of the same bytes (CUDA events, median ms)")
    print("dtype | plan | copy | plan / copy | variant")
    for dt in (cp.float64, cp.float32, cp.float16):
        a = cp.random.default_rng(5).random((8192, 8192), dtype=cp.float32).astype(dt)
        out = cp.empty_like(a)
        t_plan = events_ms(lambda: kept(a))
        t_copy = events_ms(lambda: out.__setitem__(Ellipsis, a))
        print(f"{cp.dtype(dt).name} | {t_plan:.4f} | {t_copy:.4f} | {t_plan / t_copy:.2f} | {_variants(kept._plan)}", flush=True)


def half_cases():
    """float16 and bfloat16 torch tensors against float32 ones of the same values: 5 x 5
    `correlate` and a kept `Filter2D`, and `gaussian_filter` (synchronized calls, median ms)."""
    tsync = torch.cuda.synchronize
    w5 = np.random.default_rng(2).uniform(-1, 1, (5, 5))
    kept = ferroconv.Filter2D(w5)
    x = torch.rand(8192, 8192, device="cuda")
    print("\n== half floats on torch, 8192^2 (median ms; the ratio to float32)")
    print("dtype | correlate 5x5 | kept Filter2D 5x5 | gaussian_filter s2")
    base = None
    for dt in (torch.float32, torch.float16, torch.bfloat16):
        a = x.to(dt)
        t = [
            t_ms(lambda: ferroconv.correlate(a, w5), tsync, 20),
            t_ms(lambda: kept(a), tsync, 20),
            t_ms(lambda: ferroconv.gaussian_filter(a, 2.0), tsync, 20),
        ]
        base = base or t
        print(f"{str(dt)[6:]} | " + " | ".join(f"{v:.4f} ({v / b:.2f}x)" for v, b in zip(t, base)), flush=True)


if __name__ == "__main__":
    main()
    ndimage_cases()
    half_cases()
    floor_cases()
    call_cases()
