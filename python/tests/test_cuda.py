"""ferroconv on PyTorch and CuPy CUDA arrays: equal to the numpy path bit for bit (the same
kernels), float64 within its rounding bound (the float64 kernel's fused multiply-adds against
numpy's element-wise sums), written into `output=` in place, ordered on the framework's current
stream or on `stream=`, strided views, DLPack-only arrays. Skipped, loudly, without a GPU or
without torch and CuPy. (test_ndimage_gpu.py checks them against scipy.)"""

import warnings

import numpy as np
import pytest

import ferroconv
from ferroconv import cv

if not ferroconv.gpu_available():
    print("\nSKIPPED: test_cuda.py needs a CUDA GPU (none can be used here)")
    pytest.skip("SKIPPED: no usable CUDA GPU", allow_module_level=True)

torch = pytest.importorskip("torch", reason="SKIPPED: torch is not installed")
cupy = pytest.importorskip("cupy", reason="SKIPPED: CuPy is not installed")

MODES = ["reflect", "mirror", "nearest", "wrap", "constant"]
# (shape, keywords): gray, a batch of RGB, (N, C, H, W), RGBA and one channel kept apart.
LAYOUTS = [
    ((61, 77), {}),
    ((2, 33, 40, 3), {"axes": (1, 2)}),
    ((2, 3, 35, 41), {"axes": (-2, -1)}),
    ((19, 23, 4), {"channel_axis": -1}),
    ((30, 31, 1), {"channel_axis": -1}),
]
TORCH = {np.uint8: torch.uint8, np.int16: torch.int16, np.float32: torch.float32, np.float64: torch.float64}
FRAMEWORKS = ["torch", "cupy"]
# GPU clock cycles of spinning (about 0.1 s) queued on a stream ahead of the work under test, so
# that a call not ordered after that work reads its input before it is written.
SPIN = 2**27


def random(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "u":
        return rng.integers(0, 256, shape).astype(dtype)
    if np.dtype(dtype).kind == "i":
        return rng.integers(-1000, 1000, shape).astype(dtype)
    return rng.random(shape).astype(dtype)


def weights(k, seed, signed=False):
    w = np.random.default_rng(seed).random((k, k)) + 0.05
    if signed:
        w = w * np.where(np.arange(k * k).reshape(k, k) % 3 == 0, -1.0, 1.0)
    return w / np.abs(w).sum()


def to_device(framework, x):
    if framework == "torch":
        return torch.from_numpy(np.ascontiguousarray(x)).cuda()
    return cupy.asarray(x)


def to_numpy(a):
    return a.cpu().numpy() if isinstance(a, torch.Tensor) else cupy.asnumpy(a)


def sync():
    torch.cuda.synchronize()
    cupy.cuda.Device().synchronize()


def spin(handle):
    """SPIN cycles queued on the CUDA stream of raw handle ``handle``."""
    with torch.cuda.stream(torch.cuda.ExternalStream(handle)):
        torch.cuda._sleep(SPIN)


def written_late(framework, handle, *arrays):
    """Arrays of ``framework`` holding NaN (0 for integers) until, after SPIN cycles queued on the
    stream of raw handle ``handle``, each ``(shape, dtype, value)``'s ``value()`` (computed in that
    stream's context) is written into its own there: a call not ordered after that stream's work
    reads the poison."""
    zs = [to_device(framework, np.full(shape, np.nan if np.dtype(dt).kind == "f" else 0, dt)) for shape, dt, _ in arrays]
    for _, _, value in arrays:
        value()  # its kernels loaded now: a first launch (lazy loading) can wait for the device
    sync()
    spin(handle)
    with torch.cuda.stream(torch.cuda.ExternalStream(handle)) if framework == "torch" else cupy_stream(handle):
        for z, (_, _, value) in zip(zs, arrays):
            z[...] = value()
    return zs


def cupy_stream(handle):
    """CuPy's view of the CUDA stream of raw handle ``handle`` (a context manager)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # CuPy 14 prefers Stream.from_external
        return cupy.cuda.ExternalStream(handle)


def assert_same(got, want, w, what):
    """``got`` equal to ``want`` bit for bit; float64 within 2n·2⁻⁵³·Σ|w|·max|x| of it (both
    sums' rounding, n the taps)."""
    if want.dtype != np.float64:
        assert np.array_equal(got, want), what
        return
    tol = 4 * np.size(w) * 2.0**-53 * np.abs(w).sum() * max(np.abs(want).max(), 1.0) + 1e-300
    err = np.abs(got - want).max()
    assert err <= tol, f"{what}: {err} > {tol}"


def assert_like(got, framework, x, dtype=None):
    """``got`` is an array of ``framework`` on the GPU of ``x``'s shape, in ``dtype`` (``x``'s)."""
    dtype = np.dtype(dtype or x.dtype)
    if framework == "torch":
        assert isinstance(got, torch.Tensor) and got.is_cuda and got.dtype == TORCH[dtype.type]
    else:
        assert isinstance(got, cupy.ndarray) and got.dtype == dtype
    assert tuple(got.shape) == x.shape


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32, np.float64])
@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda v: str(v[0]))
def test_torch_and_cupy_equal_numpy_bit_for_bit(mode, dtype, layout):
    shape, kw = layout
    x = random(shape, dtype, 1)
    for k in (3, 7):
        w = weights(k, k, signed=dtype == np.int16)
        for cval in (200.0, 100.5) if dtype == np.uint8 else (0.5,):
            want = ferroconv.correlate(x, w, mode=mode, cval=cval, **kw)
            for framework in FRAMEWORKS:
                got = ferroconv.correlate(to_device(framework, x), w, mode=mode, cval=cval, **kw)
                assert_like(got, framework, x)
                assert_same(to_numpy(got), want, w, f"{framework} k={k} cval={cval}")


