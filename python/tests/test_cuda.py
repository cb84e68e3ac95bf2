"""ferroconv on PyTorch and CuPy CUDA arrays: equal to the numpy path bit for bit, written into
`output=` in place, ordered on the framework's current stream, strided views. Skipped, loudly,
without a GPU or without torch and CuPy."""

import numpy as np
import pytest

import ferroconv

if not ferroconv.gpu_available():
    print("\nSKIPPED: test_cuda.py needs a CUDA GPU (none can be used here)")
    pytest.skip("SKIPPED: no usable CUDA GPU", allow_module_level=True)

torch = pytest.importorskip("torch", reason="SKIPPED: torch is not installed")
cupy = pytest.importorskip("cupy", reason="SKIPPED: CuPy is not installed")

MODES = ["reflect", "mirror", "nearest", "wrap", "constant"]
LAYOUTS = [(61, 77), (2, 33, 40, 3), (2, 3, 35, 41), (19, 23, 4), (30, 31, 1)]
TORCH = {np.uint8: torch.uint8, np.float32: torch.float32, np.float64: torch.float64}


def random(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "u":
        return rng.integers(0, 256, shape).astype(dtype)
    return rng.random(shape).astype(dtype)


def weights(k, seed):
    w = np.random.default_rng(seed).random((k, k)) + 0.05
    return w / w.sum()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.float64])
@pytest.mark.parametrize("shape", LAYOUTS)
def test_torch_and_cupy_equal_numpy_bit_for_bit(mode, dtype, shape):
    x = random(shape, dtype, 1)
    for k in (3, 7):
        w = weights(k, k)
        # For uint8 a whole level (the kernels' byte path) and one between levels (float32).
        for cval in (200.0, 100.5) if dtype == np.uint8 else (0.5,):
            check_equal(x, w, mode, cval, k)


def check_equal(x, w, mode, cval, k):
    """torch and CuPy arrays give the numpy path's result, bit for bit."""
    want = ferroconv.correlate(x, w, mode=mode, cval=cval)
    t = ferroconv.correlate(torch.from_numpy(x).cuda(), w, mode=mode, cval=cval)
    c = ferroconv.correlate(cupy.asarray(x), w, mode=mode, cval=cval)
    torch.cuda.synchronize()
    cupy.cuda.get_current_stream().synchronize()
    assert t.dtype == TORCH[x.dtype.type] and t.is_cuda and tuple(t.shape) == x.shape
    assert isinstance(c, cupy.ndarray) and c.dtype == x.dtype and c.shape == x.shape
    assert np.array_equal(t.cpu().numpy(), want), f"torch k={k} cval={cval}"
    assert np.array_equal(cupy.asnumpy(c), want), f"cupy k={k} cval={cval}"


def test_shapes_sizes_and_depths_equal_numpy():
    # Rectangles with origins, a rank-1 filter past 31 and filter2d's depths on device arrays:
    # the numpy path's result, bit for bit, in the framework's dtype.
    x = random((2, 45, 52, 3), np.uint8, 5)
    cases = [
        (np.random.default_rng(6).random((3, 8)), (1, -3)),
        (np.outer(np.hanning(63) + 0.01, np.hanning(5) + 0.01), (0, 0)),
    ]
    for w, origin in cases:
        want = ferroconv.correlate(x, w, mode="mirror", origin=origin)
        t = ferroconv.correlate(torch.from_numpy(x).cuda(), w, mode="mirror", origin=origin)
        c = ferroconv.correlate(cupy.asarray(x), w, mode="mirror", origin=origin)
        assert np.array_equal(t.cpu().numpy(), want) and np.array_equal(cupy.asnumpy(c), want)
    sobel = np.outer([1.0, 2.0, 1.0], [-1.0, 0.0, 1.0])
    img = x[0]
    for ddepth, tdt in ((ferroconv.CV_16S, torch.int16), (ferroconv.CV_32F, torch.float32)):
        want = ferroconv.filter2d(img, ddepth, sobel, delta=3)
        t = ferroconv.filter2d(torch.from_numpy(img).cuda(), ddepth, sobel, delta=3)
        c = ferroconv.filter2d(cupy.asarray(img), ddepth, sobel, delta=3)
        assert t.dtype == tdt and c.dtype == want.dtype
        assert np.array_equal(t.cpu().numpy(), want) and np.array_equal(cupy.asnumpy(c), want)
        dst = torch.empty(img.shape, dtype=tdt, device="cuda")
        assert ferroconv.filter2d(torch.from_numpy(img).cuda(), ddepth, sobel, dst=dst, delta=3) is dst
        assert np.array_equal(dst.cpu().numpy(), want)


