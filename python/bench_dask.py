"""ferroconv.dask on a dask-cuda cluster: a random f32 array made on the workers (CuPy chunks, one
generator per block, so nothing large crosses the client), correlated in mode ``reflect`` and
reduced on the workers (``.sum().compute()``); a warm-up compute, then the median of ``--repeat``
wall-clock computes, per cluster size (a fresh ``LocalCUDACluster`` on the first n GPUs each), for
ferroconv and dask-image's ``correlate`` on the same chunks and cluster. Then the 17x17 filter in
8192² chunks with its task count and per-task overhead; and a check: a numpy-backed array through
``fd.correlate`` against one ``ferroconv.correlate`` call on the whole array (exit 1 on FAIL).

    PYTHONPATH=python python3 python/bench_dask.py [--gpus 1,2,4] [--report DIR]
    PYTHONPATH=python python3 python/bench_dask.py --small    # CPU smoke run, numpy chunks
"""
import argparse
import contextlib
import importlib.metadata
import importlib.util
import math
import os
import shutil
import statistics
import subprocess
import sys
import time

import dask
import dask.array as da
import distributed
import numpy as np

import ferroconv
from ferroconv import dask as fd


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--gpus", default=None, help="cluster sizes to run, e.g. 1,2,4 (default 1,2,4; 1,2 with --small)")
    # --chunk2/--k2: the chunks and filter of the per-task overhead case.
    for name, default in (("--size", 65536), ("--chunk", 16384), ("--k", 63), ("--chunk2", 8192), ("--k2", 17)):
        p.add_argument(name, type=int, default=default)
    p.add_argument("--repeat", type=int, default=3, help="timed computes after the warm-up (median)")
    p.add_argument("--small", action="store_true", help="CPU smoke run: LocalCluster, numpy chunks, small sizes")
    p.add_argument("--no-dask-image", action="store_true")
    p.add_argument("--report", metavar="DIR", help="write a distributed performance_report per case there")
    a = p.parse_args()
    if a.small:
        a.size, a.chunk, a.k, a.chunk2, a.k2 = 2048, 512, 7, 256, 5
    a.gpus = [int(n) for n in (a.gpus or ("1,2" if a.small else "1,2,4")).split(",")]
    a.check_size, a.check_chunk = (2048, 512) if a.small else (16384, 4096)
    return a


def facts(small):
    print("== machine")
    if shutil.which("nvidia-smi"):
        cmd = ["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"]
        out = subprocess.run(cmd, capture_output=True, text=True)
        names = [n.strip() for n in out.stdout.splitlines() if n.strip()]
        print(f"GPUs ({len(names)}): {', '.join(names) or out.stderr.strip()}")
    else:
        print("GPUs: no nvidia-smi")
    print(f"CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES', '(unset)')}  CPU cores: {os.cpu_count()}")
    vers = [("python", sys.version.split()[0]), ("numpy", np.__version__), ("dask", dask.__version__),
            ("distributed", distributed.__version__), ("ferroconv", ferroconv.__version__)]
    for mod in ("dask_cuda", "dask_image", "cupy"):
        try:
            m = importlib.import_module(mod)
            vers.append((mod, getattr(m, "__version__", None) or importlib.metadata.version(mod.replace("_", "-"))))
        except ImportError:
            vers.append((mod, "not importable"))
    print("  ".join(f"{k} {v}" for k, v in vers))
    mode = "small (CPU, numpy chunks)" if small else "GPU (CuPy chunks)"
    print(f"ferroconv.gpu_available(): {ferroconv.gpu_available()}  mode: {mode}")


def _rand_block(seed, gpu, block_id=None, block_info=None):
    """One chunk of uniform [0, 1) float32, generated where the task runs (a worker)."""
    shape = tuple(block_info[None]["chunk-shape"])
    ss = np.random.SeedSequence([seed, *block_id])
    if gpu:
        import cupy

        return cupy.random.default_rng(int(ss.generate_state(1)[0])).random(shape, dtype=cupy.float32)
    return np.random.default_rng(ss).random(shape, dtype=np.float32)


