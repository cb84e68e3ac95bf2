"""Forked worker processes (multiprocessing's ``fork``, dask's processes scheduler, PyTorch's
``DataLoader``): a child forked after the parent used the package gets the parent's results, in
bounded time, on the CPU where the parent had started CUDA. Runs with and without a GPU; the
CUDA-array refusal is checked where a GPU is there."""

import multiprocessing as mp
import warnings

import numpy as np
import pytest

import ferroconv

W = np.ones((5, 5)) / 25
# Long enough for the slowest CI machine; a hang shows as a timeout, not a stuck run.
TIMEOUT = 120


def work(seed):
    """A correlation, a Gaussian and a derivative (their plans kept by the package from the
    parent's first call: in a child, the parent's plans), and a 3-D Gaussian of RGB kept apart."""
    rng = np.random.default_rng(seed)
    x = rng.random((1024, 1024)).astype(np.float32)
    rgb = rng.random((64, 80, 3)).astype(np.float32)
    return np.stack([ferroconv.correlate(x, W), ferroconv.gaussian_filter(x, (2.0, 1.0)), ferroconv.sobel(x, 0)]), (
        ferroconv.gaussian_filter(rgb, 1.5, channel_axis=-1)
    )


def assert_same(got, want):
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def child_result(seed):
    """In the child: the result, and any RuntimeWarning it gave."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        out = work(seed)
    return out, [str(w.message) for w in seen if issubclass(w.category, RuntimeWarning)]


@pytest.fixture(scope="module")
def forked_pool():
    if "fork" not in mp.get_all_start_methods():
        pytest.skip("SKIPPED: this platform has no fork start method")
    # The parent uses the package first (the GPU where there is one, else the CPU's threads).
    work(0)
    with mp.get_context("fork").Pool(2) as pool:
        yield pool


def test_forked_workers_return_the_parents_results(forked_pool):
    results = forked_pool.map_async(child_result, range(4)).get(timeout=TIMEOUT)
    for seed, (out, _) in enumerate(results):
        assert_same(out, work(seed))


def test_a_forked_child_after_cuda_warns_once_and_runs_on_the_cpu(forked_pool):
    # A fresh worker, so that no earlier call in it has warned yet.
    with mp.get_context("fork").Pool(1) as pool:
        results = pool.map_async(child_result, [5, 6, 7, 8]).get(timeout=TIMEOUT)
    for seed, (out, _) in zip([5, 6, 7, 8], results):
        assert_same(out, work(seed))
    warned = [w for _, ws in results for w in ws]
    if not ferroconv.gpu_available():
        assert warned == [], "the parent never started CUDA: nothing to warn of"
    else:
        assert len(warned) == 1 and "spawn" in warned[0], warned


def test_a_plan_made_before_the_fork_runs_in_the_child():
    x = np.random.default_rng(3).random((300, 200)).astype(np.float32)
    plan = ferroconv.Filter2D(np.random.default_rng(4).random((7, 7)), "mirror")
    expected = plan(x)
    global _PLAN
    _PLAN = (plan, x)
    with mp.get_context("fork").Pool(1) as pool:
        out = pool.apply_async(_plan_in_parent_global).get(timeout=TIMEOUT)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)


_PLAN = None


def _plan_in_parent_global():
    plan, x = _PLAN
    return plan(x)


def _cuda_in_child():
    """In the child: what running the parent's CUDA plan, and opening a new one, raise."""
    raised = []
    for call in (
        lambda: _CUDA_PLAN.run_device(1 << 20, 64, 1 << 21, 64, 16, 16, 1, "f32", 1, 0),
        lambda: ferroconv._native.Plan([1.0], (1, 1), (0, 0), "reflect", 0.0, 0),
    ):
        try:
            call()
            raised.append(None)
        except RuntimeError as e:
            raised.append(str(e))
    return raised, ferroconv.gpu_available()


_CUDA_PLAN = None


@pytest.mark.skipif(not ferroconv.gpu_available(), reason="SKIPPED: needs a CUDA GPU")
def test_cuda_in_a_forked_child_raises_one_line_naming_spawn(forked_pool):
    global _CUDA_PLAN
    _CUDA_PLAN = ferroconv._native.Plan([1.0], (1, 1), (0, 0), "reflect", 0.0, 0)
    with mp.get_context("fork").Pool(1) as pool:
        raised, available = pool.apply_async(_cuda_in_child).get(timeout=TIMEOUT)
    assert not available
    for message in raised:
        assert message is not None and "spawn" in message and "\n" not in message, raised


def test_a_child_forked_while_a_plan_runs_reads_its_properties():
    # A thread of the parent is inside the plan's call (holding its lock) when the child is
    # forked: the child, which has no copy of that thread, reads the plan's properties and runs
    # it without waiting for the lock.
    import os
    import threading
    import time

    taps = np.random.default_rng(6).random(31 * 31) / 480  # not rank 1: a long dense run on the CPU
    plan = ferroconv._native.Plan(taps.tolist(), (31, 31), (0, 0), "reflect")
    x = np.random.default_rng(5).random((2048, 2048)).astype(np.float32)
    out = np.empty_like(x)
    small = np.ones((8, 8), np.float32)
    small_out = np.empty_like(small)
    busy = threading.Thread(target=plan.run_host, args=(x.ctypes.data, 2048, out.ctypes.data, 2048, 2048, 2048, 1, "f32", 1))
    busy.start()
    time.sleep(0.2)
    pid = os.fork()
    if pid == 0:  # the child: exit 0 only if nothing waited on the lock
        try:
            ok = plan.variant is None and plan.on_gpu is False
            plan.run_host(small.ctypes.data, 8, small_out.ctypes.data, 8, 8, 8, 1, "f32", 1)
            os._exit(0 if ok and np.allclose(small_out, taps.sum(), rtol=1e-5) else 1)
        except BaseException:
            os._exit(2)
    deadline, status = time.monotonic() + 30, None
    while status is None and time.monotonic() < deadline:
        done, code = os.waitpid(pid, os.WNOHANG)
        status = code if done else None
        time.sleep(0.05)
    if status is None:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    busy.join()
    assert status is not None and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, "the child hung or failed"