def test_general_filters_past_31_equal_numpy():
    # Filters that are not rank 1, past 31 x 31 (blocks of taps on the tensor cores), float32
    # and float64, gray and RGB: the numpy path's result, bit for bit.
    rng = np.random.default_rng(9)
    for dtype, shape, w in (
        (np.float32, (2, 45, 52, 3), rng.random((63, 63)) - 0.5),
        (np.float64, (70, 81), rng.random((45, 9)) - 0.5),
    ):
        x = random(shape, dtype, 10)
        want = ferroconv.correlate(x, w, mode="mirror")
        t = ferroconv.correlate(torch.from_numpy(x).cuda(), w, mode="mirror")
        c = ferroconv.correlate(cupy.asarray(x), w, mode="mirror")
        assert np.array_equal(t.cpu().numpy(), want) and np.array_equal(cupy.asnumpy(c), want)


def test_output_keeps_its_memory():
    x = torch.rand(3, 64, 80, device="cuda")
    out = torch.empty_like(x)
    ptr = out.data_ptr()
    back = ferroconv.correlate(x, weights(5, 1), mode="mirror", output=out)
    torch.cuda.synchronize()
    assert back is out and out.data_ptr() == ptr
    want = ferroconv.correlate(x.cpu().numpy(), weights(5, 1), mode="mirror")
    assert np.array_equal(out.cpu().numpy(), want)
    y = cupy.random.rand(50, 60, dtype=cupy.float32)
    cout = cupy.empty_like(y)
    ferroconv.correlate(y, weights(3, 2), mode="wrap", output=cout)
    assert np.array_equal(cupy.asnumpy(cout), ferroconv.correlate(cupy.asnumpy(y), weights(3, 2), mode="wrap"))


def test_work_queued_on_a_side_stream_is_ordered():
    x = torch.rand(4096, 4096, device="cuda")
    w = weights(5, 3)
    side = torch.cuda.Stream()
    torch.cuda.synchronize()
    with torch.cuda.stream(side):
        # Queued, not finished, when ferroconv is called: the call must run after it.
        z = x * 3.0 + 1.0
        y = ferroconv.correlate(z, w, mode="nearest")
    side.synchronize()
    want = ferroconv.correlate((x * 3.0 + 1.0).cpu().numpy(), w, mode="nearest")
    assert np.array_equal(y.cpu().numpy(), want)


def test_a_plan_called_again_takes_the_short_way_and_the_current_stream():
    # The second call of a shape skips the checks the first made (``Filter2D._direct``): its
    # results, RGBA and a batch included, still equal numpy's, and it still runs on the stream
    # current at that call, after the work queued there before it.
    w = weights(5, 4)
    plan = ferroconv.Filter2D(w, mode="mirror")
    for shape, dtype in (((300, 260, 4), np.uint8), ((2, 64, 48, 3), np.float32), ((128, 96), np.float32)):
        x = random(shape, dtype, 5)
        want = plan(x)
        for array, to_numpy, sync in (
            (torch.from_numpy(x).cuda(), lambda a: a.cpu().numpy(), torch.cuda.synchronize),
            (cupy.asarray(x), cupy.asnumpy, lambda: cupy.cuda.get_current_stream().synchronize()),
        ):
            for _ in range(3):
                got = plan(array)
                sync()
                assert np.array_equal(to_numpy(got), want), f"{type(array).__name__} {shape}"
        assert len(plan._direct) > 0
    x = torch.rand(4096, 4096, device="cuda")
    plan(x)
    side = torch.cuda.Stream()
    torch.cuda.synchronize()
    with torch.cuda.stream(side):
        z = x * 3.0 + 1.0
        y = plan(z)
    side.synchronize()
    assert np.array_equal(y.cpu().numpy(), plan((x * 3.0 + 1.0).cpu().numpy()))
    cx = cupy.random.rand(2048, 2048, dtype=cupy.float32)
    plan(cx)
    cside = cupy.cuda.Stream(non_blocking=True)
    cupy.cuda.Device().synchronize()
    with cside:
        cz = cx * 3.0 + 1.0
        cy = plan(cz)
    cside.synchronize()
    assert np.array_equal(cupy.asnumpy(cy), plan(cupy.asnumpy(cx * 3.0 + 1.0)))