def test_shapes_sizes_volumes_and_depths_equal_numpy():
    # Rectangles with origins, a rank-1 filter past 31, 3-D weights (a sum of 2D filters of
    # slabs), the separable filters, and cv.filter2d's depths (OpenCV's arithmetic) on device
    # arrays: the numpy path's result, bit for bit, in the framework's dtype.
    x = random((2, 45, 52, 3), np.uint8, 5)
    vol = random((9, 14, 17), np.float32, 6)
    calls = [
        (x, lambda a: ferroconv.correlate(a, np.random.default_rng(6).random((3, 8)), mode="mirror", origin=(1, -3), axes=(1, 2))),
        (x, lambda a: ferroconv.correlate(a, np.outer(np.hanning(63) + 0.01, np.hanning(5) + 0.01), axes=(1, 2))),
        (vol, lambda a: ferroconv.correlate(a, np.random.default_rng(7).random((3, 4, 5)) - 0.5, mode="wrap", origin=(1, -1, 2))),
        (vol, lambda a: ferroconv.gaussian_filter(a, (1.0, 2.0, 0.7), order=(0, 1, 0), mode="nearest")),
        (x, lambda a: ferroconv.uniform_filter(a, 5, channel_axis=-1)),
        (vol, lambda a: ferroconv.sobel(a, 1, mode="constant", cval=0.5)),
        (vol, lambda a: ferroconv.gaussian_gradient_magnitude(a, 1.5)),
    ]
    for i, (data, call) in enumerate(calls):
        want = call(data)
        for framework in FRAMEWORKS:
            got = call(to_device(framework, data))
            assert_like(got, framework, data)
            assert np.array_equal(to_numpy(got), want), f"{framework} call {i}"
    sobel = np.outer([1.0, 2.0, 1.0], [-1.0, 0.0, 1.0])
    img = x[0]
    for ddepth, tdt in ((cv.CV_16S, torch.int16), (cv.CV_32F, torch.float32)):
        want = cv.filter2d(img, ddepth, sobel, delta=3)
        t = cv.filter2d(torch.from_numpy(img).cuda(), ddepth, sobel, delta=3)
        c = cv.filter2d(cupy.asarray(img), ddepth, sobel, delta=3)
        assert t.dtype == tdt and c.dtype == want.dtype
        assert np.array_equal(t.cpu().numpy(), want) and np.array_equal(cupy.asnumpy(c), want)
        dst = torch.empty(img.shape, dtype=tdt, device="cuda")
        assert cv.filter2d(torch.from_numpy(img).cuda(), ddepth, sobel, dst=dst, delta=3) is dst
        assert np.array_equal(dst.cpu().numpy(), want)