def random_array(size, chunk, gpu, seed=0):
    chunks = da.core.normalize_chunks((chunk, chunk), (size, size))
    if gpu:
        import cupy

        meta = cupy.empty((0, 0), dtype=cupy.float32)
    else:
        meta = np.empty((0, 0), dtype=np.float32)
    return da.map_blocks(_rand_block, seed, gpu, chunks=chunks, dtype=np.float32, meta=meta)


def weights(k, seed=1):
    w = np.random.default_rng(seed).uniform(-1, 1, (k, k)).astype(np.float32)
    return w / np.abs(w).sum()


def _chunk_time(n, w, gpu, repeat):
    """Worker side: median seconds of one ferroconv.correlate on an n x n chunk (synchronized)."""
    import ferroconv

    x = _rand_block(7, gpu, block_id=(0, 0), block_info={None: {"chunk-shape": (n, n)}})
    sync = __import__("cupy").cuda.Device().synchronize if gpu else (lambda: None)
    w = __import__("cupy").asarray(w) if gpu else w
    ts = []
    for _ in range(repeat + 1):
        sync()
        t = time.perf_counter()
        ferroconv.correlate(x, w, mode="reflect")
        sync()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts[1:])


def make_cluster(n, small):
    if small:
        cluster = distributed.LocalCluster(n_workers=n, processes=True, threads_per_worker=1, dashboard_address=":0")
    else:
        from dask_cuda import LocalCUDACluster

        visible = os.environ.get("CUDA_VISIBLE_DEVICES")
        ids = [d.strip() for d in visible.split(",")] if visible else [str(i) for i in range(n)]
        if len(ids) < n:
            raise SystemExit(f"asked for {n} GPUs, CUDA_VISIBLE_DEVICES has {len(ids)}")
        cluster = LocalCUDACluster(CUDA_VISIBLE_DEVICES=",".join(ids[:n]), dashboard_address=":0")
    return cluster, distributed.Client(cluster)


def timed(client, make, repeat, report):
    """(median wall seconds of make(seed).compute(), task count, warm-up result) after one warm-up
    compute; each compute's array has its own seed, so no result is kept by the scheduler."""
    y = make(0)
    tasks = len(y.__dask_graph__())
    first = float(client.compute(y).result())
    ctx = distributed.performance_report(filename=report) if report else contextlib.nullcontext()
    ts = []
    with ctx:
        for seed in range(1, repeat + 1):
            y = make(seed)
            t = time.perf_counter()
            client.compute(y).result()
            ts.append(time.perf_counter() - t)
    return statistics.median(ts), tasks, first