def test_strided_views():
    base = torch.rand(90, 100, 3, device="cuda")
    view = base[5:80:3, 10:90]
    got = ferroconv.correlate(view, weights(5, 4), mode="mirror")
    want = ferroconv.correlate(view.cpu().numpy(), weights(5, 4), mode="mirror")
    assert np.array_equal(got.cpu().numpy(), want)
    cbase = cupy.random.rand(70, 81, dtype=cupy.float32)
    cview = cbase[::2, 3:]
    got = ferroconv.correlate(cview, weights(3, 5), mode="reflect")
    want = ferroconv.correlate(cupy.asnumpy(cview), weights(3, 5), mode="reflect")
    assert np.array_equal(cupy.asnumpy(got), want)


# A kernel that faults poisons the process's primary context, which torch, CuPy and every later
# test share: the fault runs in a process of its own.
FAULT = """
import sys, numpy as np, torch, ferroconv
from ferroconv import _native
plan = _native.Plan([1 / 9] * 9, (3, 3), (0, 0), "reflect", 0.0, 0)  # the library's name of `mirror`
torch.zeros(1, device="cuda")  # the primary context, as a torch user has it
# Images at addresses 256 and 16640 (apart: an output over the input would go through scratch),
# in the unmapped first pages: the kernel's first access faults.
plan.run_device(256, 64 * 4, 256 + 64 * 64 * 4, 64 * 4, 64, 64, 1, "f32", 1, 0)
x = np.zeros((64, 64), np.float32)
y = np.empty_like(x)
try:
    plan.run_host(x.ctypes.data, 64, y.ctypes.data, 64, 64, 64, 1, "f32", 1)
except RuntimeError as e:
    print("RuntimeError:", e)
    sys.exit(0)
print("no error")
sys.exit(1)
"""


def test_a_gpu_fault_is_a_runtime_error_in_its_own_process():
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-c", FAULT], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, f"exit {run.returncode}: {run.stdout}{run.stderr}"
    assert "RuntimeError:" in run.stdout and "ILLEGAL_ADDRESS" in run.stdout, run.stdout
    print(run.stdout.strip())


class DLPackOnly:
    """A CUDA array only DLPack describes, as JAX's are: no ``__cuda_array_interface__``, no
    torch or CuPy type; its array namespace makes the result one of its own kind."""

    def __init__(self, tensor):
        self._t = tensor

    def __dlpack__(self, stream=None, **kwargs):
        return self._t.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self._t.__dlpack_device__()

    def __array_namespace__(self):
        return DLPackOnlyNamespace


class DLPackOnlyNamespace:
    @staticmethod
    def from_dlpack(x):
        return DLPackOnly(torch.from_dlpack(x))


def test_dlpack_only_arrays_run_without_copies():
    x = np.random.default_rng(5).random((2, 40, 50), dtype=np.float32)
    w = weights(5, 2)
    want = ferroconv.correlate(x, w, mode="nearest")
    got = ferroconv.correlate(DLPackOnly(torch.from_numpy(x).cuda()), w, mode="nearest")
    assert isinstance(got, DLPackOnly)
    assert np.array_equal(got._t.cpu().numpy(), want)
    # Into `output=`: written in place, the same memory.
    out = torch.empty(2, 40, 50, device="cuda")
    ptr = out.data_ptr()
    back = ferroconv.correlate(DLPackOnly(torch.from_numpy(x).cuda()), w, mode="nearest", output=DLPackOnly(out))
    torch.cuda.synchronize()
    assert isinstance(back, DLPackOnly) and out.data_ptr() == ptr
    assert np.array_equal(out.cpu().numpy(), want)


def _close(got, want, dtype):
    """Within one level for integers, float32 rounding for floats."""
    diff = np.abs(np.asarray(got, dtype=np.float64) - np.asarray(want, dtype=np.float64)).max()
    assert diff <= (1 if np.dtype(dtype).kind == "u" else 1e-5 * max(1.0, float(np.abs(want).max()))), diff


@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.float64])
@pytest.mark.parametrize("shape", [(256, 256), (40, 52, 3), (3, 30, 41), (2, 33, 29, 4)])
def test_output_overlapping_the_input_torch_and_cupy(dtype, shape):
    # The input itself as output, and a view of the same memory shifted by one row: the result
    # is computed apart and copied in (it was up to 39 off, 115 for the shifted view).
    x = random(shape, dtype, 11)
    w = weights(5, 12)
    want = ferroconv.correlate(x, w, mode="nearest")
    rows = -2 if len(shape) == 2 or shape[-1] > 4 else -3
    full = list(shape)
    full[rows] += 1
    buf = random(tuple(full), dtype, 13)
    index = [slice(None)] * len(shape)
    index[rows] = slice(None, -1)
    before = tuple(index)
    index[rows] = slice(1, None)
    after = tuple(index)
    shifted_want = ferroconv.correlate(np.ascontiguousarray(buf[before]), w, mode="mirror")
    for to_device, to_numpy, sync in (
        (lambda a: torch.from_numpy(np.ascontiguousarray(a)).cuda(), lambda a: a.cpu().numpy(), torch.cuda.synchronize),
        (cupy.asarray, cupy.asnumpy, lambda: cupy.cuda.get_current_stream().synchronize()),
    ):
        d = to_device(x)
        assert ferroconv.correlate(d, w, mode="nearest", output=d) is d
        sync()
        _close(to_numpy(d), want, dtype)
        b = to_device(buf)
        out = b[after]
        assert ferroconv.correlate(b[before], w, mode="mirror", output=out) is out
        sync()
        _close(to_numpy(out), shifted_want, dtype)