def test_general_filters_past_31_equal_numpy():
    # Filters that are not rank 1, past 31 x 31 (blocks of taps on the tensor cores; float64 on
    # its kernel), gray and RGB: the numpy path's result (float64 within its rounding bound).
    rng = np.random.default_rng(9)
    for dtype, shape, w, kw in (
        (np.float32, (2, 45, 52, 3), rng.random((63, 63)) - 0.5, {"axes": (1, 2)}),
        (np.float64, (70, 81), rng.random((45, 9)) - 0.5, {}),
    ):
        x = random(shape, dtype, 10)
        want = ferroconv.correlate(x, w, mode="mirror", **kw)
        for framework in FRAMEWORKS:
            got = ferroconv.correlate(to_device(framework, x), w, mode="mirror", **kw)
            assert_same(to_numpy(got), want, w, framework)


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_output_keeps_its_memory(framework):
    x = random((3, 64, 80), np.float32, 1)
    w = weights(5, 1)
    want = ferroconv.correlate(x, w, mode="mirror", axes=(-2, -1))
    a = to_device(framework, x)
    out = to_device(framework, np.full(x.shape, np.nan, np.float32))
    ptr = out.data_ptr() if framework == "torch" else out.data.ptr
    assert ferroconv.correlate(a, w, mode="mirror", output=out, axes=(-2, -1)) is out
    sync()
    assert (out.data_ptr() if framework == "torch" else out.data.ptr) == ptr
    assert np.array_equal(to_numpy(out), want)
    # An output of another dtype, and a dtype (numpy's or the framework's): scipy's result there.
    want64 = ferroconv.correlate(x, w, mode="mirror", axes=(-2, -1), output=np.float64)
    out64 = to_device(framework, np.full(x.shape, np.nan))
    assert ferroconv.correlate(a, w, mode="mirror", output=out64, axes=(-2, -1)) is out64
    as_dtype = ferroconv.correlate(a, w, mode="mirror", output=torch.float64 if framework == "torch" else np.float64, axes=(-2, -1))
    assert_like(as_dtype, framework, x, np.float64)
    assert_same(to_numpy(out64), want64, w, "out64")
    assert_same(to_numpy(as_dtype), want64, w, "output=float64")


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_work_queued_on_a_side_stream_is_ordered(framework):
    # The inputs written on a side stream behind SPIN cycles, not yet when ferroconv is called in
    # that stream's context: the calls must run after the writes, on that stream.
    x = random((2048, 2048), np.float32, 3)
    u8 = random((512, 640, 3), np.uint8, 4)
    w = weights(5, 3)
    a, b = to_device(framework, x), to_device(framework, u8)
    side = torch.cuda.Stream() if framework == "torch" else cupy.cuda.Stream(non_blocking=True)
    handle = side.cuda_stream if framework == "torch" else side.ptr
    # The plans made (and their kernels loaded) first: the calls below only queue work.
    ferroconv.correlate(a, w, mode="nearest"), ferroconv.gaussian_filter(b, 2.0, channel_axis=-1)
    z, v = written_late(framework, handle, (x.shape, x.dtype, lambda: a * 3.0 + 1.0), (u8.shape, u8.dtype, lambda: b // 2 + 7))
    with torch.cuda.stream(side) if framework == "torch" else side:
        got = [ferroconv.correlate(z, w, mode="nearest"), ferroconv.gaussian_filter(v, 2.0, channel_axis=-1)]
    side.synchronize()
    want = [ferroconv.correlate(x * 3 + 1, w, mode="nearest"), ferroconv.gaussian_filter(u8 // 2 + 7, 2.0, channel_axis=-1)]
    for g, want_i in zip(got, want):
        assert np.array_equal(to_numpy(g), want_i)


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_a_stream_handle_orders_the_call_after_that_streams_work(framework):
    # stream= a raw handle, called from the default stream's context: the call is queued on
    # that stream, after the work there (SPIN cycles, then the input written over NaN).
    x = random((1024, 1536), np.float32, 5)
    w = weights(3, 6)
    a = to_device(framework, x)
    side = torch.cuda.Stream()
    handle = side.cuda_stream
    plan = ferroconv.Filter2D(w, mode="wrap")
    # The plans made (and their kernels loaded) first: the calls below only queue work.
    ferroconv.correlate(a, w, mode="wrap"), ferroconv.uniform_filter(a, 7), plan(a)
    (z,) = written_late(framework, handle, (x.shape, x.dtype, lambda: a * 2.0 - 0.5))
    got = [
        ferroconv.correlate(z, w, mode="wrap", stream=handle),
        ferroconv.uniform_filter(z, 7, stream=handle),
        plan(z, stream=handle),
    ]
    side.synchronize()
    want = [ferroconv.correlate(x * 2 - 0.5, w, mode="wrap"), ferroconv.uniform_filter(x * 2 - 0.5, 7), plan(x * 2 - 0.5)]
    for i, (g, want_i) in enumerate(zip(got, want)):
        assert np.array_equal(to_numpy(g), want_i), f"call {i}"


def test_a_plan_called_again_takes_the_short_way_and_the_current_stream():
    # The second call of a packed float32 shape skips the checks the first made (the plan's
    # views, and the kernels' direct calls): its results still equal numpy's, and it still runs
    # on the stream current at that call, after the work queued there before it.
    plan = ferroconv.Filter2D(weights(5, 4), mode="mirror")
    for shape, dtype, kw in (((2, 64, 48), np.float32, {}), ((128, 96), np.float32, {}), ((300, 260, 4), np.uint8, {"channel_axis": -1})):
        x = random(shape, dtype, 5)
        want = plan(x, **kw)
        for framework in FRAMEWORKS:
            array = to_device(framework, x)
            for _ in range(3):
                got = plan(array, **kw)
                sync()
                assert np.array_equal(to_numpy(got), want), f"{framework} {shape}"
    kinds = {key[0] for key in plan._views}
    assert torch.Tensor in kinds and cupy.ndarray in kinds, kinds
    for framework in FRAMEWORKS:
        x = to_device(framework, random((2048, 2048), np.float32, 6))
        plan(x)
        side = torch.cuda.Stream() if framework == "torch" else cupy.cuda.Stream(non_blocking=True)
        handle = side.cuda_stream if framework == "torch" else side.ptr
        (z,) = written_late(framework, handle, (x.shape, np.float32, lambda: x * 3.0 + 1.0))
        with torch.cuda.stream(side) if framework == "torch" else side:
            y = plan(z)
        side.synchronize()
        assert np.array_equal(to_numpy(y), plan(to_numpy(x) * 3 + 1)), framework


def test_a_plan_on_8_and_16_bit_samples_wraps_as_scipy_on_the_short_way():
    # Signed weights whose results leave the type's range: the kernels' truncating store wraps
    # them as scipy's cast does, on the first call and on the repeated ones (the kept launch).
    from scipy import ndimage

    w = np.random.default_rng(7).uniform(-1, 1, (5, 5)) * 2
    plan = ferroconv.Filter2D(w, mode="nearest")
    for dtype, frameworks in ((np.uint8, FRAMEWORKS), (np.uint16, ["cupy"])):
        x = np.random.default_rng(8).integers(0, np.iinfo(dtype).max + 1, (96, 80)).astype(dtype)
        exact = ndimage.correlate(x.astype(np.float64), w, mode="nearest")
        assert (exact < 0).any() and (exact > np.iinfo(dtype).max).any()
        want = ndimage.correlate(x, w, mode="nearest")
        top = np.iinfo(dtype).max
        near = np.abs(exact - np.rint(exact)) <= 2 * w.size * 2.0**-24 * np.abs(w).sum() * top
        for framework in frameworks:
            array = to_device(framework, x)
            for _ in range(3):
                got = to_numpy(plan(array))
                sync()
                # One level apart only within float32's bound of a whole number.
                apart = (got.astype(np.int64) - want) % (top + 1)
                assert np.isin(apart, (0, 1, top)).all(), f"{framework} {dtype}"
                assert ((apart == 0) | near).all(), f"{framework} {dtype}"
    assert {key[0] for key in plan._runs} == {torch.Tensor, cupy.ndarray}


def test_strided_views():
    base = torch.rand(90, 100, 3, device="cuda")
    view = base[5:80:3, 10:90]
    got = ferroconv.correlate(view, weights(5, 4), mode="mirror", channel_axis=-1)
    want = ferroconv.correlate(view.cpu().numpy(), weights(5, 4), mode="mirror", channel_axis=-1)
    assert np.array_equal(got.cpu().numpy(), want)
    got = ferroconv.gaussian_filter(view.permute(2, 0, 1), 1.5, axes=(1, 2))
    assert np.array_equal(got.cpu().numpy(), ferroconv.gaussian_filter(view.permute(2, 0, 1).cpu().numpy(), 1.5, axes=(1, 2)))
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
    for call in (lambda a, **k: ferroconv.correlate(a, w, mode="nearest", axes=(-2, -1), **k),
                 lambda a, **k: ferroconv.gaussian_filter(a, 1.2, mode="nearest", **k)):
        want = call(x)
        got = call(DLPackOnly(torch.from_numpy(x).cuda()))
        assert isinstance(got, DLPackOnly)
        assert np.array_equal(got._t.cpu().numpy(), want)
        # Into `output=`: written in place, the same memory.
        out = torch.empty(2, 40, 50, device="cuda")
        ptr = out.data_ptr()
        back = call(DLPackOnly(torch.from_numpy(x).cuda()), output=DLPackOnly(out))
        torch.cuda.synchronize()
        assert isinstance(back, DLPackOnly) and out.data_ptr() == ptr
        assert np.array_equal(out.cpu().numpy(), want)


OVERLAP_LAYOUTS = [((256, 256), {}), ((40, 52, 3), {"channel_axis": -1}), ((3, 30, 41), {"axes": (-2, -1)}),
                   ((2, 33, 29, 4), {"axes": (1, 2)})]


@pytest.mark.parametrize("framework", FRAMEWORKS)
@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.float64])
@pytest.mark.parametrize("layout", OVERLAP_LAYOUTS, ids=lambda v: str(v[0]))
def test_output_overlapping_the_input(framework, dtype, layout):
    # The input itself as output, and a view of the same memory shifted by one row: the result
    # is computed apart and copied in (it was up to 39 off, 115 for the shifted view).
    shape, kw = layout
    x = random(shape, dtype, 11)
    w = weights(5, 12)
    want = ferroconv.correlate(x, w, mode="nearest", **kw)
    rows = -2 if len(shape) == 2 or shape[-1] > 4 else -3
    full = list(shape)
    full[rows] += 1
    buf = random(tuple(full), dtype, 13)
    index = [slice(None)] * len(shape)
    index[rows] = slice(None, -1)
    before = tuple(index)
    index[rows] = slice(1, None)
    after = tuple(index)
    shifted_want = ferroconv.correlate(np.ascontiguousarray(buf[before]), w, mode="mirror", **kw)
    d = to_device(framework, x)
    assert ferroconv.correlate(d, w, mode="nearest", output=d, **kw) is d
    sync()
    assert_same(to_numpy(d), want, w, "in place")
    b = to_device(framework, buf)
    out = b[after]
    assert ferroconv.correlate(b[before], w, mode="mirror", output=out, **kw) is out
    sync()
    assert_same(to_numpy(out), shifted_want, w, "shifted by a row")


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_gaussian_and_a_plan_into_their_own_input_on_the_gpu(framework):
    img = random((64, 80, 3), np.uint8, 14)
    want = ferroconv.gaussian_filter(img, 3, channel_axis=-1)
    t = to_device(framework, img)
    assert ferroconv.gaussian_filter(t, 3, channel_axis=-1, output=t) is t
    sync()
    assert np.array_equal(to_numpy(t), want)
    f = ferroconv.Filter2D(weights(3, 15))
    y = random((50, 60), np.float32, 16)
    want = f(y)
    a = to_device(framework, y)
    for _ in range(2):  # the second call after the plan has taken the short way once
        a[...] = to_device(framework, y)
        f(a.clone() if framework == "torch" else a.copy())
        assert f(a, output=a) is a
        sync()
        assert np.array_equal(to_numpy(a), want)


def test_an_output_of_another_kind_is_a_type_error():
    x = random((32, 40), np.float32, 17)
    t, c = torch.from_numpy(x).cuda(), cupy.asarray(x)
    w = weights(3, 18)
    for input, output in ((t, np.empty_like(x)), (c, np.empty_like(x)), (t, cupy.empty_like(c)), (c, torch.empty_like(t))):
        with pytest.raises(TypeError, match="output"):
            ferroconv.correlate(input, w, output=output)
        with pytest.raises(TypeError, match="output"):
            ferroconv.gaussian_filter(input, 1.0, output=output)
    for output in (torch.empty_like(t), cupy.empty_like(c)):
        with pytest.raises(TypeError, match="output must be a numpy.ndarray"):
            ferroconv.correlate(x, w, output=output)
    with pytest.raises(TypeError, match="dst must be a CUDA array"):
        cv.filter2d(t, cv.CV_32F, w, dst=np.empty_like(x), delta=1)
    for input, output in ((t, torch.empty(3, 3, device="cuda")), (c, cupy.empty((3, 3), cupy.float32))):
        with pytest.raises(RuntimeError, match="output"):
            ferroconv.correlate(input, w, output=output)


def _close(got, want):
    """Within float32 rounding."""
    diff = np.abs(np.asarray(got, dtype=np.float64) - np.asarray(want, dtype=np.float64)).max()
    assert diff <= 1e-5 * max(1.0, float(np.abs(want).max())), diff


def test_long_filters_fold_on_device_arrays_as_on_numpy():
    x = random((64, 48), np.float32, 19)
    for mode in MODES:
        for sigma in (1e6, 1000.0):
            want = ferroconv.gaussian_filter(x, sigma, mode=mode, cval=0.5)
            for framework in FRAMEWORKS:
                _close(to_numpy(ferroconv.gaussian_filter(to_device(framework, x), sigma, mode=mode, cval=0.5)), want)
        # Not rank 1, 150 rows folded to at most 121 on 60 rows.
        w = np.random.default_rng(20).random((150, 70)) - 0.5
        x60 = x[:60]
        want = ferroconv.correlate(x60, w, mode=mode, cval=0.5, origin=(10, -3))
        got = ferroconv.correlate(torch.from_numpy(x60).cuda(), w, mode=mode, cval=0.5, origin=(10, -3))
        _close(got.cpu().numpy(), want)
        got = ferroconv.sobel(cupy.asarray(x), 0, mode=mode, cval=0.5)
        _close(cupy.asnumpy(got), ferroconv.sobel(x, 0, mode=mode, cval=0.5))


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_weights_on_the_device_as_cupyx_takes_them(framework):
    # cupyx.scipy.ndimage takes CuPy weights: the same result as numpy weights, functions and plans.
    x, w = random((40, 50), np.float32, 3), weights(5, 4)
    want = ferroconv.correlate(x, w)
    d, dw = to_device(framework, x), to_device(framework, w)
    assert np.array_equal(to_numpy(ferroconv.correlate(d, dw)), want)
    assert np.array_equal(to_numpy(ferroconv.Filter2D(dw)(d)), want)