def run_cluster(n, a, rows, overhead):
    gpu = not a.small
    cluster, client = make_cluster(n, a.small)
    try:
        workers = len(client.scheduler_info()["workers"])
        print(f"\n== cluster of {n} {'GPU' if gpu else 'CPU worker'}(s): {workers} workers", flush=True)
        for label, k, chunk in (("main", a.k, a.chunk), ("overhead", a.k2, a.chunk2)):
            w, nchunks = weights(k), math.ceil(a.size / chunk) ** 2
            libs = [("ferroconv", fd.correlate, w)]
            if not a.no_dask_image:
                import dask_image.ndfilters as dif

                libs.append(("dask-image", dif.correlate, __import__("cupy").asarray(w) if gpu else w))
            for lib, func, wl in libs:
                case = f"{k}x{k} in {chunk}^2"
                report = os.path.join(a.report, f"{lib}_k{k}_c{chunk}_{n}gpu.html") if a.report else None
                make = lambda seed: func(random_array(a.size, chunk, gpu, seed), wl, mode="reflect").sum()  # noqa: E731
                med, tasks, total = timed(client, make, a.repeat, report)
                rows.append(dict(case=case, lib=lib, n=n, chunks=nchunks, tasks=tasks, s=med, label=label))
                print(f"  {lib:10s} {case}: median {med:.4f} s of {a.repeat}, {tasks} tasks, sum {total:.6g}",
                      flush=True)
                if label == "overhead" and lib == "ferroconv":
                    halo = chunk + 2 * (k // 2)
                    t1 = client.submit(_chunk_time, halo, w, gpu, a.repeat, pure=False).result()
                    busy = t1 * math.ceil(nchunks / workers)
                    overhead.append(dict(case=case, n=n, tasks=tasks, s=med, t1=t1, busy=busy, workers=workers))
    finally:
        client.close()
        cluster.close()


def print_tables(rows, overhead):
    base = {(r["case"], r["lib"]): r["s"] for r in rows if r["n"] == 1}
    other = {(r["case"], r["lib"], r["n"]): r["s"] for r in rows}
    print("\n== results (wall clock of .sum().compute(), median after a warm-up)")
    print("case | library | GPUs | chunks | tasks | median s | speed-up over 1 GPU | x dask-image")
    for r in rows:
        b = base.get((r["case"], r["lib"]))
        up = f"{b / r['s']:.2f}x" if b else "-"
        di = other.get((r["case"], "dask-image", r["n"]))
        vs = f"{di / r['s']:.2f}x" if di and r["lib"] == "ferroconv" else "-"
        print(f"{r['case']} | {r['lib']} | {r['n']} | {r['chunks']} | {r['tasks']} | {r['s']:.4f} | {up} | {vs}")
    if overhead:
        print("\n== per-task overhead (ferroconv; tasks = len(graph) of y.sum())")
        print("case | GPUs | tasks | wall s | wall/tasks ms | one chunk's kernel s (with halo, on a worker) "
              "| kernel busy s = chunk s x ceil(chunks/workers) | (wall - busy)/tasks ms")
        for o in overhead:
            print(f"{o['case']} | {o['n']} | {o['tasks']} | {o['s']:.4f} | {o['s'] / o['tasks'] * 1e3:.3f} | "
                  f"{o['t1']:.4f} | {o['busy']:.4f} | {(o['s'] - o['busy']) / o['tasks'] * 1e3:.3f}")


def check(a):
    """fd.correlate on numpy chunks (on a cluster of the largest size) against one whole call."""
    cluster, client = make_cluster(max(a.gpus), a.small)
    ok = True
    try:
        print(f"\n== check: numpy-backed {a.check_size}^2 in {a.check_chunk}^2 chunks vs one ferroconv.correlate call")
        x = random_array(a.check_size, a.check_chunk, gpu=False, seed=3)
        xn = client.compute(x).result()
        for k in (a.k, a.k2):
            w = weights(k, seed=5)
            got = client.compute(fd.correlate(x, w, mode="reflect")).result()
            want = ferroconv.correlate(xn, w, mode="reflect")
            diff = float(np.max(np.abs(got.astype(np.float64) - want)))
            tol = 2 * k * k * 2.0**-24 * float(np.abs(w).sum()) * float(np.abs(xn).max())
            good = got.shape == want.shape and got.dtype == want.dtype and diff <= tol
            ok &= good
            print(f"k={k}: {'PASS' if good else 'FAIL'} max|diff| {diff:.3e} <= tol {tol:.3e} "
                  f"(2*k^2*2^-24*sum|w|*max|x|), dtype {got.dtype}, shape {got.shape}")
    finally:
        client.close()
        cluster.close()
    return ok


def main():
    a = parse_args()
    facts(a.small)
    if not a.no_dask_image and importlib.util.find_spec("dask_image") is None:
        if not a.small:
            raise SystemExit("dask-image is not importable: install it or pass --no-dask-image")
        print("dask-image not importable: skipped")
        a.no_dask_image = True
    if a.report:
        if importlib.util.find_spec("bokeh") is None:
            print("--report: bokeh is not importable (performance_report needs it): no reports written")
            a.report = None
        else:
            os.makedirs(a.report, exist_ok=True)
    print(f"array {a.size}^2 f32; cases {a.k}x{a.k} in {a.chunk}^2, {a.k2}x{a.k2} in {a.chunk2}^2; "
          f"clusters {a.gpus}; mode reflect", flush=True)
    rows, overhead = [], []
    for n in a.gpus:
        run_cluster(n, a, rows, overhead)
    print_tables(rows, overhead)
    ok = check(a)
    print(f"\n{'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