def test_gaussian_and_a_plan_into_their_own_input_on_the_gpu():
    img = random((64, 80, 3), np.uint8, 14)
    want = ferroconv.gaussian_filter(img, 3)
    t = torch.from_numpy(img).cuda()
    assert ferroconv.gaussian_filter(t, 3, output=t) is t
    c = cupy.asarray(img)
    assert ferroconv.gaussian_filter(c, 3, output=c) is c
    torch.cuda.synchronize()
    cupy.cuda.get_current_stream().synchronize()
    _close(t.cpu().numpy(), want, np.uint8)
    _close(cupy.asnumpy(c), want, np.uint8)
    f = ferroconv.Filter2D(weights(3, 15))
    y = random((50, 60), np.float32, 16)
    want = f(y)
    ty, cy = torch.from_numpy(y).cuda(), cupy.asarray(y)
    for _ in range(2):  # the second call after the plan has taken the short way once
        ty.copy_(torch.from_numpy(y))
        cy[...] = cupy.asarray(y)
        f(ty.clone())
        assert f(ty, output=ty) is ty and f(cy, output=cy) is cy
        torch.cuda.synchronize()
        cupy.cuda.get_current_stream().synchronize()
        _close(ty.cpu().numpy(), want, np.float32)
        _close(cupy.asnumpy(cy), want, np.float32)


def test_an_output_of_another_kind_or_device_is_a_type_error():
    x = random((32, 40), np.float32, 17)
    t, c = torch.from_numpy(x).cuda(), cupy.asarray(x)
    w = weights(3, 18)
    for input, output in ((t, np.empty_like(x)), (c, np.empty_like(x)), (t, cupy.empty_like(c)), (c, torch.empty_like(t))):
        with pytest.raises(TypeError, match="output must be a CUDA array on the same device as input"):
            ferroconv.correlate(input, w, output=output)
    for output in (torch.empty_like(t), cupy.empty_like(c)):
        with pytest.raises(TypeError, match="output must be a numpy.ndarray"):
            ferroconv.correlate(x, w, output=output)
    with pytest.raises(TypeError, match="dst must be a CUDA array"):
        ferroconv.filter2d(t, ferroconv.CV_32F, w, dst=np.empty_like(x), delta=1)
    with pytest.raises(ValueError, match="output must have shape"):
        ferroconv.correlate(t, w, output=torch.empty(3, 3, device="cuda"))


def test_long_filters_fold_on_device_arrays_as_on_numpy():
    x = random((64, 48), np.float32, 19)
    for mode in MODES:
        want = ferroconv.gaussian_filter(x, 1e6, mode=mode, cval=0.5)
        t = ferroconv.gaussian_filter(torch.from_numpy(x).cuda(), 1e6, mode=mode, cval=0.5)
        c = ferroconv.gaussian_filter(cupy.asarray(x), 1000.0, mode=mode, cval=0.5)
        _close(t.cpu().numpy(), want, np.float32)
        _close(cupy.asnumpy(c), ferroconv.gaussian_filter(x, 1000.0, mode=mode, cval=0.5), np.float32)
        # Not rank 1, 150 rows folded to at most 121 on 60 rows.
        w = np.random.default_rng(20).random((150, 70)) - 0.5
        x60 = x[:60]
        want = ferroconv.correlate(x60, w, mode=mode, cval=0.5, origin=(10, -3))
        got = ferroconv.correlate(torch.from_numpy(x60).cuda(), w, mode=mode, cval=0.5, origin=(10, -3))
        _close(got.cpu().numpy(), want, np.float32)
        got = ferroconv.sobel(cupy.asarray(x), 0, mode=mode, cval=0.5)
        _close(cupy.asnumpy(got), ferroconv.sobel(x, 0, mode=mode, cval=0.5), np.float32)
